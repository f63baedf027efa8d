"""The sections of the report, one function each, in the order of the page.

Each takes the loaded runs and returns a Section (or None when there is nothing to show,
and the page says why in its list of sections left out).
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable

from benchlab.output.comparisons import interval_text, ratio_cell, verdict_text
from benchlab.statistics import compare as comparing
from benchlab import stats
from benchlab.statistics import contention
from benchlab.statistics import series as history_model
from benchlab.statistics.distributions import normal_quantile_two_sided
from benchlab.output.htmlreport import charts
from benchlab.output.htmlreport.charts import Chart, RatioBar, TrendPoint
from benchlab.output.htmlreport.history import History
from benchlab.output.htmlreport.runs import StoredRun
from benchlab.output.figures import LEGEND, WORKLOAD_FORMAT
from benchlab.output.scaling import scaling
from benchlab.output import table as figure_table
from benchlab.output.table import row_keys


@dataclasses.dataclass
class Table:
    """A table of plain strings (escaped by the template)."""

    headers: list[str]
    rows: list[list[str]]
    legend: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Section:
    id: str
    title: str
    intro: str
    charts: list[Chart] = dataclasses.field(default_factory=list)
    tables: list[Table] = dataclasses.field(default_factory=list)
    #: The program (binary) a per-benchmark section is about: pages.py gives each its own page.
    program: str | None = None


class ChartIds:
    """Element ids chart-1, chart-2, ...: never derived from a benchmark's name."""

    def __init__(self) -> None:
        self._count = itertools.count(1)

    def __call__(self) -> str:
        return f"chart-{next(self._count)}"


# -- the table of `benchlab show` ---------------------------------------------------------------

def show_table(report: figure_table.Table) -> Table:
    """The run as `benchlab show` prints it: the same cells (report.Cell.text), so the page's
    numbers are the table's."""
    sweep = report.sweep_flag
    headers = ["test", "param", *(["counter"] if report.show_counter else []), *([sweep] if sweep else []),
               *[f"{p} ({report.common_unit})" if report.common_unit else p for p in report.platforms], "iterations"]
    rows = []
    for row in report.rows:
        test = row.test if row.binary is None else f"{row.test} ({row.binary})"
        cells = [row.cells[p].text for p in report.platforms]
        rows.append([test, "" if row.param is None else str(row.param),
                     *([row.counter] if report.show_counter else []),
                     *([("" if row.sweep_value is None else str(row.sweep_value))] if sweep else []),
                     *cells, row.iterations_label])
    return Table(headers, rows, [f"{mark}  {LEGEND[mark]}" for mark in report.marks_used])


# -- per benchmark: distributions ---------------------------------------------------------------

#: Fewest samples (over a figure's processes) a distribution chart is drawn for.
MIN_SAMPLES_TO_DRAW = 2


def run_table(stored: StoredRun) -> Section:
    """The run's table, as `benchlab show` prints it."""
    pairs = _drawable(stored)
    return Section(f"table-{stored.id}", f"Run {stored.id}: the table of benchlab show",
                   "Every figure of the run with its 99% interval, the marks of show, and each platform's ratio to "
                   "the first." + _contention_sentence(pairs), [], [show_table(stored.report())])


def _drawable(stored: StoredRun) -> list[tuple[Any, list]]:
    # Workloads have a section of their own (over runs), and a figure of one sample per
    # process (a sweep's throughput) has no distribution to draw.
    return [(figure, processes) for figure, processes in stored.figures()
            if figure.supported and figure.median is not None and figure.format != WORKLOAD_FORMAT
            and sum(len(p.samples) for p in processes) >= MIN_SAMPLES_TO_DRAW]


