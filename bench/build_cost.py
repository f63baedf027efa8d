"""What building a suite costs: a cold build (empty build cache) and a warm one, issue 40.

Builds every C file of a suite for each build target, as `benchlab run` does before its
first process (Runner.build_all), through a checkout's own Builder, in a scratch copy of
the project (benchlab.toml, include/ and the suite) so the build cache starts empty.
Prints, per build, CPU time (user+sys of benchlab and every compiler it ran: on a busy
machine the fairer figure) and wall time, how many binaries were compiled and reused, and
how many archives of the header's implementation were compiled (0 before issue 40).
A benchmark, not a test: it prints figures and exits 0 whatever they are.

    .venv/bin/python bench/build_cost.py                      # this checkout, suites/sys, native and wasm
    .venv/bin/python bench/build_cost.py --checkout /tmp/old  # another checkout's benchlab (e.g. main's)

Run it under `flock /work/bench.lock` on a shared machine.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Builds every file of SUITE for each target, in the project that is the current directory.
BUILD = """
import sys
from benchlab.config import load_config
from benchlab.measuring.build import Builder
from benchlab.measuring.targets import resolve_targets
suite, targets = sys.argv[1], sys.argv[2].split(",")
config = load_config()
builder = Builder(config)
for found in resolve_targets([suite], config):
    for target in targets:
        builder.build(found.path, target, found.companions)
print(len(builder.compiled), len(builder.reused), len(getattr(builder, "implementations", [])))
"""


def scratch_project(checkout: Path, suite: str, into: Path) -> None:
    for name in ("benchlab.toml",):
        shutil.copy(checkout / name, into / name)
    shutil.copytree(checkout / "include", into / "include")
    shutil.copytree(checkout / suite, into / suite)


def timed_build(checkout: Path, project: Path, suite: str, targets: str) -> tuple[float, float, str]:
    """CPU seconds (user+sys of the build and its compilers), wall seconds, and its output."""
    env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", BUILD, suite, targets], cwd=project, env=env,
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose benchlab builds (default: this one)")
    parser.add_argument("--suite", default="suites/sys")
    parser.add_argument("--targets", default="native,wasm32-wasi")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    with tempfile.TemporaryDirectory(prefix="build-cost-") as scratch:
        project = Path(scratch)
        scratch_project(checkout, args.suite, project)
        print(f"{checkout} ({args.suite}, {args.targets})")
        for kind in ("cold", "warm"):
            cpu, wall, counts = timed_build(checkout, project, args.suite, args.targets)
            compiled, reused, implementations = counts.split()
            print(f"  {kind}: {cpu:6.2f} s CPU  {wall:6.2f} s wall  ({compiled} compiled, {reused} from the cache, "
                  f"{implementations} implementation archives compiled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
