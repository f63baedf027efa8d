"""Does a new program's first run hold its next? `benchlab run --time S` in fresh stores,
no calibration and no earlier runs, round after round (issue 40: 95% from the first run).

    .venv/bin/python bench/fresh_store.py [--stores 4] [--rounds 6] [--time 7] [--quick] [--keep DIR]
    .venv/bin/python bench/fresh_store.py --replay DIR    # the rules again on kept stores; times nothing

Each store is a scratch project of bench/bl_kernels.c whose build is made first, outside
the rounds (a user's second command finds it cached). Its rounds are `benchlab run
bl_kernels.c --time S --format json`, stored as a user's are, so round k has k earlier
runs of identical code: rounds 0-2 have too few for a run level of their own (docs/noise.md,
*The window*) and rest on what the run itself shows; from round 3 on the earlier runs
count. Per kernel it counts how often round k's 99% interval held round k+1's figure, by
k (0, 1, 2, 3 and later), and the median half-width of the intervals at each k.

The intervals are those `run` printed, and then each rule of RULES rebuilt from the same
stored processes (as `benchlab show` rebuilds a run's figures): "processes only" is the rule
before issue 40 (no run level without history or prior), "one process" benchlab's
(noise.own_level). Stores are made one after another and each rule reads all of them, so
the rules meet the same host states. --quick: 1 store of 3 rounds of --time 1, to see that
it runs.

A benchmark, not a test: it prints figures and exits 0 whatever they are. Run it alone on
the machine (flock /work/bench.lock): other work is load it does not count.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
from compare_gbench import native_time_cells, scratch_project  # noqa: E402  (bench/ is not a package)
from benchlab.statistics import noise  # noqa: E402
from benchlab.statistics.combine import figures  # noqa: E402
from benchlab.storage.store import open_store  # noqa: E402

#: The empty body is the reference the others are net of, not a figure to hold.
SKIPPED = ("empty",)
#: The round indices reported apart: 0, 1, 2 (no run level of identical code yet) and 3+.
FIRST_ROUNDS = 3
#: The rules rebuilt from the stored processes: what stands in for the spread between runs
#: of a figure with no identical-code history and no machine prior.
RULES = {
    "processes only": lambda by_run: None,   # before issue 40
    "one process": noise.own_level,           # benchlab's
}

#: {kernel: (figure, low, high)} of one run
Cells = dict[str, tuple[float, float, float]]


def benchlab(project: str, *argv: str) -> str:
    env = {**os.environ, "BL_NO_WARN": "1"}
    done = subprocess.run([sys.executable, "-m", "benchlab", *argv], cwd=project, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"error: benchlab {' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stdout


def new_store(parent: str) -> str:
    """A scratch project of this tree's header and kernels, its build already cached."""
    project = scratch_project(os.path.join(parent, "store-"))
    benchlab(project, "run", "bl_kernels.c", "-N", "1", "--no-store")
    return project


def printed_round(project: str, seconds: float) -> Cells:
    document = json.loads(benchlab(project, "run", "bl_kernels.c", "--time", f"{seconds:g}", "--format", "json"))
    return {test: (cell["median"], *cell["median_ci"]) for test, cell in native_time_cells(document, SKIPPED).items()}


def replayed_rounds(project: str, rule) -> list[Cells]:
    """Every complete run of the project's store, its figures combined again under `rule`."""
    own_level, noise.own_level = noise.own_level, rule
    store = open_store(f"sqlite:///{project}/.benchlab/results.db")
    try:
        rounds = []
        for run in sorted(store.list_runs(), key=lambda r: r["id"]):
            if run["status"] != "complete":
                continue
            _, records, _ = store.load_run(run["id"])
            levels = store.run_levels(run["id"], run["context"])
            rounds.append({r.bench: (r.median, *r.summary["median_ci"]) for r in figures(records, levels)
                           if r.bench not in SKIPPED and r.counter == "time" and r.summary.get("median_ci")})
        return rounds
    finally:
        store.close()
        noise.own_level = own_level


