"""Several processes of one benchmark, combined into the figure a rerun would reproduce.

`benchlab run --processes N` runs every binary in N fresh processes. Each process
gives its own median and an interval that covers only that process ("within this
run"): which CPU it landed on, where its stack and heap began, and the slow phase
of the machine it met are the same for all its samples, so they do not show in its
interval. Across processes they do. The model has two levels (Kalibera and Jones,
"Rigorous benchmarking in reasonable time", ISMM 2013): samples within a process,
processes within a run. Its figure is the mean of the processes' medians, and its
interval is a prediction interval for the same figure from a rerun of as many
processes:

    mean(m) +- t(0.995; N-1) * s * sqrt(2/N)

with s the standard deviation of the N process medians: the rerun's mean and ours
each vary by s^2/N (which includes the within-process noise, averaged in each
median), so their difference varies by 2 s^2/N. With one process there is no
between-process variation to see, and the interval stays that process's own, marked
"within this run", unless earlier runs on the same machine measured that variation
(below): then one process gets the interval a rerun of one process lands in.

A third level, whole runs, is added when the store holds enough earlier runs of the
benchmark on the same machine (noise.py): the processes of one run share the
machine's state of those seconds, which a rerun minutes later does not.
"""
from __future__ import annotations

import statistics
from typing import Any

from benchlab import stats
from benchlab.statistics import contention, difference, modes, noise
from benchlab.records import CONTENTION_FIELDS, Record, Summary

#: What a combined interval covers (formats.md, `ci_scope`).
RERUN = "a rerun of as many processes"
#: Statistics a combined record has by rules of their own (_summary): the median is the
#: combined figure, min and max are over every process.
OWN_RULE = ("median", "min", "max")
#: Statistics a combined record does not have.
NOT_COMBINED = ("mean", "stddev")
#: The statistics a combined record takes from its middle process: every other one.
MIDDLE_PROCESS = tuple(name for name in stats.STATISTICS if name not in OWN_RULE + NOT_COMBINED)
#: ... when earlier runs of identical code on the same machine gave the spread between whole runs too.
RERUN_WITH_HISTORY = "a rerun of as many processes, with the spread of earlier runs"
#: ... when no such runs exist and the machine's prior (benchlab calibrate) stands in.
RERUN_WITH_PRIOR = "a rerun of as many processes, with the machine prior (benchlab calibrate)"
#: ... when there is neither: a rerun's figure may move as far as one of its processes (noise.own_level).
RERUN_AS_FAR_AS_ONE_PROCESS = "a rerun of as many processes, which may move as far as one process"


def rerun_scope(level: noise.RunLevel | None) -> str:
    if level is None:
        return RERUN
    return {noise.MACHINE_PRIOR: RERUN_WITH_PRIOR,
            noise.OWN_PROCESSES: RERUN_AS_FAR_AS_ONE_PROCESS}.get(level.source, RERUN_WITH_HISTORY)

#: Earlier runs' spread per figure: {(record.key, platform, binary): RunLevel}.
History = dict[tuple, noise.RunLevel]


def history_key(record: Record) -> tuple:
    return (record.key, record.platform, record.binary)


def combine(records: list[Record], history: History | None = None) -> list[Record]:
    """One record per (benchmark, param, counter, sweep value, platform, binary): the
    records of several processes combined, the others as they are, in first-seen order.
    `history` adds the run level to the intervals of the figures it has."""
    return [combine_group(group, history) for group in process_groups(records)]


def figures(records: list[Record], history: dict | None = None) -> list[Record]:
    """One record per figure (the processes of a run combined, combine.py, with the run
    level from `history` where given), in the order of the run's plan (stable: a binary's
    own order within it), whatever shuffled order the processes ran in."""
    return sorted(combine(records, history), key=lambda r: r.reported.get("unit", 0))


def process_groups(records: list[Record]) -> list[list[Record]]:
    """The records that make one figure, grouped, in first-seen order (the report draws
    each group's processes beside the figure combine_group makes of them)."""
    groups: dict[tuple, list[Record]] = {}
    # A binary that prints one row twice in a process keeps two figures (report.row_keys
    # names the second "#2"): the n-th of a process pairs with the n-th of the others.
    # The copies of `--sweep instances=N` are processes too (instances.py): each is one more
    # process of the figure, whose spread then includes the spread between copies.
    occurrence: dict[tuple, int] = {}
    for record in records:
        seen = (record.key, record.platform, record.binary, record.process, record.reported.get("copy"))
        occurrence[seen] = occurrence.get(seen, 0) + 1
        groups.setdefault((record.key, record.platform, record.binary, occurrence[seen]), []).append(record)
    return list(groups.values())


