"""The cross-platform table as data: one row per (test, param), one cell per platform.

Every exporter (table, markdown, csv, json) renders this same model, so the
formats can never disagree about a number or a mark.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any

from benchlab.buildable import not_built
from benchlab.combine import combine
from benchlab.instances import INSTANCES, fault_copy
from benchlab.records import Fault, Record

#: Below this many samples the 99% median interval is just [min, max] (formats.md), so
#: it bounds nothing: such a value is marked uncertain.
MIN_SAMPLES_FOR_CI = 8
#: A median whose 99% CI half-width exceeds this fraction of it is marked noisy.
NOISE_THRESHOLD = 0.05

#: Sweep flags that mean the thread count (runner.SWEEP_ALIASES: threads is -t).
SWEEP_ALIASES_OF_THREADS = ("threads", "-t", "--threads")

MARK_OVERLAP = "~"
MARK_NOISY = "?"
MARK_DISAGREE = "!"
LEGEND = {
    MARK_OVERLAP: "99% CIs of the median overlap with the first platform's: the difference is not significant",
    MARK_NOISY: (f"uncertain: one process of fewer than {MIN_SAMPLES_FOR_CI} samples, or a 99% CI "
                 f"half-width over {NOISE_THRESHOLD:.0%} of the median"),
    MARK_DISAGREE: ("its processes disagree beyond their own intervals (the machine, CPU or layout differed "
                    "between them): trust the +- of the rerun interval, not a single process"),
}


#: The format of whole-command workloads (workloads.py): a few runs, shown with their range.
WORKLOAD_FORMAT = "workload"


def format_value(value: float | None) -> str:
    """Integers from 100 up (as the cross-platform runner prints ns), else 3 significant digits."""
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


@dataclasses.dataclass
class Cell:
    platform: str
    record: Record | None = None
    fault: Fault | None = None
    ratio: float | None = None  # to the first platform's median
    marks: str = ""
    #: Processes of the run that failed for this cell's binary (the figure stands on the others).
    failed_processes: int = 0

    @property
    def text(self) -> str:
        if self.fault is not None and self.record is None:
            # A source the platform cannot build (buildable.py) is left out there, not failed.
            return f"- ({self.fault.reason})" if not_built(self.fault) else f"FAILED: {self.fault.reason}"
        if self.record is None:
            return "-"
        if not self.record.supported:
            return f"not supported: {self.record.reason}"
        summary = self.record.summary
        if summary.get("zero"):
            high = summary["median_ci"][1]
            # An interval of [0, 0] (every process's figure clamped at 0) is below nothing.
            value = f"~0 (<{format_value(high)})" if high > 0 else "~0 (<=0)"
        else:
            value = format_value(self.record.median) + _spread(summary)
        if self.record.format == WORKLOAD_FORMAT:
            # A workload's few runs (3 by default) bound nothing statistically: show their range.
            value += f" [{format_value(summary.get('min'))}–{format_value(summary.get('max'))}]"
        ratio = f" ({self.ratio:.3f})" if self.ratio is not None else ""
        stands = ""
        if self.failed_processes:
            processes = summary.get("processes", 1)
            stands = f" [{processes} of {processes + self.failed_processes} processes]"
        return f"{value}{ratio}{self.marks}{stands}"


def _spread(summary: dict[str, Any]) -> str:
    """For a figure of several processes: +-h%, the half-width of the interval a rerun lands
    in, and the CV of the processes' medians (the between-process variation)."""
    median, ci = summary.get("median"), summary.get("median_ci")
    one_process_alone = summary.get("processes", 1) < 2 and summary.get("earlier_runs") is None
    if not median or not ci or one_process_alone:
        return ""  # one process: its interval covers only itself, and the ? mark says if it is wide
    half = relative_half_width(median, ci)
    text = f" +-{percent_text(half)}"
    if half >= UNINFORMATIVE:
        text += f" {UNINFORMATIVE_WORD}"
    if summary.get("between_cv") is not None:
        text += f" cv{percent_text(summary['between_cv'])}"
    return text


def relative_half_width(median: float, interval) -> float:
    """The larger side of an interval around a (non-zero) median, as a fraction of it."""
    return max(interval[1] - median, median - interval[0]) / abs(median)


