"""Statistics of raw samples, with exactly the definitions of docs/formats.md.

The C header computes the same numbers; tests/vectors/ holds inputs and the
expected outputs that both implementations must reproduce. Samples are always in
the order they were taken: the interval of the median depends on it.

In the base layer, beside records.py: a record's summary is these statistics of its own
samples (Record.__post_init__), so every layer reads them; statistics/ builds on them
(processes combined, comparisons, history).

Plain Python, not numpy: a run's records are summarised here, and numpy's import was a
third of a default run's own CPU (bench/run_overhead.py). The sums are numpy's pairwise
ones (`numpy_sum`), so every figure is the one numpy gave, to the last bit
(tests/python/test_stats.py compares them).
"""
from __future__ import annotations

import bisect
import functools
import itertools
import math
import operator
from typing import Any, Sequence

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


def numpy_sum(values: Sequence[float]) -> float:
    """The sum of `values` as numpy's float64 sum rounds it (add.reduce: pairwise, from
    blocks of up to 128 values summed in 8 lanes). Python's own sum() is compensated
    from 3.12 on, and a plain loop rounds differently: either would move figures by a bit
    against the ones numpy gave and earlier runs stored."""
    values = values if isinstance(values, list) else [float(v) for v in values]
    return 0.0 + _pairwise(values, 0, len(values))


def _pairwise(values: list[float], start: int, n: int) -> float:
    """numpy's pairwise_sum of values[start:start+n]; each lane's sum in index order."""
    if n < 8:
        return functools.reduce(operator.add, values[start:start + n], -0.0)
    if n <= 128:
        blocks = start + n - n % 8
        lane = [functools.reduce(operator.add, values[start + j:blocks:8]) for j in range(8)]
        total = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]))
        return functools.reduce(operator.add, values[blocks:start + n], total)
    half = n // 2 - (n // 2) % 8
    return _pairwise(values, start, half) + _pairwise(values, start + half, n - half)


def mean(values: Sequence[float]) -> float:
    """numpy's mean of float64 values, bit for bit."""
    return numpy_sum(values) / len(values)


def stddev(values: Sequence[float]) -> float:
    """numpy's std(ddof=1) of float64 values (at least 2), bit for bit."""
    centre = mean(values)
    return math.sqrt(numpy_sum([(v - centre) * (v - centre) for v in values]) / (len(values) - 1))


def _floats(values: Sequence[float]) -> list[float]:
    return [float(v) for v in values]


def quantile(sorted_samples: Sequence[float], p: float) -> float:
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

    The header's algorithm: probabilities built outward from the middle term (which never
    underflows) by their ratios, normalised, accumulated. O(n), in the same order of
    operations as the C loop, so both pick the same rank.
    """
    if n < 1:
        return 0
    mid = n // 2
    # w[j-1] = w[j] * j / (n-j+1) for j = mid..1, and w[j+1] = w[j] * (n-j) / (j+1) for j = mid..n-1
    left = list(itertools.accumulate((j / (n - j + 1) for j in map(float, range(mid, 0, -1))), operator.mul))
    right = itertools.accumulate(((n - j) / (j + 1) for j in map(float, range(mid, n))), operator.mul)
    weights = [*reversed(left), 1.0, *right]
    total = functools.reduce(operator.add, weights)
    threshold = (1 - level) / 2 * (1 + 1e-12)
    # P(B <= k-1) for k = 1..n/2
    for k, cumulative in enumerate(itertools.accumulate(w / total for w in weights[: n // 2])):
        if cumulative > threshold:
            return k
    return n // 2


def batch_halfwidth(samples: Sequence[float]) -> float:
    """Half-width of the batch-medians t interval; 0 with fewer than MIN_BATCHES batches of 2.

    Batch j holds samples[floor(j*n/B) : floor((j+1)*n/B)], in the order taken.
    """
    n = len(samples)
    batches = min(BATCHES, n // 2)
    if batches < MIN_BATCHES:
        return 0.0
    medians = [quantile(sorted(samples[j * n // batches:(j + 1) * n // batches]), 0.5) for j in range(batches)]
    centre = numpy_sum(medians) / batches
    spread = numpy_sum([(m - centre) * (m - centre) for m in medians])
    return t_quantile_99(batches - 1) * math.sqrt(spread / (batches - 1) / batches)


def median_ci(samples: Sequence[float], level: float = CI_LEVEL) -> tuple[float, float]:
    """The median's interval within one run: the order-statistic interval (exact for
    independent samples) widened to the batch-medians interval (for correlated ones),
    kept within the samples' range. `samples` in the order taken."""
    x = _floats(samples)
    return _median_ci(x, sorted(x), level)


