"""benchlab measured against Google Benchmark: runs both on the kernels of
bench/kernels.h and prints one table (bench/README.md says what each row means).

Called by bench/run, which builds the programs first:
    compare_gbench.py --build DIR [--quick] [--raw FILE]

The flow, in the order of the table:
    runs()     each tool's default run of the kernels, RUNS times, alternating tools:
               accuracy (1), harness overhead (2), stability (3), time to result (6)
    trials()   TRIALS comparisons of chain100 with an identical copy (A/A) and with
               chain101 (1% slower), alternating tools: false alarms (4), sensitivity (5)
    table()    the figures, one table on standard output; progress goes to stderr

A benchmark, not a test: it prints figures and exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

from rich import box
from rich.console import Console
from rich.table import Table
from scipy.stats import mannwhitneyu

# ---- Settings, each with its reason --------------------------------------------------

# Kernels in table order; the same names in bl_kernels.c and gb_kernels.cc.
KERNELS = ["empty", "chain10", "chain100", "chain1000", "getpid", "clock_gettime", "memcpy64"]
LABELS = {
    "empty": "empty body",
    "chain10": "chain K=10",
    "chain100": "chain K=100",
    "chain1000": "chain K=1000",
    "getpid": "getpid (syscall)",
    "clock_gettime": "clock_gettime",
    "memcpy64": "memcpy 64 B",
}
# Repeated default runs of each tool, for the stability figure (the issue asks for 10).
RUNS = 10
# A/A and 1% comparisons per tool. 20 resolves a false-alarm rate to 5 points, which is
# what a 5% test should produce about once; more would push the run past 10 minutes.
TRIALS = 20
# --quick: the same table from about a minute. Counts and CVs over 2 are rough.
QUICK_RUNS = 2
QUICK_TRIALS = 2
# The run must end within 10 minutes on 2 cores (--quick: about a minute). Google
# Benchmark sizes its runs by CPU time, so on a loaded machine its wall time stretches;
# comparisons stop early, after at least one, when the next would end past this
# deadline (counted from the driver's start), and the table says how many were made.
DEADLINE_S = 570.0
QUICK_DEADLINE_S = 80.0
# Google Benchmark's tools/compare.py: UTEST_OPTIMAL_REPETITIONS = 9 and alpha 0.05.
GB_REPETITIONS = 9
GB_ALPHA = 0.05
# Google Benchmark 1.7's default --benchmark_min_time, per repetition.
GB_DEFAULT_MIN_TIME_S = 0.5
# The time budget of one comparison for the sensitivity figure: benchlab's default
# --time-limit, within which it samples both benchmarks in alternating rounds. Google
# Benchmark gets the same: 9 repetitions of each of the two at BUDGET / 18 seconds.
BUDGET_S = 1.0
GB_BUDGET_MIN_TIME_S = BUDGET_S / (2 * GB_REPETITIONS)

GB_KERNEL_FILTER = "^(" + "|".join(KERNELS) + ")$"
GB_AA_FILTER = "^(chain100|chain100_copy)$"
GB_BUDGET_FILTER = "^(chain100|chain100_copy|chain101)$"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---- Running the tools ----------------------------------------------------------------


def busy_ticks() -> int:
    """CPU time the guest's processes used on all cores so far (user, nice, system, irq,
    softirq; not idle, iowait or steal), in clock ticks, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:8]]
    return v[0] + v[1] + v[2] + v[5] + v[6]


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# Every program run, in order: which, wall time, and how many cores other processes
# kept busy meanwhile (the machine is shared: this is the noise both tools measure).
LOG: list[dict] = []


def run_timed(argv: list[str]) -> tuple[str, float]:
    """Run a program; return its standard output and wall time in seconds."""
    ticks0, cpu0 = busy_ticks(), children_cpu_s()
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "BL_NO_WARN": "1"})
    wall = time.perf_counter() - start
    busy_s = (busy_ticks() - ticks0) / os.sysconf("SC_CLK_TCK")
    others = max(0.0, busy_s - (children_cpu_s() - cpu0)) / wall
    LOG.append({"argv": [os.path.basename(argv[0]), *argv[1:]], "wall_s": wall, "other_cores": others})
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(argv)} exited {done.returncode}:\n{done.stderr}")
    return done.stdout, wall


def benchlab(binary: str, *flags: str) -> tuple[dict, dict, float]:
    """One run of a benchlab program: (context, {bench: result record}, wall seconds)."""
    out, wall = run_timed([binary, "--format=jsonl", *flags])
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    context = next(r for r in records if r["type"] == "context")
    results = {r["bench"]: r for r in records if r["type"] == "result"}
    return context, results, wall


