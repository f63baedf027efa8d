"""How long `benchlab` takes to start: `--help`, `show latest` of a small store, `--version`.

Issue 20 asks for `benchlab --help` and `benchlab show latest` under 0.3 s on this
project's machine: the commands a user types most often and waits on. hyperfine runs
each command (no shell, after warm-up runs) with Python's module cache kept, as a user's
is, in a scratch directory; `show latest` reads a scratch store of three small runs of a
one-benchmark program (made first, unmeasured). It measures this checkout's benchlab
(`python -m benchlab` with src/ first on the path), whichever the interpreter. Prints
mean, standard deviation and minimum per command beside the target. A benchmark, not a
test: it prints figures and exits 0 whatever they are.

    .venv/bin/python bench/startup.py            # 30 runs per command (about 30 s)
    .venv/bin/python bench/startup.py --quick    # 5 runs per command, one stored run (a few seconds)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from compare_gbench import user_environment  # noqa: E402  (bench/ is not a package)

ROOT = Path(__file__).resolve().parents[1]
#: Issue 20's figure for `--help` and `show latest`.
TARGET_S = 0.3
TINY = """#include "benchlab.h"
BL_BENCH(nothing, n) { for (uint64_t i = 0; i < n; i++) BL_KEEP(i); }
BL_MAIN()
"""


def scratch_store(project: Path, benchlab: list[str], env: dict[str, str], runs: int) -> None:
    """`runs` small runs of a one-benchmark program stored in project/.benchlab/results.db."""
    (project / "include").mkdir()
    shutil.copy(ROOT / "include" / "benchlab.h", project / "include")
    (project / "tiny.c").write_text(TINY)
    for _ in range(runs):
        subprocess.run([*benchlab, "run", "tiny.c", "--processes", "2", "--time-limit", "0.02"], cwd=project,
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 runs per command: checks that it runs")
    args = parser.parse_args()
    if shutil.which("hyperfine") is None:
        print("error: hyperfine is not installed (bash scripts/setup.sh installs it)", file=sys.stderr)
        return 1
    measured, warmup, stored = (5, 1, 1) if args.quick else (30, 3, 3)
    benchlab = [sys.executable, "-m", "benchlab"]
    scratch = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        env = user_environment(str(scratch / "pycache"))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
        for name in ("BENCHLAB_DB", "BENCHLAB_CONFIG"):  # the scratch project's own store and no config
            env.pop(name, None)
        project = scratch / "project"
        project.mkdir()
        scratch_store(project, benchlab, env, stored)
        commands = {"benchlab --help": ["--help"], "benchlab show latest": ["show", "latest"],
                    "benchlab --version": ["--version"]}
        exported = scratch / "hyperfine.json"
        subprocess.run(["hyperfine", "--shell=none", "--warmup", str(warmup), "--runs", str(measured), "--style", "none",
                        "--export-json", str(exported),
                        *[arg for name, extra in commands.items() for arg in ("-n", name, " ".join([*benchlab, *extra]))]],
                       cwd=project, env=env, check=True, stdout=subprocess.DEVNULL)
        results = json.loads(exported.read_text())["results"]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"benchlab start-up: {measured} runs per command after {warmup} warm-up, "
          f"`show latest` of a store of {stored} run{'s' if stored > 1 else ''} (hyperfine)")
    print(f"{'command':<22} {'mean (s)':>9} {'+- sd':>7} {'min (s)':>8} {'target':>7}")
    for result in results:
        target = TARGET_S if result["command"] != "benchlab --version" else None
        verdict = "" if target is None else ("  under" if result["mean"] < target else "  OVER")
        print(f"{result['command']:<22} {result['mean']:>9.3f} {result['stddev']:>7.3f} {result['min']:>8.3f} "
              f"{target if target is not None else '-':>7}{verdict}")
    if args.quick:
        print("(--quick: a few runs check that it runs; the full mode measures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
