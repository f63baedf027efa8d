"""Processes that fall into separate modes: a figure that is a mix, said as such (issue 38).

On some hosts a process lands in one of two states for its whole life (getpid about 160
or about 230 ns here, for nanobench and benchlab alike: benchlab's header in the high
mode in 13 of 20 processes, nanobench in 8 of 20). A run's mean then moves with the mix
it drew and its interval is wide (+-32%), which says *that* it varies and not *how*.
When the processes' medians split into two groups, each tight, far apart, and with every
process's own interval on its side of the gap, the figure is marked and the modes are
given with their shares.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from benchlab.records import Interval

#: Processes a split needs: two on each side, so that a lone odd process is an outlier
#: (noise.outlier_processes), not a mode.
MIN_PER_MODE = 2
#: The gap between the modes, at least this many times the wider mode's own range...
GAP_TO_RANGE = 3.0
#: ... and at least this fraction of the lower mode: identical code at another address
#: differs by 1% (the noise floor); two modes are a change of state, not of layout.
MIN_GAP = 0.03


class Mode(NamedTuple):
    median: float   # the mean of its processes' medians
    share: float    # of the processes


def process_modes(medians: Sequence[float], intervals: Sequence[Interval | None] = ()) -> tuple[Mode, ...]:
    """Two modes (low, high) when the medians split so; else ()."""
    ordered = sorted(range(len(medians)), key=lambda i: medians[i])
    values = [float(medians[i]) for i in ordered]
    n = len(values)
    best = None
    for k in range(MIN_PER_MODE, n - MIN_PER_MODE + 1):
        low, high = values[:k], values[k:]
        gap = high[0] - low[-1]
        widest = max(low[-1] - low[0], high[-1] - high[0])
        if low[0] <= 0 or gap < MIN_GAP * low[-1] or gap <= GAP_TO_RANGE * widest:
            continue
        if best is None or gap > best[1]:
            best = (k, gap)
    if best is None:
        return ()
    k = best[0]
    own = [intervals[i] if i < len(intervals) else None for i in ordered]
    if any(ci is not None and ci.high >= values[k] for ci in own[:k]) or \
            any(ci is not None and ci.low <= values[k - 1] for ci in own[k:]):
        return ()  # a process's own interval reaches across the gap: not separate states
    return (Mode(sum(values[:k]) / k, k / n), Mode(sum(values[k:]) / (n - k), (n - k) / n))
