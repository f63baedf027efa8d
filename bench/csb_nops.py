"""What -n=N costs: our bm_empty against CSB's own, operations per CPU-second (issue 38).

CSB spins -n=N nops between two operations; suites/concurrency/bm_empty.c runs CSB's
bm_empty (an operation of 100 nops) on the header's threaded mode. Builds CSB's
bm_empty from a CSB checkout (bench/benchmark.c with bench/targets/bm_empty.h, CSB's
-O2 -D_GNU_SOURCE) and ours from this tree (and, with --against REV, from REV's
header), then runs them interleaved, the order rotated each repetition: -t=1 -d=D
-s=0 -op0=1024 at each -n. A figure is the operations the line counts (univ_count) over
the process's CPU time (user + system, from wait4); the ratio is ours over CSB's in the
same repetition, and its median over the repetitions is printed. A benchmark, not a
test: run it under flock /work/bench.lock on a shared machine.

    .venv/bin/python bench/csb_nops.py --csb /path/to/CSB                 # -n=0 and -n=1000, 5 x 1 s
    .venv/bin/python bench/csb_nops.py --csb /path/to/CSB --against main  # main's header too
    .venv/bin/python bench/csb_nops.py --loops --against main             # the nop loop alone

Whole processes carry the rest of each harness (its timer reads, its dispatch) and the
machine's phases, which move their ratio by 10% and more from run to run on a shared
machine. --loops times the loop alone instead: bench/csb_nops_loop.c, built with each
header, runs bl_nops(N) and CSB's loop in alternating rounds in one process and prints
the median of the rounds' ratios (ours / CSB's).
"""
from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "bench" / "build"


def build_csb(csb: Path, out: Path) -> None:
    bench = csb / "bench"
    target = bench / "targets" / "bm_empty.h"
    if not target.is_file():
        raise SystemExit(f"error: {target} not found: --csb names a checkout of bvtrach/CSB")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-D_GNU_SOURCE", f'-DBM_TARGET="{target}"',
                    f"-I{bench / 'include'}", str(bench / "benchmark.c"), "-o", str(out), "-pthread"], check=True)


def build_ours(header_dir: Path, out: Path) -> None:
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-pthread", f"-I{header_dir}",
                    str(REPO / "suites" / "concurrency" / "bm_empty.c"), "-o", str(out)], check=True)


def header_of(rev: str) -> Path:
    directory = BUILD / f"csb_nops_header_{rev.replace('/', '_')}"
    directory.mkdir(parents=True, exist_ok=True)
    text = subprocess.run(["git", "-C", str(REPO), "show", f"{rev}:include/benchlab.h"], check=True,
                          capture_output=True, text=True).stdout
    (directory / "benchlab.h").write_text(text)
    return directory


def ops_per_cpu_second(argv: list[str]) -> float:
    """Operations of one process (its csb line's univ_count) over its CPU seconds."""
    with open(os.devnull, "w") as null:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=null, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"error: {shlex.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    values = dict(pair.split("=", 1) for pair in out.strip().rstrip(";").split(";") if "=" in pair)
    return int(values["univ_count"]) / (usage.ru_utime + usage.ru_stime)


def loops(args: argparse.Namespace) -> int:
    """bench/csb_nops_loop.c with this tree's header and each --against's, run in turn at each -n."""
    headers = {"ours": REPO / "include", **{rev: header_of(rev) for rev in args.against}}
    for name, header in headers.items():
        out = BUILD / f"csb_nops_loop_{name.replace('/', '_')}"
        subprocess.run([os.environ.get("CC", "cc"), "-O2", f"-I{header}", str(REPO / "bench" / "csb_nops_loop.c"),
                        "-o", str(out)], check=True)
        headers[name] = out
    for nops in args.nops or [100, 1000]:
        for rep in range(args.reps):
            for name, binary in headers.items():
                line = subprocess.run([str(binary), str(nops), str(max(200, 400_000 // nops))], check=True,
                                      capture_output=True, text=True).stdout.strip()
                print(f"{name:>8} run {rep + 1}: {line}")
    print("reproduce: " + shlex.join(["flock", "/work/bench.lock", ".venv/bin/python", "bench/csb_nops.py", *sys.argv[1:]]))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--csb", type=Path, help="a checkout of bvtrach/CSB (whole processes)")
    parser.add_argument("--loops", action="store_true", help="the nop loop alone, against CSB's, in one process")
    parser.add_argument("--nops", type=int, action="append", help="-n values (default 0 and 1000)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--duration", type=int, default=1, help="seconds per process (CSB's -d is whole seconds)")
    parser.add_argument("--against", metavar="REV", action="append", default=[])
    args = parser.parse_args()
    BUILD.mkdir(parents=True, exist_ok=True)
    if args.loops:
        return loops(args)
    if args.csb is None:
        parser.error("--csb PATH (a checkout of bvtrach/CSB) or --loops")
    binaries = {"CSB": BUILD / "csb_nops_csb", "ours": BUILD / "csb_nops_ours"}
    build_csb(args.csb, binaries["CSB"])
    build_ours(REPO / "include", binaries["ours"])
    for rev in args.against:
        binaries[rev] = BUILD / f"csb_nops_{rev.replace('/', '_')}"
        build_ours(header_of(rev), binaries[rev])
    names = list(binaries)
    print(f"operations per CPU-second, median of {args.reps} interleaved runs of {args.duration} s at -t=1; "
          "ratio: each over CSB's in the same run")
    print(f"{'-n':>6} " + " ".join(f"{n:>14}" for n in names) + " " + " ".join(f"{n + '/CSB':>12}" for n in names[1:]))
    ns_per_op: dict[int, dict[str, float]] = {}
    for nops in args.nops or [0, 1000]:
        figures: dict[str, list[float]] = {n: [] for n in names}
        for rep in range(args.reps):
            order = names[rep % len(names):] + names[:rep % len(names)]
            for name in order:
                figures[name].append(ops_per_cpu_second([str(binaries[name]), "-t=1", f"-n={nops}", f"-d={args.duration}",
                                                         "-s=0", "-op0=1024"]))
        ratios = {n: statistics.median(a / c for a, c in zip(figures[n], figures["CSB"])) for n in names[1:]}
        print(f"{nops:>6} " + " ".join(f"{statistics.median(figures[n]):>14.0f}" for n in names) + " "
              + " ".join(f"{ratios[n]:>12.3f}" for n in names[1:]))
        ns_per_op[nops] = {n: 1e9 / statistics.median(figures[n]) for n in names}
    # What -n=N itself costs: ns per operation at N less at 0, from the medians above.
    for nops in sorted(n for n in ns_per_op if n and 0 in ns_per_op):
        cost = {n: ns_per_op[nops][n] - ns_per_op[0][n] for n in names}
        print(f"-n={nops} costs per operation: " + ", ".join(f"{n} {cost[n]:.1f} ns" for n in names)
              + "; " + ", ".join(f"{n}/CSB {cost[n] / cost['CSB']:.3f}" for n in names[1:]))
    print("reproduce: " + shlex.join(["flock", "/work/bench.lock", ".venv/bin/python", "bench/csb_nops.py", *sys.argv[1:]]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