#: Percents are shown between these: below, "<0.01%" (the digits of 9e-05% are the noise of
#: the noise), above, ">1000%" (3.1e+04% says only that the interval bounds nothing).
MIN_PERCENT_SHOWN = 0.01
MAX_PERCENT_SHOWN = 1000
#: An interval whose half-width is the figure itself or more (+-100%: from 0 to twice the
#: figure) bounds nothing worth a number: the cell says so in words.
UNINFORMATIVE = 1.0
UNINFORMATIVE_WORD = "uninformative"


def percent_text(fraction: float) -> str:
    """Two significant digits: 0.04%, 0.5%, 2.1%, 44%; whole percents from 100 up; <0.01%
    and >1000% beyond what a reader can use."""
    percent = 100 * fraction
    if percent == 0:
        return "0%"
    if abs(percent) < MIN_PERCENT_SHOWN:
        return f"<{MIN_PERCENT_SHOWN:g}%"
    if abs(percent) > MAX_PERCENT_SHOWN:
        return f">{MAX_PERCENT_SHOWN:g}%"
    return f"{percent:.0f}%" if abs(percent) >= 99.5 else f"{percent:.2g}%"


@dataclasses.dataclass
class Row:
    test: str
    param: int | None
    counter: str
    unit: str
    sweep_value: Any
    cells: dict[str, Cell]
    iterations: int | None = None
    failed: bool = False
    #: The binary, when another binary (or another line of the same one) gives the same
    #: (test, param) on a platform: both are shown, never one hiding the other.
    binary: str | None = None
    param_name: str | None = None
    #: What ITERATIONS means for this row's records: iterations per sample, or (see iterations_label)
    #: a workload's runs, a threaded run's operations.
    kind: str = ""

    @property
    def iterations_label(self) -> str:
        if self.kind == WORKLOAD_FORMAT:
            # One execution per sample: the number worth showing is the runs measured.
            runs = next((c.record.summary.get("n") for c in self.cells.values() if c.record and c.record.summary), None)
            return f"{runs} runs" if runs else ""
        if self.iterations is None:
            return ""
        if self.counter == "throughput" or self.counter.startswith("latency:"):
            return f"{self.iterations} ops"
        return str(self.iterations)


@dataclasses.dataclass
class Report:
    platforms: list[str]
    records: list[Record]
    faults: list[Fault]
    run: dict[str, Any] = dataclasses.field(default_factory=dict)
    rows: list[Row] = dataclasses.field(default_factory=list)
    #: Earlier runs' spread per figure (combine.History), for intervals that cover a rerun.
    history: dict | None = None

    def __post_init__(self) -> None:
        if not self.rows:
            self.rows = build_rows(self.platforms, self.records, self.faults, self.history)

    # Properties of the whole report, asked once per row by the exporters: computed once
    # (a report is not changed after it is made), or `show` is quadratic in its rows.
    @functools.cached_property
    def sweep_flag(self) -> str | None:
        for item in (*self.records, *self.faults):
            if item.sweep:
                return item.sweep["flag"]
        return None

    @functools.cached_property
    def show_counter(self) -> bool:
        return any(row.counter != "time" for row in self.rows if not row.failed)

    @functools.cached_property
    def common_unit(self) -> str | None:
        units = {row.unit for row in self.rows if not row.failed}
        return units.pop() if len(units) == 1 else None

    @functools.cached_property
    def marks_used(self) -> list[str]:
        used = {mark for row in self.rows for cell in row.cells.values() for mark in cell.marks}
        return [mark for mark in LEGEND if mark in used]


def figure_interval(record: Record) -> tuple[float, float] | None:
    """The interval the table judges a figure by: its 99% interval, a workload's range, or
    None where one process's few samples bound nothing (the ? mark)."""
    if record.format == WORKLOAD_FORMAT and record.summary:
        # A workload's runs are too few for a 99% interval (below 8 it is [min, max]
        # anyway, formats.md): its range is what the table shows and judges.
        return float(record.summary["min"]), float(record.summary["max"])
    ci = record.summary.get("median_ci")
    # A deterministic count (callgrind's instructions) is exact from one sample.
    enough = (record.summary.get("n", 0) >= MIN_SAMPLES_FOR_CI or record.summary.get("processes", 1) > 1
              or record.reported.get("deterministic") is True)
    if not enough or not ci:
        return None
    return float(ci[0]), float(ci[1])


def _is_noisy(record: Record) -> bool:
    if record.summary.get("zero"):
        return False  # shown as ~0 with its bound: no relative width to judge
    interval = figure_interval(record)
    median = record.median
    if interval is None or median is None:
        return True
    if median == 0:
        return interval[1] != interval[0]
    return (interval[1] - interval[0]) / 2 > NOISE_THRESHOLD * abs(median)


