"""How well `benchlab history` finds level shifts (src/benchlab/statistics/changepoints.py).

1. Synthetic, seeded, not timing-dependent: SERIES series of RUNS runs of log-normal
   noise at each between-run CV (0.5-3%, what stored runs show: the combined figure of
   a quiet benchmark moves by ~0.3%, a loaded machine's by ~3%): the false change
   points in total; and as many series with a SHIFT at a run drawn between the 5th and
   the 5th last: how many are found within +-1 run, and the false ones beside them.
   Then the false change points in 10 x SERIES noise series of 12, 30 and 100 runs,
   of normal and of heavy-tailed (Student-t, 3 degrees of freedom) noise.
2. A real history: a small suite (bench/kernels.h's multiply-add chain, `steady` of
   100 steps and `work` of 100 steps) stored 12 times with `benchlab run
   --processes 3` into a temporary database, in a git repository whose commit halfway
   makes `work` 10% longer (110 steps); then `benchlab history work` must find the
   shift at the first run of that commit, and `benchlab history steady` none.

    .venv/bin/python bench/changepoints.py                 # both, about 2-3 minutes on 2 cores
    .venv/bin/python bench/changepoints.py --synthetic     # 1. only, about 10-30 s
    .venv/bin/python bench/changepoints.py --real          # 2. only, 1-2.5 minutes (the builds, 12 runs)

It prints figures and exits non-zero only when something cannot be built or run.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from benchlab.statistics.changepoints import default_penalty, detect

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHLAB = os.path.join(ROOT, ".venv", "bin", "benchlab")
CVS = (0.005, 0.01, 0.02, 0.03)
#: The lengths of the noise series whose false change points are counted.
LENGTHS = (12, 30, 100)
SUITE_SOURCE = """\
/* bench/changepoints.py's suite: two chains of dependent multiply-adds (bench/kernels.h). */
#include "benchlab.h"
#include "kernels.h"

#define WORK {work}

