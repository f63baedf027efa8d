"""Generate the shared statistics vectors from an independent reference (numpy, scipy).

The C header (tests/c/vectors_test.c) and the Python package (tests/python) must both
reproduce these numbers from the same samples. Definitions: docs/formats.md.
Run: python tests/vectors/make_vectors.py   (rewrites stats.json, ratio.json and subtract.json)
"""
from __future__ import annotations

import json
import pathlib

import numpy as np
from scipy import stats as sps

HERE = pathlib.Path(__file__).parent
CI_LEVEL = 0.99


BATCHES = 10
MIN_BATCHES = 4
#: The empty loop's cost is taken in full from a body under 4 times it, not at all from one
#: over 8 times, in a share falling linearly between (formats.md, *Subtraction*).
LOOP_SHARE_FULL, LOOP_SHARE_NONE = 4.0, 8.0


def order_statistic_ci(sorted_samples: np.ndarray) -> tuple[float, float]:
    """Order-statistic interval: largest k with P(Binomial(n, 1/2) <= k-1) <= (1-level)/2."""
    n = len(sorted_samples)
    alpha_half = (1 - CI_LEVEL) / 2
    k = 0
    for candidate in range(1, n // 2 + 1):
        if sps.binom.cdf(candidate - 1, n, 0.5) <= alpha_half * (1 + 1e-12):
            k = candidate
        else:
            break
    if k == 0:
        return float(sorted_samples[0]), float(sorted_samples[-1])
    return float(sorted_samples[k - 1]), float(sorted_samples[n - k])


def batch_halfwidth(x: np.ndarray) -> float:
    """Batch medians (Seila 1982): batch j holds x[floor(j*n/B) : floor((j+1)*n/B)] in the
    order taken, B = min(10, n // 2); a t interval over the B batch medians."""
    n = len(x)
    batches = min(BATCHES, n // 2)
    if batches < MIN_BATCHES:
        return 0.0
    medians = np.array([np.median(x[j * n // batches:(j + 1) * n // batches]) for j in range(batches)])
    return float(sps.t.ppf(1 - (1 - CI_LEVEL) / 2, batches - 1) * medians.std(ddof=1) / np.sqrt(batches))


def median_ci(samples: np.ndarray) -> tuple[float, float]:
    """The wider of the order-statistic interval and the batch-medians interval, within the samples' range."""
    low, high = order_statistic_ci(np.sort(samples))
    median = float(np.median(samples))
    half = batch_halfwidth(samples)
    low, high = min(low, median - half), max(high, median + half)
    return max(low, float(samples.min())), min(high, float(samples.max()))


def subtracted(samples: list[float], overhead_samples: list[float]) -> dict:
    """Figures after subtracting the body's share of the empty loop round by round: the
    statistics of samples[i] - share * overhead_samples[i], nothing below zero; `zero`
    when the median's interval reaches it. `share` from the two medians' ratio."""
    times = float(np.median(samples)) / float(np.median(overhead_samples))
    share = float(np.clip((LOOP_SHARE_NONE - times) / (LOOP_SHARE_NONE - LOOP_SHARE_FULL), 0.0, 1.0))
    s = summary(list(np.asarray(samples) - share * np.asarray(overhead_samples)))
    out = {k: max(0.0, s[k]) for k in ("median", "min", "max", "mean", "p75", "p90", "p99")}
    out["median_ci"] = [max(0.0, s["median_ci"][0]), max(0.0, s["median_ci"][1])]
    out["zero"] = bool(s["median_ci"][0] <= 0)
    out["loop_share"] = share
    return out


def summary(samples: list[float]) -> dict:
    x = np.asarray(samples, dtype=float)
    s = np.sort(x)
    q1, q3 = np.quantile(x, [0.25, 0.75])
    iqr = q3 - q1
    median = float(np.median(x))
    return {
        "median": median,
        "min": float(s[0]),
        "max": float(s[-1]),
        "mean": float(np.mean(x)),
        "stddev": float(np.std(x, ddof=1)) if len(x) > 1 else 0.0,
        "p75": float(np.quantile(x, 0.75)),
        "p90": float(np.quantile(x, 0.90)),
        "p99": float(np.quantile(x, 0.99)),
        "mad": float(np.median(np.abs(x - median))),
        "median_ci": list(median_ci(x)),
        "outliers_low": int(np.sum(x < q1 - 1.5 * iqr)),
        "outliers_high": int(np.sum(x > q3 + 1.5 * iqr)),
    }


def paired_ratio(a: list[float], b: list[float]) -> dict:
    """Median of the per-round ratios a[i]/b[i] and its order-statistic interval."""
    ratios = np.asarray(a, dtype=float) / np.asarray(b, dtype=float)
    low, high = median_ci(ratios)
    return {"ratio": float(np.median(ratios)), "ratio_ci": [low, high],
            "ratio_of_medians": float(np.median(a) / np.median(b))}


def _ar1(rng: np.random.Generator, n: int, phi: float, sigma: float) -> np.ndarray:
    x = np.zeros(n)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + rng.normal(0, sigma)
    return x


def main() -> None:
    rng = np.random.default_rng(20261121)
    cases = {
        "one": [5.0],
        "two": [1.0, 3.0],
        "small_odd": [3.0, 1.0, 2.0, 5.0, 4.0],
        "ties": [2.0, 2.0, 2.0, 3.0, 3.0, 2.0, 2.0, 9.0],
        "negative_near_zero": [-0.02, 0.01, 0.0, -0.005, 0.03, 0.002, -0.001, 0.004, 0.0, -0.01],
        "normal_30": list(rng.normal(100.0, 2.0, 30)),
        "lognormal_50_tail": list(rng.lognormal(3.0, 0.3, 50)),
        "with_outliers_40": list(rng.normal(400.0, 1.0, 37)) + [480.0, 510.0, 300.0],
        "uniform_200": list(rng.uniform(10.0, 20.0, 200)),
        "large_2000": list(rng.gamma(4.0, 25.0, 2000)),
        # Correlated samples, where batch medians widen the interval: a slow phase of the
        # machine in the middle of a run, and an AR(1) series.
        "slow_phase_60": list(rng.normal(100.0, 0.5, 20)) + list(rng.normal(115.0, 0.5, 20)) + list(rng.normal(100.0, 0.5, 20)),
        "ar1_100": list(100.0 + _ar1(rng, 100, 0.9, 1.0)),
    }
    stats_vectors = [{"name": name, "samples": [float(v) for v in xs], "expected": summary(xs)}
                     for name, xs in cases.items()]
    (HERE / "stats.json").write_text(json.dumps(stats_vectors, indent=1) + "\n")

    ratio_cases = []
    base = rng.normal(400.0, 4.0, 40)
    ratio_cases.append(("identical_40", list(base), list(base)))
    ratio_cases.append(("noisy_copy_40", list(base + rng.normal(0, 4.0, 40)), list(base)))
    drift = np.linspace(0, 20, 30)
    b30 = rng.normal(100.0, 1.0, 30) + drift
    ratio_cases.append(("one_percent_drift_30", list(b30 * 1.01 + rng.normal(0, 0.3, 30)), list(b30)))
    ratio_cases.append(("twice_small_9", list(rng.normal(20.0, 0.5, 9)), list(rng.normal(10.0, 0.5, 9))))
    ratio_vectors = [{"name": name, "a": [float(v) for v in a], "b": [float(v) for v in b],
                      "expected": paired_ratio(a, b)} for name, a, b in ratio_cases]
    (HERE / "ratio.json").write_text(json.dumps(ratio_vectors, indent=1) + "\n")

    def empty_loop(n):  # the empty loop's per-round samples: 0.27 ns, one round in a slow phase
        x = rng.normal(0.27, 0.002, n)
        x[n // 3] *= 1.3
        return x

    subtract_cases = [
        ("chain_well_above", list(rng.normal(107.0, 0.4, 50)), list(empty_loop(50))),
        ("empty_body_reaches_zero", list(rng.normal(0.27, 0.002, 40)), list(empty_loop(40))),
        ("below_overhead", list(rng.normal(0.25, 0.002, 30)), list(empty_loop(30))),
        ("tiny_kernel", list(rng.normal(1.3, 0.03, 64)), list(empty_loop(64))),  # 4.8 times the loop: 0.8 of it
    ]
    # A host whose empty loop runs at 0.287 ns alone on its core and 0.58 ns when a
    # neighbour shares it, the states alternating in runs of rounds (issue 20): a
    # dependency chain that does not slow with it keeps its raw figure; a body of a few
    # cycles that slows as the loop does has the loop taken off round by round.
    state = np.repeat(rng.uniform(size=8) < 0.5, 10)
    loop = np.where(state, 0.58, 0.287) + rng.normal(0, 0.001, 80)
    subtract_cases += [
        ("two_state_chain", list(rng.normal(11.46, 0.01, 80)), list(loop)),
        ("two_state_throughput", list(0.5 + 1.5 * loop + rng.normal(0, 0.005, 80)), list(loop)),
        ("partial_share", list(rng.normal(1.8, 0.01, 80)), list(loop)),
    ]
    subtract_vectors = [{"name": name, "samples": [float(v) for v in xs], "overhead_samples": [float(v) for v in os_],
                         "expected": subtracted(xs, os_)} for name, xs, os_ in subtract_cases]
    (HERE / "subtract.json").write_text(json.dumps(subtract_vectors, indent=1) + "\n")


if __name__ == "__main__":
    main()
