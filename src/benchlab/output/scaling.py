"""Sweeps: throughput and linearity against the swept value (threads, instances, ...).

Read from a table's figures: per (test, param, counter) and platform, the throughput at
each value and how close it is to perfect scaling from the smallest value swept.
"""
from __future__ import annotations

import dataclasses
import math

from benchlab import stats
from benchlab.output.figures import MARK_NOISY, NOISE_THRESHOLD, figure_interval, own_marks
from benchlab.statistics.combine import figures
from benchlab.measuring.instances import INSTANCES
from benchlab.records import Record
from benchlab.output.table import Table

@dataclasses.dataclass
class ScalingPoint:
    value: float
    throughput: float
    linearity: float
    #: The throughput's 99% interval, from the figure's (a time's inverted; math.inf: no bound
    #: above), None where the figure has none; and linearity's, from both throughputs'.
    low: float | None = None
    high: float | None = None
    linearity_low: float | None = None
    linearity_high: float | None = None
    #: The marks of the figures it is made of (figures.own_marks: ? ! ^ #).
    marks: str = ""
    #: `--sweep instances` only: the mean throughput of one copy (`throughput` being their sum),
    per_copy: float | None = None
    #: the copies that failed, when no round ran all N to the end (the sum is then not of N),
    failed_copies: list[int] | None = None
    #: and the fraction of the copies' span during which all of them ran (the lowest round's).
    overlap: float | None = None


#: Throughput units a sweep table can convert between, in operations per second.
OPS_PER_SECOND = {"ops/s": 1.0, "ops/ms": 1e3, "ops/us": 1e6}


def throughput_interval(record: Record) -> tuple[float, float] | None:
    """The 99% interval of throughput_of's figure, in its unit: a time's interval inverted
    (an interval reaching 0 ns has no bound above: math.inf); None without one."""
    interval = figure_interval(record)
    if interval is None or throughput_of(record) is None:
        return None
    if record.counter == "throughput":
        return interval.low, interval.high
    return 1e9 / interval.high if interval.high > 0 else 0.0, 1e9 / interval.low if interval.low > 0 else math.inf


def linearity_interval(point: ScalingPoint, base: ScalingPoint) -> tuple[float, float] | None:
    """Linearity's 99% interval: the relative (log) half-widths of the two throughputs added
    in quadrature, as for a ratio of independent figures; None where either has no interval.
    The smallest value's linearity is 1 by definition, exactly."""
    if point is base:
        return 1.0, 1.0
    widths = [_log_half_width(p) for p in (point, base)]
    if any(w is None for w in widths):
        return None
    half = math.hypot(*widths)
    return point.linearity * math.exp(-half), point.linearity * math.exp(half)


def _log_half_width(point: ScalingPoint) -> float | None:
    if point.low is None or point.high is None or not point.throughput > 0:
        return None
    if point.low <= 0 or math.isinf(point.high):
        return math.inf
    return max(math.log(point.high / point.throughput), math.log(point.throughput / point.low))


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


def scaling(table: Table) -> list[tuple[tuple, str, dict[str, list[ScalingPoint]]]]:
    """Per (test, param, counter): per platform, throughput and linearity against the swept value.

    Linearity is throughput(N) / ((N / N0) * throughput(N0)), N0 the smallest value
    swept (1 in the usual `threads=1,2,4`): 1.0 is perfect scaling. For `instances`,
    the throughput is summed over the copies (`instance_scaling`).
    """
    if table.sweep_flag == INSTANCES:
        return instance_scaling(table)
    groups: dict[tuple, dict[str, dict[float, Record]]] = {}
    for record in figures(table.records, table.history):
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
                record = per_platform[platform][value]
                low, high = _interval_in_unit(record, unit)
                points.append(ScalingPoint(value, figure, linearity, low, high, marks=own_marks(record)))
            curves[platform] = _with_linearity_intervals(points)
        if curves:
            result.append((key, unit, curves))
    return result


