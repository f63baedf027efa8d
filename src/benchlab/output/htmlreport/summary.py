"""The report's first screen: what a reviewer reads in ten seconds.

What changed (each comparison's verdicts, counted as the gate counts them: slower, not
slower, inconclusive, from statistics/compare.py), which rows those are, the level shifts
the history found, the platforms' ratios in one line each, and what failed. Everything else
is on the pages it links to (pages.py).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable

from benchlab.output.comparisons import NO_FIGURE, interval_text
from benchlab.output.htmlreport.charts import RatioBar, name_of, short_commit
from benchlab.output.htmlreport.history import History
from benchlab.output.htmlreport.runs import StoredRun
from benchlab.output.htmlreport.sections import Trend
from benchlab.output.figures import MARK_DISAGREE, MARK_NOISY, WORKLOAD_FORMAT
from benchlab.output.table import FAILED, OK
from benchlab.statistics import compare as comparing
from benchlab.statistics import contention

#: Rows a verdict's list shows on the first screen (the largest changes first); the rest are
#: counted and on the comparison's page.
ROWS_SHOWN = 8
#: Level shifts shown (the latest first).
SHIFTS_SHOWN = 8
#: Failed benchmarks named (the rest counted).
FAILURES_SHOWN = 6


@dataclasses.dataclass
class Row:
    """One row of a verdict's list: plain strings (the template escapes them)."""

    name: str
    platform: str
    change: str
    interval: str
    note: str
    link: str | None


@dataclasses.dataclass
class VerdictList:
    verdict: str      # slower, inconclusive, faster (a note of not slower, listed apart)
    heading: str
    rows: list[Row]
    more: int         # rows not shown


@dataclasses.dataclass
class Verdicts:
    """One comparison: its counts, its rule, its lists."""

    title: str
    rule: str
    counts: dict[str, int]
    lists: list[VerdictList]
    link: str | None
    compared: int


@dataclasses.dataclass
class Shift:
    name: str
    platform: str
    change: str
    run: int
    commit: str
    link: str | None


@dataclasses.dataclass
class Measured:
    """What one run measured, and how well: the tiles of a run with nothing to compare with,
    and a line under every other."""

    run: int
    figures: int
    failed: int
    uncertain: int
    disagree: int
    busy: str | None


@dataclasses.dataclass
class Move:
    """A profile bucket's move between the last two profiles, beyond its sampling noise."""

    target: str
    platform: str
    bucket: str
    change: str
    interval: str
    runs: str


@dataclasses.dataclass
class Summary:
    subject: list[str]                 # one line per run shown: run, date, host, commit, platforms
    notes: list[str]                   # how the run was chosen
    measured: list[Measured]
    verdicts: list[Verdicts]
    nothing_to_compare: str | None
    history: str                       # one sentence: how many runs, how many shifts
    shifts: list[Shift]
    shifts_more: int
    platforms: list[str]               # one line per platform against the first
    moves: list[Move]
    profiles: str | None               # one sentence on the profiles, or None without any
    failures: list[str]
    failures_more: int
    left_out: list[str]                # the sections with nothing to show, and why


#: A link to the page and chart of a benchmark, if the report has one: (kind, key) -> href.
Links = Callable[[str, tuple], "str | None"]


def subject_line(stored: StoredRun) -> str:
    status = stored.run.get("status") or ""
    return (f"run {stored.id} \u00b7 {stored.date[:19].replace('T', ' ')} \u00b7 {stored.host or 'unknown host'} \u00b7 "
            f"commit {short_commit(stored.commit)} \u00b7 {', '.join(stored.platforms) or 'no platform'}"
            + (f" \u00b7 {status}" if status and status != "complete" else ""))


def verdicts(label: str, stored: StoredRun, found: list[comparing.Comparison], link: str | None,
             links: Links) -> Verdicts:
    """The verdict counts of run `stored` against `label`, and its slower, inconclusive and faster rows."""
    counts = {verdict: sum(1 for c in found if c.verdict == verdict) for verdict in comparing.VERDICTS}
    counts[comparing.FASTER] = sum(1 for c in found if c.faster)
    slower = sorted((c for c in found if c.verdict == comparing.SLOWER), key=lambda c: -c.ratio)
    undecided = sorted((c for c in found if c.verdict == comparing.INCONCLUSIVE), key=lambda c: -c.ratio)
    faster = sorted((c for c in found if c.faster), key=lambda c: c.ratio)
    lists = [_list(comparing.SLOWER, "Slower", slower, links),
             _list(comparing.INCONCLUSIVE, "Inconclusive: the interval straddles the limit; measure more to decide",
                   undecided, links),
             _list(comparing.FASTER, "Faster: not slower, and the whole interval below the limit", faster, links)]
    return Verdicts(f"Run {stored.id} against {label}", _rule(found), counts, [v for v in lists if v.rows], link,
                    len(found))


def _rule(found: list[comparing.Comparison]) -> str:
    """The rule the verdicts follow, with the limit the rows were judged against."""
    limits = sorted({round(100 * (c.limit - 1), 6) for c in found})
    if not limits:
        return ""
    limit = f"+{limits[0]:g}%" if len(limits) == 1 else f"+{limits[0]:g}% to +{limits[-1]:g}% (per benchmark)"
    judged = ("--max-regression (never below the noise floor), as benchlab gate judges" if any(c.threshold for c in found)
              else "the noise floor, as benchlab compare judges (the gate: at its --max-regression)")
    return (f"Judged at {limit}, {judged}: slower when the whole 99% interval of B/A is above {limit}; not slower "
            "when all of it is at or below; inconclusive when it straddles the limit, never a pass.")


