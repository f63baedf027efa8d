"""benchlab measured against Google Benchmark across processes: runs both on the kernels
of bench/kernels.h and prints one table (bench/README.md says what each row means).

Called by bench/run, which builds the programs first:
    compare_gbench.py --build DIR [--quick] [--raw FILE]

The flow, in the order of the table:
    processes()    PROCESSES fresh processes of each tool, alternating (bl gb bl gb ...):
                   accuracy, the empty body, cross-process CV, how often one process's
                   interval contains another's median, time per process
    runs()         RUNS default `benchlab run`s of the same program (its processes,
                   build cached): how often one run's interval contains another run's
                   figure, and the wall time of the whole command
    comparisons()  COMPARISONS processes of bl_compare.c: A/A (an identical copy of the
                   baseline) and 1% slower (K=101 against K=100), within one process
    table()        the figures on standard output; progress goes to standard error
    quick_table()  with --quick (scripts/test's last step), which only checks that all of
                   it runs: the figures in under 100 columns, coverage as hits/pairs, each
                   beside the full mode's target

A benchmark, not a test: it prints figures and exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from rich import box
from rich.console import Console
from rich.table import Table
from scipy.stats import t as student_t

# ---- Settings, each with its reason --------------------------------------------------

# Kernels in table order; the same names in bl_kernels.c and gb_kernels.cc.
KERNELS = ["empty", "call", "chain10", "chain100", "chain1000", "getpid", "clock_gettime", "memcpy64"]
LABELS = {
    "empty": "empty body", "call": "call through a pointer", "chain10": "chain K=10", "chain100": "chain K=100",
    "chain1000": "chain K=1000", "getpid": "getpid (syscall)", "clock_gettime": "clock_gettime", "memcpy64": "memcpy 64 B",
}
#: The same in the quick mode's narrow table.
SHORT_LABELS = {**LABELS, "call": "call via pointer", "getpid": "getpid"}
CHAINS = ["chain10", "chain100", "chain1000"]
# Fresh processes of each tool: 20 gives the coverage figures 380 ordered pairs each.
PROCESSES = 20
# Default `benchlab run`s: 39 next-run pairs (each miss is 2.6%), 1560 ordered pairs.
RUNS = 40
#: The runs' store, kept after the run (bench/runlevel_replay.py reads it).
RUNS_DB = "bench/build/runs.db"
#: The first of the runs whose store holds 3 earlier runs (the unmeasured first run is one).
HISTORY_FROM = 2
# Comparisons within one process: 100 resolves "at most 1 in 100".
COMPARISONS = 100
# Runs of one process (`benchlab run -N 1`) after those, in the same store: 39 next-run pairs.
SINGLE_RUNS = 40
QUICK = {"PROCESSES": 4, "RUNS": 3, "SINGLE_RUNS": 3, "COMPARISONS": 10}
# Google Benchmark's repetitions per process (as its compare.py, UTEST_OPTIMAL_REPETITIONS),
# each of --benchmark_min_time: its "interval" is the 99% t interval of their mean.
GB_REPETITIONS = 9
GB_MIN_TIME_S = 0.05
# The empty body must read within this of zero, and never below it (the figure).
EMPTY_TOLERANCE_NS = 0.05


def percent(fraction: float) -> str:
    """Two significant digits, whole percents from 10 up: 0.42%, 3.7%, 50%, 102%."""
    return f"{100 * fraction:.0f}%" if fraction >= 0.1 else f"{100 * fraction:.2g}%"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run(argv: list[str], **kwargs) -> tuple[str, float]:
    """Run a program; its standard output and wall time in seconds."""
    start = time.perf_counter()
    kwargs.setdefault("env", {**os.environ, "BL_NO_WARN": "1"})
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(argv)} exited {done.returncode}:\n{done.stderr}")
    return done.stdout, wall


def benchlab_process(binary: str, *flags: str) -> tuple[dict, dict, float]:
    """One process of a benchlab program: (context, {bench: result record}, wall seconds)."""
    out, wall = run([binary, "--format=jsonl", *flags])
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    return records[0], {r["bench"]: r for r in records if r["type"] == "result"}, wall


def gbench_process(binary: str, *flags: str) -> tuple[dict, dict[str, list[float]], float]:
    """One process of the Google Benchmark program: (context, {name: [real_time ns of each
    repetition]}, wall seconds)."""
    out, wall = run([binary, "--benchmark_format=json", *flags])
    doc = json.loads(out)
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    times: dict[str, list[float]] = {}
    for b in doc["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration":
            times.setdefault(b["run_name"], []).append(b["real_time"] * scale[b["time_unit"]])
    return doc["context"], times, wall


def t_interval(values: list[float]) -> tuple[float, float]:
    """99% t interval of the mean of `values`."""
    mean, sd = statistics.mean(values), statistics.stdev(values)
    half = student_t.ppf(0.995, len(values) - 1) * sd / len(values) ** 0.5
    return mean - half, mean + half


def coverage(intervals: list[tuple[float, float]], figures: list[float], *, next_only: bool = False) -> float:
    """Share of ordered pairs (i, j), i != j, where interval i contains figure j; with
    `next_only`, of the pairs (i, i+1): a rerun right after, on the same machine state,
    rather than one minutes later, after the shared machine has drifted."""
    count = len(figures)
    pairs = ([(i, i + 1) for i in range(count - 1)] if next_only else
             [(i, j) for i in range(count) for j in range(count) if i != j])
    return sum(intervals[i][0] <= figures[j] <= intervals[i][1] for i, j in pairs) / len(pairs)


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values)


# ---- Phase 1: fresh processes of each tool ------------------------------------------------

@dataclass
class Processes:
    bl: list[dict] = field(default_factory=list)             # {bench: record} per process
    gb: list[dict[str, list[float]]] = field(default_factory=list)
    bl_wall: list[float] = field(default_factory=list)
    gb_wall: list[float] = field(default_factory=list)
    bl_context: dict = field(default_factory=dict)
    gb_context: dict = field(default_factory=dict)


def processes(build: str, count: int) -> Processes:
    """Fresh processes of each tool at its defaults (Google Benchmark with repetitions, so
    that it has an interval to judge), strictly alternating so both meet the same load."""
    p = Processes()
    for i in range(count):
        p.bl_context, results, wall = benchlab_process(f"{build}/bl_kernels")
        p.bl.append(results)
        p.bl_wall.append(wall)
        p.gb_context, times, wall = gbench_process(
            f"{build}/gb_kernels", f"--benchmark_filter=^({'|'.join(KERNELS)})$",
            f"--benchmark_repetitions={GB_REPETITIONS}", f"--benchmark_min_time={GB_MIN_TIME_S}")
        p.gb.append(times)
        p.gb_wall.append(wall)
        log(f"processes {i + 1}/{count}: benchlab {p.bl_wall[-1]:.3f} s, Google Benchmark {wall:.1f} s")
    return p


# ---- Phase 2: default `benchlab run`s ------------------------------------------------------

@dataclass
class Runs:
    figures: list[dict[str, float]] = field(default_factory=list)
    intervals: list[dict[str, tuple[float, float]]] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    processes: int = 0
    #: `benchlab run -N 1` after the default runs, in their store: one process with the
    #: machine's history (combine.py gives it the pooled spread between processes).
    single_figures: list[dict[str, float]] = field(default_factory=list)
    single_intervals: list[dict[str, tuple[float, float]]] = field(default_factory=list)


def native_time_cells(document: dict, skipped: tuple[str, ...] = ("empty",)) -> dict[str, dict]:
    """The native time cells of a `benchlab run --format json` document that carry an
    interval, by test (the tests in `skipped` left out): what the bench scripts that judge
    intervals read (contention.py, fresh_store.py)."""
    cells = {}
    for row in document["rows"]:
        cell = row["cells"].get("native", {})
        if row["test"] not in skipped and row["counter"] == "time" and cell.get("median_ci"):
            cells[row["test"]] = cell
    return cells


def scratch_project(prefix: str) -> str:
    """A temporary project with the header and bench/bl_kernels.c, for `benchlab run`."""
    project = tempfile.mkdtemp(prefix=prefix)
    os.makedirs(f"{project}/include")
    shutil.copy("include/benchlab.h", f"{project}/include/")
    for name in ("bl_kernels.c", "kernels.h"):
        shutil.copy(f"bench/{name}", project)
    return project


def user_environment(pycache: str) -> dict[str, str]:
    """The environment a user's `benchlab` starts in: Python caches its compiled modules.
    (Ours may say PYTHONDONTWRITEBYTECODE, which would make every start compile benchlab's
    sources again: about 0.1 s that no user pays. The cache goes to a scratch directory.)"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "BL_NO_WARN": "1", "PYTHONPYCACHEPREFIX": pycache}


