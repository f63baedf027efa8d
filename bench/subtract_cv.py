"""The empty loop's subtraction between runs (issue 20): fresh processes of bench/bl_kernels.c
built from two headers, BEFORE and AFTER, alternating, and per kernel the CV between
processes of the subtracted figure (the record's `median`) and of the raw one
(`raw_median`), their ratio as CV and as standard deviation (the noise the subtraction
adds), and the same over the means of consecutive groups of GROUP processes (what
`benchlab run` combines, without its layout randomization). The empty body's row gives
how many processes read within [0, 0.05] ns instead.

    cc -O2 -Iinclude bench/bl_kernels.c -o bench/build/bl_kernels
    git show main:include/benchlab.h > /tmp/before/benchlab.h
    cc -O2 -I/tmp/before bench/bl_kernels.c -o bench/build/bl_kernels_before
    .venv/bin/python bench/subtract_cv.py --before bench/build/bl_kernels_before \\
        --after bench/build/bl_kernels --processes 40 --lock /tmp/benchlab-timing.lock

About 0.05 s per process. --lock FILE holds FILE (flock) for each pair of processes, so
others' timing can interleave. A benchmark, not a test: it exits 0 whatever the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from gate_scenarios import locked  # noqa: E402  (bench/ is not a package)

KERNELS = ["call", "chain10", "chain100", "chain1000", "getpid", "clock_gettime", "memcpy64"]
#: The empty body must read within this of zero, and never below it (issue 20).
EMPTY_TOLERANCE_NS = 0.05
#: The figure to reach: the subtracted figure's CV at most this many times the raw one's.
MAX_RATIO = 1.2


def process(binary: str) -> dict:
    out = subprocess.run([binary, "--format=jsonl"], capture_output=True, text=True, check=True,
                         env={**os.environ, "BL_NO_WARN": "1"}).stdout
    return {r["bench"]: r for r in map(json.loads, out.splitlines()) if r.get("type") == "result"}




def cv(values: list[float]) -> float:
    mean = statistics.fmean(values)
    return statistics.stdev(values) / mean if mean > 0 else float("inf")


def groups(values: list[float], size: int) -> list[float]:
    return [statistics.fmean(values[i:i + size]) for i in range(0, len(values) - size + 1, size)]


def table(name: str, procs: list[dict], group: int) -> list[str]:
    lines = [f"{name}: {len(procs)} processes, {len(procs) // group} groups of {group}",
             f"{'kernel':<14}{'subtracted':>11}{'raw':>9}{'share':>7}{'CV sub':>9}{'CV raw':>9}{'CV ratio':>9}"
             f"{'sd ratio':>9}{'CV ratio, groups':>18}{'sd ratio, groups':>18}"]
    empty = [p["empty"]["median"] for p in procs]
    inside = sum(0 <= v <= EMPTY_TOLERANCE_NS for v in empty)
    lines.append(f"{'empty':<14}{statistics.median(empty):>11.4g}"
                 f"{statistics.median(p['empty']['raw_median'] for p in procs):>9.4g}"
                 f"   within [0, {EMPTY_TOLERANCE_NS}] ns: {inside}/{len(procs)} processes "
                 f"(min {min(empty):.4f}, max {max(empty):.4f})")
    for k in KERNELS:
        sub = [p[k]["median"] for p in procs]
        raw = [p[k]["raw_median"] for p in procs]
        shares = [p[k]["loop_share"] for p in procs if "loop_share" in p[k]]  # none before issue 20: all of it
        share = f"{statistics.median(shares):.2f}" if shares else "-"
        gsub, graw = groups(sub, group), groups(raw, group)
        lines.append(
            f"{k:<14}{statistics.median(sub):>11.4g}{statistics.median(raw):>9.4g}{share:>7}"
            f"{100 * cv(sub):>8.2f}%{100 * cv(raw):>8.2f}%{cv(sub) / cv(raw):>9.2f}"
            f"{statistics.stdev(sub) / statistics.stdev(raw):>9.2f}"
            f"{cv(gsub) / cv(graw):>18.2f}{statistics.stdev(gsub) / statistics.stdev(graw):>18.2f}")
    loops = [p["empty"]["overhead"] for p in procs]
    lines.append(f"empty loop per process: {min(loops):.3f}-{max(loops):.3f} ns per iteration; "
                 f"{sum(v < 0.4 for v in loops)} of {len(loops)} processes' median under 0.4 ns")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True, help="bl_kernels built from the header before the change")
    parser.add_argument("--after", default="bench/build/bl_kernels")
    parser.add_argument("--processes", type=int, default=40, help="per build")
    parser.add_argument("--group", type=int, default=5)
    parser.add_argument("--lock", help="hold this file (flock) for each pair of processes")
    parser.add_argument("--raw", help="write every process's records here (JSON)")
    args = parser.parse_args()
    before, after = [], []
    start = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    for _ in range(args.processes):
        with locked(args.lock):
            before.append(process(args.before))
            after.append(process(args.after))
    end = time.strftime("%H:%M:%S", time.gmtime())
    if args.raw:
        with open(args.raw, "w") as f:
            json.dump({"before": before, "after": after}, f)
    print(f"{start}-{end} UTC, processes alternating before/after; the figure to reach: "
          f"CV ratio at most {MAX_RATIO} on every kernel, the empty body within [0, {EMPTY_TOLERANCE_NS}] ns")
    for name, procs in (("before " + args.before, before), ("after " + args.after, after)):
        print()
        print("\n".join(table(name, procs, args.group)))


if __name__ == "__main__":
    main()
