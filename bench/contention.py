"""Does a run's figure hold under contention? A suite's figures beside busy loops, against
the same suite on a quiet machine (issue 38).

    .venv/bin/python bench/contention.py --before DIR [--rounds 4] [--loads 0,2,4] [--kind spin|rt]

DIR is a checkout of the code to compare with (e.g. `git worktree add /tmp/before <rev>`);
its src/ and include/ are used, with this venv's Python. For each load (that many
`while :; do :; done` loops beside the run, on this machine's CPUs; with `--kind rt`, that
many real-time wakers, each pinned to a CPU in turn, which preempt most rounds) and round, it runs
`benchlab run bl_kernels.c --no-store --format json` (defaults: 5 processes) once with
each version, in alternating order, and reads each kernel's figure and 99% interval (the
table's cell: its processes combined). The
quiet figure of a kernel is the median of QUIET_RUNS runs of each version with no loop,
taken first and last. Printed per version and load:
  held     the share of (kernel, round) cells whose quiet figure lies inside the loaded
           run's interval (an interval said "uninformative" holds it, and is counted apart);
  figure off    where the interval missed: the largest ratio of the loaded figure to the quiet one;
  interval off  and the largest distance from the interval's nearer end to the quiet figure, as a ratio;
  busy     cells marked # (the busy machine's) or with processes left out as preempted.

A benchmark, not a test: it prints figures and exits 0 whatever they are. Run it alone on
the machine (flock /work/bench.lock): other work is load it does not count.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(__file__))
from compare_gbench import native_time_cells, scratch_project  # noqa: E402  (bench/ is not a package)

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
#: Quiet runs of each version, half before the loaded ones and half after: the reference.
QUIET_RUNS = 4
#: The empty body is the reference the others are net of, not a figure to hold.
SKIPPED = ("empty",)


@dataclass
class Cell:
    figure: float
    low: float
    high: float
    busy: bool


@dataclass
class Version:
    name: str
    tree: str
    project: str = ""
    quiet: dict[str, list[float]] = field(default_factory=dict)
    loaded: dict[int, list[dict[str, Cell]]] = field(default_factory=dict)


def run_suite(version: Version) -> dict[str, Cell]:
    env = {**os.environ, "PYTHONPATH": os.path.join(version.tree, "src"), "BL_NO_WARN": "1"}
    out = subprocess.run([sys.executable, "-m", "benchlab", "run", "bl_kernels.c", "--no-store", "--format", "json"],
                         cwd=version.project, env=env, capture_output=True, text=True, check=True).stdout
    return {test: Cell(cell["median"], *cell["median_ci"], "#" in cell["marks"] or bool(cell.get("preempted_processes")))
            for test, cell in native_time_cells(json.loads(out), SKIPPED).items()}


#: A competitor that preempts at once and often: spins 200 us, sleeps 100 us, at a real-time
#: priority (SCHED_FIFO 10, so each wake-up takes the CPU from the benchmark), pinned to
#: one CPU. Needs root (chrt); the kernel's RT throttling keeps 5% of each CPU for others.
WAKER = ("import time\nwhile True:\n    t = time.perf_counter()\n"
         "    while time.perf_counter() - t < 2e-4:\n        pass\n    time.sleep(1e-4)\n")


def competitor(kind: str, index: int) -> list[str]:
    if kind == "spin":
        return ["bash", "-c", "while :; do :; done"]
    cpu = str(index % (os.cpu_count() or 1))
    return ["taskset", "-c", cpu, "chrt", "-f", "10", sys.executable, "-c", WAKER]


@contextlib.contextmanager
def busy_loops(count: int, kind: str = "spin"):
    loops = [subprocess.Popen(competitor(kind, i)) for i in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def quiet_runs(versions: list[Version], count: int) -> None:
    for _ in range(count):
        for version in versions:
            for kernel, cell in run_suite(version).items():
                version.quiet.setdefault(kernel, []).append(cell.figure)


def held(version: Version, load: int, reference: dict[str, float]) -> tuple[int, int, int, float, float, int]:
    """(held, cells, uninformative, largest miss of a figure as loaded/quiet, largest miss of
    an interval as the distance from its nearer end to the quiet figure, busy-marked cells),
    the misses over the cells whose interval missed the quiet figure."""
    hits = total = uninformative = busy = 0
    figure_off = interval_off = 1.0
    for cells in version.loaded[load]:
        for kernel, cell in cells.items():
            quiet = reference[kernel]
            total += 1
            busy += cell.busy
            if cell.low <= quiet <= cell.high:
                hits += 1
                uninformative += max(cell.high - cell.figure, cell.figure - cell.low) >= cell.figure
                continue
            figure_off = max(figure_off, cell.figure / quiet, quiet / cell.figure)
            interval_off = max(interval_off, cell.low / quiet if quiet < cell.low else quiet / cell.high)
    return hits, total, uninformative, figure_off, interval_off, busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="a checkout of the code to compare with")
    parser.add_argument("--rounds", type=int, default=4, help="loaded runs of each version per load")
    parser.add_argument("--loads", default="0,2,4", help="busy loops beside the run, comma-separated")
    parser.add_argument("--kind", choices=("spin", "rt"), default="spin",
                        help="spin: `while :; do :; done` loops; rt: real-time wakers pinned to the CPUs in turn")
    args = parser.parse_args()
    loads = [int(x) for x in args.loads.split(",")]
    versions = [Version("before", os.path.abspath(args.before)), Version("after", HERE)]
    for version in versions:
        os.chdir(version.tree)  # scratch_project copies this tree's header and kernels
        version.project = scratch_project(f"bench-contention-{version.name}-")
    os.chdir(HERE)
    print(f"# {os.uname().nodename}, {os.cpu_count()} CPUs; before = {args.before}", file=sys.stderr)
    quiet_runs(versions, QUIET_RUNS // 2)
    for load in loads:
        with busy_loops(load, args.kind):
            for round_ in range(args.rounds):
                order = versions if round_ % 2 == 0 else versions[::-1]
                for version in order:
                    version.loaded.setdefault(load, []).append(run_suite(version))
        print(f"# load {load} done", file=sys.stderr)
    quiet_runs(versions, QUIET_RUNS - QUIET_RUNS // 2)
    # One quiet reference for both versions: the same kernels on the same quiet machine.
    reference = {k: statistics.median(versions[0].quiet[k] + versions[1].quiet[k]) for k in versions[1].quiet}
    print(f"quiet figures (ns, median of {QUIET_RUNS} runs of each version): "
          + ", ".join(f"{k} {v:.4g}" for k, v in reference.items()))
    print(f"{'version':8} {'loops':>5} {'held':>12} {'uninformative':>14} {'figure off':>11} {'interval off':>13} "
          f"{'busy/left out':>14}")
    for load in loads:
        for version in versions:
            hits, total, uninformative, figure_off, interval_off, busy = held(version, load, reference)
            print(f"{version.name:8} {load:>5} {f'{hits}/{total} {hits / total:.0%}':>12} {uninformative:>14} "
                  f"{figure_off:>10.2f}x {interval_off:>12.3f}x {busy:>14}")


if __name__ == "__main__":
    main()
