"""PELT without ruptures (src/benchlab/statistics/changepoints.py, `pelt`; issue 39): the
change points ruptures found, the exact optimum on small series, steps placed by hand.

`data/changepoints_ruptures.json` holds what `detect` and its search found with ruptures
1.1.10's `Pelt` (jump=1, benchlab's prefix-sum L2 cost), recorded at e8a6b26 just before
ruptures was dropped, on every synthetic series of bench/changepoints.py (its
`synthetic_series`, seed 10: 6,800 series of 12 to 100 runs, 400 of them with a 5% shift),
and with lower penalties (3 and 6 noise variances, levels of at least 1, 2 and 3 runs) on
200 of them, where ruptures cut noise up to 12 times a series.
"""
import importlib.util
import itertools
import json
import pathlib

import numpy as np
import pytest

from benchlab.statistics import changepoints
from benchlab.statistics.changepoints import detect, pelt

ROOT = pathlib.Path(__file__).resolve().parents[3]
RECORDED = json.loads((pathlib.Path(__file__).parent / "data/changepoints_ruptures.json").read_text())


def bench_series():
    """bench/changepoints.py's synthetic series, as that script draws them."""
    spec = importlib.util.spec_from_file_location("bench_changepoints", ROOT / "bench/changepoints.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.synthetic_series(100, 30, 0.05, 10)


def test_the_change_points_ruptures_found_on_the_bench_series():
    seen, sums, differ = {}, {}, []
    for (kind, parameter), _, values in bench_series():
        name = f"{kind} {parameter}"
        index = seen[name] = seen.get(name, -1) + 1
        sums[name] = sums.get(name, 0.0) + float(np.sum(values))
        recorded = RECORDED["groups"][name]
        found = [[cp.index, round(cp.change, 6)] for cp in detect(values)]
        if found != recorded["change_points"].get(str(index), []):
            differ.append((name, index, "detect", found))
        for setting, cuts in recorded["searches"].items():
            penalty, min_size = (part.split("=")[1] for part in setting.split())
            if penalty == "None" or index >= 100:  # the default search is detect's, above
                continue
            mine = changepoints._search(values, penalty=float(penalty), min_size=int(min_size), noise=None)
            if mine != cuts.get(str(index), []):
                differ.append((name, index, setting, mine))
    # The same series as recorded (numpy's generator unchanged), all of them.
    assert {name: count + 1 for name, count in seen.items()} == {
        name: group["series"] for name, group in RECORDED["groups"].items()}
    assert sums == pytest.approx({name: group["sum"] for name, group in RECORDED["groups"].items()}, rel=1e-12)
    assert differ == []
    # What the comparison covers: ruptures found change points on 321 series, and cut 2,268 times
    # at the lower penalties.
    assert sum(len(group["change_points"]) for group in RECORDED["groups"].values()) == 321
    assert sum(len(cuts) for group in RECORDED["groups"].values() for setting, found in group["searches"].items()
               if not setting.startswith("penalty=None") for cuts in found.values()) == 2268


def segmentations(n: int, min_size: int):
    """Every way to cut n values into segments of at least min_size: the cut positions."""
    for count in range(n // min_size):
        for cuts in itertools.combinations(range(min_size, n - min_size + 1), count):
            bounds = [0, *cuts, n]
            if all(b - a >= min_size for a, b in zip(bounds, bounds[1:])):
                yield list(cuts)


def criterion(signal: np.ndarray, cuts: list[int], penalty: float) -> float:
    bounds = [0, *cuts, len(signal)]
    return sum(float(np.sum((signal[a:b] - signal[a:b].mean()) ** 2)) + penalty for a, b in zip(bounds, bounds[1:]))


@pytest.mark.parametrize("seed", range(30))
def test_pelt_finds_the_optimum_of_every_segmentation(seed):
    """Against all segmentations of a short series: PELT's pruning loses nothing."""
    rng = np.random.default_rng(seed)
    n, min_size, penalty = int(rng.integers(4, 12)), int(rng.integers(1, 4)), float(rng.choice([0.5, 2.0, 6.0]))
    signal = rng.normal(0, 1, n) + np.repeat(rng.normal(0, 3, 3), [n // 3, n // 3, n - 2 * (n // 3)])
    best = min(criterion(signal, cuts, penalty) for cuts in segmentations(n, min_size))
    found = pelt(signal, penalty, min_size)
    bounds = [0, *found, n]
    assert all(b - a >= min_size for a, b in zip(bounds, bounds[1:]))
    assert criterion(signal, found, penalty) == pytest.approx(best, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("signal, penalty, min_size, cuts", [
    ([0.0] * 5 + [10.0] * 5, 1.0, 2, [5]),
    ([0.0] * 4 + [6.0] * 3 + [-3.0] * 6, 1.0, 2, [4, 7]),
    ([1.0] * 6 + [2.0] * 6, 100.0, 2, []),             # a gain of 3 (6 * 6 * 1 / 12) is under the penalty
    ([1.0] * 6 + [2.0] * 6, 2.9, 2, [6]),              # ... and over this one
    ([0.0] * 6 + [50.0] + [0.0] * 6, 1.0, 1, [6, 7]),  # one value off, a level of its own
    # ... and with levels of 2 a level with a neighbour: [6, 8] costs the same, and the first of
    # equal totals wins (ruptures' min()); detect clips such a value first (OUTLIER_CLIP)
    ([0.0] * 6 + [50.0] + [0.0] * 6, 1.0, 2, [5, 7]),
    ([0.0] * 2 + [9.0] * 2 + [0.0] * 2, 0.5, 2, [2, 4]),
    ([3.0] * 8, 0.0, 1, []),                            # a flat series: no cut lowers the cost
])
def test_pelt_on_steps_placed_by_hand(signal, penalty, min_size, cuts):
    assert pelt(np.array(signal), penalty, min_size) == cuts


def test_detect_finds_hand_placed_steps_in_noise():
    rng = np.random.default_rng(39)
    levels = np.repeat([100.0, 108.0, 100.0, 93.0], [15, 12, 20, 13])
    found = detect(levels * np.exp(rng.normal(0, 0.01, len(levels))))
    assert [cp.index for cp in found] == [15, 27, 47]
    assert [cp.change for cp in found] == pytest.approx([0.08, -0.074, -0.07], abs=0.012)


def test_pelt_needs_levels_of_at_least_one_value():
    with pytest.raises(ValueError, match=r"min_size must be at least 1 \(got 0\)"):
        pelt(np.zeros(5), 1.0, 0)
    assert pelt(np.zeros(0), 1.0, 1) == pelt(np.zeros(3), 1.0, 2) == []