def combine_group(group: list[Record], history: History | None = None) -> Record:
    """One group of process_groups as its figure: the record of a run of one process as it
    is, unless earlier runs on the machine tell how far a rerun of one process lands."""
    level = _level(history or {}, group[0])
    if len(group) == 1 and group[0].process is None and not knows_process_spread(level):
        return group[0]
    return combine_processes(group, level)


def knows_process_spread(level: noise.RunLevel | None) -> bool:
    """Whether earlier runs measured the spread between processes (runs of 2 or more)."""
    return level is not None and level.process_df > 0 and level.process_cv2 > 0


def _level(history: History, record: Record) -> noise.RunLevel | None:
    """The run level of a record's figure; none for a deterministic count (callgrind's
    instructions), which is the same on every run of the same code: the differences
    between its earlier runs are changes of the code, not a spread of the machine."""
    return None if record.reported.get("deterministic") is True else history.get(history_key(record))


def combine_processes(group: list[Record], level: noise.RunLevel | None = None) -> Record:
    """The records of one benchmark from several processes, as one record."""
    measured = [r for r in group if r.supported and r.median is not None]
    first = group[0]
    if not measured:
        return first  # not supported anywhere: keep its reason
    medians = [float(r.median) for r in measured]
    summary = _summary(measured, medians, level)
    per_process = ("process", "seed", "stack_offset", "env_pad", "copy", "window_s", "copy_rusage",
                   "base_samples", "difference", "difference_ci")  # the last three: the first process's, replaced below
    reported = {k: v for k, v in first.reported.items() if k not in per_process + CONTENTION_FIELDS}
    combined_difference = difference.of_processes(measured)
    if combined_difference is not None:
        reported[difference.COMBINED_KEY] = combined_difference.as_dict()
    lost = contention.summed([r.contention for r in measured])
    if lost is not None:
        reported.update(lost.fields())  # the processes' counts summed, not the first's
    if any(r.short_samples for r in measured):
        reported["short_samples"] = True
    reported["processes"] = [_process_entry(r) for r in measured]
    return Record(
        bench=first.bench, param=first.param, param_name=first.param_name, counter=first.counter, unit=first.unit,
        iterations=first.iterations, platform=first.platform, binary=first.binary, format=first.format,
        sweep=first.sweep, samples=[x for r in measured for x in r.samples],
        sample_iterations=[x for r in measured for x in (r.sample_iterations or [])] or None,
        reported=reported, summary=summary)


def _process_entry(record: Record) -> dict[str, Any]:
    """One process's own figure, listed beside the combined one (the report draws each)."""
    figures = record.figures
    entry = {"process": record.process, "median": record.median,
             "median_ci": list(figures.interval) if figures.interval else None}
    if figures.raw_median is not None:
        entry["raw_median"] = figures.raw_median
    entry.update(stack_offset=record.reported.get("stack_offset"), env_pad=record.reported.get("env_pad"))
    if "copy" in record.reported:
        entry["copy"] = record.reported["copy"]
    if "seed" in record.reported:
        entry["seed"] = record.reported["seed"]
    return entry


#: A figure leaves out the processes whose rounds were mostly preempted only while at least
#: this many others remain: fewer could not show the spread between processes.
MIN_UNPREEMPTED_PROCESSES = 2


def _summary(measured: list[Record], medians: list[float], level: noise.RunLevel | None) -> dict[str, Any]:
    outliers, preempted, busy = _left_out(measured, medians, level)
    left_out = set(outliers) | set(preempted)
    every = [r.figures for r in measured]
    kept_figures = [f for i, f in enumerate(every) if i not in left_out]
    kept = [m for i, m in enumerate(medians) if i not in left_out]
    count = len(kept)
    figure = stats.mean(kept)
    summary: dict[str, Any] = {
        "n": sum(len(r.samples) for r in measured),
        "processes": count,
        "median": figure,
        "process_medians": list(medians),
        "ci_level": stats.CI_LEVEL,
    }
    if outliers:
        summary["outlier_processes"] = outliers
    if preempted:
        summary["preempted_processes"] = preempted
    if busy:
        summary["busy"] = True
    if level is not None:
        summary["noise_source"] = noise.describe(level)
    _raw_figure(summary, kept_figures)
    # Figures of the distribution: the middle process's, so one odd process cannot move them.
    for key in MIDDLE_PROCESS:
        values = [getattr(f, key) for f in kept_figures if getattr(f, key) is not None]
        if values:
            summary[key] = statistics.median(values)  # np.median would import numpy.ma: 12 ms
    summary["min"] = min(figure if f.min is None else f.min for f in every)
    summary["max"] = max(figure if f.max is None else f.max for f in every)
    if count == 1:
        return _one_process(summary, kept_figures[0], figure, level)
    spread = stats.stddev(kept)
    half, _ = noise.rerun_half_width(figure, spread, count, level, stats.t_quantile_99)
    if level is not None:
        summary.update(run_sd=level.relative_sd, earlier_runs=level.earlier_runs)
    found = modes.process_modes([m for i, m in enumerate(medians) if i not in preempted],
                                [f.interval for i, f in enumerate(every) if i not in preempted])
    if found:
        summary["modes"] = [list(mode) for mode in found]
    low, high = figure - half, figure + half
    if busy:
        low, high = _busy_interval(low, high, every)
    summary.update(
        median_ci=[max(0.0, low) if _non_negative(every) else low, high],
        ci_scope=rerun_scope(level),
        between_sd=spread,
        between_cv=spread / figure if figure else None,
        disagree=bool(outliers) or _disagree(kept_figures),
        # Indistinguishable from the empty loop only if every process said so: a rerun
        # interval reaching 0 says the processes disagree widely, not that the cost is nil.
        zero=all(f.zero for f in every),
    )
    return summary


