"""Level shifts in a benchmark's history: where a series of stored runs' figures moved.

The method is PELT (Killick, Fearnhead and Eckley, "Optimal detection of changepoints
with a linear computational cost", JASA 2012) with the L2 cost: the series is cut into
segments of constant mean, and a cut is kept only when it lowers the residual sum of
squares by more than a penalty. PELT finds the exact optimum of that criterion, for any
number of cuts. `pelt` is its ~30 lines over prefix sums, step for step as the `ruptures`
library computes it (Truong, Oudre and Vayatis, "Selective review of offline change point
detection methods", Signal Processing 2020), which benchlab used until issue 39: ruptures
needs scipy (143 MB installed) for costs benchlab does not use, and benchlab already gave
it its own cost and windows. The tests hold `pelt` to ruptures' answers on
bench/changepoints.py's series, recorded before it went.

What this module adds around it, and why:

- **Log values.** A 5% shift is the same distance at 50 ns and at 50 ms, and run-to-run
  noise of timing figures is multiplicative (a CV), so the series is log(value).
- **The noise level from the series itself**: from its first differences (a level
  shift moves one difference only), each limited to 3 robust standard deviations
  (`noise_level`). The log series is divided by it, so the penalty is in units of the
  noise variance and one default fits any benchmark.
- **A penalty calibrated for "no change point on noise"**: a cut of a pure-noise series
  of n runs lowers the cost by a chi-square-like amount whose largest value over the
  cut positions is a few times the noise variance; `default_penalty` holds false alarms to
  under 1 in 100 series (bench/changepoints.py measures it; docs/cli.md, `history`).
- **Outliers clipped**: a run far from the runs around it (`OUTLIER_CLIP`) is pulled
  in before the cost is computed, so one run on a busy machine is not a level.
- **A noise floor**: a shift smaller than `MIN_CHANGE` (1%, `compare`'s noise floor) is
  not reported, however significant: on a very quiet series (a deterministic counter) it
  is real, but not what a person looking for regressions asks about.
- **Windows on a long series**: a series longer than `MAX_WINDOW` (200 runs) is searched
  in windows of that many runs, each half over the next, a cut kept from the window whose
  middle it is nearest (`_windows`): the penalty is calibrated for series up to that
  length, and the search's time grows with the square of a window without shifts, so it
  stays linear in the series. A shorter series is one window: searched as a whole.

`detect` is deterministic: no random numbers are drawn.

Why not E-divisive means (MongoDB's signal-processing-algorithms, Matteson and James
2014)? Its package requires Python < 3.12 and numpy < 2, ships as a source distribution
with a C extension, and its permutation test draws from numpy's global random state;
PELT needs only numpy.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np

__all__ = ["ChangePoint", "detect", "pelt", "noise_level", "default_penalty",
           "PENALTY_BASE", "PENALTY_SMALL_N", "MIN_SEGMENT", "MIN_CHANGE", "MIN_NOISE", "OUTLIER_CLIP", "MAX_WINDOW"]

#: The penalty of one more cut, in units of the noise variance, is PENALTY_BASE +
#: PENALTY_SMALL_N / n for a series of n runs. A cut of pure noise lowers the cost by the
#: largest of n correlated chi-square(1)-like gains, and on a short series the noise
#: estimate itself is uncertain (few differences), which makes gains look larger: hence
#: the second term. Calibrated by simulation of Gaussian noise on the log scale: at 12
#: runs (penalty 30.5) no false cut in 800 series, at 30 runs (23) ~0.2% of series, at
#: 60 runs (20.5) none in 200 (bench/changepoints.py measures 100 series of 30).
PENALTY_BASE = 18.0
PENALTY_SMALL_N = 150.0

#: Fewest runs a level must hold to be one. One run off is an outlier (a busy machine
#: during one run), not a level; two runs in a row at a new level are the least evidence.
MIN_SEGMENT = 2

#: Shifts smaller than this (a fraction) are not reported: `compare`'s noise floor.
MIN_CHANGE = 0.01

#: The least noise assumed (a standard deviation of log values, ~0.1%): a series of
#: identical values (an instruction count) would otherwise have zero noise and every
#: rounding difference would be a shift.
MIN_NOISE = 1e-3

#: A run further than this many noise standard deviations from the median of the five
#: runs around it counts as this far only: the L2 cost would otherwise make one run on a
#: busy machine a level of its own (with its neighbour, MIN_SEGMENT). A real shift to a
#: level of 3 runs or more is not touched: the median of the five runs around each of
#: its runs is at that level. 3 rather than 4: with heavy-tailed noise (Student-t, 3
#: degrees of freedom) 4 left 13 false change points in 1,000 series of 100 runs, 3
#: leaves 3, and finds a 5% shift in 2% normal noise as often (226 of 300 series both).
OUTLIER_CLIP = 3.0

#: The most runs one search covers. The penalty is calibrated on series of 12 to 200 runs
#: (docs/cli.md, `history`); past that the largest of n chance gains keeps growing with n.
#: And PELT keeps every cut position still admissible, which on a stretch without a shift is
#: all of them: its work grows with the square of the length (ruptures, one candidate at a
#: time: 0.4 s at 1,000 runs, 2.2 s at 3,000; `pelt`, the candidates at once in numpy: 0.04 s
#: and 0.12 s on the 2-core VM at a load of 15). A longer series is searched in windows.
MAX_WINDOW = 200

#: 1.4826 * MAD estimates a normal distribution's standard deviation.
_MAD_TO_SD = 1.4826
#: Differences are limited to 3 robust standard deviations before their mean square is
#: taken, which is then divided by 0.9707, the part of a normal variance within 3
#: standard deviations (the clipped tails add 0.0243 back, so the estimate errs 1.2%
#: high: a little conservative; the penalty was calibrated with it as it is). The mean
#: square is the efficient estimate (a median of few differences is not: with it, the
#: penalty had to be higher, and a 5% shift in 2% noise was found in 59% of series of 30
#: runs instead of 69% at the same false-alarm rate).
_DIFF_CLIP = 3.0
_CLIPPED_VARIANCE = 0.9707


@dataclasses.dataclass(frozen=True)
class ChangePoint:
    """A level shift: the series holds one level up to `index` - 1 and another from `index`."""

    #: Index (into the values given to `detect`) of the first value at the new level.
    index: int
    #: Median of the values of the level before (from the previous change point, or the start).
    before: float
    #: Median of the values of the level after (up to the next change point, or the end).
    after: float
    #: after / before - 1: +0.05 is 5% higher (slower, for a time).
    change: float

    def to_dict(self) -> dict[str, float | int]:
        return dataclasses.asdict(self)


def default_penalty(n: int) -> float:
    """The penalty `detect` uses for a series of n values."""
    return PENALTY_BASE + PENALTY_SMALL_N / max(n, 1)


def noise_level(values: Sequence[float]) -> float:
    """The between-run noise of a series as a standard deviation of its log values (~ its
    CV), from its first differences, which a level shift barely moves: their root mean
    square, each difference first limited to `_DIFF_CLIP` times a robust estimate from
    their median (so that a shift or an outlier run counts as a large difference, not as
    a huge one), divided by sqrt(2) (a difference holds the noise of two runs). Values of 0
    or less are left out, as `detect` leaves them out."""
    logs = np.log(_positive(values)[1])
    if len(logs) < 3:
        return MIN_NOISE
    diffs = np.diff(logs)
    robust = _MAD_TO_SD * float(np.median(np.abs(diffs)))
    if robust == 0:
        return MIN_NOISE
    clipped = np.clip(diffs, -_DIFF_CLIP * robust, _DIFF_CLIP * robust)
    return max(math.sqrt(float(np.mean(clipped ** 2)) / 2 / _CLIPPED_VARIANCE), MIN_NOISE)


def detect(values: Sequence[float], *, penalty: float | None = None, min_size: int = MIN_SEGMENT,
           min_change: float = MIN_CHANGE, noise: float | None = None) -> list[ChangePoint]:
    """Level shifts in `values` (a benchmark's figure over runs, oldest first), oldest first.

    `penalty` is the cost of one more cut in units of the noise variance (default
    `default_penalty(n)`); `min_size` the fewest values in a level; `min_change`
    the smallest shift reported (a fraction); `noise` the standard deviation of log values
    to assume instead of estimating it (`noise_level`). Values must be finite; those of 0
    or less (a counter that counted nothing) are left out, since a shift is a ratio: they
    belong to no level, and the indices of the change points are still into `values`.
    """
    if min_size < 1:
        raise ValueError(f"min_size must be at least 1 (got {min_size})")
    if noise is not None and not (math.isfinite(noise) and noise > 0):
        raise ValueError(f"noise must be a finite number > 0 (got {noise!r})")
    if penalty is not None and not (math.isfinite(penalty) and penalty >= 0):
        raise ValueError(f"penalty must be a finite number >= 0 (got {penalty!r})")
    positions, kept = _positive(values)
    if len(kept) < 2 * min_size:
        return []
    cuts = []
    for start, end, (low, high) in _windows(len(kept)):
        found = _search(kept[start:end], penalty=penalty, min_size=min_size, noise=noise)
        cuts += [start + cut for cut in found if low <= start + cut < high]
    cuts = _above_floor(kept, cuts, min_change)
    return [dataclasses.replace(cp, index=int(positions[cp.index])) for cp in _change_points(kept, cuts)]


def _windows(n: int) -> list[tuple[int, int, tuple[float, float]]]:
    """The windows a series of n values is searched in: (start, end, the cut positions it
    keeps). One window when n <= MAX_WINDOW; else MAX_WINDOW values from every MAX_WINDOW / 2,
    the last ending at n, each keeping the cuts nearer its middle than any other window's (so
    a kept cut has a quarter window of runs or more on both sides within its window)."""
    if n <= MAX_WINDOW:
        return [(0, n, (0, n))]
    starts = [*range(0, n - MAX_WINDOW, MAX_WINDOW // 2), n - MAX_WINDOW]
    middles = [start + MAX_WINDOW / 2 for start in starts]
    edges = [0, *((a + b) / 2 for a, b in zip(middles, middles[1:])), n]
    return [(start, start + MAX_WINDOW, (edges[i], edges[i + 1])) for i, start in enumerate(starts)]


def _search(values: np.ndarray, *, penalty: float | None, min_size: int, noise: float | None) -> list[int]:
    """PELT's cuts in one window of positive values (indices of the first value of a new level)."""
    n = len(values)
    if n < 2 * min_size:
        return []
    sigma = noise_level(values) if noise is None else float(noise)
    logs = np.log(values)
    scaled = _clip_outliers((logs - np.median(logs)) / sigma)
    pen = default_penalty(n) if penalty is None else penalty
    return pelt(scaled, pen, min_size)


