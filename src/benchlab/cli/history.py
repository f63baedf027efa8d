"""`benchlab history NAME`: a benchmark's figure over its stored runs, level shifts marked.

A history is one series: one benchmark (and param, counter, platform) on one machine.
The machine is its *host fingerprint*: the host name, the CPU model and the kernel
release of the run's context. All three, because a series that mixes machines shows
the machines' difference as a shift: a name alone is reused (a rebuilt VM, two laptops
called `dev`), a CPU model alone is shared by a fleet, and syscall costs move with the
kernel. By default the fingerprint is the latest run's; the others are named in a note,
each with how to pick it (`--host`).
"""
from __future__ import annotations

import dataclasses
import difflib
import sys
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.table import Table

from benchlab.statistics import changepoints, noise
from benchlab.statistics.combine import history_key, knows_process_spread
from benchlab.cli.common import config_of, db_option, open_store
from benchlab.errors import UserError
from benchlab.formats.exporters.json import document_text
from benchlab.records import Record, printable
from benchlab.output.figures import figures, format_value, half_width_text
from benchlab.output.fitting import terminal_width

FORMATS = ("table", "json", "markdown")


#: The machine of a run (noise.py): host name, CPU model, kernel release and architecture.
Fingerprint = noise.Machine


@dataclasses.dataclass
class Point:
    """One run's figure in the series."""

    run: dict[str, Any]
    record: Record

    @property
    def date(self) -> str:
        return str((self.run["context"] or {}).get("date") or self.run["started_at"] or "")

    @property
    def git(self) -> dict[str, Any]:
        return (self.run["context"] or {}).get("git") or {}

    @property
    def commit(self) -> str:
        return (self.git.get("commit") or "")[:10] + ("+" if self.git.get("dirty") else "")

    @property
    def interval(self) -> list[float] | None:
        ci = self.record.summary.get("median_ci")
        return [float(ci[0]), float(ci[1])] if ci else None


@click.command("history")
@click.argument("name")
@click.option("--platform", help="Platform of the series (default: the first platform of the latest run with NAME).")
@click.option("--counter", default="time", show_default=True, help="Counter of the series.")
@click.option("--param", help="Parameter value (needed when NAME has several).")
@click.option("--host", "host", metavar="HOST",
              help="Machine: a host name, or a fingerprint id from the note (default: the latest run's).")
@click.option("--last", type=click.IntRange(min=1, max=2**31), help="Only the latest N runs of the series.")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format.")
@db_option
@click.pass_context
def command(context: click.Context, name: str, platform: str | None, counter: str, param: str | None,
            host: str | None, last: int | None, output_format: str, db_url: str | None) -> int:
    """NAME's figure (the combined median and its interval) over the stored runs, oldest first,
    one row per run with its date, git commit and host, and the level shifts found in it
    (PELT on log values; docs/cli.md, `benchlab history`).

    A series is one machine (host name, CPU model and kernel: --host), one platform, one
    counter and one parameter value."""
    store = open_store(config_of(context), db_url)
    runs = store.bench_history(name)
    if not runs:
        raise UserError(f"no benchmark {name!r} in any stored run", _close_names(name, store.bench_names()))
    points, notes = select_series(name, runs, platform=platform, counter=counter, param=param, host=host)
    if last is not None:
        points = points[-last:]
    found = changepoints.detect([p.record.median for p in points]) if len(points) > 1 else []
    for note in notes:
        click.echo(f"note: {note}", err=True)
    render = {"table": _table, "json": _json, "markdown": _markdown}[output_format]
    click.echo(render(points, found), nl=False)
    return 0


def _close_names(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.5)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    if not names:
        return "the database has no results: store runs with benchlab run"
    return "stored benchmarks: " + ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")


def _param_text(record: Record) -> str:
    return "" if record.param is None else str(record.param)


