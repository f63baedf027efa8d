"""A benchmark's series over its stored runs: the history model of `benchlab history` and of
the report's trend lines (output/htmlreport), one for both, below any command.

A series is one benchmark (and param, counter, platform, binary) on one machine. The
machine is its *host fingerprint* (noise.Machine): the host name, the CPU model, the
kernel release and the architecture of the run's context. All of them, because a series
that mixes machines shows the machines' difference as a shift: a name alone is reused (a
rebuilt VM, two laptops called `dev`), a CPU model alone is shared by a fleet, and syscall
costs move with the kernel.

Its points are each run's figure (its processes combined, as `show` combines them), oldest
first (by date, then id), each combined again with the run level of the (at most 20)
runs of identical code before it in the series (Leveller): the interval reads as `show`'s
does, a rerun's range. Its shifts are the change points of the figures (changepoints.py)
and what changed with them besides the code (coinciding).

It reads what it shows and no more (issue 29: 130 CPU seconds on a store of 10,000 runs;
issue 40): `read_series` reads one benchmark's latest runs newest first, a page at a time,
each query limited in SQL, on the host's runs only; `read_runs` reads the records of a
list of runs a page at a time and keeps each series' figures without their samples, so
that a report of 10,000 runs holds their figures, not their records.
"""
from __future__ import annotations

import dataclasses
import difflib
from typing import TYPE_CHECKING, Any, Callable

from benchlab.errors import UserError
from benchlab.records import CONTENTION_FIELDS, Record
from benchlab.statistics import contention, noise
from benchlab.statistics.combine import figures, history_key, knows_process_spread

if TYPE_CHECKING:  # imported on use: the change-point search pulls in its numerical libraries
    from benchlab.statistics import changepoints