def pelt(signal: np.ndarray, penalty: float, min_size: int) -> list[int]:
    """The cuts (indices of the first value of a new segment) that minimise the L2 cost of
    `signal`'s segments plus `penalty` per segment, each segment at least `min_size` long:
    PELT (Killick et al. 2012), step by step as ruptures 1.1 computes it (`Pelt(jump=1)`), so
    that ties go the same way: the optimum up to each end is the first of the smallest totals,
    a total summed segment after segment, and a start stays a candidate while its total is
    within `penalty` of the optimum's. The tests hold it to ruptures' answers, recorded.

    The cost of a segment is its sum of squared deviations from its mean, from prefix sums:
    O(1) per segment, every candidate start at once in numpy, so a window of 200 runs takes
    milliseconds (the report runs it per benchmark)."""
    if min_size < 1:
        raise ValueError(f"min_size must be at least 1 (got {min_size})")
    n = len(signal)
    sums = np.concatenate(([0.0], np.cumsum(signal)))
    squares = np.concatenate(([0.0], np.cumsum(np.square(signal))))
    best = np.zeros(n + 1)  # best[t]: the smallest total of signal[:t], segments' costs + penalties
    last = np.zeros(n + 1, dtype=int)  # last[t]: where the last segment of that optimum starts
    candidates = np.zeros(0, dtype=int)  # starts still admissible, ascending
    for end in range(min_size, n + 1):
        newest = end - min_size
        # A start needs an optimum before it: 0, or min_size values or more (ruptures skips the rest).
        if newest == 0 or newest >= min_size:
            candidates = np.append(candidates, newest)
        totals = best[candidates] + (_l2(sums, squares, candidates, end) + penalty)
        chosen = int(np.argmin(totals))  # the first of equal totals, as min() over a list
        best[end], last[end] = totals[chosen], candidates[chosen]
        candidates = candidates[totals <= best[end] + penalty]
    cuts, end = [], n
    while end > 0:
        end = int(last[end])
        cuts.append(end)
    return sorted(cuts)[1:]  # the first segment's start, 0, is no cut


