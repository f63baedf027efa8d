"""Column headings and cell texts shared by the table and markdown exporters."""
from __future__ import annotations

from benchlab.statistics.combine import RERUN_AS_FAR_AS_ONE_PROCESS, RERUN_WITH_PRIOR
from benchlab.measuring.instances import INSTANCES
from benchlab.records import NOT_BUILT, printable
from benchlab.output.figures import (LEGEND, MARK_MODES, NOISE_THRESHOLD, UNINFORMATIVE_WORD, WORKLOAD_FORMAT, format_value,
                                     half_width_text, modes_text, preempted_text)
from benchlab.output.scaling import ScalingPoint, scaling
from benchlab.statistics.compare import uninformative_interval
from benchlab.output.table import RATIO_UNKNOWN_LEGEND, SPREAD_FULL, Cell, Row, SWEEP_ALIASES_OF_THREADS, Table

#: A cell's note longer than this ("not supported: <the binary's reason>") becomes a
#: numbered footnote under the table, so one reason cannot widen a table to 180 columns.
MAX_NOTE_CHARS = 24


def _shows_binary(table: Table) -> bool:
    return _once(table, "shows_binary", lambda: any(row.binary for row in table.rows))


def _once(table: Table, name: str, compute):
    """A fact of the whole table, computed on the first of its rows' cells and kept: asked
    per row, it would make the table quadratic in its rows (12,500 rows took a minute)."""
    facts = table.__dict__.setdefault("_column_facts", {})
    if name not in facts:
        facts[name] = compute()
    return facts[name]


def _param_text(table: Table, row: Row) -> str:
    if row.param is None:
        return ""
    # A threaded record's param is its thread count: in a sweep over threads it only repeats THREADS.
    if row.param_name == "threads" and (table.sweep_flag or "") in SWEEP_ALIASES_OF_THREADS:
        return ""
    return str(row.param)


def _shows_param(table: Table) -> bool:
    return _once(table, "shows_param",
                 lambda: not table.sweep_flag or any(_param_text(table, row) for row in table.rows))


def footnotes(table: Table) -> dict[str, int]:
    """Long cell notes, numbered in order of appearance (a reason shared by cells has one number)."""
    notes: dict[str, int] = {}
    for row in table.rows:
        for platform in table.platforms:
            note = _note(row.cells[platform])
            if note is not None and note not in notes:
                notes[note] = len(notes) + 1
    return notes


def _note(cell: Cell) -> str | None:
    if cell.record is not None and cell.fault is None and not cell.record.supported:
        text = cell.text
        return text if len(text) > MAX_NOTE_CHARS else None
    return None


def cell_text(cell: Cell, notes: dict[str, int], spread: str = SPREAD_FULL) -> str:
    note = _note(cell)
    if note is None:
        return cell.shown(spread)
    return f"{note.split(':', 1)[0]} [{notes[note]}]"


def footnote_lines(table: Table) -> list[str]:
    return [printable(f"[{number}] {note}") for note, number in footnotes(table).items()]


def headings(table: Table) -> list[str]:
    unit = table.common_unit
    heads = ["TEST"]
    if _shows_binary(table):
        heads.append("BINARY")
    if _shows_param(table):
        heads.append("PARAM")
    if table.sweep_flag:
        heads.append(table.sweep_flag.upper().lstrip("-"))
    if table.show_counter:
        heads.append("COUNTER")
    if unit is None:
        heads.append("UNIT")
    heads.extend(f"{p} ({unit})" if unit else p for p in table.platforms)
    heads.append("ITERATIONS")
    return [printable(head) for head in heads]


def cells(table: Table, row: Row, notes: dict[str, int] | None = None, spread: str = SPREAD_FULL) -> list[str]:
    notes = footnotes(table) if notes is None else notes
    values = [row.test]
    if _shows_binary(table):
        values.append(row.binary or "")
    if _shows_param(table):
        values.append(_param_text(table, row))
    if table.sweep_flag:
        values.append("" if row.sweep_value is None else str(row.sweep_value))
    if table.show_counter:
        values.append(row.counter)
    if table.common_unit is None:
        values.append(row.unit)
    values.extend(cell_text(row.cells[p], notes, spread) for p in table.platforms)
    values.append(row.iterations_label)
    # Names, reasons and sweep values come from binaries and files: shown escaped, one row a line.
    return [printable(value) for value in values]


