"""The threaded (CSB) mode's own cost per operation, beside a bare loop (issue 20, part 3).

Builds bench/csb_harness.c: the header's threaded mode on targets that do nothing
(`empty`, as suites/concurrency/empty.c, and `two_nops`, the same twice so that a 512/512
mix makes the harness draw each operation), and a bare loop that makes the same calls
through the same kind of pointer with no harness. Runs every cell REPS times for D
seconds each, cells alternating, and prints per row the median ns per operation per
thread (T * 1e9 / throughput_min_ts for the harness, CSB's own figure) of:

  harness          the threaded mode with --latency-every=batch (the first operation of
                   each batch timed: the default of jsonl and table)
  every op timed   the same with --latency-every=1 (two clock reads per operation: the
                   csb line's default, as CSB times them)
  bare loop        csb_harness --bare: pick the operation, call it, count; nothing else
  ratio            harness / bare loop, within this run

and, with --against REV, the harness built from REV's include/benchlab.h, in the same
run. The figure to reach: `empty` at -t 1, at most 10 ns per operation. A benchmark, not
a test: it prints figures and exits 0 whatever they are (non-zero only when something
cannot be built or run). Wrap it in flock /tmp/benchlab-timing.lock on a shared machine.

    .venv/bin/python bench/csb_harness.py                  # 5 runs of 1 s per cell, about a minute
    .venv/bin/python bench/csb_harness.py --quick          # 1 run of 0.2 s per cell, a few seconds
    .venv/bin/python bench/csb_harness.py --against main   # also main's header, same run
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "bench" / "build"
SOURCE = REPO / "bench" / "csb_harness.c"
#: The issue's figure: the harness on the empty target at -t 1, ns per operation.
GOAL_NS = 10.0
FULL = {"reps": 5, "duration": 1.0}
QUICK = {"reps": 1, "duration": 0.2}
#: (label, target, mix flags for the harness, bare loop flags, threads)
ROWS = [
    ("empty  op0=1024", "empty", ["-op0=1024"], [], 1),
    ("empty  op0=1024", "empty", ["-op0=1024"], [], 2),
    ("two_nops 512/512", "two_nops", ["-op0=512", "-op1=512"], ["--mix"], 1),
]


def build(header_dir: Path, out: Path) -> None:
    cc = os.environ.get("CC", "cc")
    argv = [cc, "-O2", "-Wall", "-Wextra", "-pthread", f"-I{header_dir}", str(SOURCE), "-o", str(out)]
    subprocess.run(argv, check=True)


def header_of(rev: str) -> Path:
    """REV's include/benchlab.h, in a directory of its own under bench/build."""
    directory = BUILD / f"csb_harness_header_{rev.replace('/', '_')}"
    directory.mkdir(parents=True, exist_ok=True)
    text = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:include/benchlab.h"], check=True,
                          capture_output=True, text=True).stdout
    (directory / "benchlab.h").write_text(text)
    return directory


def key_values(line: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in line.strip().rstrip(";").split(";"))


def measure(argv: list[str]) -> tuple[float, dict[str, str]]:
    """ns per operation per thread of one process, and its key=val; line."""
    proc = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "BL_NO_WARN": "1"}, timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"error: {shlex.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[:300]}")
    values = key_values(proc.stdout)
    if "bare_ns_per_op" in values:
        return float(values["bare_ns_per_op"]), values
    threads = int(values["num_threads"])
    return threads * 1e9 / float(values["throughput_min_ts"]), values


def cells(binaries: dict[str, Path], row: tuple, duration: float) -> dict[str, list[str]]:
    """The command of each column of a row."""
    _, target, mix, bare_flags, threads = row
    common = [f"-t={threads}", f"-d={duration:g}"]
    harness = [*common, *mix, f"--filter={target}", "--format=csb"]
    # The csb line times every operation by default since issue 28 (as CSB does): the
    # harness column asks for the first of each batch; a revision runs at its default.
    commands = {
        "harness": [str(binaries["this"]), *harness, "--latency-every=batch"],
        "every op timed": [str(binaries["this"]), *harness, "--latency-every=1"],
        "bare loop": [str(binaries["this"]), "--bare", *common, *bare_flags],
    }
    for name, binary in binaries.items():
        if name != "this":
            commands[f"{name} harness"] = [str(binary), *harness]
    return commands


def run(binaries: dict[str, Path], reps: int, duration: float) -> list[dict]:
    results = [{"row": row, "figures": {}, "lines": {}} for row in ROWS]
    for rep in range(reps):
        for result in results:
            commands = cells(binaries, result["row"], duration)
            names = list(commands)
            shift = rep % len(names)  # rotate the order, so no column always runs first
            for name in names[shift:] + names[:shift]:
                ns, values = measure(commands[name])
                result["figures"].setdefault(name, []).append(ns)
                result["lines"].setdefault(name, []).append(values)
        print(f"  run {rep + 1} of {reps} done", file=sys.stderr)
    return results


def render(results: list[dict], reps: int, duration: float) -> str:
    columns = list(results[0]["figures"])
    head = f"{'target / mix':<18} {'-t':>3} " + " ".join(f"{c:>16}" for c in columns) + f" {'ratio':>7}"
    lines = [f"ns per operation per thread, median of {reps} run{'s' * (reps > 1)} of {duration:g} s "
             f"(ratio: harness / bare loop, same run)", head, "-" * len(head)]
    for result in results:
        label, _, _, _, threads = result["row"]
        medians = {c: statistics.median(v) for c, v in result["figures"].items()}
        ratio = medians["harness"] / medians["bare loop"]
        lines.append(f"{label:<18} {threads:>3} " + " ".join(f"{medians[c]:>16.2f}" for c in columns) + f" {ratio:>7.2f}")
    empty_t1 = statistics.median(results[0]["figures"]["harness"])
    verdict = "met" if empty_t1 <= GOAL_NS else "NOT met"
    lines.append(f"figure to reach: empty at -t 1 at most {GOAL_NS:g} ns/op: {empty_t1:.2f} ns/op ({verdict})")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 run of 0.2 s per cell: checks that it builds and runs")
    parser.add_argument("--reps", type=int, help="runs per cell (default 5; --quick 1)")
    parser.add_argument("--duration", type=float, help="seconds per run (default 1; --quick 0.2)")
    parser.add_argument("--against", metavar="REV", action="append", default=[],
                        help="also the harness built from REV's include/benchlab.h (repeatable)")
    args = parser.parse_args()
    settings = QUICK if args.quick else FULL
    reps = args.reps or settings["reps"]
    duration = args.duration or settings["duration"]
    if reps < 1 or not 0 < duration <= 60:
        parser.error("--reps must be at least 1 and --duration from 0 to 60 seconds")
    BUILD.mkdir(parents=True, exist_ok=True)
    binaries = {"this": BUILD / "csb_harness"}
    build(REPO / "include", binaries["this"])
    for rev in args.against:
        binaries[rev] = BUILD / f"csb_harness_{rev.replace('/', '_')}"
        build(header_of(rev), binaries[rev])
    results = run(binaries, reps, duration)
    print(render(results, reps, duration))
    print("reproduce: " + shlex.join(["flock", "/tmp/benchlab-timing.lock", ".venv/bin/python", "bench/csb_harness.py",
                                      *sys.argv[1:]]))
    raw = [{"row": r["row"][0], "threads": r["row"][4], "figures_ns": r["figures"], "lines": r["lines"]} for r in results]
    (BUILD / "csb_harness.json").write_text(json.dumps(raw, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