BL_BENCH(steady, n) {{
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(100);
}}
BL_BENCH(work, n) {{
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(WORK);
}}
BL_MAIN()
"""


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def synthetic_series(series: int, runs: int, shift: float, seed: int):
    """The synthetic series, in the order `synthetic` reads them: (group, shift's run or None,
    values). Groups: ("noise", cv) and ("shift", cv) per CV, then ("normal", length) and
    ("heavy", length) of 10 x `series` each. tests/python/statistics/test_changepoints_pelt.py
    reads the same series, with the change points ruptures found on them."""
    rng = np.random.default_rng(seed)
    for cv in CVS:
        for _ in range(series):
            yield ("noise", cv), None, 100 * np.exp(rng.normal(0, cv, runs))
        for _ in range(series):
            at = int(rng.integers(5, runs - 4))  # 5..runs-5 runs at each level
            values = 100 * np.exp(rng.normal(0, cv, runs)) * np.r_[np.ones(at), np.full(runs - at, 1 + shift)]
            yield ("shift", cv), at, values
    for length in LENGTHS:
        for _ in range(10 * series):
            yield ("normal", length), None, np.exp(rng.normal(0, 0.01, length))
        for _ in range(10 * series):
            yield ("heavy", length), None, np.exp(0.01 * rng.standard_t(3, length))


def synthetic(series: int, runs: int, shift: float, seed: int) -> None:
    print(f"synthetic: {series} series of {runs} runs per row, log-normal noise, seed {seed}, "
          f"default penalty {default_penalty(runs):.1f} noise variances")
    print(f"{'CV':>6}  {'noise: false change points':>27}  {f'{shift:.0%} shift: found within +-1':>28}  {'false beside it':>15}")
    found: dict[tuple, list] = {}
    for group, at, values in synthetic_series(series, runs, shift, seed):
        found.setdefault(group, []).append((at, detect(values)))
    for cv in CVS:
        false_noise = sum(len(points) for _, points in found[("noise", cv)])
        hit = false_shift = 0
        for at, points in found[("shift", cv)]:
            hits = [cp for cp in points if abs(cp.index - at) <= 1]
            hit += bool(hits)
            false_shift += len(points) - min(len(hits), 1)
        print(f"{cv:>6.1%}  {f'{false_noise} in {series} series':>27}  {f'{hit} of {series}':>28}  {false_shift:>15}")
    counts = []
    for length in LENGTHS:
        normal, heavy = (sum(len(points) for _, points in found[(kind, length)]) for kind in ("normal", "heavy"))
        counts.append(f"{length} runs: {normal} (normal), {heavy} (Student-t, 3 degrees of freedom)")
    print(f"false change points in {10 * series} noise series each of " + "; ".join(counts))


def real(runs: int, slowdown_steps: int) -> None:
    project = tempfile.mkdtemp(prefix="bench-history-")
    db = f"sqlite:///{project}/history.db"
    try:
        os.makedirs(f"{project}/include")
        os.makedirs(f"{project}/suite")
        shutil.copy(f"{ROOT}/include/benchlab.h", f"{project}/include/")
        shutil.copy(f"{ROOT}/bench/kernels.h", f"{project}/suite/")
        with open(f"{project}/benchlab.toml", "w") as file:
            file.write("[run]\nsuites = [\"suite\"]\n")
        with open(f"{project}/.gitignore", "w") as file:  # so the tree is clean: each run's commit is exact
            file.write(".benchlab/\nhistory.db*\n")
        git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
        subprocess.run(["git", "init", "-q", project], check=True)
        subprocess.run([*git, "-C", project, "add", "-A"], check=True)
        command = [BENCHLAB, "run", "suite", "--processes", "3", "--time-limit", "0.1", "--db", db]
        print(f"\nreal history: {runs} runs of `{' '.join(['benchlab', *command[1:]])}` in a scratch git "
              f"repository; from run {runs // 2 + 1} on, `work` is {slowdown_steps} steps long instead of 100")
        started = time.monotonic()
        for index in range(runs):
            if index in (0, runs // 2):
                steps = 100 if index == 0 else slowdown_steps
                with open(f"{project}/suite/chain.c", "w") as file:
                    file.write(SUITE_SOURCE.format(work=steps))
                subprocess.run([*git, "-C", project, "add", "-A"], check=True)
                subprocess.run([*git, "-C", project, "commit", "-qm", f"work: {steps} steps"], check=True)
            subprocess.run(command, cwd=project, check=True, capture_output=True)
            log(f"run {index + 1}/{runs}: {time.monotonic() - started:.0f} s")
        for name in ("work", "steady"):
            shown = subprocess.run([BENCHLAB, "history", name, "--db", db], cwd=project, check=True,
                                   capture_output=True, text=True)
            print(f"\n$ benchlab history {name}\n{shown.stdout}", end="")
            document = json.loads(subprocess.run([BENCHLAB, "history", name, "--db", db, "--format", "json"],
                                                 cwd=project, check=True, capture_output=True, text=True).stdout)
            medians = np.array([run["median"] for run in document["runs"]])
            halves = (medians[:runs // 2], medians[runs // 2:])
            cv = max(float(np.std(np.log(h), ddof=1)) for h in halves)
            expected = [runs // 2] if name == "work" else []
            got = [cp["index"] for cp in document["change_points"]]
            verdict = "as expected" if got == expected else f"NOT as expected (want {expected})"
            print(f"{name}: between-run CV within each half {cv:.2%}, ratio of the halves' medians "
                  f"{np.median(halves[1]) / np.median(halves[0]):.3f}; change points at indices {got}: {verdict}")
        print(f"real history: {time.monotonic() - started:.0f} s")
    finally:
        shutil.rmtree(project, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--synthetic", action="store_true", help="only the synthetic series")
    parser.add_argument("--real", action="store_true", help="only the real history")
    parser.add_argument("--series", type=int, default=100)
    parser.add_argument("--runs", type=int, default=30, help="runs per synthetic series")
    parser.add_argument("--shift", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--real-runs", type=int, default=12)
    parser.add_argument("--slowdown-steps", type=int, default=110)
    args = parser.parse_args()
    print("$ .venv/bin/python bench/changepoints.py " + " ".join(sys.argv[1:]))
    if not args.real:
        synthetic(args.series, args.runs, args.shift, args.seed)
    if not args.synthetic:
        real(args.real_runs, args.slowdown_steps)


if __name__ == "__main__":
    main()
