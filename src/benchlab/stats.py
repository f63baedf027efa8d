"""Statistics of raw samples, with exactly the definitions of docs/formats.md.

The C header computes the same numbers; tests/vectors/ holds inputs and the
expected outputs that both implementations must reproduce. Samples are always in
the order they were taken: the interval of the median depends on it.

In the base layer, beside records.py: a record's summary is these statistics of its own
samples (Record.__post_init__), so every layer reads them; statistics/ builds on them
(processes combined, comparisons, history).
"""
from __future__ import annotations

import functools
import math
from typing import Any, Sequence

import numpy as np

from benchlab.limits import limit

# The numbers below are the header's (include/benchlab.h, section I2), read from it so
# that the two implementations cannot disagree.

#: The confidence level of every interval benchlab reports (formats.md: `ci_level`): BL__CI_LEVEL.
CI_LEVEL = limit("CI_LEVEL")
#: Tukey's fence factor: samples further than this many IQRs outside the quartiles are
#: outliers (BL__TUKEY_FENCE).
TUKEY_FENCE = limit("TUKEY_FENCE")
#: Batch medians (Seila 1982): at most BL__BATCHES batches, so each is long and its
#: neighbours nearly independent; at least BL__MIN_BATCHES, else no batch interval.
BATCHES = int(limit("BATCHES"))
MIN_BATCHES = int(limit("MIN_BATCHES"))
#: The statistics of one process's samples, by their names in a jsonl record and in
#: summarize()'s dict, in the record's order: the header's BL__STATISTICS, which makes
#: the fields of its bl_stats and its jsonl writer (tests/python/test_stats_names.py
#: checks that the two lists agree). Lists of statistics elsewhere are made from this one.
STATISTICS = ("median", "min", "max", "mean", "stddev", "p75", "p90", "p99", "mad")
#: The statistics of spread, not of location: subtracting the empty loop leaves them as
#: they are.
SPREADS = ("stddev", "mad")
#: What an interval of one process covers (formats.md, `ci_scope`).
WITHIN_RUN = "within this run"

#: t(0.995; df) for df = 1..30, the header's table (scipy.stats.t.ppf, 10 decimals).
_T99 = (
    63.6567411629, 9.9248432009, 5.8409093097, 4.6040948713, 4.0321429836, 3.7074280213,
    3.4994832974, 3.3553873313, 3.2498355416, 3.1692726726, 3.1058065155, 3.0545395894,
    3.0122758387, 2.9768427344, 2.9467128835, 2.9207816224, 2.8982305197, 2.8784404727,
    2.8609346065, 2.8453397098, 2.8313595580, 2.8187560606, 2.8073356838, 2.7969395048,
    2.7874358137, 2.7787145333, 2.7706829571, 2.7632624555, 2.7563859037, 2.7499956536,
)
_Z995 = 2.5758293035489004


def t_quantile_99(df: int) -> float:
    """Student's t(0.995; df): the table, then the Cornish-Fisher expansion (as the header)."""
    if df < 1:
        return math.inf
    if df <= len(_T99):
        return _T99[df - 1]
    z, z2, d = _Z995, _Z995 * _Z995, float(df)
    return (z + z * (z2 + 1) / (4 * d) + z * ((5 * z2 + 16) * z2 + 3) / (96 * d * d)
            + z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * d * d * d)
            + z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / (92160 * d * d * d * d))


def quantile(sorted_samples: np.ndarray, p: float) -> float:
    """Hyndman-Fan type 7 (linear interpolation, numpy's default), computed as the header
    computes it (bl_quantile_sorted): the same operations give the same digits, and it
    costs a fraction of numpy.quantile's per-call overhead on the small arrays of a run."""
    h = (len(sorted_samples) - 1) * p
    i = int(h)
    if i + 1 >= len(sorted_samples):
        return float(sorted_samples[-1])
    low = float(sorted_samples[i])
    return low + (h - i) * (float(sorted_samples[i + 1]) - low)