def held_by_round(stores: list[list[Cells]], kernel: str) -> dict[int, tuple[int, int, list[float]]]:
    """{k: (held, pairs, relative half-widths)} for k = 0 .. FIRST_ROUNDS (the last: k >= it)."""
    found: dict[int, tuple[int, int, list[float]]] = {}
    for rounds in stores:
        for k, (now, after) in enumerate(zip(rounds, rounds[1:])):
            if kernel not in now or kernel not in after:
                continue
            figure, low, high = now[kernel]
            hits, pairs, widths = found.get(min(k, FIRST_ROUNDS), (0, 0, []))
            found[min(k, FIRST_ROUNDS)] = (hits + (low <= after[kernel][0] <= high), pairs + 1,
                                           widths + [(high - low) / 2 / figure])
    return found


def render(rules: dict[str, list[list[Cells]]], seconds: float) -> str:
    kernels = list(next(iter(rules.values()))[0][0])
    labels = [f"round {k}" for k in range(FIRST_ROUNDS)] + [f"round {FIRST_ROUNDS}+"]
    lines = [f"`benchlab run --time {seconds:g}` in fresh stores: round k's 99% interval against round k+1's figure",
             f"{'rule':16} {'kernel':14} {'all':>8}" + "".join(f"{label:>20}" for label in labels)]
    for name, stores in rules.items():
        totals, first = [0, 0], [0, 0]
        for kernel in kernels:
            found = held_by_round(stores, kernel)
            hits = sum(h for h, _, _ in found.values())
            pairs = sum(p for _, p, _ in found.values())
            totals = [totals[0] + hits, totals[1] + pairs]
            first = [first[0] + sum(found.get(k, (0, 0, []))[0] for k in range(FIRST_ROUNDS)),
                     first[1] + sum(found.get(k, (0, 0, []))[1] for k in range(FIRST_ROUNDS))]
            cells = []
            for k in range(FIRST_ROUNDS + 1):
                h, p, widths = found.get(k, (0, 0, []))
                cells.append(f"{h}/{p} +-{100 * statistics.median(widths):.2f}%" if widths else "-")
            lines.append(f"{name:16} {kernel:14} {f'{hits}/{pairs}':>8}" + "".join(f"{c:>20}" for c in cells))
        lines.append(f"{name:16} {'every kernel':14} {f'{totals[0]}/{totals[1]}':>8}  "
                     f"{100 * totals[0] / max(1, totals[1]):.1f}%; rounds 0-{FIRST_ROUNDS - 1} "
                     f"{first[0]}/{first[1]} {100 * first[0] / max(1, first[1]):.1f}% (target: at least 95%)")
    return "\n".join(lines)


def measure(parent: str, stores: int, rounds: int, seconds: float) -> list[list[Cells]]:
    printed = []
    for store in range(stores):
        project = new_store(parent)
        printed.append([printed_round(project, seconds) for _ in range(rounds)])
        print(f"# store {store + 1}/{stores} done ({project}), load average {os.getloadavg()[0]:.1f}",
              file=sys.stderr)
    return printed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stores", type=int, default=4, help="fresh stores")
    parser.add_argument("--rounds", type=int, default=6, help="runs in each store")
    parser.add_argument("--time", type=float, default=7.0, help="each run's --time")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--keep", metavar="DIR", help="make the stores in DIR and keep them (for --replay)")
    parser.add_argument("--replay", metavar="DIR", help="rebuild the rules' intervals on the stores kept in DIR")
    args = parser.parse_args()
    stores, rounds, seconds = (1, 3, 1.0) if args.quick else (args.stores, args.rounds, args.time)
    parent = args.replay or args.keep or tempfile.mkdtemp(prefix="bench-fresh-")
    os.makedirs(parent, exist_ok=True)
    try:
        results: dict[str, list[list[Cells]]] = {}
        if not args.replay:
            print(f"# {os.uname().nodename}, {os.cpu_count()} CPUs, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
                  f"{stores} stores x {rounds} rounds of --time {seconds:g}", file=sys.stderr)
            os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # scratch_project copies from here
            results["as run printed"] = measure(parent, stores, rounds, seconds)
        projects = sorted(glob.glob(os.path.join(parent, "store-*")), key=os.path.getmtime)
        for name, rule in RULES.items():
            results[name] = [replayed_rounds(project, rule) for project in projects]
        print(render(results, seconds))
    finally:
        if not (args.keep or args.replay):
            shutil.rmtree(parent, ignore_errors=True)


if __name__ == "__main__":
    main()
