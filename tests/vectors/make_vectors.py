"""Generate the shared statistics vectors from an independent reference (numpy, scipy).

The C header (tests/c/vectors_test.c) and the Python package (tests/python) must both
reproduce these numbers from the same samples. Definitions: docs/formats.md.
Run: python tests/vectors/make_vectors.py   (rewrites stats.json and ratio.json)
"""
from __future__ import annotations

import json
import pathlib

import numpy as np
from scipy import stats as sps

HERE = pathlib.Path(__file__).parent
CI_LEVEL = 0.99


def median_ci(sorted_samples: np.ndarray) -> tuple[float, float]:
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
        "median_ci": list(median_ci(s)),
        "outliers_low": int(np.sum(x < q1 - 1.5 * iqr)),
        "outliers_high": int(np.sum(x > q3 + 1.5 * iqr)),
    }


def paired_ratio(a: list[float], b: list[float]) -> dict:
    """Median of the per-round ratios a[i]/b[i] and its order-statistic interval."""
    ratios = np.asarray(a, dtype=float) / np.asarray(b, dtype=float)
    low, high = median_ci(np.sort(ratios))
    return {"ratio": float(np.median(ratios)), "ratio_ci": [low, high],
            "ratio_of_medians": float(np.median(a) / np.median(b))}


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


if __name__ == "__main__":
    main()