def _l2(sums: np.ndarray, squares: np.ndarray, starts: np.ndarray, end: int) -> np.ndarray:
    """The L2 cost of the segments [start, end) for each of `starts`: sum of squares less
    n * mean^2, never below 0 (rounding), as ruptures' CostL2 is with the same prefix sums."""
    total = sums[end] - sums[starts]
    return np.maximum(squares[end] - squares[starts] - total * total / (end - starts), 0.0)


def _positive(values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(the indices of the values > 0, those values); an error for a value that is not finite."""
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError("values must be a sequence of numbers")
    if not np.all(np.isfinite(array)):
        bad = next(float(v) for v in array if not math.isfinite(v))
        raise ValueError(f"values must be finite numbers (got {bad!r})")
    positions = np.flatnonzero(array > 0)
    return positions, array[positions]


def _clip_outliers(z: np.ndarray) -> np.ndarray:
    half = 2  # a window of 5 runs, fewer at the ends
    ends = [*range(min(half, len(z))), *range(max(half, len(z) - half), len(z))]
    local = np.empty(len(z))
    local[ends] = [np.median(z[max(0, i - half):i + half + 1]) for i in ends]
    if len(z) > 2 * half:  # the full windows at once: a median per run was most of a search's time
        local[half:len(z) - half] = np.median(np.lib.stride_tricks.sliding_window_view(z, 2 * half + 1), axis=1)
    return local + np.clip(z - local, -OUTLIER_CLIP, OUTLIER_CLIP)


def _levels(values: np.ndarray, cuts: list[int]) -> list[float]:
    bounds = [0, *cuts, len(values)]
    return [float(np.median(values[a:b])) for a, b in zip(bounds, bounds[1:])]


def _above_floor(values: np.ndarray, cuts: list[int], min_change: float) -> list[int]:
    """Drop cuts whose shift is under the noise floor, the smallest first (the levels of its
    neighbours are then measured again, over the merged segment)."""
    cuts = list(cuts)
    while cuts:
        levels = _levels(values, cuts)
        changes = [abs(after / before - 1) for before, after in zip(levels, levels[1:])]
        smallest = min(range(len(cuts)), key=changes.__getitem__)
        if changes[smallest] >= min_change:
            break
        del cuts[smallest]
    return cuts


def _change_points(values: np.ndarray, cuts: list[int]) -> list[ChangePoint]:
    levels = _levels(values, cuts)
    return [ChangePoint(index=cut, before=before, after=after, change=after / before - 1)
            for cut, before, after in zip(cuts, levels, levels[1:])]