DISTRIBUTIONS_INTRO = (
    "Per benchmark and platform the samples of each process (box: quartiles; whiskers: the furthest samples within "
    "1.5 IQR of the box, those beyond as circles, those beyond 3 IQR, such as preemptions, counted under the chart "
    "instead; after the body's share of the empty loop is subtracted; a log scale when a panel spans over 100x) and "
    "the figure (diamond: the mean of the process medians) with its 99% interval, the interval a rerun lands in "
    "(also the grey band, to hold each process against it; of a run of one process, its median and the interval "
    "within that process). Beside it, where the empty loop was measured, the raw figure (open diamond: the same "
    "mean before subtracting): quote it for a throughput-bound body of a few cycles, whose work overlaps the loop "
    "(docs/formats.md, \"Which figure to quote\").")


def benchmarks(stored: StoredRun, new_id: ChartIds) -> list[Section]:
    """Per program of the run, a section of its benchmarks' distributions."""
    pairs = _drawable(stored)
    keys = row_keys([figure for figure, _ in pairs])
    by_row: dict[tuple, list[tuple[str, Any, list]]] = {}
    programs: dict[tuple, str] = {}
    for (figure, processes), (key, _binary) in zip(pairs, keys):
        by_row.setdefault(key, []).append((figure.platform, figure, processes))
        programs.setdefault(key, figure.binary or "")
    order = {p: i for i, p in enumerate(stored.platforms)}
    per_program: dict[str, list[Chart]] = {}
    for key, cells in by_row.items():
        chart = charts.distribution(new_id(), key, sorted(cells, key=lambda c: order.get(c[0], len(order))))
        per_program.setdefault(programs[key], []).append(chart)
    return [Section(f"run-{stored.id}", f"Run {stored.id}: {program or 'benchmarks'}, every benchmark's samples",
                    DISTRIBUTIONS_INTRO, chart_list, program=program)
            for program, chart_list in per_program.items()]


def _contention_sentence(pairs: list) -> str:
    """What the kernel said the run's samples lost to other tasks, in one sentence (none where
    no process measured it)."""
    total = contention.of_run([record for _, processes in pairs for record in processes])
    if total is None or total.preempted is None:
        return ""
    share = total.waited_share
    waited = f"waited for a CPU {share:.1%} of its sampling time" if share is not None else "was measured"
    return (f" Contention: this run {waited}; {total.preempted} rounds were preempted, {total.left_out} of them "
            "left out of the figures (docs/formats.md, \"Contention\"); benchlab stats shows them per figure.")


# -- per suite: ratios to the first platform ----------------------------------------------------

def ratio_bars(stored: StoredRun) -> list[RatioBar]:
    """Each benchmark's figure on each platform but the first, divided by its figure on the first."""
    platforms = stored.platforms
    if len(platforms) < 2:
        return []
    bars = []
    for row in stored.report().rows:
        first = row.cells[platforms[0]].record
        if row.failed or first is None or not first.supported or not first.median:
            continue
        for platform in platforms[1:]:
            other = row.cells[platform].record
            if other is None or not other.supported or not other.median:
                continue
            # No run level: both platforms ran in this run, interleaved, so a slow day hit both.
            ratio, low, high, _ = comparing.ratio_interval(first, other)
            bars.append(RatioBar(first.binary, charts.name_of((row.test, row.param, row.counter, row.sweep_value)),
                                 platform, ratio, low, high))
    return bars


def platform_ratios(stored: StoredRun, bars: list[RatioBar], new_id: ChartIds) -> Section | None:
    if not bars:
        return None
    first = stored.platforms[0]
    chart = charts.ratios(new_id(), f"Run {stored.id}: ratio to {first}, per program", first, bars)
    return Section(f"ratios-{stored.id}", f"Run {stored.id}: platforms against {first}",
                   f"Each benchmark's figure on each platform divided by its figure on {first} (the first "
                   "platform), with the 99% interval of that ratio from the processes' spread on both sides, "
                   f"grouped by program. A bar grows from 1\u00d7 (the same figure as on {first}): up when the "
                   "platform's figure is larger (slower, for a time), down when it is smaller, on a log scale, so "
                   "that 2\u00d7 and 0.5\u00d7 are as far from 1.", [chart])