def gbench(binary: str, *flags: str) -> tuple[dict, dict[str, list[float]], float]:
    """One run of the Google Benchmark program: (context, {name: [real_time ns per
    repetition]}, wall seconds)."""
    out, wall = run_timed([binary, "--benchmark_format=json", *flags])
    doc = json.loads(out)
    times: dict[str, list[float]] = {}
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    for b in doc["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue  # mean, median, stddev, cv aggregates
        times.setdefault(b["run_name"], []).append(b["real_time"] * scale[b["time_unit"]])
    return doc["context"], times, wall


def steal_and_total_ticks() -> tuple[int, int]:
    """CPU time stolen by the hypervisor, and all CPU time, from /proc/stat (ticks)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])


# ---- The two phases -------------------------------------------------------------------


@dataclass
class Runs:
    bl: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KERNELS})
    gb: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KERNELS})
    bl_mean: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KERNELS})
    bl_samples: dict[str, list[list[float]]] = field(default_factory=lambda: {k: [] for k in KERNELS})
    bl_overhead: list[float] = field(default_factory=list)
    bl_timer: list[str] = field(default_factory=list)
    bl_wall: list[float] = field(default_factory=list)
    gb_wall: list[float] = field(default_factory=list)
    bl_context: dict = field(default_factory=dict)
    gb_context: dict = field(default_factory=dict)


def runs(build: str, count: int) -> Runs:
    """Each tool's default run of the kernels, `count` times. The tools strictly
    alternate (bl gb bl gb ...), so both sample the same load of the shared machine and
    a burst of load cannot hit two runs of one tool in a row (as bl gb gb bl would let it)."""
    r = Runs()
    for i in range(count):
        for tool in ("bl", "gb"):
            if tool == "bl":
                r.bl_context, results, wall = benchlab(f"{build}/bl_kernels")
                for k in KERNELS:
                    r.bl[k].append(results[k]["median"])
                r.bl_overhead.append(r.bl_context["overhead_ns"])
                r.bl_timer.append(r.bl_context["timer"])
                for k in KERNELS:
                    r.bl_mean[k].append(results[k]["mean"])
                    r.bl_samples[k].append(results[k]["samples"])
                r.bl_wall.append(wall)
            else:
                r.gb_context, times, wall = gbench(f"{build}/gb_kernels", f"--benchmark_filter={GB_KERNEL_FILTER}")
                for k in KERNELS:
                    r.gb[k].append(times[k][0])
                r.gb_wall.append(wall)
        log(f"default runs {i + 1}/{count}: benchlab {r.bl_wall[-1]:.1f} s, Google Benchmark {r.gb_wall[-1]:.1f} s")
    return r


@dataclass
class Trials:
    # benchlab, at its defaults (the comparison's budget is its --time-limit, BUDGET_S)
    bl_aa: list[bool] = field(default_factory=list)
    bl_slow: list[bool] = field(default_factory=list)
    bl_aa_ratio: list[float] = field(default_factory=list)
    bl_slow_ratio: list[float] = field(default_factory=list)
    bl_wall: list[float] = field(default_factory=list)
    # Google Benchmark at its defaults (9 repetitions of 0.5 s each): A/A only
    gb_aa: list[bool] = field(default_factory=list)
    gb_aa_p: list[float] = field(default_factory=list)
    gb_wall: list[float] = field(default_factory=list)
    # Google Benchmark at benchlab's budget: A/A and 1%
    gbb_aa: list[bool] = field(default_factory=list)
    gbb_slow: list[bool] = field(default_factory=list)
    gbb_slow_ratio: list[float] = field(default_factory=list)
    gbb_wall: list[float] = field(default_factory=list)


def utest(a: list[float], b: list[float]) -> float:
    """Two-sided Mann-Whitney U p-value, as Google Benchmark's tools/compare.py computes it."""
    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def trials(build: str, count: int, deadline: float) -> Trials:
    """`count` comparisons per tool: chain100 against an identical copy (A/A) and against
    chain101 (1% slower). The tools strictly alternate, as in runs(). Stops
    early when the next comparison would end after `deadline` (a perf_counter time)."""
    t = Trials()
    reps = f"--benchmark_repetitions={GB_REPETITIONS}"
    last = 0.0
    for i in range(count):
        if i > 0 and time.perf_counter() + last > deadline:
            log(f"stopping after {i} comparisons: the next would end past the time limit")
            break
        began = time.perf_counter()
        for tool in ("bl", "gb", "gbb"):
            if tool == "bl":
                _, results, wall = benchlab(f"{build}/bl_compare")
                copy, slow = results["chain100_copy"], results["chain101"]
                t.bl_aa.append(bool(copy["significant"]))
                t.bl_slow.append(bool(slow["significant"]))
                t.bl_aa_ratio.append(copy["ratio"] if copy["ratio"] is not None else float("nan"))
                t.bl_slow_ratio.append(slow["ratio"] if slow["ratio"] is not None else float("nan"))
                t.bl_wall.append(wall)
            elif tool == "gb":
                _, times, wall = gbench(f"{build}/gb_kernels", f"--benchmark_filter={GB_AA_FILTER}", reps)
                p = utest(times["chain100"], times["chain100_copy"])
                t.gb_aa.append(p < GB_ALPHA)
                t.gb_aa_p.append(p)
                t.gb_wall.append(wall)
            else:
                _, times, wall = gbench(f"{build}/gb_kernels", f"--benchmark_filter={GB_BUDGET_FILTER}", reps,
                                        f"--benchmark_min_time={GB_BUDGET_MIN_TIME_S:.6f}")
                t.gbb_aa.append(utest(times["chain100"], times["chain100_copy"]) < GB_ALPHA)
                t.gbb_slow.append(utest(times["chain100"], times["chain101"]) < GB_ALPHA)
                t.gbb_slow_ratio.append(statistics.median(times["chain101"]) / statistics.median(times["chain100"]))
                t.gbb_wall.append(wall)
        log(f"comparisons {i + 1}/{count}: benchlab A/A {'significant' if t.bl_aa[-1] else 'no'}, "
            f"1% {'significant' if t.bl_slow[-1] else 'no'}; Google Benchmark A/A p={t.gb_aa_p[-1]:.3f}, "
            f"1% at budget {'significant' if t.gbb_slow[-1] else 'no'}")
        last = time.perf_counter() - began
    return t


# ---- The table ------------------------------------------------------------------------


def ns(v: float) -> str:
    if abs(v) >= 100:
        return f"{v:.0f} ns"
    if abs(v) >= 10:
        return f"{v:.1f} ns"
    return f"{v:.2f} ns"


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else float("nan")


def pct(v: float) -> str:
    return "n/a" if v != v else f"{100 * v:.1f}%"


def count(flags: list[bool]) -> str:
    return f"{sum(flags)}/{len(flags)}"


def table(r: Runs, t: Trials) -> Table:
    med = statistics.median
    bl = {k: med(v) for k, v in r.bl.items()}
    gb = {k: med(v) for k, v in r.gb.items()}
    n_runs = len(r.bl_wall)

    tab = Table(box=box.MARKDOWN, title=None, show_edge=True, pad_edge=True)
    tab.add_column("figure")
    tab.add_column("benchlab", justify="right")
    tab.add_column("Google Benchmark", justify="right")
    tab.add_column("benchlab / GB, or note")

    for k in KERNELS:
        if k == "empty":
            continue  # its figure is the harness overhead: row 2
        tab.add_row(f"1. {LABELS[k]}, median of {n_runs} runs", ns(bl[k]), ns(gb[k]), f"{bl[k] / gb[k]:.3f}")
    tab.add_row("1. chain cost(K=1000) / cost(K=100), ideal 10",
                f"{bl['chain1000'] / bl['chain100']:.3f}", f"{gb['chain1000'] / gb['chain100']:.3f}", "")
    tab.add_row("2. empty body per iteration (harness overhead)", ns(bl["empty"]), ns(gb["empty"]),
                f"benchlab subtracts its measured loop cost, {ns(med(r.bl_overhead))}")
    for k in KERNELS:
        if k == "empty":
            # benchlab's figure is ~0 by design, so a CV would divide by ~0: the sd instead.
            sd_bl, sd_gb = (statistics.stdev(v[k]) if n_runs > 1 else float("nan") for v in (r.bl, r.gb))
            tab.add_row(f"3. {LABELS[k]}: sd over {n_runs} runs", ns(sd_bl), ns(sd_gb), "sd: benchlab's mean is ~0")
            continue
        c_bl, c_gb = cv(r.bl[k]), cv(r.gb[k])
        tab.add_row(f"3. {LABELS[k]}: CV over {n_runs} runs", pct(c_bl), pct(c_gb),
                    f"{c_bl / c_gb:.2f}" if c_gb == c_gb and c_gb > 0 else "")
    tab.add_row("4. A/A significant, each at its default", count(t.bl_aa), count(t.gb_aa),
                f"benchlab: ratio_ci excludes 1 ({BUDGET_S:g} s); GB: U test p<{GB_ALPHA}, "
                f"{GB_REPETITIONS}x{GB_DEFAULT_MIN_TIME_S:g} s each")
    tab.add_row(f"4. A/A significant, both at {BUDGET_S:g} s per comparison", count(t.bl_aa), count(t.gbb_aa),
                f"benchlab: the runs above; GB: {GB_REPETITIONS} repetitions x {GB_BUDGET_MIN_TIME_S * 1e3:.0f} ms each")
    tab.add_row(f"5. K=101 vs K=100 flagged, both at {BUDGET_S:g} s per comparison", count(t.bl_slow),
                count(t.gbb_slow),
                f"median ratio measured: benchlab {med(t.bl_slow_ratio):.4f}, GB {med(t.gbb_slow_ratio):.4f} "
                f"(ideal 1.01)")
    tab.add_row(f"6. wall time of a default run, 7 kernels (median of {n_runs})", f"{med(r.bl_wall):.2f} s",
                f"{med(r.gb_wall):.2f} s", f"{med(r.bl_wall) / med(r.gb_wall):.2f}")
    return tab


def header_text(h: dict, r: Runs, n_trials: int) -> str:
    lines = [
        f"{h['date']}  {h['cpu']}, {h['cores']} cores, {h['kernel']}; {h['mode']}",
        f"benchlab {r.bl_context.get('benchlab', '?')} at {h['benchlab_rev']} (timer {r.bl_context.get('timer', '?')}), "
        f"Google Benchmark {h['gb_version']} (library_build_type {r.gb_context.get('library_build_type', '?')}); "
        f"{h['compilers']}; flags {h['cflags']}",
        f"load average at start {h['load_start']}, at end {h['load_end']}; CPU stolen by the hypervisor "
        f"during the run {h['steal']:.1f}%; {len(r.bl_wall)} default runs and {n_trials} comparisons per tool"
        f"{'' if n_trials >= h['planned_trials'] else ' (of ' + str(h['planned_trials']) + ' planned: time limit)'}; "
        f"took {h['elapsed']:.0f} s",
        f"cores kept busy by other processes while each tool ran, mean over its runs: {h['other_load']}",
    ]
    return "\n".join(lines)


# ---- Entry point ----------------------------------------------------------------------


def other_load_text() -> str:
    """How busy other processes kept the machine while each tool ran, in cores."""
    def stats(prefix: str) -> str:
        v = [e["other_cores"] for e in LOG if e["argv"][0].startswith(prefix)]
        return f"{statistics.mean(v):.2f} (max {max(v):.2f})" if v else "n/a"
    return f"benchlab runs {stats('bl_')}, Google Benchmark runs {stats('gb_')}"


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="directory with bl_kernels, bl_compare, gb_kernels")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} runs and {QUICK_TRIALS} comparisons")
    parser.add_argument("--raw", help="also write every measured figure to this JSON file")
    parser.add_argument("--cflags", default="-O2")
    parser.add_argument("--compilers", default="")
    parser.add_argument("--gb-version", default="?")
    parser.add_argument("--benchlab-rev", default="?", help="git commit of include/benchlab.h")
    args = parser.parse_args()

    n_runs, n_trials = (QUICK_RUNS, QUICK_TRIALS) if args.quick else (RUNS, TRIALS)
    start = time.perf_counter()
    header = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "kernel": f"{platform.system()} {platform.release()}",
        "mode": "quick (--quick)" if args.quick else "full",
        "load_start": loadavg(),
        "cflags": args.cflags,
        "compilers": args.compilers,
        "gb_version": args.gb_version,
        "benchlab_rev": args.benchlab_rev,
    }
    steal0, total0 = steal_and_total_ticks()
    log(f"{n_runs} default runs of each tool")
    r = runs(args.build, n_runs)
    log(f"{n_trials} comparisons per tool")
    t = trials(args.build, n_trials, start + (QUICK_DEADLINE_S if args.quick else DEADLINE_S))
    steal1, total1 = steal_and_total_ticks()
    header["steal"] = 100.0 * (steal1 - steal0) / max(1, total1 - total0)
    header["load_end"] = loadavg()
    header["other_load"] = other_load_text()
    header["planned_trials"] = n_trials
    header["elapsed"] = time.perf_counter() - start

    if args.raw:
        with open(args.raw, "w") as f:
            json.dump({"header": header, "runs": r.__dict__, "trials": t.__dict__, "log": LOG}, f, indent=1)
    # Rendered to a string first: the markdown box draws empty top and bottom edges.
    console = Console(file=io.StringIO(), width=250, highlight=False, soft_wrap=False, color_system=None)
    console.print(table(r, t))
    rendered = "\n".join(line.rstrip() for line in console.file.getvalue().splitlines() if line.strip())
    print(header_text(header, r, len(t.bl_aa)))
    print()
    print(rendered)
    return 0


if __name__ == "__main__":
    sys.exit(main())
