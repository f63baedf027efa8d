"""Probes behind the explanations in bench/README.md ("Where benchlab loses"). Each
measures one reason, alternating the tools run by run so both see the same load.

    probes.py BUILD overlap [RUNS]     loop-cost subtraction vs kernels that overlap the loop
    probes.py BUILD noise [RUNS]       memcpy 64 B run to run: absolute vs relative spread
    probes.py BUILD timeline           when each tool's default run reports each kernel
    probes.py BUILD interleave [RUNS]  Google Benchmark A/A with its repetitions interleaved

bench/probes/run builds the programs and calls this with the project venv.
"""

from __future__ import annotations

import json
import os
import statistics as st
import subprocess
import sys
import time

from scipy.stats import mannwhitneyu

ENV = {**os.environ, "BL_NO_WARN": "1"}
GB_KERNELS = "^(empty|chain10|chain100|chain1000|getpid|clock_gettime|memcpy64)$"


def bl_run(argv: list[str]) -> tuple[dict, dict]:
    out = subprocess.run([*argv, "--format=jsonl"], capture_output=True, text=True, env=ENV, check=True).stdout
    records = [json.loads(line) for line in out.splitlines()]
    return records[0], {r["bench"]: r for r in records[1:]}


def gb_run(argv: list[str]) -> dict[str, list[float]]:
    out = subprocess.run([*argv, "--benchmark_format=json"], capture_output=True, text=True, check=True).stdout
    times: dict[str, list[float]] = {}
    for b in json.loads(out)["benchmarks"]:
        if b["run_type"] == "iteration":
            times.setdefault(b["run_name"], []).append(b["real_time"])
    return times


def overlap(build: str, runs: int) -> None:
    """One memcpy per iteration against eight (per copy), and chain K=10 against
    K=1000 / 100. With eight copies or a thousand steps per iteration the loop's own
    cost, and any error in subtracting it, is spread eight or a hundred times thinner."""
    bl: dict[str, list[float]] = {}
    gb: dict[str, list[float]] = {}
    overhead = []
    for _ in range(runs):
        context, results = bl_run([f"{build}/overlap_bl"])
        overhead.append(context["overhead_ns"])
        for k, r in results.items():
            bl.setdefault(k, []).append(r["median"])
        for k, v in gb_run([f"{build}/overlap_gb"]).items():
            gb.setdefault(k, []).append(v[0])
    m = {tool: {k: st.median(v) for k, v in d.items()} for tool, d in (("bl", bl), ("gb", gb))}
    ovh = st.median(overhead)
    print(f"medians of {runs} alternating runs per tool; benchlab subtracted {ovh:.3f} ns per iteration (median)")
    print(f"{'':40} {'benchlab':>9} {'GB':>9}")
    print(f"{'memcpy 64 B, 1 per iteration':40} {m['bl']['memcpy64']:9.3f} {m['gb']['memcpy64']:9.3f}")
    print(f"{'memcpy 64 B, 8 per iteration / 8':40} {m['bl']['memcpy64_x8'] / 8:9.3f} {m['gb']['memcpy64_x8'] / 8:9.3f}")
    print(f"{'chain K=10':40} {m['bl']['chain10']:9.3f} {m['gb']['chain10']:9.3f}")
    print(f"{'chain K=1000 / 100':40} {m['bl']['chain1000'] / 100:9.3f} {m['gb']['chain1000'] / 100:9.3f}")
    print(f"{'benchlab memcpy 1 per it. + subtracted':40} {m['bl']['memcpy64'] + ovh:9.3f}")
    print(f"{'benchlab chain K=10 + subtracted':40} {m['bl']['chain10'] + ovh:9.3f}")


def noise(build: str, runs: int) -> None:
    """memcpy 64 B over repeated runs: benchlab's figure, the same plus the overhead it
    subtracted (its raw time), the overhead itself, and Google Benchmark's figure."""
    reported, raw, overhead, gb = [], [], [], []
    for _ in range(runs):
        context, results = bl_run([f"{build}/bl_kernels", "--filter=memcpy64"])
        reported.append(results["memcpy64"]["median"])
        overhead.append(context["overhead_ns"])
        raw.append(reported[-1] + overhead[-1])
        gb.append(gb_run([f"{build}/gb_kernels", "--benchmark_filter=^memcpy64$"])["memcpy64"][0])
    print(f"memcpy 64 B over {runs} alternating runs per tool, ns")
    print(f"{'':42} {'mean':>7} {'sd':>7} {'CV':>7}")
    for name, v in (("benchlab, reported (overhead subtracted)", reported), ("benchlab, raw (reported + overhead)", raw),
                    ("benchlab, the overhead it subtracted", overhead), ("Google Benchmark", gb)):
        print(f"{name:42} {st.mean(v):7.3f} {st.stdev(v):7.3f} {100 * st.stdev(v) / st.mean(v):6.1f}%")
    print(f"correlation of benchlab's raw time with its overhead: {st.correlation(raw, overhead):.2f}")


def timeline(build: str) -> None:
    """Seconds from start at which each result appears (both tools flush per result)."""
    for name, argv in (("benchlab", [f"{build}/bl_kernels", "--format=jsonl"]),
                       ("Google Benchmark", [f"{build}/gb_kernels", f"--benchmark_filter={GB_KERNELS}",
                                             "--benchmark_color=false"])):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
        marks = []
        for line in proc.stdout:
            now = time.perf_counter() - start
            if line.startswith("{"):
                record = json.loads(line)
                if record["type"] == "result":
                    marks.append((record["bench"], now))
            elif line.split() and line.split()[0] in GB_KERNELS:
                marks.append((line.split()[0], now))
        proc.wait()
        total = time.perf_counter() - start
        steps, previous = [], 0.0
        for bench, at in marks:
            steps.append(f"{bench} +{at - previous:.2f}")
            previous = at
        print(f"{name}: {total:.2f} s; first result at {marks[0][1]:.2f} s; " + ", ".join(steps))


def interleave(build: str, runs: int) -> None:
    """The A/A of bench/run for Google Benchmark (9 repetitions each, U test, p < 0.05),
    with the repetitions run in sequence (its default) and interleaved at random."""
    base = [f"{build}/gb_kernels", "--benchmark_filter=^(chain100|chain100_copy)$", "--benchmark_repetitions=9"]
    for label, extra in (("in sequence (default)", []), ("interleaved", ["--benchmark_enable_random_interleaving=true"])):
        hits, ps = 0, []
        for _ in range(runs):
            t = gb_run(base + extra)
            p = float(mannwhitneyu(t["chain100"], t["chain100_copy"], alternative="two-sided").pvalue)
            ps.append(p)
            hits += p < 0.05
        print(f"A/A {label}: {hits}/{runs} significant; p = {', '.join(f'{p:.3f}' for p in ps)}")


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[2] not in ("overlap", "noise", "timeline", "interleave"):
        print(__doc__, file=sys.stderr)
        return 2
    build, probe = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    with open("/proc/loadavg") as f:
        print(f"load average {' '.join(f.read().split()[:3])}")
    if probe == "overlap":
        overlap(build, runs)
    elif probe == "noise":
        noise(build, runs)
    elif probe == "timeline":
        timeline(build)
    else:
        interleave(build, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