def select_series(name: str, runs: list[tuple[dict[str, Any], list[Record]]], *, platform: str | None = None,
                  counter: str = "time", param: str | None = None,
                  host: str | None = None) -> tuple[list[Point], list[str]]:
    """The series of NAME the options pick: its points oldest first, and notes on what was left out."""
    # Each run's figures: its processes combined, as `show` prints them.
    measured = [(run, record) for run, records in runs for record in figures(records)
                if record.supported and record.median is not None]
    if not measured:
        raise UserError(f"benchmark {name!r} has no figure in any stored run (every record failed or is not supported)",
                        "store a run in which it measures: benchlab run")
    notes: list[str] = []
    candidates = measured

    counters = sorted({r.counter for _, r in candidates})
    candidates = [(run, r) for run, r in candidates if r.counter == counter]
    if not candidates:
        raise UserError(f"benchmark {name!r} has no {counter!r} counter stored",
                        "give --counter " + " or --counter ".join(counters))

    params = sorted({_param_text(r) for _, r in candidates}, key=lambda p: (len(p), p))
    if param is None and len(params) > 1:
        raise UserError(f"benchmark {name!r} has several parameter values: {', '.join(params)}",
                        f"pick one with --param {params[0]}")
    if param is not None:
        if param not in params:
            shown = ", ".join(p or "(none)" for p in params)
            raise UserError(f"benchmark {name!r} has no parameter value {param!r}", f"its values: {shown}")
        candidates = [(run, r) for run, r in candidates if _param_text(r) == param]

    platforms = {r.platform for _, r in candidates}
    if platform is None:
        latest_run = max(run["id"] for run, _ in candidates)
        latest = [r.platform for run, r in candidates if run["id"] == latest_run]
        order = list((next(run for run, _ in candidates if run["id"] == latest_run).get("context") or {})
                     .get("platforms") or {})
        platform = min(latest, key=lambda p: order.index(p) if p in order else len(order))
        others = sorted(platforms - {platform})
        if others:
            notes.append(f"platform {platform}; also stored on {', '.join(others)} (pick with --platform)")
    elif platform not in platforms:
        raise UserError(f"benchmark {name!r} has no {counter!r} figure on platform {platform!r}",
                        "its platforms: " + ", ".join(sorted(platforms)))
    candidates = [(run, r) for run, r in candidates if r.platform == platform]

    candidates, host_notes = _pick_host(candidates, host)
    notes.extend(host_notes)

    by_run: dict[int, list[tuple[dict[str, Any], Record]]] = {}
    for run, record in candidates:
        by_run.setdefault(run["id"], []).append((run, record))
    series_keys = {(r.binary, r.sweep["value"] if r.sweep else None) for _, r in candidates}
    if len(series_keys) > 1:
        shown = ", ".join(f"binary {b}" + (f" sweep {s}" if s is not None else "") for b, s in sorted(series_keys, key=str))
        raise UserError(f"benchmark {name!r} is measured by several binaries or sweep values on {platform}: {shown}",
                        "rename one of them, or give their runs separate databases (--db)")
    # Shifts are relative (after/before), so a figure of 0 (a counter that counted nothing,
    # a cost indistinguishable from the empty loop) has no place in the series: said, not hidden.
    zeros = sorted(run_id for run_id, pairs in by_run.items() if pairs[0][1].median <= 0)
    if zeros and len(zeros) == len(by_run):
        raise UserError(f"benchmark {name!r} has a figure of 0 in every run of this series",
                        "a shift is a ratio: pick a counter or parameter that measures more than 0")
    if zeros:
        notes.append(f"{len(zeros)} runs with a figure of 0 left out (runs {', '.join(map(str, zeros[:10]))}"
                     f"{', ...' if len(zeros) > 10 else ''}): a shift is a ratio")
    points = [Point(run, record) for pairs in by_run.values() for run, record in pairs if record.median > 0]
    points.sort(key=lambda p: (p.date, p.run["id"]))
    return with_run_levels(points, {run["id"]: records for run, records in runs}), notes


def with_run_levels(points: list[Point], records_by_run: dict[int, list[Record]]) -> list[Point]:
    """Each point's figure combined again with the between-run noise of the (at most 20)
    points before it that measured identical code (noise.py), as `show` combines a run:
    the interval column then reads as `show`'s does, a rerun's range. A point whose code
    changed starts a new history: the change is not noise."""
    result = []
    # Each point's run figure, None for a run of one process (it cannot tell its spread).
    run_figures = [noise.run_figure(p.record.summary.get("process_medians") or []) for p in points]
    codes = [_code_of(p) for p in points]
    for j, point in enumerate(points):
        same = [f for f, code in zip(run_figures[:j], codes[:j]) if f is not None and code is not None
                and code == codes[j]]
        level = noise.estimate(same)  # the last 20 of them
        if level is not None and (point.record.summary.get("processes", 1) > 1 or knows_process_spread(level)):
            key = history_key(point.record)
            mine = [r for r in records_by_run[point.run["id"]] if history_key(r) == key]  # this figure's processes only
            again = figures(mine, {key: level})
            # One figure per key, as nearly always; a binary that prints a key twice keeps
            # its figures as stored rather than risk pairing the wrong one.
            point = Point(point.run, again[0]) if len(again) == 1 else point
        result.append(point)
    return result


def _code_of(point: Point) -> str | None:
    """The identity of the code a point measured (noise.code_id), None when its run has none."""
    return noise.codes_of(point.run.get("context")).get(noise.code_label(point.record.binary, point.record.platform))


def _pick_host(candidates: list[tuple[dict[str, Any], Record]],
               host: str | None) -> tuple[list[tuple[dict[str, Any], Record]], list[str]]:
    prints: dict[Fingerprint, list[int]] = {}
    for run, _ in candidates:
        prints.setdefault(Fingerprint.of_run(run), []).append(run["id"])
    listing = "; ".join(f"{fp.id} = {fp.label()}: {len(set(ids))} runs" for fp, ids in
                        sorted(prints.items(), key=lambda item: -max(item[1])))
    if host is None:
        chosen = max(prints, key=lambda fp: max(prints[fp]))  # the latest run's
    else:
        matches = [fp for fp in prints if host == fp.id] or [fp for fp in prints if host == fp.host]
        if not matches:
            raise UserError(f"no run of this series on host {host!r}", f"its machines: {listing}")
        if len(matches) > 1:
            raise UserError(f"host {host!r} has several fingerprints (CPU or kernel changed) in this series",
                            "pick one by its id: " + "; ".join(f"--host {fp.id} = {fp.label()}" for fp in matches))
        chosen = matches[0]
    notes = []
    if len(prints) > 1:
        left = sum(len(set(ids)) for fp, ids in prints.items() if fp != chosen)
        notes.append(f"host {chosen.label()}; {left} runs on other machines left out: {listing} "
                     "(pick one with --host ID or --host HOSTNAME)")
    return [(run, r) for run, r in candidates if Fingerprint.of_run(run) == chosen], notes