def runs(benchlab_cmd: str, count: int, single: int) -> Runs:
    """`benchlab run bl_kernels.c` at its defaults, `count` times, in a scratch project
    whose build cache (and Python's module cache) the first (unmeasured) run fills; then
    `single` runs of one process (`-N 1`) in the same store."""
    r = Runs()
    project = scratch_project("bench-runs-")
    try:
        command = [benchlab_cmd, "run", "bl_kernels.c", "--format", "json"]
        env = user_environment(os.path.join(project, "pycache"))
        run(command, cwd=project, env=env)  # builds, and is not counted
        for i in range(count):
            out, wall = run(command, cwd=project, env=env)
            doc = json.loads(out)
            r.wall.append(wall)
            r.figures.append({row["test"]: row["cells"]["native"]["median"] for row in doc["rows"]})
            r.intervals.append({row["test"]: tuple(row["cells"]["native"]["median_ci"]) for row in doc["rows"]})
            r.processes = max(rec["reported"].get("process", 0) for rec in doc["records"]) + 1
            log(f"benchlab run {i + 1}/{count}: {wall:.2f} s")
        # Kept for bench/runlevel_replay.py: every process of every run, to replay estimators on.
        shutil.copy(os.path.join(project, ".benchlab", "results.db"), RUNS_DB)
        for i in range(single):
            out, _ = run([*command, "--processes", "1"], cwd=project, env=env)
            doc = json.loads(out)
            cells = {row["test"]: row["cells"]["native"] for row in doc["rows"]}
            r.single_figures.append({k: cell["median"] for k, cell in cells.items()})
            r.single_intervals.append({k: tuple(cell["median_ci"]) for k, cell in cells.items()})
        log(f"benchlab run -N 1: {single} runs")
    finally:
        shutil.rmtree(project, ignore_errors=True)
    return r


