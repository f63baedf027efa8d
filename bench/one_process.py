"""One process of the header against one of nanobench, on the same kernels (issue 40).

Builds bench/bl_kernels.c against each header given (-O2, as bench/run does) and
bench/nb_kernels.cpp against nanobench's, then runs one process of each per round, in a
freshly shuffled order every round, so that every program meets the same host states.
Prints the median wall time of one process per program, its ratio to nanobench's, and per
kernel the CV of each program's figure between its processes (the header's median, after
the empty loop's subtraction; nanobench's median), with a 90% bootstrap interval of the
ratio of each header's CV to the first header's. The load average is printed at the start
and the end: figures taken beside other work say little.

    .venv/bin/python bench/one_process.py --nanobench /tmp/nanobench \\
        --header before=/tmp/base/benchlab.h --header after=include/benchlab.h [--rounds 41]
    .venv/bin/python bench/one_process.py --nanobench DIR --phases    # where one process's time goes

A header given as LABEL=PATH@FLAGS runs with those flags (e.g. "limit5=include/benchlab.h@
--time-limit=0.005"). --phases builds the headers with BL__PHASE_TIMES (they print their
phases' wall times to stderr) and prints the median of each phase over the rounds beside
the process's wall time; the instrumented build reads the clock six more times a sample.
nanobench is not shipped here: fetch martinus/nanobench and give the directory holding
nanobench.h. A benchmark, not a test: it prints figures and exits 0 whatever they are.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from budget import KERNELS, cv, timed  # noqa: E402  (bench/ is not a package)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CFLAGS = ["-O2"]
# The phases BL__PHASE_TIMES prints, in its order; three more are derived from them.
PHASES = ["timer", "context", "calibration", "calibration_empty", "samples", "samples_empty", "contention",
          "rounds", "figures", "output", "main"]


def build(label: str, header: str, nanobench: str | None, out: str, phases: bool) -> str:
    """Builds bl_kernels.c against `header` (or nb_kernels.cpp when header is None) into out/label."""
    exe = os.path.join(out, label)
    if header is None:
        argv = ["g++", *CFLAGS, f"-I{nanobench}", os.path.join(REPO, "bench", "nb_kernels.cpp"), "-o", exe]
    else:
        include = os.path.join(out, f"{label}-include")
        os.makedirs(include)
        shutil.copy(header, os.path.join(include, "benchlab.h"))
        argv = ["cc", *CFLAGS, f"-I{include}", f"-DBL_CFLAGS=\"{' '.join(CFLAGS)}\"",
                *(["-DBL__PHASE_TIMES"] if phases else []), os.path.join(REPO, "bench", "bl_kernels.c"), "-o", exe]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"error: building {label} failed:\n{done.stderr[-2000:]}")
    return exe


def header_figures(out: str) -> tuple[dict, dict]:
    """({kernel: median ns}, {kernel: (samples, stop reason)}) from a header's JSON lines."""
    figures, stops = {}, {}
    for line in out.splitlines():
        row = json.loads(line)
        if row.get("type") == "result" and row.get("counter") == "time":
            figures[row["bench"]] = row["median"]
            stops[row["bench"]] = (len(row["samples"]) + row.get("left_out", 0), row["stopped"])
    return figures, stops


def phase_times(stderr: str) -> dict:
    """{phase: ms} from the lines "phase NAME MS COUNT" of a BL__PHASE_TIMES build."""
    return {parts[1]: float(parts[2]) for parts in (line.split() for line in stderr.splitlines())
            if len(parts) == 5 and parts[0] == "phase"}


def run_header(exe: str, flags: list[str]) -> tuple[dict, dict, dict, float]:
    env = {**os.environ, "BL_NO_WARN": "1"}
    start = time.perf_counter()
    done = subprocess.run([exe, "--format=jsonl", *flags], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"error: {exe} exited {done.returncode}:\n{done.stderr[-2000:]}")
    figures, stops = header_figures(done.stdout)
    return figures, stops, phase_times(done.stderr), wall


def run_nanobench(exe: str) -> tuple[dict, float]:
    out, wall = timed([exe])
    return {name: float(ns) for name, ns in (line.split("\t") for line in out.splitlines() if line)}, wall


