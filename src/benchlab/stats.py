"""Statistics of raw samples, with exactly the definitions of docs/formats.md.

The C header computes the same numbers; tests/vectors/ holds inputs and the
expected outputs that both implementations must reproduce.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

#: The confidence level of every interval benchlab reports (formats.md: `ci_level`).
CI_LEVEL = 0.99
#: Tukey's fence factor: samples further than this many IQRs outside the quartiles are outliers.
TUKEY_FENCE = 1.5


def quantile(sorted_samples: np.ndarray, p: float) -> float:
    """Hyndman-Fan type 7 (linear interpolation), numpy's default."""
    return float(np.quantile(sorted_samples, p, method="linear"))


def binomial_median_ci_rank(n: int, level: float = CI_LEVEL) -> int:
    """The largest k >= 1 with P(Binomial(n, 1/2) <= k-1) <= (1-level)/2, or 0 if none.

    Exact integer arithmetic (math.comb) rather than a floating-point CDF, so that
    the rank never flips on a rounding error at the boundary.
    """
    # Fraction(str(level)) is exactly 99/100; a float 0.005 times 2**n would
    # overflow past n = 1023 and round at the boundary before that.
    tail = (1 - Fraction(str(level))) / 2
    total = 2**n
    cumulative = 0
    k = 0
    for j in range(n + 1):
        cumulative += math.comb(n, j)
        # P(X <= j) <= tail  means  k = j + 1 qualifies
        if cumulative <= tail * total:
            k = j + 1
        else:
            break
    return k


def median_ci(sorted_samples: np.ndarray, level: float = CI_LEVEL) -> tuple[float, float]:
    """Distribution-free interval of the median from order statistics."""
    n = len(sorted_samples)
    k = binomial_median_ci_rank(n, level)
    if k < 1:
        return float(sorted_samples[0]), float(sorted_samples[-1])
    return float(sorted_samples[k - 1]), float(sorted_samples[n - k])


def summarize(samples: Sequence[float]) -> dict[str, Any]:
    """All statistics of formats.md for one list of per-iteration samples."""
    x = np.asarray(samples, dtype=float)
    if x.size == 0:
        return {}
    s = np.sort(x)
    median = quantile(s, 0.5)
    q1, q3 = quantile(s, 0.25), quantile(s, 0.75)
    iqr = q3 - q1
    return {
        "n": int(x.size),
        "median": median,
        "min": float(s[0]),
        "max": float(s[-1]),
        "mean": float(x.mean()),
        "stddev": float(x.std(ddof=1)) if x.size > 1 else 0.0,
        "p75": q3,
        "p90": quantile(s, 0.90),
        "p99": quantile(s, 0.99),
        "mad": float(np.median(np.abs(x - median))),
        "median_ci": list(median_ci(s)),
        "ci_level": CI_LEVEL,
        "outliers_low": int(np.count_nonzero(x < q1 - TUKEY_FENCE * iqr)),
        "outliers_high": int(np.count_nonzero(x > q3 + TUKEY_FENCE * iqr)),
    }


def ratio_with_ci(a: Sequence[float], b: Sequence[float], level: float = CI_LEVEL) -> tuple[float, tuple[float, float]]:
    """The median of the per-round ratios a[i]/b[i] and its distribution-free interval.

    a[i] and b[i] were sampled next to each other in one round, so drift of the
    machine cancels inside each ratio; a ratio of two separate medians keeps it.
    The interval is the median's order-statistic interval: nothing random to reproduce.
    """
    a_arr = np.asarray(a, dtype=float)
    b_arr = np.asarray(b, dtype=float)
    if a_arr.size != b_arr.size or a_arr.size == 0:
        raise ValueError(f"paired samples need equal, non-zero lengths (got {a_arr.size} and {b_arr.size})")
    ratios = np.sort(a_arr / b_arr)
    return quantile(ratios, 0.5), median_ci(ratios, level)