# ---- Phase 3: comparisons within one process ------------------------------------------------

@dataclass
class Comparisons:
    aa: list[bool] = field(default_factory=list)
    slow: list[bool] = field(default_factory=list)
    slow_ratio: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)


def comparisons(build: str, count: int) -> Comparisons:
    c = Comparisons()
    for i in range(count):
        _, results, wall = benchlab_process(f"{build}/bl_compare")
        c.aa.append(bool(results["chain100_copy"]["significant"]))
        c.slow.append(bool(results["chain101"]["significant"]))
        c.slow_ratio.append(results["chain101"]["ratio"])
        c.wall.append(wall)
    log(f"comparisons: {count} processes, A/A significant {sum(c.aa)}, 1% flagged {sum(c.slow)}")
    return c


# ---- The table ------------------------------------------------------------------------------

def table(p: Processes, r: Runs, c: Comparisons, gb_default_wall: list[float]) -> tuple[Table, dict]:
    t = Table(box=box.MARKDOWN, show_edge=True)
    t.add_column("figure")
    t.add_column("benchlab", justify="right")
    t.add_column("Google Benchmark", justify="right")
    t.add_column("note")
    figures: dict = {}

    def row(name, bl, gb, note=""):
        t.add_row(name, bl, gb, note)
        figures[name] = {"benchlab": bl, "gb": bl and gb, "note": note}

    medians = {k: [proc[k]["median"] for proc in p.bl] for k in KERNELS}
    raws = {k: [proc[k]["raw_median"] for proc in p.bl] for k in KERNELS}
    gb_medians = {k: [statistics.median(proc[k]) for proc in p.gb] for k in KERNELS}
    for k in KERNELS:
        if k == "empty":
            continue
        row(f"1. {LABELS[k]}: median of {len(p.bl)} processes (ns)", f"{statistics.median(medians[k]):.4g}",
            f"{statistics.median(gb_medians[k]):.4g}",
            f"raw {statistics.median(raws[k]):.4g}; benchlab/GB {statistics.median(medians[k]) / statistics.median(gb_medians[k]):.3f}")
    empty = medians["empty"]
    inside = sum(0 <= e <= EMPTY_TOLERANCE_NS for e in empty)
    row("2. empty body: processes within [0, 0.05] ns", f"{inside}/{len(empty)}", f"{statistics.median(gb_medians['empty']):.3f} ns",
        f"benchlab min {min(empty):.4f}, max {max(empty):.4f} ns; GB's figure includes its loop")
    for k in KERNELS:
        if k == "empty":
            continue
        sub, raw, gb = cv(medians[k]), cv(raws[k]), cv(gb_medians[k])
        # Noise the subtraction adds, in ns (standard deviations): the CV of a smaller
        # figure is larger by the division alone.
        sd_ratio = statistics.stdev(medians[k]) / statistics.stdev(raws[k])
        row(f"3. {LABELS[k]}: CV across processes", f"{100 * sub:.2f}%", f"{100 * gb:.2f}%",
            f"raw {100 * raw:.2f}%; subtracted/raw: CV {sub / raw:.2f}, sd {sd_ratio:.2f}")
    for k in KERNELS:
        if k == "empty":
            continue
        bl_iv = [tuple(proc[k]["median_ci"]) for proc in p.bl]
        gb_iv, gb_fig = [t_interval(proc[k]) for proc in p.gb], [statistics.mean(proc[k]) for proc in p.gb]
        run_iv, run_fig = [iv[k] for iv in r.intervals], [f[k] for f in r.figures]
        cover = [coverage(run_iv, run_fig, next_only=True), coverage(run_iv, run_fig),
                 coverage(bl_iv, medians[k], next_only=True), coverage(bl_iv, medians[k])]
        gb_cover = [coverage(gb_iv, gb_fig, next_only=True), coverage(gb_iv, gb_fig)]
        row(f"4. {LABELS[k]}: a 99% interval contains a rerun's figure",
            " / ".join(f"{100 * c:.0f}%" for c in cover), " / ".join(f"{100 * c:.0f}%" for c in gb_cover),
            "benchlab: `benchlab run` next/any, one process next/any; GB: its repetitions' t interval, next/any")
    for k in KERNELS:
        if k == "empty":
            continue
        # The runs share one store, whose first (unmeasured) run builds: run i has i + 1
        # earlier runs, and from the third on their spread is in the interval (noise.py).
        run_iv, run_fig = [iv[k] for iv in r.intervals][HISTORY_FROM:], [f[k] for f in r.figures][HISTORY_FROM:]
        hits = sum(run_iv[i][0] <= run_fig[i + 1] <= run_iv[i][1] for i in range(len(run_fig) - 1))
        row(f"4b. {LABELS[k]}: `benchlab run` with history contains the next run's figure",
            f"{hits}/{len(run_fig) - 1}" if len(run_fig) > 1 else "", "",
            f"runs {HISTORY_FROM + 1}-{len(r.figures)}: 3 or more earlier runs in the store")
    for k in KERNELS:
        if k == "empty":
            continue
        iv, fig = [x[k] for x in r.single_intervals], [f[k] for f in r.single_figures]
        hits = sum(iv[i][0] <= fig[i + 1] <= iv[i][1] for i in range(len(fig) - 1))
        widths = [(high - low) / 2 / f for (low, high), f in zip(iv, fig) if f]
        row(f"4c. {LABELS[k]}: `benchlab run -N 1` with history contains the next one's figure",
            f"{hits}/{len(fig) - 1}" if len(fig) > 1 else "", "",
            f"after the runs of 4 in their store; median half-width {percent(statistics.median(widths))}" if widths else "")
    row("5. A/A significant within one process", f"{sum(c.aa)}/{len(c.aa)}", "", "chain100_copy against baseline chain100")
    row("5. 1% slower flagged within one process", f"{sum(c.slow)}/{len(c.slow)}", "",
        f"chain101 against chain100; median ratio {statistics.median(c.slow_ratio):.4f} (ideal 1.01)")
    row("6. one process at its defaults (s, median)", f"{statistics.median(p.bl_wall):.3f}",
        f"{statistics.median(gb_default_wall):.2f}" if gb_default_wall else "", "GB: its default run, 1 repetition")
    row(f"6. default `benchlab run` ({r.processes} processes, build cached; s)",
        f"{statistics.median(r.wall):.2f}" if r.wall else "", "", "the whole command, Python included (median)")
    return t, figures