def _overlaps(a: Record, b: Record) -> bool:
    first, second = figure_interval(a), figure_interval(b)
    if first is None or second is None:
        return False  # no interval to compare: the noisy mark already says so
    return first[0] <= second[1] and second[0] <= first[1]


def figures(records: list[Record], history: dict | None = None) -> list[Record]:
    """One record per figure (the processes of a run combined, combine.py, with the run
    level from `history` where given), in the order of the run's plan (stable: a binary's
    own order within it), whatever shuffled order the processes ran in."""
    return sorted(combine(records, history), key=lambda r: r.reported.get("unit", 0))


def row_keys(records: list[Record]) -> list[tuple[tuple, str | None]]:
    """Each record's row: its key, plus its binary when the key is not unique on a platform.

    Two binaries printing the same (test, param) on one platform (the Lind seed's native,
    sandbox and interposer programs; two suites with a common test name), or one binary
    printing it twice, get a row each, named by binary (and `#2`, ... for repeats).
    """
    counts = collections.Counter((record.key, record.platform) for record in records)
    shared = {key for (key, _), count in counts.items() if count > 1}
    seen: collections.Counter = collections.Counter()
    result = []
    for record in records:
        if record.key not in shared:
            result.append((record.key, None))
            continue
        seen[(record.key, record.platform, record.binary)] += 1
        repeat = seen[(record.key, record.platform, record.binary)]
        label = record.binary if repeat == 1 else f"{record.binary} #{repeat}"
        result.append(((*record.key, label), label))
    return result


def build_rows(platforms: list[str], records: list[Record], faults: list[Fault],
               history: dict | None = None) -> list[Row]:
    """Rows of the table; the records of several processes are first combined (combine.py)."""
    rows: dict[tuple, Row] = {}
    records = figures(records, history)
    for record, (key, binary) in zip(records, row_keys(records)):
        row = rows.get(key)
        if row is None:
            row = rows[key] = Row(
                test=record.bench, param=record.param, counter=record.counter, unit=record.unit,
                sweep_value=record.sweep["value"] if record.sweep else None,
                cells={p: Cell(p) for p in platforms}, binary=binary, param_name=record.param_name,
                kind=record.format)
        if record.platform in row.cells and row.cells[record.platform].record is None:
            row.cells[record.platform].record = record
    for row in rows.values():
        first = row.cells[platforms[0]].record if platforms else None
        for index, platform in enumerate(platforms):
            cell = row.cells[platform]
            if cell.record is None or not cell.record.supported:
                continue  # an unsupported record has no figure: no ratio, no marks
            if row.iterations is None:
                row.iterations = cell.record.iterations
            if index > 0 and first is not None and first.supported and first.median:
                cell.ratio = cell.record.median / first.median
                if _overlaps(first, cell.record):
                    cell.marks += MARK_OVERLAP
            if _is_noisy(cell.record):
                cell.marks += MARK_NOISY
            if cell.record.summary.get("disagree"):
                cell.marks += MARK_DISAGREE
    result = list(rows.values())
    process_faults = [f for f in faults if f.process is not None]
    for row in result:
        for cell in row.cells.values():
            if cell.record is not None:
                # per sweep value: a process that failed at threads=2 is not missing from threads=1;
                # a copy that failed after printing (instances.py) is already among the figure's processes
                counted = {(p.get("process"), p.get("copy")) for p in cell.record.reported.get("processes", [])}
                cell.failed_processes = sum(1 for f in process_faults
                                            if f.binary == cell.record.binary and f.platform == cell.platform
                                            and _value(f.sweep) == _value(cell.record.sweep)
                                            and (fault_copy(f.reason) is None
                                                 or (f.process, fault_copy(f.reason)) not in counted))
    # A FAILED row per binary and platform that gave nothing; several failed processes of
    # one binary make one row (the failure lines list each with its reason).
    failed_rows: dict[tuple, Row] = {}
    failed = {(f.binary, f.platform, f.process, _value(f.sweep)) for f in faults}
    healthy = {(p["binary"], p["platform"], p["sweep"]) for p in _processes(records)
               if (p["binary"], p["platform"], p["process"], p["sweep"]) not in failed}
    for fault in faults:
        if fault.process is not None and (fault.binary, fault.platform, _value(fault.sweep)) in healthy:
            continue  # other processes ran cleanly: the cell says how many (failed_processes)
        sweep_value = fault.sweep["value"] if fault.sweep else None
        row = failed_rows.get((fault.binary, sweep_value))
        if row is None:
            row = failed_rows[(fault.binary, sweep_value)] = Row(
                test=fault.binary, param=None, counter="", unit="", sweep_value=sweep_value,
                cells={p: Cell(p) for p in platforms}, failed=True)
            result.append(row)
        if fault.platform in row.cells and row.cells[fault.platform].fault is None:
            row.cells[fault.platform].fault = fault
    return result


