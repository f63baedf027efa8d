"""The third level of the model: how much whole runs differ, learnt from earlier runs.

The processes of one run start within a second or two of each other. On a virtual
machine the host's state (which physical cores the vCPUs sit on, their frequency, the
neighbours' load) changes over seconds to minutes, so the processes of one run share
it and their spread cannot show it: a rerun a minute later can land outside an interval
built from them alone (bench/README.md measured 79-89% coverage on dependent chains).
Kalibera and Jones ("Rigorous benchmarking in reasonable time", ISMM 2013) add a level
for every source of variation that repetitions at a lower level cannot see; here that
level is the run, and its variance is estimated from the same benchmark's earlier runs
on the same machine.

Estimator (on log figures, so it reads as a relative spread and a code change that moves
the level does not change its scale): with run means m_j of N_j processes each and p_j the
variance of log m_j that the processes alone explain (their CV squared over N_j), the
difference of consecutive runs d_j = log m_{j+1} - log m_j has

    E[d_j^2] = 2 s_run^2 + p_j + p_{j+1}

so s_run^2 = max(0, (mean_j d_j^2 - mean_j(p_j + p_{j+1})) / 2). Consecutive differences
(von Neumann's mean square successive difference) rather than the variance about one
mean, so that a level shift in the history (a real change of the code) is one large
difference, not a deviation of every run on either side of it. From 5 differences on,
mean_j d_j^2 is estimated by their median over the median of chi-square(1) (0.4549), so
that one such difference does not count as machine noise at all: with the mean, a 10%
change of the code widened the next 20 runs' intervals from +-2.6% to +-6.4%
(simulation: 5 processes, 0.3% between them, 0.5% between runs, a 10% change every 25
runs; next-run coverage 98.8% with the median, 99.9% with the mean). The median is
noisier, so it counts as 0.37 of as many degrees of freedom; on histories without
changes the intervals are 12-27% wider for it (coverage 99.1-99.6%).

The same history also says how much single processes of the benchmark differ on this
machine: the pooled relative variance of its earlier runs' processes, with their degrees
of freedom. A run of 5 processes estimates that spread on 4 degrees of freedom, and on a
VM whose vCPUs switch between states the 5 sometimes land in one state and agree by
chance (bench/README.md: the intervals that missed the next run were the narrowest ones).
So the rerun interval uses the larger of this run's process spread and the pooled one:
a run whose processes disagree more than usual keeps its own, a run whose processes
agree by luck does not get an interval narrower than the machine's history supports.
"""
from __future__ import annotations

import dataclasses
import json
import math
import statistics
from typing import Any, Iterable

#: Earlier runs needed before their spread is used (two consecutive differences).
MIN_EARLIER_RUNS = 3
#: Earlier runs used at most: the machine of months ago says little about today's.
MAX_EARLIER_RUNS = 20
#: From this many consecutive differences on, their median rather than their mean.
ROBUST_FROM = 5
#: The median of chi-square with 1 degree of freedom: a squared normal difference's median
#: is this times its mean, so median / CHI2_1_MEDIAN estimates the mean square.
CHI2_1_MEDIAN = 0.454936423119572
#: That estimate's variance is 2.7 times the mean's (asymptotic variance of a sample
#: median, 1 / (4 n f(m)^2), f the chi-square(1) density at its median m), so it is worth
#: 0.37 of as many differences: its degrees of freedom.
MEDIAN_EFFICIENCY = 0.37


@dataclasses.dataclass(frozen=True)
class RunFigure:
    """One earlier run's figure of a benchmark: the mean of its process medians, and
    the relative variance of that mean which its processes explain (CV^2 / N)."""
    mean: float
    process_variance: float
    processes: int = 0    # N; 0 when unknown (then it adds nothing to the pooled spread)


@dataclasses.dataclass(frozen=True)
class RunLevel:
    """The estimated spread of whole runs beyond their processes' own."""
    variance: float       # of the log figure: (relative standard deviation)^2
    earlier_runs: int     # how many runs it was estimated from
    df: int               # its degrees of freedom: the consecutive differences
    process_cv2: float = 0.0  # one process's figure, pooled over those runs: CV^2 (0: unknown)
    process_df: int = 0       # its degrees of freedom: the sum of (N_j - 1)

    @property
    def relative_sd(self) -> float:
        return math.sqrt(self.variance)