def _left_out(measured: list[Record], medians: list[float],
              level: noise.RunLevel | None) -> tuple[list[int], list[int], bool]:
    """The processes left out of a figure and its width (their medians stay listed), as
    (outliers, preempted, busy).

    Preempted: most of its rounds were preempted and kept (contention.mostly_preempted), so
    it measured the busy machine; at load 9 two of five such processes moved a 297 ns figure
    to 853 ns (issue 38). Left out while MIN_UNPREEMPTED_PROCESSES others remain; with fewer,
    none is, and the figure is `busy` (_busy_interval). An outlier (noise.outlier_processes)
    lies beyond the machine's pooled process spread from the others."""
    preempted = [i for i, r in enumerate(measured) if contention.mostly_preempted(r)]
    busy = bool(preempted) and len(measured) - len(preempted) < MIN_UNPREEMPTED_PROCESSES
    if busy:
        preempted = []
    candidates = [i for i in range(len(measured)) if i not in preempted]
    outliers = [candidates[i] for i in noise.outlier_processes([medians[i] for i in candidates], level)]
    return outliers, preempted, busy


def _busy_interval(low: float, high: float, every: list[Summary]) -> tuple[float, float]:
    """A busy figure's interval: the rerun interval, widened to every process's own, each of
    which the header widened down to the median of its unpreempted rounds (or to 0 with
    none) when it kept its preempted ones: the interval then reaches what the machine
    showed when it was not taken away, as well as what it showed under the load."""
    for own in (f.interval for f in every):
        if own:
            low, high = min(low, own.low), max(high, own.high)
    return low, high


def _raw_figure(summary: dict[str, Any], kept: list[Summary]) -> None:
    """The figure before the empty loop was subtracted, beside the one after (issue 20):
    the mean of the same processes' raw medians, as the figure is of theirs; the empty
    loop's cost and the share of it subtracted (the middle process's). Only when every
    process subtracted (docs/formats.md, "Which figure to quote")."""
    raws = [f.raw_median for f in kept]
    if not kept or any(v is None for v in raws):
        return
    summary["raw_median"] = statistics.fmean(raws)
    summary["overhead"] = statistics.median(0.0 if f.overhead is None else f.overhead for f in kept)
    summary["loop_share"] = statistics.median(f.share_subtracted for f in kept)


def _one_process(summary: dict[str, Any], only: Summary, figure: float,
                 level: noise.RunLevel | None) -> dict[str, Any]:
    """The figure of one process: its own interval ("within this run"), or, when earlier
    runs on this machine measured the spread between processes (and between runs), the
    interval a rerun of one process lands in: the machine's pooled process spread stands
    in for the one a single process cannot see (noise.process_spread). Never narrower
    than the process's own interval."""
    own = only.interval  # a foreign record may carry none
    summary.update(between_sd=None, between_cv=None, disagree=False, zero=bool(only.zero))
    if not knows_process_spread(level) or figure <= 0:
        summary.update(median_ci=list(own) if own else None, ci_scope=only.ci_scope or stats.WITHIN_RUN)
        return summary
    half, _ = noise.rerun_half_width(figure, 0.0, 1, level, stats.t_quantile_99)
    low, high = figure - half, figure + half
    if own:  # never narrower than the process's own interval
        low, high = min(low, own.low), max(high, own.high)
    summary.update(median_ci=[max(0.0, low) if only.zero is not None else low, high],
                   ci_scope=rerun_scope(level), run_sd=level.relative_sd, earlier_runs=level.earlier_runs,
                   noise_source=noise.describe(level))
    return summary


def _non_negative(figures: list[Summary]) -> bool:
    """Figures after subtracting the empty loop are never below zero, nor their intervals."""
    return any(f.zero is not None for f in figures)


def _disagree(figures: list[Summary]) -> bool:
    """True when two processes' own intervals do not overlap: the machine (or the CPU,
    or the layout) differed between them by more than either could see."""
    intervals = [f.interval for f in figures if f.interval]
    if len(intervals) < 2:
        return False
    return max(ci.low for ci in intervals) > min(ci.high for ci in intervals)
