#!/usr/bin/env python3
"""Identical code through the gate, N times (issue 36, decisiveness): a suite of multiply
chains (10, 100 and 1000 dependent multiply-adds; on some hosts the 100-multiply row has
a per-process mode about 10% slower) built in two directories, run once each into a
scratch store, the first saved as baseline; then `benchlab gate --baseline base` N times
at its defaults (it re-measures both builds interleaved until every row is decided or
its 30 s are out). Per judgment: the exit status (0 passed, 3 slower: wrong, 4
undecided), the paired rounds of each row, the seconds, and the load average.

    .venv/bin/python bench/chains_aa.py [--judgments 10] [--lock /work/bench.lock] [--busy N]

A benchmark, not a test: it prints what it saw and exits 0 (non-zero only when something
cannot be built or run). The target: decided (exit 0) in at least 9 of 10 at load 2 or less.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate_scenarios import locked  # noqa: E402
from verdicts import busy_loops  # noqa: E402

HERE = Path(__file__).resolve().parent
BENCHLAB = Path(sys.executable).parent / "benchlab"
SOURCE = """/* multiply chains: K dependent multiply-adds per iteration */
#include "benchlab.h"

#define CHAIN(name, K)                                                  \\
    BL_BENCH(name, n)                                                   \\
    {                                                                   \\
        uint64_t x = n | 1;                                             \\
        for (uint64_t i = 0; i < n; i++) {                              \\
            for (int k = 0; k < (K); k++)                               \\
                x = x * 6364136223846793005u + 1442695040888963407u;    \\
            BL_KEEP(x);                                                 \\
        }                                                               \\
    }

CHAIN(chain10, 10)
CHAIN(chain100, 100)
CHAIN(chain1000, 1000)

BL_MAIN()
"""


def benchlab(work: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CPATH": str(HERE.parent / "include")}
    return subprocess.run([str(BENCHLAB), *args], cwd=work, env=env, capture_output=True, text=True)


def checked(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    if result.returncode != 0:
        raise SystemExit(f"chains_aa: {' '.join(result.args)} failed ({result.returncode}): {result.stderr[-2000:]}")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judgments", type=int, default=10)
    parser.add_argument("--lock", help="take this file's lock while timing (no two timings at once)")
    parser.add_argument("--busy", type=int, default=0, help="busy loops beside the gates (default 0)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chains-aa-") as scratch, locked(args.lock), busy_loops(args.busy):
        work = Path(scratch)
        for side in ("a", "b"):
            (work / side).mkdir()
            (work / side / "chains.c").write_text(SOURCE + f"/* build {side} */\n")  # two builds, same code
        checked(benchlab(work, "run", "a/chains.c"))
        checked(benchlab(work, "baseline", "save", "base"))
        checked(benchlab(work, "run", "b/chains.c"))
        print(f"{'#':>2} {'exit':>4} {'verdict':<10} {'rounds (chain10, chain100, chain1000)':<40} {'s':>5} {'load':>5}")
        outcomes = []
        for index in range(1, args.judgments + 1):
            started = time.monotonic()
            gate = benchlab(work, "gate", "--baseline", "base", "--format", "json")
            seconds = time.monotonic() - started
            load = os.getloadavg()[0]
            try:
                rows = json.loads(gate.stdout)["comparisons"]
                rounds = ", ".join(f"{row['test']} {len(row['rounds']['a'])} {row['verdict']}" for row in rows)
            except (ValueError, KeyError, TypeError):
                rounds = gate.stderr.strip().splitlines()[-1] if gate.stderr.strip() else "?"
            verdict = {0: "passed", 3: "WRONG", 4: "undecided"}.get(gate.returncode, f"error {gate.returncode}")
            outcomes.append(gate.returncode)
            print(f"{index:>2} {gate.returncode:>4} {verdict:<10} {rounds:<40} {seconds:>5.1f} {load:>5.1f}", flush=True)
        print(f"decided (passed) {outcomes.count(0)} of {len(outcomes)}, wrong {outcomes.count(3)}, "
              f"undecided {outcomes.count(4)}; command: .venv/bin/python bench/chains_aa.py "
              f"--judgments {args.judgments}{f' --busy {args.busy}' if args.busy else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