def fingerprint(context: dict[str, Any] | None) -> tuple:
    """The machine a run measured: runs of one fingerprint form one history. The CPU
    model and kernel are part of it because a VM's host may change under the same name."""
    context = context or {}
    return (context.get("host"), context.get("cpu"), context.get("kernel"), context.get("arch"))


def several_processes(context: dict[str, Any] | None) -> bool:
    """Whether a run ran a binary in 2 or more processes (its plan lists a unit once per
    process). Only such runs tell the spread between processes and runs (run_figure):
    the earlier runs that make a history are those, so that a series of one-process runs
    cannot push them out of the window."""
    plan = (context or {}).get("plan")
    if not isinstance(plan, list):
        return True  # no plan (an imported run): its records tell, run_figure decides
    units = [json.dumps(unit, sort_keys=True) for unit in plan]
    return len(set(units)) < len(units)


def run_figure(process_medians: Iterable[float]) -> RunFigure | None:
    """An earlier run's figure from its process medians; None when it cannot tell its
    processes' share of the spread (one process) or has no positive figure."""
    medians = [m for m in process_medians if m is not None and math.isfinite(m)]
    count = len(medians)
    if count < 2:
        return None
    mean = sum(medians) / count
    if mean <= 0:
        return None
    variance = sum((m - mean) ** 2 for m in medians) / (count - 1)
    return RunFigure(mean=mean, process_variance=variance / (mean * mean) / count, processes=count)


def estimate(history: list[RunFigure]) -> RunLevel | None:
    """The run level from earlier runs, oldest first; None with fewer than MIN_EARLIER_RUNS."""
    history = history[-MAX_EARLIER_RUNS:]
    if len(history) < MIN_EARLIER_RUNS:
        return None
    squares = [math.log(b.mean / a.mean) ** 2 for a, b in zip(history, history[1:])]
    explained = sum(a.process_variance + b.process_variance for a, b in zip(history, history[1:])) / len(squares)
    if len(squares) >= ROBUST_FROM:
        # The median, so that a real change of the code in the history (one large
        # difference) does not count as machine noise for the next 20 runs.
        mean_square, df = statistics.median(squares) / CHI2_1_MEDIAN, max(1, int(MEDIAN_EFFICIENCY * len(squares)))
    else:
        mean_square, df = sum(squares) / len(squares), len(squares)
    variance = max(0.0, (mean_square - explained) / 2)
    # Pooled within-run variance of one process: each run's CV^2 weighted by its N - 1.
    process_df = sum(f.processes - 1 for f in history if f.processes > 1)
    process_cv2 = (sum((f.processes - 1) * f.process_variance * f.processes for f in history if f.processes > 1)
                   / process_df) if process_df else 0.0
    return RunLevel(variance=variance, earlier_runs=len(history), df=df,
                    process_cv2=process_cv2, process_df=process_df)


def process_spread(figure: float, between_sd: float, processes: int,
                   level: RunLevel | None) -> tuple[float, int]:
    """The standard deviation of one process's figure to build the interval on, and its
    degrees of freedom: this run's, or the machine's pooled one when that is larger."""
    if level is not None and level.process_df > 0 and figure > 0:
        pooled = math.sqrt(level.process_cv2) * abs(figure)
        if pooled > between_sd:
            return pooled, level.process_df
    return between_sd, processes - 1


def rerun_half_width(figure: float, between_sd: float, processes: int,
                     level: RunLevel | None, t_quantile) -> tuple[float, int]:
    """The half-width of the interval that covers a rerun's figure, and its degrees of
    freedom. Our mean and a rerun's each vary by s^2/N between processes and by s_run^2
    between runs: their difference by 2 (s^2/N + s_run^2). The two variance estimates
    have their own degrees of freedom, pooled by Welch-Satterthwaite (rounded down). s is
    this run's spread between processes, or the pooled one of earlier runs when larger
    (process_spread)."""
    sd, process_df = process_spread(figure, between_sd, processes, level)
    process_part = 2 * sd ** 2 / processes
    if level is None or level.variance == 0 or figure == 0:
        return t_quantile(process_df) * math.sqrt(process_part), process_df
    run_part = 2 * level.variance * figure * figure
    denominator = process_part ** 2 / process_df + run_part ** 2 / level.df
    df = max(1, int((process_part + run_part) ** 2 / denominator)) if denominator > 0 else process_df
    return t_quantile(df) * math.sqrt(process_part + run_part), df