def legend_lines(table: Table, intervals: bool = True) -> list[str]:
    """What the table's marks and words mean; `intervals` False: the table printed no
    interval (a narrow terminal), so neither what `±` covers, nor `uninformative`, nor a
    workload's `[a–b]` is explained."""
    lines = [f"{mark}  {LEGEND[mark]}" for mark in table.marks_used]
    lines += [f"{MARK_MODES}  {printable(row.test)}{'' if row.param is None else '/' + printable(str(row.param))} on "
              f"{cell.platform}: modes {modes_text(cell.record.figures)} of {cell.record.figures.processes} processes"
              for row in table.rows for cell in row.cells.values()
              if cell.record is not None and cell.record.figures.modes]
    lines += [f"   {printable(row.test)}{'' if row.param is None else '/' + printable(str(row.param))} on "
              f"{cell.platform}: {preempted_text(cell.record.figures)}"
              for row in table.rows for cell in row.cells.values()
              if cell.record is not None and cell.record.figures.preempted_processes]
    if not intervals:
        return lines
    every = [cell.record.figures for row in table.rows for cell in row.cells.values() if cell.record is not None]
    summaries = [s for s in every if s.earlier_runs and s.ci_scope != RERUN_AS_FAR_AS_ONE_PROCESS]
    earlier = sorted({s.earlier_runs for s in summaries if s.ci_scope != RERUN_WITH_PRIOR})
    if earlier:
        runs = f"{earlier[0]}" if len(earlier) == 1 else f"{earlier[0]}-{earlier[-1]}"
        lines.append(f"±  a rerun's figure lands within it 99% of the time: it adds to this run's processes "
                     f"the spread between {runs} earlier runs of identical code on this machine")
    if any(s.ci_scope == RERUN_WITH_PRIOR for s in summaries):
        lines.append("±  (no earlier runs of identical code: the spread between runs that this machine's prior, "
                     "benchlab calibrate, gives for the figure's kind of kernel)")
        if any(s.processes < 2 for s in summaries):
            lines.append("   (one process: with the spread between processes that those runs measured, which it cannot see)")
    if any(s.ci_scope == RERUN_AS_FAR_AS_ONE_PROCESS for s in every):
        lines.append("±  (no earlier runs of identical code and no machine prior: a rerun's figure may move as far as "
                     "one of this run's processes; benchlab calibrate measures the machine)")
    if any(cell.ratio_uninformative for row in table.rows for cell in row.cells.values()):
        lines.append(RATIO_UNKNOWN_LEGEND)
    if any(UNINFORMATIVE_WORD in cell.text for row in table.rows for cell in row.cells.values()
           if cell.record is not None):
        lines.append(f"{UNINFORMATIVE_WORD}  the interval is as wide as the figure or wider (+-100% or more: from 0 "
                     "to twice the figure), so it bounds nothing; measure more (--processes, --samples, --time)")
    if any(row.kind == WORKLOAD_FORMAT and not row.failed for row in table.rows):
        lines.append(f"[a–b]  a workload's fastest and slowest measured run; ? when half of that range is over "
                     f"{NOISE_THRESHOLD:.0%} of the median, ~ when it overlaps the first platform's")
    return lines


def description_lines(table: Table) -> list[str]:
    """`fs_read: Issues pread() ...`: the `// DESCRIPTION:` line of each program in the table
    (the run's context "descriptions"), as the Lind runner shows one per test."""
    described = ((table.run or {}).get("context") or {}).get("descriptions")
    if not isinstance(described, dict):
        return []
    # keyed by program (run) or by test (an import of the Lind runner's files)
    shown = dict.fromkeys(name for record in table.records for name in (record.binary, record.bench))
    shown.update(dict.fromkeys(fault.binary for fault in table.faults))
    return [f"{printable(binary)}: {printable(described[binary])}" for binary in shown
            if isinstance(described.get(binary), str)]


def difference_lines(table: Table) -> list[str]:
    """BL_DIFFERENCE's figures of the table's cells (each benchmark less its base), under it."""
    from benchlab.output import differences
    return differences.lines([cell.record for row in table.rows for cell in row.cells.values()
                              if cell.record is not None])


def failure_lines(table: Table) -> list[str]:
    """Each failure with its reason and the end of its stderr; the same failure of several
    processes of one binary once, with how many processes it hit."""
    groups: dict[tuple, list] = {}
    for fault in (f for f in table.faults if f.kind != NOT_BUILT):  # a `-` cell says why, not a failure
        sweep = f" {fault.sweep['flag']}={fault.sweep['value']}" if fault.sweep else ""
        groups.setdefault((fault.binary, fault.platform, sweep, fault.reason), []).append(fault)
    lines = []
    for (binary, platform, sweep, reason), group in sorted(groups.items(), key=lambda item: item[0]):
        hit = f" (in {len(group)} processes)" if len(group) > 1 else ""
        lines.append(printable(f"{binary} on {platform}{sweep}: {reason}{hit}"))
        lines.extend(f"    {printable(line)}" for line in group[0].stderr_tail)
    return lines


