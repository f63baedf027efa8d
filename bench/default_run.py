"""How long a default `benchlab run` takes, and where the time goes.

Issue 20 asks for a default `benchlab run` (5 processes, build cached, Python included)
in at most 1 s on this project's machine. Each round runs `benchlab run bl_kernels.c` in
a scratch project whose store holds the earlier rounds' runs (so the run reads its
history, as a user's does), then the same built binary directly 5 times, as the run's
processes are: the run's wall time less the processes' is what benchlab's Python costs.
With `--against SRC`, the same round also runs the benchlab of another checkout's src/
(e.g. a `git worktree` of main) in its own scratch project, first or second in turn, so
that the host's states fall on both alike. Python's module cache is kept, as a user's is.
A benchmark, not a test: it prints medians and exits 0 whatever they are.

    .venv/bin/python bench/default_run.py                         # 40 rounds (about a minute)
    .venv/bin/python bench/default_run.py --against /tmp/snap/src # beside another checkout
    .venv/bin/python bench/default_run.py --quick                 # 3 rounds: it runs
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from compare_gbench import scratch_project, user_environment  # noqa: E402  (bench/ is not a package)

ROOT = Path(__file__).resolve().parents[1]
#: Issue 20's figure for a default run.
TARGET_S = 1.0
#: A default run's processes (cli.md, --processes).
PROCESSES = 5


class Side:
    """One benchlab (a checkout's src/) with its scratch project, built and stored once unmeasured."""

    def __init__(self, name: str, src: Path, scratch: Path):
        self.name, self.project = name, Path(scratch_project(f"bench-default-run-{name}-"))
        self.env = user_environment(str(scratch / f"pycache-{name}"))
        self.env["PYTHONPATH"] = str(src)
        for variable in ("BENCHLAB_DB", "BENCHLAB_CONFIG"):  # the scratch project's own store and no config
            self.env.pop(variable, None)
        self.command = [sys.executable, "-m", "benchlab", "run", "bl_kernels.c"]
        self.run()  # builds, creates the store, fills Python's module cache: not counted
        [self.binary] = (self.project / ".benchlab" / "build").glob("*/bl_kernels-*")
        self.total: list[float] = []
        self.processes: list[float] = []

    def run(self) -> float:
        start = time.perf_counter()
        subprocess.run(self.command, cwd=self.project, env=self.env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start

    def round(self) -> None:
        self.total.append(self.run())
        start = time.perf_counter()
        for _ in range(PROCESSES):
            subprocess.run([str(self.binary)], cwd=self.project, check=True, stdout=subprocess.DEVNULL)
        self.processes.append(time.perf_counter() - start)

    def row(self) -> str:
        python = [total - processes for total, processes in zip(self.total, self.processes)]
        total = statistics.median(self.total)
        verdict = "under" if total <= TARGET_S else "OVER"
        return (f"{self.name:<10} {total:>9.3f} {min(self.total):>8.3f} {max(self.total):>8.3f} "
                f"{statistics.median(self.processes):>13.3f} {statistics.median(python):>10.3f}   {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--against", metavar="SRC", help="another checkout's src/ to time in the same rounds")
    parser.add_argument("--quick", action="store_true", help="3 rounds: checks that it runs")
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    if args.against and not (Path(args.against) / "benchlab" / "__init__.py").is_file():
        print(f"error: --against {args.against}: no benchlab package there (give a checkout's src/)", file=sys.stderr)
        return 2
    os.chdir(ROOT)  # scratch_project copies bench/'s files by relative path
    scratch = Path(tempfile.mkdtemp(prefix="bench-default-run-"))
    sides = [Side("this", ROOT / "src", scratch)]
    if args.against:
        sides.append(Side("against", Path(args.against).resolve(), scratch))
    try:
        for index in range(rounds):
            for side in sides if index % 2 == 0 else reversed(sides):
                side.round()
    finally:
        for side in sides:
            shutil.rmtree(side.project, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"default `benchlab run bl_kernels.c` ({PROCESSES} processes, build cached, store of the earlier rounds), "
          f"{rounds} rounds{', sides alternating first' if args.against else ''}")
    print(f"{'benchlab':<10} {'median (s)':>9} {'min (s)':>8} {'max (s)':>8} {'5 processes':>13} "
          f"{'Python (s)':>10}   target {TARGET_S:g} s")
    for side in sides:
        print(side.row())
    print("Python: the run's wall time less its 5 processes' (the same binary run at its defaults), median over rounds")
    if args.quick:
        print("(--quick: a few rounds check that it runs; the full mode measures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
