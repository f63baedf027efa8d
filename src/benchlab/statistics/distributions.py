"""Distribution functions the statistics need at levels other than a table's, with the
math module alone (scipy.stats takes half a second to import, and `run` and the gate use
these every time): Student's t at any level, the normal quantile, and the bisection that
inverts a CDF (chi-square's quantile in noise.py uses it too)."""
from __future__ import annotations

import functools
import math
import statistics
from typing import Callable


def invert_increasing(cdf: Callable[[float], float], p: float, high: float, steps: int = 200) -> float:
    """The x in [0, high] where the increasing `cdf` reaches p, by bisection (to 1e-12 relative)."""
    low = 0.0
    for _ in range(steps):
        middle = (low + high) / 2
        if cdf(middle) < p:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2


def t_cdf_two_sided(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with a whole number `df` of degrees of freedom, by its
    closed form (Abramowitz and Stegun 26.7.3-4: a finite sum in cos(theta), theta =
    atan(t / sqrt(df))): exact, with the math module alone."""
    theta = math.atan(abs(t) / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df, 2):       # (1 3 ... (k-1)) / (2 4 ... k) cos^k
            term *= c2 * (k - 1) / k
            total += term
        return s * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = math.cos(theta)
    for k in range(3, df, 2):           # (2 4 ... (k-1)) / (1 3 ... k) cos^k
        term *= c2 * (k - 1) / k
        total += term
    return 2 / math.pi * (theta + s * total)


@functools.lru_cache(maxsize=4096)
def t_quantile(df: int, level: float) -> float:
    """The t such that P(|T| <= t) = `level` (two-sided), df >= 1, by bisection on the
    exact CDF: for levels other than 99% (a family of intervals that hold together)."""
    if df < 1:
        return math.inf
    high = 1.0
    while t_cdf_two_sided(high, df) < level:
        high *= 2
    return invert_increasing(lambda t: t_cdf_two_sided(t, df), level, high)


def normal_quantile_two_sided(level: float) -> float:
    """The z such that P(|Z| <= z) = `level`."""
    return statistics.NormalDist().inv_cdf(0.5 + level / 2)
