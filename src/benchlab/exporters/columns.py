"""Column headings and cell texts shared by the table and markdown exporters."""
from __future__ import annotations

from benchlab.report import LEGEND, Report, Row, format_value, scaling


def headings(report: Report) -> list[str]:
    unit = report.common_unit
    heads = ["TEST", "PARAM"]
    if report.sweep_flag:
        heads.append(report.sweep_flag.upper().lstrip("-"))
    if report.show_counter:
        heads.append("COUNTER")
    if unit is None:
        heads.append("UNIT")
    heads.extend(f"{p} ({unit})" if unit else p for p in report.platforms)
    heads.append("ITERATIONS")
    return heads


def cells(report: Report, row: Row) -> list[str]:
    values = [row.test, "" if row.param is None else str(row.param)]
    if report.sweep_flag:
        values.append("" if row.sweep_value is None else str(row.sweep_value))
    if report.show_counter:
        values.append(row.counter)
    if report.common_unit is None:
        values.append(row.unit)
    values.extend(row.cells[p].text for p in report.platforms)
    values.append("" if row.iterations is None else str(row.iterations))
    return values


def legend_lines(report: Report) -> list[str]:
    return [f"{mark}  {LEGEND[mark]}" for mark in report.marks_used]


def failure_lines(report: Report) -> list[str]:
    """Each failure with its reason and the end of its stderr; the same failure of several
    processes of one binary once, with how many processes it hit."""
    groups: dict[tuple, list] = {}
    for fault in report.faults:
        sweep = f" {fault.sweep['flag']}={fault.sweep['value']}" if fault.sweep else ""
        groups.setdefault((fault.binary, fault.platform, sweep, fault.reason), []).append(fault)
    lines = []
    for (binary, platform, sweep, reason), group in sorted(groups.items(), key=lambda item: item[0]):
        hit = f" (in {len(group)} processes)" if len(group) > 1 else ""
        lines.append(f"{binary} on {platform}{sweep}: {reason}{hit}")
        lines.extend(f"    {line}" for line in group[0].stderr_tail)
    return lines


def scaling_tables(report: Report) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, headings, rows) per swept benchmark: `throughput (linearity)` per platform."""
    tables = []
    flag = (report.sweep_flag or "").lstrip("-").upper()
    for (bench, param, counter), unit, curves in scaling(report):
        title = f"{bench}{'' if param is None else f' {param}'} {counter}: throughput ({unit}) and linearity vs {flag}"
        values = sorted({point.value for points in curves.values() for point in points})
        rows = []
        for value in values:
            row = [format_value(value)]
            for platform in report.platforms:
                point = next((p for p in curves.get(platform, []) if p.value == value), None)
                row.append("-" if point is None else f"{format_value(point.throughput)} ({point.linearity:.3f})")
            rows.append(row)
        tables.append((title, [flag, *report.platforms], rows))
    return tables