@functools.lru_cache(maxsize=1024)
def binomial_median_ci_rank(n: int, level: float = CI_LEVEL) -> int:
    """The largest k >= 1 with P(Binomial(n, 1/2) <= k-1) <= (1-level)/2, or 0 if none.

    The header's algorithm, vectorised: probabilities built outward from the middle
    term (which never underflows) by their ratios, normalised, accumulated. O(n), in
    the same order of operations as the C loop, so both pick the same rank.
    """
    if n < 1:
        return 0
    mid = n // 2
    j_left = np.arange(mid, 0, -1, dtype=float)               # w[j-1] = w[j] * j / (n-j+1)
    left = np.cumprod(j_left / (n - j_left + 1))[::-1]        # w[0..mid-1]
    j_right = np.arange(mid, n, dtype=float)                  # w[j+1] = w[j] * (n-j) / (j+1)
    right = np.cumprod((n - j_right) / (j_right + 1))         # w[mid+1..n]
    weights = np.concatenate([left, [1.0], right])
    total = np.cumsum(weights)[-1]
    cumulative = np.cumsum(weights[: n // 2] / total)         # P(B <= k-1) for k = 1..n/2
    qualifying = np.nonzero(cumulative > (1 - level) / 2 * (1 + 1e-12))[0]
    return int(qualifying[0]) if qualifying.size else n // 2


def batch_halfwidth(samples: np.ndarray) -> float:
    """Half-width of the batch-medians t interval; 0 with fewer than MIN_BATCHES batches of 2.

    Batch j holds samples[floor(j*n/B) : floor((j+1)*n/B)], in the order taken.
    """
    n = len(samples)
    batches = min(BATCHES, n // 2)
    if batches < MIN_BATCHES:
        return 0.0
    medians = np.array([quantile(np.sort(samples[j * n // batches:(j + 1) * n // batches]), 0.5)
                        for j in range(batches)])
    spread = float(np.sum((medians - medians.sum() / batches) ** 2))
    return t_quantile_99(batches - 1) * math.sqrt(spread / (batches - 1) / batches)


def median_ci(samples: Sequence[float] | np.ndarray, level: float = CI_LEVEL) -> tuple[float, float]:
    """The median's interval within one run: the order-statistic interval (exact for
    independent samples) widened to the batch-medians interval (for correlated ones),
    kept within the samples' range. `samples` in the order taken."""
    x = np.asarray(samples, dtype=float)
    return _median_ci(x, np.sort(x), level)


def _median_ci(x: np.ndarray, s: np.ndarray, level: float = CI_LEVEL) -> tuple[float, float]:
    """median_ci of `x` (in the order taken), given `s`, the same sorted."""
    n = len(s)
    k = binomial_median_ci_rank(n, level)
    low, high = (float(s[k - 1]), float(s[n - k])) if k >= 1 else (float(s[0]), float(s[-1]))
    median = quantile(s, 0.5)
    half = batch_halfwidth(x)
    low, high = min(low, median - half), max(high, median + half)
    return max(low, float(s[0])), min(high, float(s[-1]))


@functools.cache
def loop_share_limits() -> tuple[float, float]:
    """BL__LOOP_SHARE_FULL and BL__LOOP_SHARE_NONE, read from the header."""
    from benchlab import limits  # reads the header: only once a record is summarised
    return limits.limit("LOOP_SHARE_FULL"), limits.limit("LOOP_SHARE_NONE")


def loop_share(raw_median: float, loop_median: float) -> float:
    """The share of the empty loop's cost taken from a body (the header's bl__loop_share):
    all of it from a body under BL__LOOP_SHARE_FULL (4) times the empty loop's median,
    none from one over BL__LOOP_SHARE_NONE (8) times, falling linearly between. A long
    body's time does not follow the empty loop's, so taking it off would only add the
    empty loop's jumps between host states to the figure (formats.md, *Subtraction*)."""
    full, none = loop_share_limits()
    if not loop_median > 0:
        return 1.0
    times = raw_median / loop_median
    if times <= full:
        return 1.0
    if times >= none:
        return 0.0
    return (none - times) / (none - full)


def summarize(samples: Sequence[float], overhead_samples: Sequence[float] | None = None) -> dict[str, Any]:
    """All statistics of formats.md for one process's per-iteration samples, in the order taken.

    With `overhead_samples` (the empty loop's sample of each round) the location
    figures are those of samples[i] - share * overhead_samples[i], as the header reports
    them, `share` (`loop_share`) from loop_share of the two medians: nothing below zero,
    `zero` when the median's interval reaches it; `raw_median` and `raw_median_ci` keep
    the figures as measured, `overhead` the empty loop's median.
    """
    x = np.asarray(samples, dtype=float)
    if x.size == 0:
        return {}
    if overhead_samples is None:
        return _summary(x)
    empty = np.asarray(overhead_samples, dtype=float)
    if empty.size != x.size:
        raise ValueError(f"{x.size} samples but {empty.size} overhead samples: one each round")
    raw = _summary(x)
    loop = quantile(np.sort(empty), 0.5)
    share = loop_share(raw["median"], loop)
    summary = _summary(x - share * empty)
    summary["zero"] = not summary["median_ci"][0] > 0
    for key in SHIFTED:
        summary[key] = max(0.0, summary[key])
    summary["median_ci"] = [max(0.0, v) for v in summary["median_ci"]]
    summary.update(raw_median=raw["median"], raw_median_ci=raw["median_ci"], overhead=loop, loop_share=share)
    return summary


#: The figures that move when the empty loop's cost is subtracted.
SHIFTED = tuple(name for name in STATISTICS if name not in SPREADS)


def _summary(x: np.ndarray) -> dict[str, Any]:
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
        "mad": quantile(np.sort(np.abs(x - median)), 0.5),
        "median_ci": list(_median_ci(x, s)),
        "ci_level": CI_LEVEL,
        "ci_scope": WITHIN_RUN,
        "outliers_low": int(np.count_nonzero(x < q1 - TUKEY_FENCE * iqr)),
        "outliers_high": int(np.count_nonzero(x > q3 + TUKEY_FENCE * iqr)),
    }


def ratio_with_ci(a: Sequence[float], b: Sequence[float], level: float = CI_LEVEL) -> tuple[float, tuple[float, float]]:
    """The median of the per-round ratios a[i]/b[i] and its interval within the run.

    a[i] and b[i] were sampled in the same round, so drift of the machine cancels inside
    each ratio; a ratio of two separate medians keeps it.
    """
    a_arr = np.asarray(a, dtype=float)
    b_arr = np.asarray(b, dtype=float)
    if a_arr.size != b_arr.size or a_arr.size == 0:
        raise ValueError(f"paired samples need equal, non-zero lengths (got {a_arr.size} and {b_arr.size})")
    ratios = a_arr / b_arr
    return quantile(np.sort(ratios), 0.5), median_ci(ratios, level)