# -- changes against a baseline (or the first run given) ----------------------------------------

def comparisons(reference: StoredRun, stored: StoredRun,
                floor_of: Callable[[str], float]) -> list[comparing.Comparison]:
    """benchlab compare's rows of `stored` against `reference` (the summary and the section share them),
    each at its benchmark's noise floor (`floor_of`)."""
    return comparing.compare(reference.records, stored.records, floor_of=floor_of, levels=stored.levels)


def changes(reference_label: str, stored: StoredRun, found: list[comparing.Comparison], default_floor: float,
            new_id: ChartIds) -> Section | None:
    if not found:
        return None
    counts = {verdict: sum(1 for c in found if c.verdict == verdict) for verdict in comparing.VERDICTS}
    faster = sum(1 for c in found if c.faster)
    chart = charts.changes(new_id(), f"Run {stored.id} against {reference_label}", found, default_floor)
    table = Table(["test", "platform", f"A ({reference_label})", f"B (run {stored.id})", "B/A", "99% interval",
                   "verdict"],
                  [[charts.name_of(c.key), c.platform, f"{c.a:.4g}", f"{c.b:.4g}", ratio_cell(c),
                    interval_text(c), verdict_text(c)] for c in found])
    return Section(
        f"changes-{stored.id}", f"Run {stored.id} against {reference_label}",
        f"benchlab compare's figures: per benchmark the change of run {stored.id} from {reference_label} with the "
        f"99% interval of the ratio (the processes as the unit); grey band: the noise floor "
        f"(\u00b1{100 * default_floor:g}%). {counts[comparing.SLOWER]} slower, {counts[comparing.NOT_SLOWER]} not "
        f"slower ({faster} faster), {counts[comparing.INCONCLUSIVE]} inconclusive.", [chart], [table])


# -- over history: trends and change points -----------------------------------------------------

@dataclasses.dataclass
class Trend:
    """One benchmark of the subject over the history: a line per platform and its change points."""

    key: tuple
    unit: str
    program: str
    lines: dict[str, list[TrendPoint]]
    change_points: dict[str, list]


def trend_findings(subject: StoredRun, history: History) -> list[Trend]:
    """Each benchmark of `subject` with two or more runs in `history`, its lines and change
    points: the history model's series (`benchlab history`'s points and shifts)."""
    if len(history) < 2:
        return []
    found: dict[tuple, Trend] = {}
    for figure, _ in subject.figures():
        points = history.series.get((figure.key, figure.platform, figure.binary)) or []
        if len(points) < 2:
            continue
        trend = found.setdefault(figure.key, Trend(figure.key, points[0].record.unit, figure.binary or "", {}, {}))
        trend.lines[figure.platform] = [_point(point) for point in points]
        trend.change_points[figure.platform] = [shift.change for shift in history_model.shifts(points)]
    return list(found.values())


def trends(subject: StoredRun, history: History, found: list[Trend], new_id: ChartIds) -> list[Section]:
    """Per program, a section of its benchmarks' trend lines."""
    marked = sum(len(points) for trend in found for points in trend.change_points.values())
    per_program: dict[str, list[Chart]] = {}
    for trend in found:
        per_program.setdefault(trend.program, []).append(
            charts.trend(new_id(), trend.key, trend.unit, trend.lines, trend.change_points))
    intro = (f"Each benchmark of run {subject.id} over the stored runs of the same machine (host, CPU, kernel), "
             "oldest first, each run named on the axis with its git commit: the figure of each run with its 99% "
             "interval; hover a point for its date and host. Red crosses mark detected change points (level shifts; "
             f"{marked} found in this history), at the first run of the new level, labelled with the shift and the "
             "commit of that run.")
    return [Section("history", f"History of {program or 'the benchmarks'}: the last {len(history)} runs of this "
                    "machine", intro, chart_list, program=program)
            for program, chart_list in per_program.items()]