def instance_scaling(table: Table) -> list[tuple[tuple, str, dict[str, list[ScalingPoint]]]]:
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
    for record in table.records:
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
            curves[platform] = _with_linearity_intervals(points)
        if curves:
            result.append((key, unit, curves))
    return result


def _interval_in_unit(record: Record, unit: str) -> tuple[float | None, float | None]:
    interval = throughput_interval(record)
    if interval is None:
        return None, None
    own = throughput_of(record)[1]
    return _in_unit((interval[0], own), unit), _in_unit((interval[1], own), unit)


def _with_linearity_intervals(points: list[ScalingPoint]) -> list[ScalingPoint]:
    for point in points:
        found = linearity_interval(point, points[0])
        if found is not None:
            point.linearity_low, point.linearity_high = found
    return points


def _summed_interval(sums: list[float], copies: list[Record], unit: str) -> tuple[float | None, float | None]:
    """The interval of a summed throughput: over several rounds, the interval a rerun of as
    many rounds lands in (t * sd * sqrt(2/k), as statistics/combine.py's for processes);
    with one round, the sum of its copies' own bounds."""
    if len(sums) > 1:
        mean = stats.mean(sums)
        half = stats.t_quantile_99(len(sums) - 1) * stats.stddev(sums) * math.sqrt(2 / len(sums))
        return max(0.0, mean - half), mean + half
    bounds = [_interval_in_unit(record, unit) for record in copies]
    if not bounds or any(low is None or high is None for low, high in bounds):
        return None, None
    return sum(low for low, _ in bounds), sum(high for _, high in bounds)


def _copies_point(count: int, rounds: dict[tuple, list[Record]], unit: str) -> ScalingPoint | None:
    """Summed and per-copy throughput of `count` copies over the rounds that measured them."""
    measured = []  # per round: the copies' throughputs, whether every copy ran, their overlap, the copies
    for copies in rounds.values():
        figures = [_in_unit(throughput_of(record), unit) for record in copies]
        figures = [figure for figure in figures if figure is not None]
        if figures:
            failed = sorted({k for r in copies for k in r.reported.get("failed_copies") or []})
            missing = sorted(set(range(count)) - {r.reported.get("copy") for r in copies})
            complete = len(figures) == count and not failed
            measured.append((figures, complete, copy_overlap(copies), sorted({*failed, *missing}), copies))
    if not measured:
        return None
    used = [m for m in measured if m[1]] or measured
    sums = [sum(m[0]) for m in used]
    every = [figure for m in used for figure in m[0]]
    overlaps = [m[2] for m in used if m[2] is not None]
    failed = sorted({k for m in used for k in m[3]})
    low, high = _summed_interval(sums, used[0][4], unit)
    # The copies' own marks but ?, which the summed figure's interval decides for itself.
    marks = "".join(dict.fromkeys(mark for m in used for record in m[4] for mark in own_marks(record)
                                  if mark != MARK_NOISY))
    mean = sum(sums) / len(sums)
    if low is None or high is None or (high - low) / 2 > NOISE_THRESHOLD * mean:
        marks = MARK_NOISY + marks
    return ScalingPoint(
        value=count, throughput=mean, linearity=float("nan"), per_copy=sum(every) / len(every),
        failed_copies=failed or None, overlap=min(overlaps) if overlaps else None, low=low, high=high, marks=marks)


def copy_overlap(copies: list[Record]) -> float | None:
    """The time all copies of a round ran at once over the time any of them ran (1.0: the
    same window; 0: one ended before another began), from their `window_s`."""
    windows = {r.reported.get("copy"): r.reported.get("window_s") for r in copies}
    if len(windows) < 2 or any(not w for w in windows.values()):
        return None  # one copy overlaps nothing; a copy killed before its launcher reported has no window
    starts, ends = [w[0] for w in windows.values()], [w[1] for w in windows.values()]
    span = max(ends) - min(starts)
    return max(0.0, min(ends) - max(starts)) / span if span > 0 else 1.0