def _processes(records: list[Record]) -> list[dict[str, Any]]:
    """(binary, platform, process, sweep value) of every process a record came from, combined or not."""
    seen = []
    for record in records:
        indices = [p["process"] for p in record.reported.get("processes", [])] or [record.process]
        seen.extend({"binary": record.binary, "platform": record.platform, "process": i, "sweep": _value(record.sweep)}
                    for i in indices)
    return seen


def _value(sweep: dict[str, Any] | None) -> Any:
    return sweep["value"] if sweep else None


# -- sweeps -------------------------------------------------------------------------------------

@dataclasses.dataclass
class ScalingPoint:
    value: float
    throughput: float
    linearity: float
    #: `--sweep instances` only: the mean throughput of one copy (`throughput` being their sum),
    per_copy: float | None = None
    #: the copies that failed, when no round ran all N to the end (the sum is then not of N),
    failed_copies: list[int] | None = None
    #: and the fraction of the copies' span during which all of them ran (the lowest round's).
    overlap: float | None = None


#: Throughput units a sweep table can convert between, in operations per second.
OPS_PER_SECOND = {"ops/s": 1.0, "ops/ms": 1e3, "ops/us": 1e6}


def throughput_of(record: Record) -> tuple[float, str] | None:
    """Operations per unit of time: a `throughput` record as is, a time per operation inverted.

    Only those two: every other counter (a `latency:opK` record, task-clock, cycles,
    allocations) is a cost per operation of another kind, and 1/latency of one
    operation under contention is not the throughput of the run.
    """
    if not record.supported:
        return None
    median = record.median
    if not median:
        return None
    if record.counter == "throughput":
        return median, record.unit
    if record.counter == "time" and record.unit == "ns":
        return 1e9 / median, "ops/s"
    return None


def _in_unit(figure: tuple[float, str] | None, unit: str) -> float | None:
    if figure is None:
        return None
    value, own = figure
    if own == unit:
        return value
    if own not in OPS_PER_SECOND or unit not in OPS_PER_SECOND:
        return None
    return value * OPS_PER_SECOND[own] / OPS_PER_SECOND[unit]


def scaling(report: Report) -> list[tuple[tuple, str, dict[str, list[ScalingPoint]]]]:
    """Per (test, param, counter): per platform, throughput and linearity against the swept value.

    Linearity is throughput(N) / ((N / N0) * throughput(N0)), N0 the smallest value
    swept (1 in the usual `threads=1,2,4`): 1.0 is perfect scaling. For `instances`,
    the throughput is summed over the copies (`instance_scaling`).
    """
    if report.sweep_flag == INSTANCES:
        return instance_scaling(report)
    groups: dict[tuple, dict[str, dict[float, Record]]] = {}
    for record in figures(report.records, report.history):
        if not record.sweep:
            continue
        try:
            value = float(record.sweep["value"])
        except (TypeError, ValueError):
            continue
        # A threaded record's param is its thread count, i.e. the swept value itself.
        param = None if record.param_name == "threads" else record.param
        key = (record.bench, param, record.counter)
        if record.counter in ("time", "throughput"):
            groups.setdefault(key, {}).setdefault(record.platform, {})[value] = record
    result = []
    for key, per_platform in groups.items():
        measured = {platform: {value: throughput_of(record) for value, record in by_value.items()}
                    for platform, by_value in per_platform.items()}
        units = {figure[1] for by_value in measured.values() for figure in by_value.values() if figure}
        # One table, one unit: a CSB binary (ops/ms) next to a benchlab one (ops/s) is shown in ops/s.
        unit = units.pop() if len(units) == 1 else "ops/s"
        curves: dict[str, list[ScalingPoint]] = {}
        for platform, by_value in measured.items():
            values = sorted(by_value)
            base = _in_unit(by_value[values[0]], unit)
            if base is None:
                continue  # nothing at the smallest value: no reference for linearity
            points = []
            for value in values:
                figure = _in_unit(by_value[value], unit)
                if figure is None:
                    continue
                linearity = figure / ((value / values[0]) * base) if values[0] else float("nan")
                points.append(ScalingPoint(value, figure, linearity))
            curves[platform] = points
        if curves:
            result.append((key, unit, curves))
    return result