def quick_table(p: Processes, r: Runs, c: Comparisons, gb_default_wall: list[float]) -> list[str]:
    """The quick mode's figures in at most 100 columns, each with what it should be. The
    quick mode checks that everything builds and runs; its few processes and runs cannot
    measure coverage (a single miss among 3 runs reads 67%), so coverage is shown as
    hits/pairs, beside the full mode's target, and never as a verdict."""
    def hits(intervals, figures) -> str:
        pairs = len(figures) - 1
        return f"{sum(intervals[i][0] <= figures[i + 1] <= intervals[i][1] for i in range(pairs))}/{pairs}" if pairs > 0 else "-"

    widths = (16, 10, 8, 7, 10, 7, 6, 6, 6, 6)

    def line(*cells) -> str:
        return "".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(cells, widths)))

    lines = [f"{'':16}{'median (ns)':>18}{'':7}{'CV, processes':>17}{'rerun in 99% interval':>24}",
             line("kernel", "benchlab", "GB", "bl/GB", "benchlab", "GB", "run", "proc", "-N 1", "GB")]
    for k in KERNELS:
        if k == "empty":
            continue
        med = [proc[k]["median"] for proc in p.bl]
        gb = [statistics.median(proc[k]) for proc in p.gb]
        m, g = statistics.median(med), statistics.median(gb)
        lines.append(line(
            SHORT_LABELS[k], f"{m:.4g}", f"{g:.4g}", f"{m / g:.2f}", percent(cv(med)), percent(cv(gb)),
            hits([iv[k] for iv in r.intervals], [f[k] for f in r.figures]),
            hits([tuple(proc[k]["median_ci"]) for proc in p.bl], med),
            hits([iv[k] for iv in r.single_intervals], [f[k] for f in r.single_figures]),
            hits([t_interval(proc[k]) for proc in p.gb], [statistics.mean(proc[k]) for proc in p.gb])))
    empty = [proc["empty"]["median"] for proc in p.bl]
    inside = sum(0 <= e <= EMPTY_TOLERANCE_NS for e in empty)
    lines += [
        "",
        "what each should be (the full mode's targets; the quick mode checks that it all runs):",
        "  median: benchlab's after subtracting its empty loop, GB's with its loop in it: the",
        "    chains read bl/GB about 1.0, the 1-2 ns kernels lower; CV: chains under 1%",
        "  next rerun inside the 99% interval, as hits/pairs: run and -N 1 (`benchlab run`'s",
        f"    interval across processes): >= 95% of pairs in the full mode ({RUNS} runs); proc (one",
        "    process's interval, \"within this run\") and GB (its repetitions' t interval) are not",
        "    meant to cover a rerun: about half. Here "
        f"{len(r.figures)} runs, {len(p.bl)} processes: one miss reads 1/2 or 2/3.",
        f"  empty body within [0, {EMPTY_TOLERANCE_NS}] ns: {inside}/{len(empty)} processes (target: all)",
        f"  A/A significant within one process: {sum(c.aa)}/{len(c.aa)} (target: at most 1 in 100)",
        f"  1% slower flagged within one process: {sum(c.slow)}/{len(c.slow)}, median ratio "
        f"{statistics.median(c.slow_ratio):.4f} (target: all, 1.01)",
        f"  one process at its defaults: benchlab {statistics.median(p.bl_wall):.2f} s, GB "
        + (f"{statistics.median(gb_default_wall):.2f} s" if gb_default_wall else "-"),
        f"  default `benchlab run` ({r.processes} processes, build cached): "
        + (f"{statistics.median(r.wall):.2f} s" if r.wall else "-"),
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--raw")
    parser.add_argument("--benchlab", default=".venv/bin/benchlab")
    parser.add_argument("--cflags", default="")
    parser.add_argument("--compilers", default="")
    parser.add_argument("--gb-version", default="")
    parser.add_argument("--benchlab-rev", default="")
    args = parser.parse_args()
    counts = QUICK if args.quick else {"PROCESSES": PROCESSES, "RUNS": RUNS, "SINGLE_RUNS": SINGLE_RUNS,
                                       "COMPARISONS": COMPARISONS}
    started = time.perf_counter()
    load0 = os.getloadavg()
    p = processes(args.build, counts["PROCESSES"])
    r = runs(os.path.abspath(args.benchlab), counts["RUNS"], counts["SINGLE_RUNS"])
    c = comparisons(args.build, counts["COMPARISONS"])
    gb_default_wall = [gbench_process(f"{args.build}/gb_kernels", f"--benchmark_filter=^({'|'.join(KERNELS)})$")[2]
                       for _ in range(1 if args.quick else 3)]
    t, figures = table(p, r, c, gb_default_wall)
    took = time.perf_counter() - started
    console = Console(width=100 if args.quick else 250)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cpu = p.bl_context.get("cpu", platform.processor())
    console.print(f"{now}  {cpu}, {os.cpu_count()} cores, Linux {platform.release()}; {'quick' if args.quick else 'full'}")
    console.print(f"benchlab {p.bl_context.get('benchlab')} at {args.benchlab_rev} (timer {p.bl_context.get('timer')}), "
                  f"Google Benchmark {args.gb_version}; flags {args.cflags}")
    console.print(f"compilers: {args.compilers}")
    console.print(f"load average at start {load0[0]:.2f}, at end {os.getloadavg()[0]:.2f}; took {took:.0f} s")
    if args.quick:
        for line in quick_table(p, r, c, gb_default_wall):
            console.print(line, highlight=False)
    else:
        console.print(t)
    if args.raw:
        with open(args.raw, "w") as f:
            json.dump({"figures": figures, "bl_processes": p.bl, "gb_processes": p.gb, "runs": r.__dict__,
                       "comparisons": c.__dict__, "gb_default_wall": gb_default_wall}, f)


if __name__ == "__main__":
    main()
