"""Does starting a run's processes on every CPU in turn make `benchlab run` reproducible?

Runs `benchlab run bench/bl_kernels.c` (default: 5 processes, combined) RUNS times with
CPU spreading and RUNS times with `--no-spread-cpus`, alternating, in a scratch project,
and prints per kernel how often a run's 99% interval contains the next run's figure
(and any other run's), and the CV of the runs' figures.

    .venv/bin/python bench/cpu_spread.py [RUNS]      (default 15; about 1 minute)
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from compare_gbench import scratch_project  # noqa: E402  (bench/ is not a package)

BENCHLAB = os.path.abspath(".venv/bin/benchlab")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    project = scratch_project("bench-spread-")
    try:
        conditions = {"spread": [], "--no-spread-cpus": []}
        for _ in range(runs):
            for condition, documents in conditions.items():
                extra = [] if condition == "spread" else [condition]
                out = subprocess.run([BENCHLAB, "run", "bl_kernels.c", "--no-store", "--format", "json", *extra],
                                     cwd=project, capture_output=True, text=True, check=True).stdout
                documents.append({row["test"]: row["cells"]["native"] for row in json.loads(out)["rows"]})
        for condition, documents in conditions.items():
            print(condition)
            for kernel in documents[0]:
                if kernel == "empty":
                    continue
                figures = [d[kernel]["median"] for d in documents]
                intervals = [d[kernel]["median_ci"] for d in documents]
                following = sum(intervals[i][0] <= figures[i + 1] <= intervals[i][1] for i in range(runs - 1)) / (runs - 1)
                pairs = [(i, j) for i in range(runs) for j in range(runs) if i != j]
                anyone = sum(intervals[i][0] <= figures[j] <= intervals[i][1] for i, j in pairs) / len(pairs)
                print(f"  {kernel:<14} next {following:4.0%}  any {anyone:4.0%}  "
                      f"CV of the runs' figures {statistics.stdev(figures) / statistics.mean(figures):.2%}")
    finally:
        shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    main()