def _point(point: history_model.Point) -> TrendPoint:
    stored, record = StoredRun(point.run, [], []), point.record  # the run's date, commit and host as the page names them
    low, high = record.figures.interval or (record.median, record.median)
    return TrendPoint(stored.id, stored.date, stored.commit, stored.host, float(record.median), float(low), float(high))


# -- scalability sweeps -------------------------------------------------------------------------

def sweeps(stored: StoredRun, new_id: ChartIds) -> Section | None:
    report = stored.report()
    flag = report.sweep_flag
    found = scaling(report)
    if not flag or not found:
        return None
    chart_list = [charts.scaling(new_id(), key, flag, unit, curves) for key, unit, curves in found]
    return Section(f"sweeps-{stored.id}", f"Run {stored.id}: scaling against {flag}",
                   f"Throughput (left) and linearity (right) against {flag}, per platform: linearity is "
                   "throughput(N) / ((N/N0) x throughput(N0)), 1.0 perfect scaling (the dotted line).", chart_list)


# -- workloads over runs ------------------------------------------------------------------------

#: The seed's bench_time chart (seconds) and bench_rss chart (KiB).
TIME_MEASURES = ("user", "sys", "wall")
RSS_MEASURE = "max_rss"


def workloads(subject: StoredRun, history: History, new_id: ChartIds) -> Section | None:
    names = list(dict.fromkeys(r.bench for r in subject.records if r.format == WORKLOAD_FORMAT))
    if not names:
        return None
    runs = [(s, history.workloads[s.id]) for s in history.runs if s.id in history.workloads] or [
        (subject, subject.records)]
    chart_list = []
    for name in names:
        for platform in dict.fromkeys(r.platform for r in subject.records if r.bench == name):
            time_lines = _workload_lines(runs, name, platform, TIME_MEASURES)
            rss_lines = _workload_lines(runs, name, platform, (RSS_MEASURE,))
            suffix = f" on {platform}" if len(subject.platforms) > 1 else ""
            if time_lines:
                chart_list.append(charts.workload_series(new_id(), f"{name}{suffix}: time", "seconds", time_lines))
            if rss_lines:
                chart_list.append(charts.workload_series(new_id(), f"{name}{suffix}: max RSS", "max RSS (KiB)",
                                                         rss_lines))
    if not chart_list:
        return None
    return Section("workloads", "Workloads over runs",
                   "Each whole-command workload's user, sys and wall seconds and its max RSS, per stored run of this "
                   "machine: the median of the workload's runs, the bars their range (three runs bound nothing "
                   "statistically). User time is the stable measure on a loaded machine.", chart_list)


def _workload_lines(runs: list[tuple[StoredRun, list]], name: str, platform: str, measures: tuple[str, ...]):
    lines: dict[str, list[TrendPoint]] = {}
    for stored, records in runs:
        for record in records:
            if (record.format == WORKLOAD_FORMAT and record.bench == name and record.platform == platform
                    and record.counter in measures and record.supported and record.median is not None):
                figures = record.figures
                low = record.median if figures.min is None else figures.min
                high = record.median if figures.max is None else figures.max
                lines.setdefault(record.counter, []).append(TrendPoint(
                    stored.id, stored.date, stored.commit, stored.host, float(record.median), float(low), float(high)))
    return {m: lines[m] for m in measures if m in lines}


# -- profile buckets ----------------------------------------------------------------------------

#: Per profiled (target, platform): each profiled run with its rows, in history's order.
ProfileGroups = dict[tuple[str, str], list[tuple[StoredRun, list[dict[str, Any]]]]]


def profile_groups(scope: list[StoredRun], load_profile: Callable[[int], list[dict[str, Any]]]) -> ProfileGroups:
    groups: ProfileGroups = {}
    for stored in scope:
        for row in load_profile(stored.id):
            group = groups.setdefault((row["target"], row["platform"]), [])
            if not group or group[-1][0] is not stored:
                group.append((stored, []))
            group[-1][1].append(row)
    return groups


