"""`benchlab history`'s output: a series (statistics/series.py) and its level shifts as a
table, Markdown or JSON (docs/cli.md, `benchlab history`)."""
from __future__ import annotations

import sys

from rich import box
from rich.console import Console
from rich.table import Table

from benchlab.output.exporters.json import document_text
from benchlab.output.figures import format_value, half_width_text
from benchlab.output.fitting import terminal_width
from benchlab.records import printable
from benchlab.statistics import changepoints
from benchlab.statistics.series import Fingerprint, Point, Series, Shift, busy

FORMATS = ("table", "json", "markdown")


def render(series: Series, shifts: list[Shift], output_format: str) -> str:
    """The series in `output_format` (one of FORMATS)."""
    return {"table": _table, "json": _json, "markdown": _markdown}[output_format](series, shifts)


def _shift_at(shifts: list[Shift]) -> dict[int, Shift]:
    return {shift.change.index: shift for shift in shifts}


def _interval_text(point: Point) -> str:
    ci, median = point.interval, point.record.median
    if not ci or not median:
        return ""
    return half_width_text(median, ci)


def _coincides_text(shift: Shift) -> str:
    return "".join(f"; {c.kind} {c.before} -> {c.after}" for c in shift.coincides)


def _shift_text(shift: Shift) -> str:
    cp = shift.change
    return (f"shift {cp.change * 100:+.1f}% ({format_value(cp.before)} -> {format_value(cp.after)})"
            + _coincides_text(shift))


def _title(points: list[Point]) -> str:
    record = points[-1].record
    param = f" {record.param_name or 'param'}={record.param}" if record.param is not None else ""
    return printable(f"{record.bench}{param}: {record.counter} ({record.unit}) on {record.platform}, "
                     f"host {Fingerprint.of_run(points[-1].run).label()}")


def _summary(points: list[Point], shifts: list[Shift]) -> str:
    # The scale the change-point search divides by (changepoints.noise_level), not a rerun's
    # spread: that is the INTERVAL column's, from identical code only (noise.py).
    scale = changepoints.noise_level([p.record.median for p in points]) if len(points) > 2 else None
    noise_text = f", run-to-run noise {scale * 100:.2g}%" if scale is not None else ""
    if not shifts:
        return f"no level shift in {len(points)} runs{noise_text}\n"
    lines = [f"{len(shifts)} level shift{'s' if len(shifts) > 1 else ''} in {len(points)} runs{noise_text}:"]
    for shift in shifts:
        cp, point = shift.change, points[shift.change.index]
        lines.append(f"  from run {point.run['id']} ({point.date}, commit {point.commit or 'unknown'}): "
                     f"{format_value(cp.before)} -> {format_value(cp.after)} {point.record.unit} ({cp.change * 100:+.1f}%)")
        lines += [f"    coincides with a change of {c.kind} ({c.before} -> {c.after}): it may be the machine's, "
                  "not the code's" for c in shift.coincides]
    return "\n".join(lines) + "\n"


def _rows(points: list[Point], shifts: list[Shift]) -> list[list[str]]:
    at = _shift_at(shifts)
    return [[str(p.run["id"]), p.date, p.commit, Fingerprint.of_run(p.run).host or "", format_value(p.record.median),
             _interval_text(p), _shift_text(at[i]) if i in at else ""] for i, p in enumerate(points)]


HEADERS = ("RUN", "DATE", "COMMIT", "HOST", "FIGURE", "INTERVAL", "CHANGE")


def _table(series: Series, shifts: list[Shift]) -> str:
    points = series.points
    table = Table(*HEADERS, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in (0, 4, 5):
        table.columns[column].justify = "right"
    for row in _rows(points, shifts):
        table.add_row(*row)
    # A terminal's width (COLUMNS, else the terminal's: output/fitting.py); 200 for a pipe.
    console = Console(highlight=False, width=terminal_width(sys.stdout) or 200, file=None, record=True,
                      force_terminal=False)
    with console.capture() as captured:
        console.print(table)
    return _title(points) + "\n" + captured.get() + _summary(points, shifts)


def _markdown(series: Series, shifts: list[Shift]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    points = series.points
    lines = [f"**{cell(_title(points))}**", "", "| " + " | ".join(HEADERS) + " |",
             "|" + "|".join("---:" if i in (0, 4, 5) else "---" for i in range(len(HEADERS))) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in _rows(points, shifts)]
    return "\n".join(lines) + "\n\n" + _summary(points, shifts)


def _json(series: Series, shifts: list[Shift]) -> str:
    points = series.points
    record = points[-1].record
    values = [p.record.median for p in points]
    document = {
        "bench": record.bench, "param": record.param, "param_name": record.param_name, "counter": record.counter,
        "unit": record.unit, "platform": record.platform, "host": Fingerprint.of_run(points[-1].run).to_dict(),
        "method": {"name": "PELT, L2 cost on log values", "penalty": changepoints.default_penalty(len(values)),
                   "min_size": changepoints.MIN_SEGMENT, "min_change": changepoints.MIN_CHANGE,
                   "noise": changepoints.noise_level(values) if len(values) > 2 else None},
        "runs": [{"run": p.run["id"], "date": p.date, "commit": p.git.get("commit"), "dirty": p.git.get("dirty"),
                  "host": Fingerprint.of_run(p.run).host, "median": p.record.median, "interval": p.interval,
                  "processes": p.record.figures.processes, "status": p.run["status"], "busy": busy(p)}
                 for p in points],
        # Whether the series has runs before the first shown (--last N shows more).
        "earlier_runs": series.earlier,
        "change_points": [{**shift.change.to_dict(), "run": points[shift.change.index].run["id"],
                           "coincides": [c.to_dict() for c in shift.coincides]} for shift in shifts],
    }
    return document_text(document)