def instance_scaling(report: Report) -> list[tuple[tuple, str, dict[str, list[ScalingPoint]]]]:
    """`--sweep instances=N`: per (test, param, counter) and platform, the throughput of N
    copies at once, summed over the copies, and its linearity.

    The records of one round (a process index of the run; None with --processes 1) are
    its N copies. A round's figure is the sum of its copies' throughputs (each copy's
    `throughput` record, or 1e9/median for a time per iteration: iterations per second),
    the aggregate the scalability skeleton's runner plots against its instance count; the
    figure of N is the mean over rounds. Rounds in which a copy failed (`incomplete`) are
    left out when a complete round exists; otherwise their sums are shown, marked with
    the copies they add. Linearity is summed(N) / ((N / N0) * summed(N0)) as for threads.
    """
    groups: dict[tuple, dict[str, dict[int, dict[tuple, list[Record]]]]] = {}
    for record in report.records:
        if not record.sweep or record.sweep.get("flag") != INSTANCES or record.counter not in ("time", "throughput"):
            continue
        try:
            count = int(record.sweep["value"])
        except (TypeError, ValueError):
            continue
        rounds = groups.setdefault((record.bench, record.param, record.counter), {}).setdefault(
            record.platform, {}).setdefault(count, {})
        rounds.setdefault((record.binary, record.process), []).append(record)
    result = []
    for key, per_platform in groups.items():
        units = {figure[1] for by_count in per_platform.values() for rounds in by_count.values()
                 for copies in rounds.values() for figure in map(throughput_of, copies) if figure}
        unit = units.pop() if len(units) == 1 else "ops/s"
        curves: dict[str, list[ScalingPoint]] = {}
        for platform, by_count in per_platform.items():
            points = [point for count in sorted(by_count) if (point := _copies_point(count, by_count[count], unit))]
            if not points or points[0].value != min(by_count):
                continue  # nothing at the smallest count: no reference for linearity
            base = points[0]
            for point in points:
                point.linearity = point.throughput / ((point.value / base.value) * base.throughput)
            curves[platform] = points
        if curves:
            result.append((key, unit, curves))
    return result


def _copies_point(count: int, rounds: dict[tuple, list[Record]], unit: str) -> ScalingPoint | None:
    """Summed and per-copy throughput of `count` copies over the rounds that measured them."""
    measured = []  # per round: the copies' throughputs, whether every copy ran, their overlap
    for copies in rounds.values():
        figures = [_in_unit(throughput_of(record), unit) for record in copies]
        figures = [figure for figure in figures if figure is not None]
        if figures:
            failed = sorted({k for r in copies for k in r.reported.get("failed_copies") or []})
            missing = sorted(set(range(count)) - {r.reported.get("copy") for r in copies})
            complete = len(figures) == count and not failed
            measured.append((figures, complete, copy_overlap(copies), sorted({*failed, *missing})))
    if not measured:
        return None
    used = [m for m in measured if m[1]] or measured
    sums = [sum(m[0]) for m in used]
    every = [figure for m in used for figure in m[0]]
    overlaps = [m[2] for m in used if m[2] is not None]
    failed = sorted({k for m in used for k in m[3]})
    return ScalingPoint(
        value=count, throughput=sum(sums) / len(sums), linearity=float("nan"), per_copy=sum(every) / len(every),
        failed_copies=failed or None, overlap=min(overlaps) if overlaps else None)


def copy_overlap(copies: list[Record]) -> float | None:
    """The time all copies of a round ran at once over the time any of them ran (1.0: the
    same window; 0: one ended before another began), from their `window_s`."""
    windows = {r.reported.get("copy"): r.reported.get("window_s") for r in copies}
    if len(windows) < 2 or any(not w for w in windows.values()):
        return None  # one copy overlaps nothing; a copy killed before its launcher reported has no window
    starts, ends = [w[0] for w in windows.values()], [w[1] for w in windows.values()]
    span = max(ends) - min(starts)
    return max(0.0, min(ends) - max(starts)) / span if span > 0 else 1.0
