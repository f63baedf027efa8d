"""Reproducibility per second: `benchlab run --time S` against Google Benchmark's default
run, which takes about S = 7 s on bench/kernels.h. Rounds alternate one of each (bl gb bl
gb ...), so both meet the same host states; per kernel it prints the CV between the
rounds' figures of each tool and how often benchlab's 99% interval held the next round's
figure (issue 20: CV at most Google Benchmark's on every kernel, coverage >= 95%). Each
round also times one process of the header alone (bl_kernels) and, when bench/run built
it (NANOBENCH_INCLUDE), one of nanobench (nb_kernels): the header's process should take
no longer than nanobench's.

    .venv/bin/python bench/budget.py --build bench/build [--rounds 41] [--time 7] [--quick]

--build holds gb_kernels (bench/run builds it); benchlab builds bench/bl_kernels.c itself,
in a scratch project whose store keeps every round, as a user's does, on a machine
`benchlab calibrate` measured first: the first three rounds rest on its prior, and from
the fourth on the intervals carry the spread of earlier runs of identical code. --quick (2
rounds of --time 1, Google Benchmark at --benchmark_min_time=0.01) checks that it runs.
A benchmark, not a test: it prints figures and exits 0 whatever they are.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

KERNELS = ["call", "chain10", "chain100", "chain1000", "getpid", "clock_gettime", "memcpy64"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def timed(argv: list[str], **kwargs) -> tuple[str, float]:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stdout, time.perf_counter() - start


def benchlab_round(benchlab: str, project: str, seconds: float) -> tuple[dict, dict, dict, float]:
    """One `benchlab run --time S`: ({kernel: figure}, {kernel: interval}, {kernel: raw figure},
    wall seconds). The raw figure is before the empty loop's subtraction (issue 20: the
    subtracted figure's CV between runs at most 1.2 times the raw one's)."""
    out, wall = timed([benchlab, "run", "bl_kernels.c", "--time", f"{seconds:g}", "--format", "json"],
                      cwd=project, env={**os.environ, "BL_NO_WARN": "1"})
    rows = {row["test"]: row["cells"]["native"] for row in json.loads(out)["rows"]}
    return ({k: rows[k]["median"] for k in KERNELS}, {k: tuple(rows[k]["median_ci"]) for k in KERNELS},
            {k: rows[k].get("raw_median", rows[k]["median"]) for k in KERNELS}, wall)


def gbench_round(build: str, min_time: str | None) -> tuple[dict, float]:
    """One Google Benchmark process at its defaults: ({kernel: real time ns}, wall seconds)."""
    argv = [f"{build}/gb_kernels", "--benchmark_format=json", f"--benchmark_filter=^({'|'.join(KERNELS)})$"]
    out, wall = timed(argv + ([f"--benchmark_min_time={min_time}"] if min_time else []))
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6}
    return {b["run_name"]: b["real_time"] * scale[b["time_unit"]] for b in json.loads(out)["benchmarks"]}, wall


def nanobench_round(build: str) -> tuple[dict, float]:
    """One nanobench process at its defaults: ({kernel: median ns}, wall seconds)."""
    out, wall = timed([f"{build}/nb_kernels"])
    return {name: float(ns) for name, ns in (line.split("\t") for line in out.splitlines() if line)}, wall


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    # 41 rounds: 40 next rounds, of which 95% allows 2 misses (of 19 next rounds, 95% allows none).
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--time", type=float, default=7.0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--benchlab", default=os.path.join(REPO, ".venv", "bin", "benchlab"))
    parser.add_argument("--raw", help="write every round's figures to this JSON file")
    parser.add_argument("--keep", action="store_true",
                        help="keep the scratch project and its store (every process's figures), and print its path")
    args = parser.parse_args()
    rounds, seconds, min_time = (2, 1.0, "0.01") if args.quick else (args.rounds, args.time, None)
    project = tempfile.mkdtemp(prefix="bench-budget-")
    try:
        shutil.copytree(os.path.join(REPO, "include"), os.path.join(project, "include"))
        for name in ("bl_kernels.c", "kernels.h"):
            shutil.copy(os.path.join(REPO, "bench", name), project)
        timed([args.benchlab, "run", "bl_kernels.c", "-N", "1", "--no-store"], cwd=project)  # builds; not counted
        # A calibrated machine, as `gate` leaves it (and `run`'s note asks for): the first
        # rounds, with no earlier runs of identical code, rest on the machine's prior.
        timed([args.benchlab, "calibrate"] + (["--runs", "3", "--span", "0"] if args.quick else []), cwd=project)
        bl, bl_iv, bl_raw, bl_wall, gb, gb_wall = [], [], [], [], [], []
        header_wall, nb, nb_wall = [], [], []
        has_nanobench = os.path.exists(f"{args.build}/nb_kernels")
        for i in range(rounds):
            figures, intervals, raw, wall = benchlab_round(args.benchlab, project, seconds)
            bl.append(figures)
            bl_iv.append(intervals)
            bl_raw.append(raw)
            bl_wall.append(wall)
            times, wall = gbench_round(args.build, min_time)
            gb.append(times)
            gb_wall.append(wall)
            header_wall.append(timed([f"{args.build}/bl_kernels", "--format=jsonl"],
                                     env={**os.environ, "BL_NO_WARN": "1"})[1])
            if has_nanobench:
                times, wall = nanobench_round(args.build)
                nb.append(times)
                nb_wall.append(wall)
            log(f"round {i + 1}/{rounds}: benchlab run --time {seconds:g} took {bl_wall[-1]:.1f} s, "
                f"Google Benchmark {gb_wall[-1]:.1f} s")
    finally:
        if args.keep:
            log(f"kept the scratch project and its store: {project}")
        else:
            shutil.rmtree(project, ignore_errors=True)
    print(render(bl, bl_iv, bl_raw, bl_wall, gb, gb_wall, seconds, args.quick))
    print(f"one process (median wall): the header alone {statistics.median(header_wall):.3f} s"
          + (f", nanobench {statistics.median(nb_wall):.3f} s (target: the header's at most nanobench's)"
             if nb_wall else ", nanobench not built (NANOBENCH_INCLUDE=DIR bench/run builds it)"))
    if nb:
        print("nanobench, CV between rounds: " + ", ".join(
            f"{k} {100 * cv([r[k] for r in nb]):.2f}%" for k in KERNELS if len(nb) > 1))
    if args.raw:
        with open(args.raw, "w") as file:
            json.dump({"benchlab": bl, "intervals": bl_iv, "raw": bl_raw, "benchlab_wall": bl_wall, "gb": gb,
                       "gb_wall": gb_wall, "header_wall": header_wall, "nanobench": nb, "nanobench_wall": nb_wall,
                       "time": seconds}, file)
    return 0


def render(bl, bl_iv, bl_raw, bl_wall, gb, gb_wall, seconds, quick) -> str:
    lines = [f"`benchlab run --time {seconds:g}` against Google Benchmark's default run, {len(bl)} rounds alternating"
             + (" (quick: checks that it runs; 2 rounds measure nothing)" if quick else ""),
             f"{'kernel':<15}{'benchlab (ns)':>14}{'GB (ns)':>10}{'CV benchlab':>13}{'CV GB':>8}{'bl/GB CV':>10}"
             f"{'next in 99%':>13}{'CV raw':>9}{'sub/raw CV':>12}"]
    for k in KERNELS:
        ours, theirs = [r[k] for r in bl], [r[k] for r in gb]
        hits = sum(bl_iv[i][k][0] <= ours[i + 1] <= bl_iv[i][k][1] for i in range(len(ours) - 1))
        raw = [r[k] for r in bl_raw]
        ours_cv, theirs_cv, raw_cv = (cv(ours), cv(theirs), cv(raw)) if len(ours) > 1 else (float("nan"),) * 3
        lines.append(f"{k:<15}{statistics.median(ours):>14.4g}{statistics.median(theirs):>10.4g}"
                     f"{100 * ours_cv:>12.2f}%{100 * theirs_cv:>7.2f}%{ours_cv / theirs_cv:>10.2f}"
                     f"{f'{hits}/{len(ours) - 1}':>13}{100 * raw_cv:>8.2f}%{ours_cv / raw_cv:>12.2f}")
    lines.append(f"wall per round (median): benchlab {statistics.median(bl_wall):.2f} s, "
                 f"Google Benchmark {statistics.median(gb_wall):.2f} s")
    lines.append("targets: bl/GB CV <= 1.00 on every kernel; next round inside benchlab's 99% interval >= 95%; "
                 "sub/raw CV <= 1.2")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
