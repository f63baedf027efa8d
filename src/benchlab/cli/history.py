"""`benchlab history NAME`: a benchmark's figure over its stored runs, level shifts marked.

A history is one series: one benchmark (and param, counter, platform) on one machine.
The machine is its *host fingerprint*: the host name, the CPU model and the kernel
release of the run's context. All three, because a series that mixes machines shows
the machines' difference as a shift: a name alone is reused (a rebuilt VM, two laptops
called `dev`), a CPU model alone is shared by a fleet, and syscall costs move with the
kernel. By default the fingerprint is the latest run's; the others are named in a note,
each with how to pick it (`--host`).

It reads what it shows and no more (issue 29: 130 CPU seconds on a store of 10,000 runs):
the latest runs of the series (`--last`, 100 by default) and the 20 before them, newest
first a page at a time, each query limited in SQL (read_series). A shift whose two levels
differ in the machine's load or in the machine is said to coincide with it (coinciding).
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

from benchlab.statistics import changepoints, contention, noise
from benchlab.statistics.combine import history_key, knows_process_spread
from benchlab.cli.common import config_of, db_option, open_store
from benchlab.errors import UserError
from benchlab.output.exporters.json import document_text
from benchlab.records import Record, printable
from benchlab.output.figures import format_value, half_width_text
from benchlab.statistics.combine import figures
from benchlab.output.fitting import terminal_width

FORMATS = ("table", "json", "markdown")
#: Runs of a series shown without --last: a screenful of history, and the length the change
#: points' penalty is calibrated for (up to 200 runs: changepoints.MAX_WINDOW).
DEFAULT_LAST = 100
#: Runs of the series read before the first one shown, for the run level in the intervals of
#: the first ones (with_run_levels): `show` takes it from the latest noise.MAX_EARLIER_RUNS
#: runs of identical code, which these are unless the code changed among them.
LOOKBACK = noise.MAX_EARLIER_RUNS


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
        ci = self.record.figures.interval
        return [float(ci.low), float(ci.high)] if ci else None


@click.command("history")
@click.argument("name")
@click.option("--platform", help="Platform of the series (default: the first platform of the latest run with NAME).")
@click.option("--counter", default="time", show_default=True, help="Counter of the series.")
@click.option("--param", help="Parameter value (needed when NAME has several).")
@click.option("--host", "host", metavar="HOST",
              help="Machine: a host name, or a fingerprint id from the note (default: the latest run's).")
@click.option("--last", type=click.IntRange(min=1, max=2**31),
              help=f"Only the latest N runs of the series (default {DEFAULT_LAST}).")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format.")
@db_option
@click.pass_context
def command(context: click.Context, name: str, platform: str | None, counter: str, param: str | None,
            host: str | None, last: int | None, output_format: str, db_url: str | None) -> int:
    """NAME's figure (the combined median and its interval) over its latest stored runs, oldest
    first, one row per run with its date, git commit and host, and the level shifts found in it
    (PELT on log values; docs/cli.md, `benchlab history`).

    A series is one machine (host name, CPU model and kernel: --host), one platform, one
    counter and one parameter value."""
    store = open_store(config_of(context), db_url)
    series = read_series(store, name, platform=platform, counter=counter, param=param, host=host,
                         last=last or DEFAULT_LAST)
    points = series.points
    found = changepoints.detect([p.record.median for p in points]) if len(points) > 1 else []
    shifts = [Shift(cp, coinciding(points, found, index)) for index, cp in enumerate(found)]
    notes = series.notes
    if series.earlier and last is None:
        notes = notes + [f"the latest {len(points)} runs of the series; earlier ones are not shown "
                         "(--last N shows more)"]
    for note in notes:
        click.echo(f"note: {note}", err=True)
    render = {"table": _table, "json": _json, "markdown": _markdown}[output_format]
    click.echo(render(series, shifts), nl=False)
    return 0


# -- reading: only what is shown ----------------------------------------------------------------

@dataclasses.dataclass
class Series:
    """The runs of a series `history` shows, oldest first, and what was left out."""

    points: list[Point]
    notes: list[str]
    #: Whether the series has runs before the first shown (read: they gave it its run level).
    earlier: bool


class _NotFoundYet(UserError):
    """A series not found in the runs read so far, which older runs may still hold."""


def read_series(store, name: str, *, platform: str | None, counter: str, param: str | None, host: str | None,
                last: int) -> Series:
    """The latest `last` runs of NAME's series, each with the run level of the runs of identical
    code before it (with_run_levels), read from the newest run back a page at a time
    (Store.bench_runs): a page of `last` + LOOKBACK runs of NAME, the records of those on the
    series' machine (Store.bench_records), and another page only while the series has fewer
    runs than that (other machines' runs took their place). So the cost is that of the runs
    shown, whatever the store holds."""
    page_size = last + LOOKBACK
    rows: list[dict[str, Any]] = []  # every run of NAME read, newest first
    read = _Read(store, name, counter, platform, param)
    while True:
        page = store.bench_runs(name, counter, limit=page_size, before=rows[-1]["id"] if rows else None,
                                platform=platform, param=param)
        rows += page
        exhausted = len(page) < page_size
        if not rows:
            raise _not_stored(store, name, counter, platform, param)
        try:
            scope = "" if exhausted else f" of the latest {len(rows)} runs of {name}"
            machine, machine_notes = _pick_machine(rows, host, scope)
            read.add([run for run in page if Fingerprint.of_run(run) == machine])
            points, notes = select_series(name, read.measured, platform=platform, param=param)
        except _NotFoundYet:
            if exhausted:
                raise
            continue
        if exhausted or len(points) >= page_size:
            first_shown = max(0, len(points) - last)
            return Series(with_run_levels(points, read.records, first_shown), notes + machine_notes, first_shown > 0)


@dataclasses.dataclass
class _Read:
    """The records read of the runs of a series' machine (Store.bench_records), and their figures."""

    store: Any
    name: str
    counter: str
    platform: str | None
    param: str | None
    records: dict[int, list[Record]] = dataclasses.field(default_factory=dict)
    #: Each run's figures (its processes combined, as `show` prints them): (run, figure).
    measured: list[tuple[dict[str, Any], Record]] = dataclasses.field(default_factory=list)

    def add(self, runs: list[dict[str, Any]]) -> None:
        found = self.store.bench_records(self.name, self.counter, [run["id"] for run in runs], platform=self.platform,
                                         param=self.param)
        for run in runs:
            self.records[run["id"]] = found[run["id"]]
            self.measured += [(run, record) for record in figures(found[run["id"]])
                              if record.supported and record.median is not None]


def _not_stored(store, name: str, counter: str, platform: str | None, param: str | None) -> UserError:
    """Why no run has a figure of NAME's counter (on the platform, of the parameter): each
    option checked against what the store holds of NAME, in the order the options narrow."""
    keys = store.bench_series_keys(name)
    if not keys:
        return UserError(f"no benchmark {name!r} in any stored run", _close_names(name, store.bench_names()))
    keys = [key for key in keys if key["measured"]]
    if not keys:
        return UserError(f"benchmark {name!r} has no figure in any stored run (every record failed or is not "
                         "supported)", "store a run in which it measures: benchlab run")
    counters = sorted({key["counter"] for key in keys})
    keys = [key for key in keys if key["counter"] == counter]
    if not keys:
        return UserError(f"benchmark {name!r} has no {counter!r} counter stored",
                         "give --counter " + " or --counter ".join(counters))
    params = sorted({_text(key["param"]) for key in keys}, key=lambda p: (len(p), p))
    if param is not None and param not in params:
        shown = ", ".join(p or "(none)" for p in params)
        return UserError(f"benchmark {name!r} has no parameter value {param!r}", f"its values: {shown}")
    platforms = sorted({key["platform"] for key in keys if param is None or _text(key["param"]) == param})
    if platform is not None and platform not in platforms:
        return UserError(f"benchmark {name!r} has no {counter!r} figure on platform {platform!r}",
                         "its platforms: " + ", ".join(platforms))
    return UserError(f"benchmark {name!r} has no {counter!r} figure in any stored run", "store a run in which it "
                     "measures: benchlab run")  # the runs of a moment ago, deleted since


def _close_names(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.5)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    if not names:
        return "the database has no results: store runs with benchlab run"
    return "stored benchmarks: " + ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")


def _text(param: int | str | None) -> str:
    """A parameter as --param takes it: its number or text, "" for none."""
    return "" if param is None else str(param)


def select_series(name: str, measured: list[tuple[dict[str, Any], Record]], *, platform: str | None = None,
                  param: str | None = None) -> tuple[list[Point], list[str]]:
    """The series of NAME the options pick from the figures read (each run's of the counter asked
    for, on one machine): its points oldest first, and notes on what was left out. A series
    not among them is _NotFoundYet: older runs may hold it."""
    if not measured:
        raise _NotFoundYet(f"benchmark {name!r} has no figure in any stored run (every record failed or is not "
                           "supported)", "store a run in which it measures: benchlab run")
    notes: list[str] = []
    candidates = measured

    params = sorted({_text(r.param) for _, r in candidates}, key=lambda p: (len(p), p))
    if param is None and len(params) > 1:
        raise UserError(f"benchmark {name!r} has several parameter values: {', '.join(params)}",
                        f"pick one with --param {params[0]}")
    if param is not None:
        if param not in params:
            shown = ", ".join(p or "(none)" for p in params)
            raise _NotFoundYet(f"benchmark {name!r} has no parameter value {param!r}", f"its values: {shown}")
        candidates = [(run, r) for run, r in candidates if _text(r.param) == param]

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
    candidates = [(run, r) for run, r in candidates if r.platform == platform]

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
        raise _NotFoundYet(f"benchmark {name!r} has a figure of 0 in every run of this series",
                           "a shift is a ratio: pick a counter or parameter that measures more than 0")
    if zeros:
        notes.append(f"{len(zeros)} runs with a figure of 0 left out (runs {', '.join(map(str, zeros[:10]))}"
                     f"{', ...' if len(zeros) > 10 else ''}): a shift is a ratio")
    points = [Point(run, record) for pairs in by_run.values() for run, record in pairs if record.median > 0]
    points.sort(key=lambda p: (p.date, p.run["id"]))
    return points, notes


def with_run_levels(points: list[Point], records_by_run: dict[int, list[Record]], first: int = 0) -> list[Point]:
    """The points from `first` on, each figure combined again with the between-run noise of the
    (at most 20) points before it that measured identical code (noise.py), as `show` combines a
    run: the interval column then reads as `show`'s does, a rerun's range. A point whose code
    changed starts a new history: the change is not noise. The points before `first` only lend
    their figures to the ones after."""
    result = []
    # Each code's latest run figures (noise.run_figure; a run of one process has none: it cannot tell its spread).
    by_code: dict[str, list[noise.RunFigure]] = {}
    for j, point in enumerate(points):
        code = _code_of(point)
        same = by_code.setdefault(code, []) if code is not None else []
        if j >= first:
            result.append(_with_level(point, noise.estimate(same), records_by_run))
        figure = noise.run_figure(point.record.figures.process_medians)
        if figure is not None and code is not None:
            same.append(figure)
            del same[:-noise.MAX_EARLIER_RUNS]  # estimate reads the last 20 only
    return result


def _with_level(point: Point, level: noise.RunLevel | None, records_by_run: dict[int, list[Record]]) -> Point:
    if level is None or not (point.record.figures.processes > 1 or knows_process_spread(level)):
        return point
    key = history_key(point.record)
    mine = [r for r in records_by_run[point.run["id"]] if history_key(r) == key]  # this figure's processes only
    again = figures(mine, {key: level})
    # One figure per key, as nearly always; a binary that prints a key twice keeps
    # its figures as stored rather than risk pairing the wrong one.
    return Point(point.run, again[0]) if len(again) == 1 else point


def _code_of(point: Point) -> str | None:
    """The identity of the code a point measured (noise.code_id), None when its run has none."""
    return noise.codes_of(point.run.get("context")).get(noise.code_label(point.record.binary, point.record.platform))


def _pick_machine(runs: list[dict[str, Any]], host: str | None, scope: str = "") -> tuple[Fingerprint, list[str]]:
    """The machine of the series (`host`: a host name or a fingerprint id, else the latest run's)
    among NAME's runs read (newest first), and the note naming the others; `scope` says which
    runs their counts are of (all of NAME's when empty)."""
    prints: dict[Fingerprint, list[int]] = {}
    for run in runs:
        prints.setdefault(Fingerprint.of_run(run), []).append(run["id"])
    listing = "; ".join(f"{fp.id} = {fp.label()}: {len(ids)} runs" for fp, ids in
                        sorted(prints.items(), key=lambda item: -max(item[1])))
    if host is None:
        chosen = Fingerprint.of_run(runs[0])  # the latest run's
    else:
        matches = [fp for fp in prints if host == fp.id] or [fp for fp in prints if host == fp.host]
        matches.sort(key=lambda fp: min(prints[fp]))  # the machine of the oldest runs first
        if not matches:
            raise _NotFoundYet(f"no run of this series on host {host!r}", f"its machines: {listing}")
        if len(matches) > 1:
            raise UserError(f"host {host!r} has several fingerprints (CPU or kernel changed) in this series",
                            "pick one by its id: " + "; ".join(f"--host {fp.id} = {fp.label()}" for fp in matches))
        chosen = matches[0]
    notes = []
    if len(prints) > 1:
        # The machines left out, not the one shown (which the note listed among them: issue 37).
        others = {fp: ids for fp, ids in prints.items() if fp != chosen}
        left = sum(len(ids) for ids in others.values())
        left_out = "; ".join(f"{fp.id} = {fp.label()}: {len(ids)} runs" for fp, ids in
                             sorted(others.items(), key=lambda item: -max(item[1])))
        notes.append(f"host {chosen.label()} ({chosen.id}: {len(prints[chosen])} runs); {left} runs{scope} on other "
                     f"machines left out: {left_out} (pick one with --host ID or --host HOSTNAME)")
    return chosen, notes


# -- what a shift coincides with -----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Coincidence:
    """A change between the two levels of a shift that moves figures without any change of the
    code: of the machine's load (`load`: quiet -> busy or back), or of the machine (`machine`)."""

    kind: str
    before: str
    after: str

    def to_dict(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Shift:
    """A level shift of the series, and what changed with it besides the figure."""

    change: changepoints.ChangePoint
    coincides: list[Coincidence]


def busy(point: Point) -> bool | None:
    """Whether the machine was busy while a point's run measured: the 1-minute load average at
    the run's start or end above its CPUs (noise.over_cpus, the rule of noise.busy), or the
    figure's samples waited for a CPU over contention.BUSY_SHARE of their time. None when the
    run recorded neither (a run from before they were recorded, a platform without them)."""
    load = (point.run.get("context") or {}).get("load") or {}
    said = [noise.over_cpus(load.get("start")), noise.over_cpus(load.get("end"))]
    lost = point.record.contention
    waited = lost.waited_share if lost is not None else None
    said.append(None if waited is None else waited > contention.BUSY_SHARE)
    known = [s for s in said if s is not None]
    return any(known) if known else None


def _load_of(level: list[Point]) -> str | None:
    """'busy' when most of a level's runs with a known load were busy (busy), 'quiet' when not; None when none is known."""
    known = [b for b in map(busy, level) if b is not None]
    if not known:
        return None
    return "busy" if 2 * sum(known) > len(known) else "quiet"


def _machine_of(level: list[Point]) -> str:
    """The machine most of a level's runs measured on (noise.Machine's label)."""
    machines = [Fingerprint.of_run(p.run).label() for p in level]
    return max(set(machines), key=lambda label: (machines.count(label), label))


def coinciding(points: list[Point], found: list[changepoints.ChangePoint], index: int) -> list[Coincidence]:
    """What changed between the level before shift `index` of `found` and the level after it,
    besides the figure: a change of load or of machine makes a shift without any change of the
    code (a busy CI runner read 46% high, issue 29). A series is one machine fingerprint
    (_pick_host), so a machine changes within it only where the fingerprint does not tell the
    machines apart (BENCHLAB_MACHINE names one machine for many runners)."""
    bounds = [0, *(cp.index for cp in found), len(points)]
    before, after = points[bounds[index]:bounds[index + 1]], points[bounds[index + 1]:bounds[index + 2]]
    result = []
    loads = _load_of(before), _load_of(after)
    if None not in loads and loads[0] != loads[1]:
        result.append(Coincidence("load", *loads))
    machines = _machine_of(before), _machine_of(after)
    if machines[0] != machines[1]:
        result.append(Coincidence("machine", *machines))
    return result


# -- output -------------------------------------------------------------------------------------

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