# -- output -------------------------------------------------------------------------------------

def _change_at(found: list[changepoints.ChangePoint]) -> dict[int, changepoints.ChangePoint]:
    return {cp.index: cp for cp in found}


def _interval_text(point: Point) -> str:
    ci, median = point.interval, point.record.median
    if not ci or not median:
        return ""
    return half_width_text(median, ci)


def _shift_text(cp: changepoints.ChangePoint) -> str:
    return f"shift {cp.change * 100:+.1f}% ({format_value(cp.before)} -> {format_value(cp.after)})"


def _title(points: list[Point]) -> str:
    record = points[-1].record
    param = f" {record.param_name or 'param'}={record.param}" if record.param is not None else ""
    return printable(f"{record.bench}{param}: {record.counter} ({record.unit}) on {record.platform}, "
                     f"host {Fingerprint.of_run(points[-1].run).label()}")


def _summary(points: list[Point], found: list[changepoints.ChangePoint]) -> str:
    # The scale the change-point search divides by (changepoints.noise_level), not a rerun's
    # spread: that is the INTERVAL column's, from identical code only (noise.py).
    scale = changepoints.noise_level([p.record.median for p in points]) if len(points) > 2 else None
    noise_text = f", run-to-run noise {scale * 100:.2g}%" if scale is not None else ""
    if not found:
        return f"no level shift in {len(points)} runs{noise_text}\n"
    lines = [f"{len(found)} level shift{'s' if len(found) > 1 else ''} in {len(points)} runs{noise_text}:"]
    for cp in found:
        point = points[cp.index]
        lines.append(f"  from run {point.run['id']} ({point.date}, commit {point.commit or 'unknown'}): "
                     f"{format_value(cp.before)} -> {format_value(cp.after)} {point.record.unit} ({cp.change * 100:+.1f}%)")
    return "\n".join(lines) + "\n"


def _rows(points: list[Point], found: list[changepoints.ChangePoint]) -> list[list[str]]:
    shifts = _change_at(found)
    return [[str(p.run["id"]), p.date, p.commit, Fingerprint.of_run(p.run).host or "", format_value(p.record.median),
             _interval_text(p), _shift_text(shifts[i]) if i in shifts else ""] for i, p in enumerate(points)]


HEADERS = ("RUN", "DATE", "COMMIT", "HOST", "FIGURE", "INTERVAL", "CHANGE")


def _table(points: list[Point], found: list[changepoints.ChangePoint]) -> str:
    table = Table(*HEADERS, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for column in (0, 4, 5):
        table.columns[column].justify = "right"
    for row in _rows(points, found):
        table.add_row(*row)
    # A terminal's width (COLUMNS, else the terminal's: output/fitting.py); 200 for a pipe.
    console = Console(highlight=False, width=terminal_width(sys.stdout) or 200, file=None, record=True,
                      force_terminal=False)
    with console.capture() as captured:
        console.print(table)
    return _title(points) + "\n" + captured.get() + _summary(points, found)


def _markdown(points: list[Point], found: list[changepoints.ChangePoint]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    lines = [f"**{cell(_title(points))}**", "", "| " + " | ".join(HEADERS) + " |",
             "|" + "|".join("---:" if i in (0, 4, 5) else "---" for i in range(len(HEADERS))) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in _rows(points, found)]
    return "\n".join(lines) + "\n\n" + _summary(points, found)


def _json(points: list[Point], found: list[changepoints.ChangePoint]) -> str:
    record = points[-1].record
    values = [p.record.median for p in points]
    document = {
        "bench": record.bench, "param": record.param, "param_name": record.param_name, "counter": record.counter,
        "unit": record.unit, "platform": record.platform, "host": Fingerprint.of_run(points[-1].run).to_dict(),
        "method": {"name": "PELT (ruptures), L2 cost on log values", "penalty": changepoints.default_penalty(len(values)),
                   "min_size": changepoints.MIN_SEGMENT, "min_change": changepoints.MIN_CHANGE,
                   "noise": changepoints.noise_level(values) if len(values) > 2 else None},
        "runs": [{"run": p.run["id"], "date": p.date, "commit": p.git.get("commit"), "dirty": p.git.get("dirty"),
                  "host": Fingerprint.of_run(p.run).host, "median": p.record.median, "interval": p.interval,
                  "processes": p.record.summary.get("processes", 1), "status": p.run["status"]} for p in points],
        "change_points": [{**cp.to_dict(), "run": points[cp.index].run["id"]} for cp in found],
    }
    return document_text(document)