def _median_ci(x: list[float], s: list[float], level: float = CI_LEVEL) -> tuple[float, float]:
    """median_ci of `x` (in the order taken), given `s`, the same sorted."""
    n = len(s)
    k = binomial_median_ci_rank(n, level)
    low, high = (s[k - 1], s[n - k]) if k >= 1 else (s[0], s[-1])
    median = quantile(s, 0.5)
    half = batch_halfwidth(x)
    low, high = min(low, median - half), max(high, median + half)
    return max(low, s[0]), min(high, s[-1])


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
    x = _floats(samples)
    if not x:
        return {}
    if overhead_samples is None:
        return _summary(x)
    empty = _floats(overhead_samples)
    if len(empty) != len(x):
        raise ValueError(f"{len(x)} samples but {len(empty)} overhead samples: one each round")
    raw = _summary(x)
    loop = quantile(sorted(empty), 0.5)
    share = loop_share(raw["median"], loop)
    summary = _summary([v - share * e for v, e in zip(x, empty)])
    summary["zero"] = not summary["median_ci"][0] > 0
    for key in SHIFTED:
        summary[key] = max(0.0, summary[key])
    summary["median_ci"] = [max(0.0, v) for v in summary["median_ci"]]
    summary.update(raw_median=raw["median"], raw_median_ci=raw["median_ci"], overhead=loop, loop_share=share)
    return summary


#: The figures that move when the empty loop's cost is subtracted.
SHIFTED = tuple(name for name in STATISTICS if name not in SPREADS)


def _summary(x: list[float]) -> dict[str, Any]:
    s = sorted(x)
    median = quantile(s, 0.5)
    q1, q3 = quantile(s, 0.25), quantile(s, 0.75)
    iqr = q3 - q1
    return {
        "n": len(x),
        "median": median,
        "min": s[0],
        "max": s[-1],
        "mean": mean(x),
        "stddev": stddev(x) if len(x) > 1 else 0.0,
        "p75": q3,
        "p90": quantile(s, 0.90),
        "p99": quantile(s, 0.99),
        "mad": quantile(sorted([abs(v - median) for v in s]), 0.5),  # from s: two sorted runs, which sorted() merges
        "median_ci": list(_median_ci(x, s)),
        "ci_level": CI_LEVEL,
        "ci_scope": WITHIN_RUN,
        "outliers_low": bisect.bisect_left(s, q1 - TUKEY_FENCE * iqr),  # how many are below
        "outliers_high": len(s) - bisect.bisect_right(s, q3 + TUKEY_FENCE * iqr),  # and above
    }


def ratio_with_ci(a: Sequence[float], b: Sequence[float], level: float = CI_LEVEL) -> tuple[float, tuple[float, float]]:
    """The median of the per-round ratios a[i]/b[i] and its interval within the run.

    a[i] and b[i] were sampled in the same round, so drift of the machine cancels inside
    each ratio; a ratio of two separate medians keeps it.
    """
    import numpy as np  # a zero in b is an infinite ratio here, as it always was

    a_arr = np.asarray(a, dtype=float)
    b_arr = np.asarray(b, dtype=float)
    if a_arr.size != b_arr.size or a_arr.size == 0:
        raise ValueError(f"paired samples need equal, non-zero lengths (got {a_arr.size} and {b_arr.size})")
    ratios = a_arr / b_arr
    return quantile(np.sort(ratios), 0.5), median_ci(ratios, level)