def _list(verdict: str, heading: str, rows: list[comparing.Comparison], links: Links) -> VerdictList:
    shown = [Row(name_of(c.key), c.platform, f"{100 * (c.ratio - 1):+,.1f}%" if c.defined else NO_FIGURE, _interval(c),
                 c.cause or ("1 process" if c.scope == comparing.WITHIN_ONE_PROCESS else ""),
                 links("history", c.key) or links("distribution", c.key)) for c in rows[:ROWS_SHOWN]]
    return VerdictList(verdict, heading, shown, max(0, len(rows) - ROWS_SHOWN))


def _interval(c: comparing.Comparison) -> str:
    """The interval as changes in percent, as the chart's axis reads."""
    if c.uninformative or not c.defined:
        return interval_text(c)
    return f"[{100 * (c.low - 1):+,.1f}%, {100 * (c.high - 1):+,.1f}%]"


def shifts(trends: list[Trend], links: Links) -> tuple[list[Shift], int]:
    """The level shifts of the history, the latest first: a benchmark, its platform, the change,
    and the run (and commit) the new level starts at."""
    found = []
    for trend in trends:
        for platform, points in trend.change_points.items():
            for change in points:
                start = trend.lines[platform][change.index]
                found.append((start.date, start.run_id, Shift(name_of(trend.key), platform, f"{100 * change.change:+.1f}%",
                                                              start.run_id, short_commit(start.commit),
                                                              links("history", trend.key))))
    found.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [shift for *_, shift in found[:SHIFTS_SHOWN]], max(0, len(found) - SHIFTS_SHOWN)


def no_history_reason(subject: StoredRun, history: History) -> str:
    """Why run `subject` has no trend line: the only run of its machine, or none of its
    figures in another of them, or its figures are workloads' (charted under Workloads).
    It said "the only stored run" beside "Run 3 against run 2" (issue 37)."""
    measured = history.measured_runs()
    if len(measured) < 2:
        return f"run {subject.id} is the only stored run of its machine (host, CPU, kernel) with measurements"
    if all(figure.format == WORKLOAD_FORMAT for figure, _ in subject.figures()):
        return (f"run {subject.id} measured workloads only, whose runs on its machine are under Workloads and "
                "profiles")
    return (f"no benchmark of run {subject.id} is in another of the {len(measured)} stored runs of its machine "
            "(host, CPU, kernel)")


def history_sentence(subject: StoredRun, history: History, trends: list[Trend]) -> str:
    measured = history.measured_runs()
    if not trends:
        reason = no_history_reason(subject, history)
        return f"No history: {reason}. Store more runs to see trends and level shifts."
    series = sum(len(trend.lines) for trend in trends)
    marked = sum(len(points) for trend in trends for points in trend.change_points.values())
    return (f"History: {series} series over the last {len(measured)} measured runs of this machine, "
            f"{marked} level shift{'' if marked == 1 else 's'} found.")


def platform_lines(stored: StoredRun, bars: list[RatioBar]) -> list[str]:
    """Per platform against the first: the geometric mean of its ratios, and their range."""
    lines = []
    first = stored.platforms[0] if stored.platforms else ""
    for platform in dict.fromkeys(bar.platform for bar in bars):
        ratios = [bar.ratio for bar in bars if bar.platform == platform and bar.ratio > 0]
        if not ratios:
            continue
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append(f"{platform} \u00f7 {first}: {mean:.3g}\u00d7 (geometric mean of {len(ratios)} benchmarks; from "
                     f"{min(ratios):.3g}\u00d7 to {max(ratios):.3g}\u00d7)")
    return lines


def failures(stored: StoredRun) -> list[str]:
    """The benchmarks that failed on a platform (not those a platform cannot build: those are '-')."""
    found = []
    for row in stored.report().rows:
        for platform, cell in row.cells.items():
            if cell.status == FAILED:
                found.append(f"{name_of((row.test, row.param, row.counter or 'time', row.sweep_value))} on {platform}: "
                             f"{cell.reason}")
    return found


def measured(stored: StoredRun) -> Measured:
    """The run's figures counted: failed, uncertain (?), processes disagreeing (!), and whether
    the machine was busy."""
    cells = [cell for row in stored.report().rows for cell in row.cells.values()]
    ok = [cell for cell in cells if cell.status == OK]
    failed = sum(1 for cell in cells if cell.status == FAILED)
    busy = contention.busy_note(stored.records)
    return Measured(stored.id, len(ok), failed, sum(1 for cell in ok if MARK_NOISY in cell.marks),
                    sum(1 for cell in ok if MARK_DISAGREE in cell.marks), busy)


def profile_moves(moves: list[tuple[str, str, str, list]], profiled: bool) -> tuple[list[Move], str | None]:
    """The buckets that moved beyond their sampling noise (any move of exact counts) between
    the last two profiles of each (target, platform), the largest first; and one sentence
    (None when no run has a profile)."""
    if not moves:
        return [], ("One profile of each target so far: a move needs two (run benchlab profile again)."
                    if profiled else None)
    found = []
    for target, platform, runs, bucket_moves in moves:
        for move in bucket_moves:
            if move.beyond_noise:
                interval = "exact" if move.low is None else f"[{move.low:+.1f}, {move.high:+.1f}] pp"
                found.append((abs(move.change), Move(target, platform, move.bucket, f"{move.change:+.1f} pp", interval,
                                                     runs)))
    found.sort(key=lambda item: -item[0])
    sentence = (f"{len(found)} bucket{'' if len(found) == 1 else 's'} moved beyond the sampling noise between the last "
                "two profiles" if found else "No bucket moved beyond the sampling noise between the last two profiles")
    return [move for _, move in found[:ROWS_SHOWN]], sentence + " (one profile per run: noise between runs is not in it)."