#: Runs of a series shown without --last: a screenful of history, and the length the change
#: points' penalty is calibrated for (up to 200 runs: changepoints.MAX_WINDOW).
DEFAULT_LAST = 100
#: Runs of the series read before the first one shown, for the run level in the intervals of
#: the first ones (Leveller): `show` takes it from the latest noise.MAX_EARLIER_RUNS runs of
#: identical code, which these are unless the code changed among them.
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
    code before it (Leveller), read from the newest run back a page at a time
    (Store.bench_runs): a page of `last` + LOOKBACK runs of NAME, which picks the series'
    machine (_pick_machine) and whose runs of that machine are read (Store.bench_records),
    then, while the series has fewer runs than that, another page of that machine's runs
    only (the machine a condition of the statement: a store whose other machines hold
    9,000 runs costs what one without them does). So the cost is that of the runs shown,
    whatever the store holds."""
    page_size = last + LOOKBACK
    rows: list[dict[str, Any]] = []  # every run of NAME read, newest first
    read = _Read(store, name, counter, platform, param)
    machine: Fingerprint | None = None
    machine_notes: list[str] = []
    while True:
        page = store.bench_runs(name, counter, limit=page_size, before=rows[-1]["id"] if rows else None,
                                platform=platform, param=param, machine=machine)
        rows += page
        exhausted = len(page) < page_size
        if not rows:
            raise _not_stored(store, name, counter, platform, param)
        try:
            if machine is None:
                scope = "" if exhausted else f" of the latest {len(rows)} runs of {name}"
                machine, machine_notes = _pick_machine(rows, host, scope)
                page = rows  # the pages before the machine was known: its runs among them
            read.add([run for run in page if Fingerprint.of_run(run) == machine])
            points, notes = select_series(name, read.measured, platform=platform, param=param)
        except _NotFoundYet:
            if exhausted:
                raise
            continue
        if exhausted or len(points) >= page_size:
            first_shown = max(0, len(points) - last)
            calibrated = bool(store.machine_priors(machine))
            return Series(with_run_levels(points, read.records, first_shown, calibrated), notes + machine_notes,
                          first_shown > 0)


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


Measured = list[tuple[dict[str, Any], Record]]


def select_series(name: str, measured: Measured, *, platform: str | None = None,
                  param: str | None = None) -> tuple[list[Point], list[str]]:
    """The series of NAME the options pick from the figures read (each run's of the counter asked
    for, on one machine): its points oldest first, and notes on what was left out. A series
    not among them is _NotFoundYet: older runs may hold it."""
    if not measured:
        raise _NotFoundYet(f"benchmark {name!r} has no figure in any stored run (every record failed or is not "
                           "supported)", "store a run in which it measures: benchlab run")
    notes: list[str] = []
    candidates = _of_param(name, measured, param)
    if platform is None:
        platform = _default_platform(candidates, notes)
    candidates = [(run, r) for run, r in candidates if r.platform == platform]
    series_keys = {(r.binary, r.sweep["value"] if r.sweep else None) for _, r in candidates}
    if len(series_keys) > 1:
        shown = ", ".join(f"binary {b}" + (f" sweep {s}" if s is not None else "") for b, s in sorted(series_keys, key=str))
        raise UserError(f"benchmark {name!r} is measured by several binaries or sweep values on {platform}: {shown}",
                        "rename one of them, or give their runs separate databases (--db)")
    points = _without_zeros(name, candidates, notes)
    points.sort(key=lambda p: (p.date, p.run["id"]))
    return points, notes


def _of_param(name: str, candidates: Measured, param: str | None) -> Measured:
    """The figures of the parameter value `param` (--param), needed when NAME has several."""
    params = sorted({_text(r.param) for _, r in candidates}, key=lambda p: (len(p), p))
    if param is None and len(params) > 1:
        raise UserError(f"benchmark {name!r} has several parameter values: {', '.join(params)}",
                        f"pick one with --param {params[0]}")
    if param is None:
        return candidates
    if param not in params:
        shown = ", ".join(p or "(none)" for p in params)
        raise _NotFoundYet(f"benchmark {name!r} has no parameter value {param!r}", f"its values: {shown}")
    return [(run, r) for run, r in candidates if _text(r.param) == param]


def _default_platform(candidates: Measured, notes: list[str]) -> str:
    """The first platform (in its context's order) of the latest run, the others named in a note."""
    latest_run = max(run["id"] for run, _ in candidates)
    latest = [r.platform for run, r in candidates if run["id"] == latest_run]
    order = list((next(run for run, _ in candidates if run["id"] == latest_run).get("context") or {})
                 .get("platforms") or {})
    platform = min(latest, key=lambda p: order.index(p) if p in order else len(order))
    others = sorted({r.platform for _, r in candidates} - {platform})
    if others:
        notes.append(f"platform {platform}; also stored on {', '.join(others)} (pick with --platform)")
    return platform


def _without_zeros(name: str, candidates: Measured, notes: list[str]) -> list[Point]:
    """The points of the series but its figures of 0. Shifts are relative (after/before), so a
    figure of 0 (a counter that counted nothing, a cost indistinguishable from the empty loop)
    has no place in the series: said, not hidden."""
    by_run: dict[int, Measured] = {}
    for run, record in candidates:
        by_run.setdefault(run["id"], []).append((run, record))
    zeros = sorted(run_id for run_id, pairs in by_run.items() if pairs[0][1].median <= 0)
    if zeros and len(zeros) == len(by_run):
        raise _NotFoundYet(f"benchmark {name!r} has a figure of 0 in every run of this series",
                           "a shift is a ratio: pick a counter or parameter that measures more than 0")
    if zeros:
        notes.append(f"{len(zeros)} runs with a figure of 0 left out (runs {', '.join(map(str, zeros[:10]))}"
                     f"{', ...' if len(zeros) > 10 else ''}): a shift is a ratio")
    return [Point(run, record) for pairs in by_run.values() for run, record in pairs if record.median > 0]


class Leveller:
    """The run levels along one series, oldest point first: each point's figure combined again
    with the between-run noise of the (at most 20) points before it that measured identical
    code (noise.py), as `show` combines a run, so that the interval reads as `show`'s does, a
    rerun's range. A point whose code changed starts a new history: the change is not noise.
    It keeps each code's latest run figures only (noise.run_figure), so a series is levelled
    as it is read, a page of runs at a time (read_runs). A timing figure with no such history
    on a machine with no prior takes its own processes' spread, as `show`'s does
    (noise.own_level); on a `calibrated` one it keeps its processes' own interval (show takes
    the prior there, which this does not read)."""

    def __init__(self, calibrated: bool = False):
        self.by_code: dict[str, list[noise.RunFigure]] = {}
        self.calibrated = calibrated

    def add(self, point: Point, records: list[Record], shown: bool = True) -> Point | None:
        """The point levelled (None when not `shown`: it only lends its figure to the later
        ones); `records`: its run's records, of which its figure's processes are combined again."""
        code = _code_of(point)
        same = self.by_code.setdefault(code, []) if code is not None else []
        result = _light(_with_level(point, self._level(point, same), records)) if shown else None
        # A run of one process has no run figure: it cannot tell its spread.
        figure = noise.run_figure(point.record.figures.process_medians)
        if figure is not None and code is not None:
            same.append(figure)
            del same[:-noise.MAX_EARLIER_RUNS]  # estimate reads the last 20 only
        return result

    def _level(self, point: Point, same: list[noise.RunFigure]) -> noise.RunLevel | None:
        """The run level of a shown point: its code's earlier runs', else its own processes'."""
        level = noise.estimate(same)
        if level is None and not self.calibrated and point.record.counter == "time":
            level = noise.own_level(point.record.figures.process_medians)
        return level


def with_run_levels(points: list[Point], records_by_run: dict[int, list[Record]], first: int = 0,
                    calibrated: bool = False) -> list[Point]:
    """The points from `first` on, levelled (Leveller); the points before `first` only lend
    their figures to the ones after."""
    leveller = Leveller(calibrated)
    levelled = [leveller.add(point, records_by_run[point.run["id"]], j >= first) for j, point in enumerate(points)]
    return [point for point in levelled if point is not None]


def _with_level(point: Point, level: noise.RunLevel | None, records: list[Record]) -> Point:
    if level is None or not (point.record.figures.processes > 1 or knows_process_spread(level)):
        return point
    key = history_key(point.record)
    mine = [r for r in records if history_key(r) == key]  # this figure's processes only
    again = figures(mine, {key: level})
    # One figure per key, as nearly always; a binary that prints a key twice keeps
    # its figures as stored rather than risk pairing the wrong one.
    return Point(point.run, again[0]) if len(again) == 1 else point


#: What a point's record keeps of its summary (_light): the figures a series is read for.
POINT_SUMMARY = ("median", "median_ci", "zero", "n", "processes", "ci_level", "ci_scope", "noise_source")


def _light(point: Point) -> Point:
    """The point as a series holds it: its figure, its interval, its processes' count and what
    they lost to other tasks (busy), without its samples (200 numbers a point) and the rest of
    its summary and fields (5 kB a point: 700 MB for the 144,000 points of a report of 9,000
    runs). No reader of a series reads more (output/history.py, the report's trend lines)."""
    record = point.record
    summary = {key: record.summary[key] for key in POINT_SUMMARY if key in record.summary}
    reported = {key: record.reported[key] for key in (*CONTENTION_FIELDS, "supported", "reason")
                if key in record.reported}
    return Point(point.run, dataclasses.replace(record, samples=[], overhead_samples=None, sample_iterations=None,
                                                summary=summary, reported=reported))


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
    (_pick_machine), so a machine changes within it only where the fingerprint does not tell the
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




def shifts(points: list[Point]) -> list[Shift]:
    """The level shifts of a series (changepoints.detect on its figures), each with what
    changed with it besides the figure (coinciding)."""
    from benchlab.statistics import changepoints
    found = changepoints.detect([p.record.median for p in points]) if len(points) > 1 else []
    return [Shift(cp, coinciding(points, found, index)) for index, cp in enumerate(found)]


# -- the runs of a machine, every series at once: the report's trend lines ----------------------

#: Runs whose records are read in one statement (read_runs): their records, about 250 of a
#: default run with their samples, are held no longer than their page.
RUNS_PER_PAGE = 50

#: What a series keeps of a run's context: the machine, the date, the commit, the load, the
#: code identities, the platforms (a context is 17 kB in a default run of the suites, its
#: plan and its binaries' own contexts, and a report of 10,000 runs holds every run's).
CONTEXT_KEPT = ("date", "host", "cpu", "kernel", "arch", "git", "load", "code", "platforms")


def slim(run: dict[str, Any]) -> dict[str, Any]:
    """A run's row with only the part of its context a series reads (CONTEXT_KEPT)."""
    context = run.get("context") or {}
    return {**run, "context": {key: context[key] for key in CONTEXT_KEPT if key in context}}


@dataclasses.dataclass
class RunsRead:
    """What read_runs found in a list of runs."""

    #: (key, platform, binary) -> its points, in the runs' order, levelled (Leveller).
    series: dict[tuple, list[Point]]
    #: The ids of the runs with any record (a run of `benchlab profile` has none).
    measured: set[int]
    #: The records the caller asked to keep (read_runs' `keep`), per run id.
    kept: dict[int, list[Record]]


def read_runs(store, runs: list[dict[str, Any]], wanted: set[tuple],
              keep: Callable[[Record], bool] = lambda record: False) -> RunsRead:
    """The series `wanted` ((key, platform, binary) each) over `runs` (their rows, in the
    series' order: date, then id), read RUNS_PER_PAGE runs at a time (Store.records_of_runs)
    and levelled as they come, so that what is held is their figures without their samples,
    never every record of every run. As `history` makes a series: each run's figure of its
    processes combined, a figure of 0 or none left out (a shift is a ratio)."""
    found = RunsRead({key: [] for key in wanted}, set(), {})
    calibrated = bool(runs) and bool(store.machine_priors(Fingerprint.of_run(runs[0])))  # one machine's runs
    levellers = {key: Leveller(calibrated) for key in wanted}
    for start in range(0, len(runs), RUNS_PER_PAGE):
        page = runs[start:start + RUNS_PER_PAGE]
        records = store.records_of_runs([run["id"] for run in page])
        for run in page:
            mine = records[run["id"]]
            if mine:
                found.measured.add(run["id"])
            kept = [record for record in mine if keep(record)]
            if kept:
                found.kept[run["id"]] = kept
            for figure in figures(mine):
                key = (figure.key, figure.platform, figure.binary)
                if key in levellers and figure.supported and figure.median is not None and figure.median > 0:
                    found.series[key].append(levellers[key].add(Point(run, figure), mine))
    return found
