"""The interval of a ratio measured in paired rounds (`ab` and the gate's re-measurement):
one ratio per round, B's median over A's from processes run side by side.

Before ROBUST_FROM rounds, the mean of the logarithms and its t interval; from there, the
Hodges-Lehmann estimate and the Wilcoxon signed-rank interval. At which level a look
reads it is the stopping rule's (sequential.py)."""
from __future__ import annotations

import functools
import math

import numpy as np

from benchlab import stats
from benchlab.statistics import distributions

#: From this many rounds on, the signed-rank interval (paired_interval).
ROBUST_FROM = 10
#: The standard normal's 0.995 quantile: a two-sided 99% interval.
Z_995 = 2.5758293035489004


def paired_interval(ratios: list[float], level: float = stats.CI_LEVEL) -> tuple[float, float, float]:
    """The rounds' ratio and its interval at `level` (99%), on their logarithms: from
    ROBUST_FROM rounds on, the Hodges-Lehmann estimate (the median of the Walsh averages)
    and the Wilcoxon signed-rank interval; before that, their mean and the t interval.

    Why not the mean and t from the start: on a VM whose host switches state within
    seconds, a round whose two processes met different states reads +-30% where the others
    agree to 1-2%. Those rounds come in both directions (the order of A and B is drawn
    each round), so the logs stay symmetric about the true ratio, which is all the signed-
    rank interval assumes; but they make the sd, and so the t interval, several times
    wider than the rounds that agree (tests/python/measuring/test_ab_rounds.py: a
    contaminated A/A, 30% of rounds +-30%: the t interval +-4.5% wide, the signed-rank one
    +-0.8%, both covering 1 at least 99% of the time)."""
    centre, low, high = log_interval(np.log(np.asarray(ratios, dtype=float)), level)
    return _exp(centre), _exp(low), _exp(high)


def log_interval(logs: np.ndarray, level: float = stats.CI_LEVEL) -> tuple[float, float, float]:
    """paired_interval on the rounds' logarithms: (centre, low, high), as logarithms."""
    n = len(logs)
    if n < 2:
        return (float(logs[0]) if n else 0.0), -math.inf, math.inf
    if level >= 1:  # a level that rounds to 1 bounds nothing
        return log_interval(logs)[0], -math.inf, math.inf
    if n >= ROBUST_FROM:
        z = Z_995 if level == stats.CI_LEVEL else distributions.normal_quantile_two_sided(level)
        return signed_rank_interval(logs, z)
    mean = float(np.mean(logs))
    sd = float(np.std(logs, ddof=1))
    t = stats.t_quantile_99(n - 1) if level == stats.CI_LEVEL else distributions.t_quantile(n - 1, level)
    half = t * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def signed_rank_interval(values: list[float], z: float = Z_995) -> tuple[float, float, float]:
    """The Hodges-Lehmann estimate of the centre of a symmetric distribution and its
    interval by Wilcoxon's signed-rank statistic (normal approximation: n >= ROBUST_FROM;
    `z` the normal quantile of its level, 99% by default): the k-th smallest and largest
    of the n(n+1)/2 Walsh averages (x_i + x_j) / 2, i <= j."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    i, j = _pairs(n)
    walsh = (x[i] + x[j]) / 2
    m = len(walsh)
    k = int(math.floor(m / 2 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24)))
    k = min(max(k, 0), (m - 1) // 2)
    middle = (m - 1) // 2, m // 2
    ordered = np.partition(walsh, sorted({k, m - 1 - k, *middle}))
    return float((ordered[middle[0]] + ordered[middle[1]]) / 2), float(ordered[k]), float(ordered[m - 1 - k])


def _exp(x: float) -> float:
    """exp, infinite past a float's range: a look at a level near 1 with few rounds has a
    t quantile in the thousands, and its interval bounds nothing."""
    return math.exp(x) if x < 709 else math.inf


@functools.lru_cache(maxsize=64)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n)