def cv_ratio_interval(a: list[float], b: list[float], rng: random.Random, draws: int = 2000) -> tuple[float, float]:
    """90% bootstrap interval of cv(a)/cv(b), the rounds resampled in pairs."""
    n, ratios = len(a), []
    for _ in range(draws):
        idx = [rng.randrange(n) for _ in range(n)]
        ca, cb = cv([a[i] for i in idx]), cv([b[i] for i in idx])
        ratios.append(ca / cb if cb > 0 else float("inf"))
    ratios.sort()
    return ratios[int(0.05 * draws)], ratios[int(0.95 * draws) - 1]


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nanobench", help="the directory holding nanobench.h")
    parser.add_argument("--header", action="append", default=[], metavar="LABEL=PATH[@FLAGS]",
                        help="a header to build bl_kernels.c against (default: this checkout's, as 'header')")
    parser.add_argument("--rounds", type=int, default=41)
    parser.add_argument("--phases", action="store_true", help="build with BL__PHASE_TIMES and print the phases")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--raw", help="write every round's figures to this JSON file")
    args = parser.parse_args()
    specs = args.header or [f"header={os.path.join(REPO, 'include', 'benchlab.h')}"]
    headers = []
    for spec in specs:
        label, _, rest = spec.partition("=")
        path, _, flags = rest.partition("@")
        if not label or not os.path.isfile(path):
            raise SystemExit(f"error: --header {spec!r}: give LABEL=PATH to an existing benchlab.h")
        headers.append((label, path, shlex.split(flags)))
    if args.nanobench and not os.path.isfile(os.path.join(args.nanobench, "nanobench.h")):
        raise SystemExit(f"error: --nanobench {args.nanobench}: no nanobench.h there")
    rng = random.Random(args.seed)
    scratch = tempfile.mkdtemp(prefix="bench-one-process-")
    try:
        exes = {}
        for label, path, _ in headers:
            exes[label] = build(label, path, None, scratch, args.phases)
        if args.nanobench:
            exes["nanobench"] = build("nanobench", None, args.nanobench, scratch, False)
        load_start = load()
        programs = [label for label, _, _ in headers] + (["nanobench"] if args.nanobench else [])
        flags = {label: f for label, _, f in headers}
        figures = {p: [] for p in programs}
        walls = {p: [] for p in programs}
        stops = {p: [] for p in programs}
        phases = {p: [] for p in programs}
        for _ in range(args.rounds):
            order = programs[:]
            rng.shuffle(order)
            for p in order:
                if p == "nanobench":
                    f, wall = run_nanobench(exes[p])
                else:
                    f, s, ph, wall = run_header(exes[p], flags[p])
                    stops[p].append(s)
                    phases[p].append(ph)
                figures[p].append(f)
                walls[p].append(wall)
        load_end = load()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(render(programs, figures, walls, stops, rng, load_start, load_end, args.rounds))
    if args.phases:
        for label, _, _ in headers:
            print(render_phases(label, phases[label], walls[label]))
    if args.raw:
        with open(args.raw, "w") as file:
            json.dump({"figures": figures, "walls": walls, "stops": stops, "phases": phases}, file)
    return 0


def render(programs, figures, walls, stops, rng, load_start, load_end, rounds) -> str:
    first = programs[0]
    lines = [f"one process each, {rounds} rounds in shuffled order; load average {load_start} at the start, "
             f"{load_end} at the end",
             f"{'program':<14}{'median wall (s)':>16}{'/ nanobench':>13}"]
    nb = statistics.median(walls["nanobench"]) if "nanobench" in walls else None
    for p in programs:
        wall = statistics.median(walls[p])
        lines.append(f"{p:<14}{wall:>16.4f}{(f'{wall / nb:.2f}' if nb else '-'):>13}")
    lines.append("CV between processes per kernel (%); in brackets a 90% bootstrap interval of CV / "
                 f"{first}'s CV; samples and stop reason (the most common) of each header")
    for k in KERNELS:
        cells = []
        for p in programs:
            values = [r[k] for r in figures[p]]
            cell = f"{p} {100 * cv(values):.2f}%"
            if p != first and p != "nanobench":
                low, high = cv_ratio_interval(values, [r[k] for r in figures[first]], rng)
                cell += f" [{low:.2f}, {high:.2f}]"
            if stops[p]:
                counts = [s[k][0] for s in stops[p]]
                reason = statistics.mode(s[k][1] for s in stops[p])
                cell += f" ({statistics.median(counts):g} samples, {reason})"
            cells.append(cell)
        lines.append(f"  {k:<14}" + "; ".join(cells))
    return "\n".join(lines)


def render_phases(label, phases, walls) -> str:
    """The median of each phase over the rounds, in ms and as a share of the process."""
    if not phases or not phases[0]:
        return f"{label}: no phases (the header has no BL__PHASE_TIMES)"
    derived = []
    for ph, wall in zip(phases, walls):
        d = {name: ph.get(name, 0.0) for name in PHASES}
        d["process start and exit"] = 1000 * wall - d["main"]
        d["rounds: shuffle, stop rule, bookkeeping"] = (d["rounds"] - d["samples"] - d["samples_empty"]
                                                       - d["contention"])
        d["main: the rest (options, selection)"] = d["main"] - sum(
            d[n] for n in ("timer", "context", "calibration", "calibration_empty", "rounds", "figures", "output"))
        d["process"] = 1000 * wall
        derived.append(d)
    order = ["process start and exit", "main: the rest (options, selection)", "timer", "context", "calibration",
             "calibration_empty", "samples", "samples_empty", "contention", "rounds: shuffle, stop rule, bookkeeping",
             "figures", "output", "process"]
    total = statistics.median(d["process"] for d in derived)
    lines = [f"{label}: where one process's wall time goes (median over {len(derived)} processes)",
             f"{'phase':<42}{'ms':>9}{'share':>8}"]
    for name in order:
        ms = statistics.median(d[name] for d in derived)
        lines.append(f"{name:<42}{ms:>9.3f}{100 * ms / total:>7.1f}%")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