def latest_moves(groups: ProfileGroups) -> list[tuple[str, str, str, list[charts.BucketMove]]]:
    """Per (target, platform) profiled twice or more: the moves between its last two profiles."""
    found = []
    for (target, platform), profiled in groups.items():
        if len(profiled) >= 2:
            (before, rows_a), (after, rows_b) = profiled[-2], profiled[-1]
            found.append((target, platform, f"run {before.id} \u2192 run {after.id}",
                          bucket_moves_with_noise(before, rows_a, after, rows_b)))
    return found


def profiles(groups: ProfileGroups, new_id: ChartIds) -> Section | None:
    """Per profiled (target, platform): each profiled run's self shares as one stacked bar,
    and the change of every bucket between the last two, in percentage points (compare's
    bucket_moves), with the interval of its sampling noise."""
    chart_list = []
    moves = {(target, platform): (runs, found) for target, platform, runs, found in latest_moves(groups)}
    for (target, platform), profiled in groups.items():
        shares = {f"run {stored.id} ({stored.date[:10]})": {r["bucket"]: r["share"] for r in rows if r["kind"] == "self"}
                  for stored, rows in profiled}
        chart_list.append(charts.bucket_shares(new_id(), f"{target} on {platform}: self share per bucket", shares))
        if (target, platform) in moves:
            runs, found = moves[(target, platform)]
            chart_list.append(charts.bucket_changes(new_id(), f"{target} on {platform}: change, {runs}", found))
    if not chart_list:
        return None
    return Section("profiles", "Profile buckets",
                   "Where the time goes (benchlab profile): each bucket's self share of the samples (perf) or "
                   "instructions (callgrind), one bar per profiled run of this machine, \"other\" included so that "
                   "a bar adds up to 100%; then each bucket's move between the last two profiles, in percentage "
                   "points (red: a larger share, green: a smaller one, grey: within the noise). The noise of a move "
                   "is the sampling noise of perf's samples only (binomial, 99%: a share p of n samples is known to "
                   "about 2.6 x sqrt(p(1-p)/n)): each run holds one profile, so the variation between runs of the "
                   "same code is not in it, and a move just beyond the interval may still be that. Callgrind's "
                   "counts of instructions are exact: no interval, and any move is a change of what ran.",
                   chart_list)


def bucket_moves_with_noise(before: StoredRun, rows_a: list[dict[str, Any]], after: StoredRun,
                            rows_b: list[dict[str, Any]]) -> list[charts.BucketMove]:
    """Each bucket's self share move (bucket_moves), with the 99% interval of the difference of
    two binomial shares where both profiles were sampled (perf), none where counted (callgrind)."""
    from benchlab.output.profiles import bucket_moves
    sampled = _sampled(before) and _sampled(after)
    totals = [sum(r["samples"] for r in rows if r["kind"] == "self") for rows in (rows_a, rows_b)]
    moves = []
    for move in bucket_moves(rows_a, rows_b):
        if move["kind"] != "self":
            continue
        if not sampled or min(totals) <= 0:
            moves.append(charts.BucketMove(move["bucket"], move["change_pp"]))
            continue
        p_a, p_b = move["a"] / 100, move["b"] / 100
        half = 100 * normal_quantile_two_sided(stats.CI_LEVEL) * (p_a * (1 - p_a) / totals[0] + p_b * (1 - p_b) / totals[1]) ** 0.5
        moves.append(charts.BucketMove(move["bucket"], move["change_pp"], move["change_pp"] - half,
                                       move["change_pp"] + half))
    return moves


def _sampled(stored: StoredRun) -> bool:
    """A profile of perf's samples (noisy), not callgrind's counts (exact)."""
    return (stored.context.get("profile") or {}).get("profiler", "perf") != "callgrind"