def partial_lines(table: Table) -> list[str]:
    """For a run that did not finish (killed, interrupted, still running): what is missing."""
    run = table.run or {}
    status, missing = run.get("status"), run.get("missing") or []
    if status not in ("killed", "interrupted", "running") and not missing:
        return []
    planned = len((run.get("context") or {}).get("plan") or [])
    if status == "running":
        head = f"run {run.get('id')} is still running"
    elif status in ("killed", "interrupted"):
        head = f"partial run: run {run.get('id')} was {status} part-way"
    else:
        head = f"partial run: run {run.get('id')} did not store every unit"
    if planned:
        head += f"; {len(missing)} of {planned} units did not finish" + (":" if missing else "")
    lines = [head]
    for unit in missing:
        sweep = f" {unit['sweep']}" if unit.get("sweep") is not None else ""
        lines.append(printable(f"    {unit.get('binary')} on {unit.get('platform')}{sweep}"))
    return lines


def scaling_tables(table: Table) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, headings, rows) per swept benchmark: `throughput (linearity)` per platform."""
    if table.sweep_flag == INSTANCES:
        return _instance_tables(table)
    tables = []
    flag = (table.sweep_flag or "").lstrip("-").upper()
    for (bench, param, counter), unit, curves in scaling(table):
        title = f"{bench}{'' if param is None else f' {param}'} {counter}: throughput ({unit}) and linearity vs {flag}"
        values = sorted({point.value for points in curves.values() for point in points})
        rows = []
        for value in values:
            row = [format_value(value)]
            for platform in table.platforms:
                point = next((p for p in curves.get(platform, []) if p.value == value), None)
                row.append("-" if point is None else scaling_cell(point))
            rows.append(row)
        tables.append((printable(title), [printable(head) for head in [flag, *table.platforms]], rows))
    return tables


def scaling_cell(point: ScalingPoint) -> str:
    """`2.41e+06 +-3.1% (0.912 [0.88, 0.95])?`: a throughput with its interval, its linearity
    with its own, and the marks of the figures it is made of; an interval that bounds nothing
    is said in words (issue 38: a 0.084 linearity from throughputs of +-64-89% looked exact)."""
    text = format_value(point.throughput)
    if point.low is not None and point.high is not None and point.throughput:
        text += " " + half_width_text(point.throughput, (point.low, point.high))
    if point.linearity_low is None or point.linearity_high is None:
        linearity = f"{point.linearity:.3f}"
    elif point.linearity_low == point.linearity_high:
        linearity = f"{point.linearity:.3f}"  # the smallest value's: 1 by definition
    elif uninformative_interval(point.linearity, point.linearity_low, point.linearity_high):
        linearity = f"linearity {UNINFORMATIVE_WORD}"
    else:
        linearity = f"{point.linearity:.3f} [{point.linearity_low:.3f}, {point.linearity_high:.3f}]"
    return f"{text} ({linearity}){point.marks}"


def _instance_tables(table: Table) -> list[tuple[str, list[str], list[list[str]]]]:
    """`--sweep instances`: per platform, the throughput summed over the copies (linearity),
    one copy's, and how much of their time the copies ran together."""
    tables = []
    names = {(r.bench, r.param, r.counter): r.param_name for r in table.records}
    for (bench, param, counter), unit, curves in scaling(table):
        if param is None:
            what = f"{bench} {counter}"
        elif names.get((bench, param, counter)) == "threads":  # a threaded target: its threads per copy
            what = f"{bench} {counter} ({param} thread{'s' if param != 1 else ''} per copy)"
        else:
            what = f"{bench} {param} {counter}"
        title = f"{what}: throughput ({unit}) summed over copies (linearity), per copy, and overlap vs INSTANCES"
        heads = ["INSTANCES"]
        for platform in table.platforms:
            heads += [f"{platform} summed", f"{platform} per copy", f"{platform} overlap"]
        rows = []
        for value in sorted({point.value for points in curves.values() for point in points}):
            row = [format_value(value)]
            for platform in table.platforms:
                point = next((p for p in curves.get(platform, []) if p.value == value), None)
                if point is None:
                    row += ["-", "-", "-"]
                    continue
                summed = scaling_cell(point)
                if point.failed_copies:
                    failed = point.failed_copies
                    summed += f" [cop{'y' if len(failed) == 1 else 'ies'} {', '.join(map(str, failed))} of {value:g} failed]"
                overlap = "-" if point.overlap is None else f"{100 * point.overlap:.0f}%"
                row += [summed, format_value(point.per_copy), overlap]
            rows.append(row)
        tables.append((printable(title), [printable(head) for head in heads], rows))
    return tables
