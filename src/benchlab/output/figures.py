"""Figures as the table judges them: each one's interval, its marks, and how it is written.

A figure is one record per (test, param, counter, platform), the processes of a run
combined (combine.py). The marks (~ ? ! ^ #) and their legend, the interval a figure is
judged by, and the text of numbers and percents are decided here, once, for every
output: the text table, markdown, csv, json, `stats`, `history` and the HTML report.
"""
from __future__ import annotations

from benchlab.records import Interval, Record, Summary
from benchlab.statistics import contention

#: Below this many samples the 99% median interval is just [min, max] (formats.md), so
#: it bounds nothing: such a value is marked uncertain.
MIN_SAMPLES_FOR_CI = 8
#: A median whose 99% CI half-width exceeds this fraction of it is marked noisy.
NOISE_THRESHOLD = 0.05

MARK_OVERLAP = "~"
MARK_NOISY = "?"
MARK_DISAGREE = "!"
MARK_MODES = "^"
MARK_BUSY = "#"
LEGEND = {
    MARK_OVERLAP: "99% CIs of the median overlap with the first platform's: the difference is not significant",
    MARK_NOISY: (f"uncertain: one process of fewer than {MIN_SAMPLES_FOR_CI} samples, or a 99% CI "
                 f"half-width over {NOISE_THRESHOLD:.0%} of the median"),
    MARK_DISAGREE: ("its processes disagree beyond their own intervals (the machine, CPU or layout differed "
                    "between them): trust the +- of the rerun interval, not a single process"),
    MARK_MODES: ("its processes fall into two modes (each process in one state for its life): the figure is "
                 "their mix, and moves with it; the modes and their shares are under the table"),
    MARK_BUSY: ("busy: most rounds of its processes were preempted and kept (the machine was busy throughout): "
                "the figure is the loaded machine's, and its interval reaches down to what the unpreempted rounds "
                "showed"),
}


def modes_text(figures: Summary) -> str:
    """`modes 160 (60%), 230 (40%)`: a figure's modes, low first; "" when it has none."""
    return ", ".join(f"{format_value(median)} ({share:.0%})" for median, share in figures.modes)


def preempted_text(figures: Summary) -> str:
    """`2 of 5 processes left out (most of their rounds were preempted: 1.52us, 1.61us)`; "" for none."""
    left = figures.preempted_processes
    if not left:
        return ""
    medians = ", ".join(format_value(figures.process_medians[i]) for i in left if i < len(figures.process_medians))
    total = figures.processes + len(left) + len(figures.outlier_processes)
    return (f"{len(left)} of {total} processes left out of the figure (most of their rounds were preempted, "
            f"so they measured the busy machine: {medians})")


#: The format of whole-command workloads (workloads.py): a few runs, shown with their range.
WORKLOAD_FORMAT = "workload"


def format_value(value: float | None) -> str:
    """Integers from 100 up (as the cross-platform runner prints ns), else 3 significant digits."""
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"



def spread_text(figures: Summary, cv: bool = True) -> str:
    """For a figure of several processes: +-h%, the half-width of the interval a rerun lands
    in, and (unless `cv` is False) the CV of the processes' medians (the between-process variation)."""
    median, ci = figures.median, figures.interval
    one_process_alone = figures.processes < 2 and figures.earlier_runs is None
    if not median or not ci or one_process_alone:
        return ""  # one process: its interval covers only itself, and the ? mark says if it is wide
    text = f" {half_width_text(median, ci)}"
    if cv and figures.between_cv is not None:
        text += f" cv{percent_text(figures.between_cv)}"
    return text


def relative_half_width(median: float, interval) -> float:
    """The larger side of an interval around a (non-zero) median, as a fraction of it."""
    return max(interval[1] - median, median - interval[0]) / abs(median)


def half_width_text(median: float, interval) -> str:
    """`+-h%` of an interval around `median`, or "uninformative" where it is as wide as the
    figure or wider: every output says so in words (table, stats, history, report)."""
    half = relative_half_width(median, interval)
    return UNINFORMATIVE_WORD if not half < UNINFORMATIVE else f"+-{percent_text(half)}"


def interval_bounds_text(median: float, interval) -> str:
    """`[low, high]`, or "uninformative" as half_width_text decides."""
    if median and not relative_half_width(median, interval) < UNINFORMATIVE:
        return UNINFORMATIVE_WORD
    return f"[{interval[0]:.4g}, {interval[1]:.4g}]"


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



def figure_interval(record: Record) -> Interval | None:
    """The interval the table judges a figure by: its 99% interval, a workload's range, or
    None where one process's few samples bound nothing (the ? mark)."""
    figures = record.figures
    if record.format == WORKLOAD_FORMAT and record.summary:
        # A workload's runs are too few for a 99% interval (below 8 it is [min, max]
        # anyway, formats.md): its range is what the table shows and judges.
        return Interval(float(figures.min), float(figures.max))
    ci = figures.interval
    # A deterministic count (callgrind's instructions) is exact from one sample.
    enough = ((figures.n or 0) >= MIN_SAMPLES_FOR_CI or figures.processes > 1
              or record.reported.get("deterministic") is True)
    if not enough or not ci:
        return None
    return Interval(float(ci.low), float(ci.high))


def is_noisy(record: Record) -> bool:
    if record.figures.zero:
        return False  # shown as ~0 with its bound: no relative width to judge
    interval = figure_interval(record)
    median = record.median
    if interval is None or median is None:
        return True
    if median == 0:
        return interval[1] != interval[0]
    return (interval[1] - interval[0]) / 2 > NOISE_THRESHOLD * abs(median)


def own_marks(record: Record) -> str:
    """The marks a figure carries by itself (all but ~, which compares it with another):
    ? noisy, ! its processes disagree, ^ two modes, # the busy machine's."""
    figures = record.figures
    marks = MARK_NOISY if is_noisy(record) else ""
    marks += MARK_DISAGREE if figures.disagree else ""
    marks += MARK_MODES if figures.modes else ""
    return marks + (MARK_BUSY if contention.is_busy(record) else "")


def overlaps(a: Record, b: Record) -> bool:
    first, second = figure_interval(a), figure_interval(b)
    if first is None or second is None:
        return False  # no interval to compare: the noisy mark already says so
    return first[0] <= second[1] and second[0] <= first[1]
