"""Replays the rerun interval of stored runs with and without each part of the run level,
on the same processes: how often each version's interval contains the next run's figure.

Reads the store that bench/compare_gbench.py keeps (bench/build/runs.db: its 40 default
`benchlab run`s of bench/bl_kernels.c, the first unmeasured) or any store given, and for
every run from the fourth on builds the interval of each benchmark four ways, from the
runs before it (at most 20, as `benchlab run` does):

    processes only      this run's spread between processes (no history)
    mean                + the run level from the mean of consecutive squared differences
    mean + pooled       + the larger of this run's and the pooled process spread (the
                        robust pooled spread of src/benchlab/statistics/noise.py)
    winsorized + pooled the run level with the largest tenth of the squared differences
                        (at least 2) clipped, the rule before issue 20
    benchlab            the estimator benchlab uses: the larger of the differences' run
                        level and the runs' spread about their mean, + pooled

    .venv/bin/python bench/runlevel_replay.py [DB]     (a second; it times nothing)
"""
from __future__ import annotations

import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
from benchlab.statistics import noise  # noqa: E402
from benchlab.statistics.combine import combine  # noqa: E402
from benchlab.stats import t_quantile_99  # noqa: E402
from benchlab.storage.store import open_store  # noqa: E402


def mean_level(history: list[noise.RunFigure], pooled: bool) -> noise.RunLevel | None:
    """The estimator before the median: the mean of the consecutive squared differences."""
    history = history[-noise.MAX_EARLIER_RUNS:]
    if len(history) < noise.MIN_EARLIER_RUNS:
        return None
    excess = [math.log(b.mean / a.mean) ** 2 - a.process_variance - b.process_variance
              for a, b in zip(history, history[1:])]
    full = noise.estimate(history)
    return noise.RunLevel(max(0.0, sum(excess) / len(excess) / 2), len(history), len(excess),
                             full.process_cv2 if pooled else 0.0, full.process_df if pooled else 0)


def winsorized_level(history: list[noise.RunFigure]) -> noise.RunLevel | None:
    """The rule before issue 20: from 5 differences on, the largest tenth (at least two)
    count as the next largest, scaled back for chi-square(1)."""
    level = noise.estimate(history)
    if level is None:
        return None
    history = history[-noise.MAX_EARLIER_RUNS:]
    squares = [math.log(b.mean / a.mean) ** 2 for a, b in zip(history, history[1:])]
    if len(squares) < 5:
        return mean_level(history, pooled=True)
    clipped = max(2, math.ceil(noise.WINSORIZED_SHARE * len(squares)))
    explained = sum(a.process_variance + b.process_variance for a, b in zip(history, history[1:])) / len(squares)
    variance = max(0.0, (noise.winsorized_mean(squares, clipped, df=1) - explained) / 2)
    return noise.RunLevel(variance, level.earlier_runs, len(squares) - clipped, level.process_cv2, level.process_df)


VERSIONS = {
    "processes only": lambda history: None,
    "mean": lambda history: mean_level(history, pooled=False),
    "mean + pooled": lambda history: mean_level(history, pooled=True),
    "winsorized + pooled": winsorized_level,
    "benchlab": noise.estimate,
}


def series(db: str) -> dict[str, list[list[float]]]:
    """Each benchmark's process medians, run by run (complete runs, oldest first)."""
    store = open_store(f"sqlite:///{db}")
    found: dict[str, list[list[float]]] = {}
    for run in sorted(store.list_runs(), key=lambda r: r["id"]):
        if run["status"] != "complete":
            continue
        _, records, _ = store.load_run(run["id"])
        for figure in combine(records):
            medians = figure.summary.get("process_medians")
            if medians and figure.counter == "time":
                found.setdefault(figure.bench, []).append(medians)
    store.close()
    return found


def coverage(runs: list[list[float]], version) -> tuple[int, int, float]:
    """(next runs inside, pairs, median relative half-width) over runs 4 .. n-1."""
    inside, widths = 0, []
    for j in range(3, len(runs) - 1):
        history = [f for f in (noise.run_figure(m) for m in runs[max(0, j - noise.MAX_EARLIER_RUNS):j]) if f]
        level = version(history)
        figure, spread = statistics.mean(runs[j]), statistics.stdev(runs[j])
        half, _ = noise.rerun_half_width(figure, spread, len(runs[j]), level, t_quantile_99)
        inside += abs(statistics.mean(runs[j + 1]) - figure) <= half
        widths.append(half / figure)
    return inside, len(runs) - 4, statistics.median(widths) if widths else float("nan")


def main() -> None:
    db = sys.argv[1] if len(sys.argv) > 1 else "bench/build/runs.db"
    if not os.path.exists(db):
        sys.exit(f"error: no store at {db} (run bench/run or bench/compare_gbench.py first, or give one)")
    found = series(db)
    print(f"{db}: next-run coverage of the 99% interval, runs 4 .. n-1 (median half-width)")
    print(f"{'benchmark':<16}" + "".join(f"{name:>24}" for name in VERSIONS))
    for bench, runs in found.items():
        if bench == "empty":
            continue
        cells = []
        for version in VERSIONS.values():
            inside, pairs, width = coverage(runs, version)
            cells.append(f"{inside}/{pairs} (+-{100 * width:.2f}%)")
        print(f"{bench:<16}" + "".join(f"{c:>24}" for c in cells))


if __name__ == "__main__":
    main()
