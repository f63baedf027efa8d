"""Does a comparison raise false alarms, and does it find a real regression? Measured on
suites/calls with the commands a user runs (bench/README.md, "Regressions", says what each
table means).

    .venv/bin/python bench/regressions.py [--quick] [--sections LIST] [--pairs N] ...

The flow, in the order of the tables:
    variants()     builds suites/calls/calls.c, and bench/calls_slowdown.c unslowed and with
                   args/0 slowed by each percent asked for (sized by the measured slowdown
                   of a probe build), and measures the slowdown each variant really has, in
                   many processes (table 0)
    runs()         A/A, separate runs: per pair, `benchlab run calls.c` twice into a scratch
                   database and `benchlab gate --baseline FIRST SECOND` (its table is
                   `compare`'s): false alarms of the gate and of compare's verdicts (table 1)
    ab_pairs()     `benchlab ab A A` (the same executable twice) and `benchlab ab A B` (B:
                   args/0 2% slower) at --time-limit 30, plainly interleaved and with
                   --duet, alternating so that all four meet the same load (tables 2, 3, 5)
    sweep()        `benchlab ab A B` at --time-limit 10 for each slowdown (table 3)
    gbench_table() the same pairs judged as Google Benchmark's tools/compare.py judges its
                   repetitions: a two-sided Mann-Whitney U test at alpha 0.05 (table 4)
    duet_table()   plain interleaving against --duet on the same kinds of pairs (table 5)

The issue's figures need 100 pairs of each (about 4.8 hours of machine time with duet and
the sweep); the full mode's defaults are what fits in about 10 minutes, and every table
says how many pairs it rests on. For the record: --pairs 100 (or the per-section counts).

A benchmark, not a test: it prints figures and exits 0 whatever they are (non-zero only
when something cannot be built or run).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.table import Table
from scipy.stats import mannwhitneyu
from scipy.stats import t as student_t

# ---- Settings, each with its reason --------------------------------------------------

SECTIONS = ["runs", "ab", "sensitivity", "sweep", "duet"]
# Pairs per section in the full mode: what fits in about 10 minutes on 2 cores (an `ab`
# of suites/calls runs to its time limit: its args/4..8 rows vary too much between
# processes for the 1% --precision stop). The figures are "in 100".
RUN_PAIRS = 20          # table 1: ~4 s a pair
AB_PAIRS = 3            # tables 2, 3 (2%), 5: four `ab`s of ~31 s per pair (A/A and 2%, plain and duet)
SWEEP_PAIRS = 2         # table 3 (sweep): one `ab` of ~11 s per slowdown per pair
TRUTH_PROCESSES = 20    # table 0: processes of each variant measuring its real slowdown
QUICK = {"run_pairs": 2, "ab_pairs": 1, "sweep_pairs": 1, "truth_processes": 5,
         "time_limit": 4.0, "sweep_time_limit": 2.0}
# The time limits: a 2% slowdown found within 30 s (ab's default), and the smallest
# slowdown found in 10 s.
AB_TIME_LIMIT = 30.0
SWEEP_TIME_LIMIT = 10.0
DETECT_PCT = 2.0                 # the "a 2% slowdown"
SWEEP_PCTS = [1.0, 2.0, 3.0, 5.0]
FOUND = 0.95                     # "flagged at least 95 times in 100"
# The gate's default threshold (benchlab gate --max-regression), also given to ab.
MAX_REGRESSION_PCT = 2.0
# Google Benchmark's tools/compare.py: mannwhitneyu(..., alternative='two-sided') over the
# repetitions of each side, significant when p < --alpha, 0.05 by default (gbench/report.py).
GB_ALPHA = 0.05
# compare's json `interval` when the spread of earlier stored runs is in the error term
# (benchlab.statistics.compare.BETWEEN_RUNS).
EARLIER_RUNS = "between processes and earlier runs of identical code"
# The row a variant slows (bench/calls_slowdown.c); every other row stays A/A.
SLOWED = ("args", 0)
# The probe build that measures how many extra calls per million make 1% (5% of extra calls:
# large enough that its measured slowdown is known to a few percent of itself).
PROBE_PPM = 50000
# benchlab's own native build (docs/cli.md, "Builds"), so the executables are what
# `benchlab run calls.c` would build.
CFLAGS = ["-O2"]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def flagged(c: dict) -> bool:
    """A row that says identical code changed: slower, or not slower but faster (three verdicts, issue 27)."""
    return c["verdict"] == "slower" or bool(c.get("faster"))


def call(argv: list[str], *, ok=(0,), **kwargs) -> tuple[subprocess.CompletedProcess, float]:
    """Run a program; (the finished process, wall seconds). Exit statuses outside `ok` stop
    the script: something could not be built or run."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "BL_NO_WARN": "1"}, **kwargs)
    wall = time.perf_counter() - start
    if done.returncode not in ok:
        raise SystemExit(f"error: {shlex.join(argv)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done, wall


def row_name(test: str, param) -> str:
    return test if param is None else f"{test}/{param}"


def half_width(low: float, high: float, ratio: float) -> float:
    """Half-width of a ratio's interval, relative to the ratio."""
    return (high - low) / 2 / ratio


def pct(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def share(hits: int, total: int) -> str:
    return f"{hits}/{total}" if total else "-"


def median_or_none(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def u_flags(a: list[float], b: list[float]) -> tuple[bool, bool]:
    """Google Benchmark's judgement of one benchmark: (significant, B slower)."""
    if len(a) < 2 or len(b) < 2:  # its UTEST_MIN_REPETITIONS
        return False, False
    p = mannwhitneyu(a, b, alternative="two-sided").pvalue
    return p < GB_ALPHA, statistics.median(b) > statistics.median(a)


# ---- Table 0: the executables, and the slowdown each variant really has --------------------

@dataclass
class Variant:
    pct: float                   # nominal
    ppm: int                     # what it was built with
    path: str
    in_process: float = 0.0      # args/0 over the baseline in its own processes, over the unslowed build's
    in_process_ci: tuple[float, float] = (0.0, 0.0)   # its 99% interval
    across: float = 0.0          # args/0's run figure over the unslowed build's


def build(source: str, out: str, *defines: str) -> None:
    cc = os.environ.get("CC", "cc")
    call([cc, *CFLAGS, "-Iinclude", f"-DBL_CFLAGS=\"{' '.join(CFLAGS)}\"", *defines, source, "-o", out, "-lm", "-lpthread"])


def variant(project: str, pct_: float, ppm: int, base: str | None = None, name: str = "") -> Variant:
    """calls_slowdown.c built with BL_SLOWDOWN_PPM=ppm; checked against the unslowed build `base`."""
    v = Variant(pct_, ppm, f"{project}/{name or f'calls_slow{pct_:g}'}")
    build("bench/calls_slowdown.c", v.path, f"-DBL_SLOWDOWN_PPM={ppm}")
    if base is not None:
        with open(base, "rb") as f0, open(v.path, "rb") as f1:
            a, b = f0.read(), f1.read()
        differing = sum(x != y for x, y in zip(a, b)) if len(a) == len(b) else None
        if differing is None or differing > 28:  # the knob's 8 bytes and the 20-byte build id
            log(f"warning: {v.path} differs from the unslowed build beyond the knob's value "
                f"({'size' if differing is None else differing} bytes): code moved, the slowdown is not only the one asked for")
    return v


def measure(project: str, benchlab: str, built: list[Variant], processes: int) -> None:
    """Each variant's slowdown of args/0 against built[0], the unslowed build, from one
    interleaved `benchlab run` of all of them."""
    done, _ = call([benchlab, "run", *[v.path for v in built], "--processes", str(processes), "--no-store",
                    "--format", "json"], cwd=project)
    by_binary: dict[str, list[dict]] = {}
    for rec in json.loads(done.stdout)["records"]:
        if (rec["bench"], rec["param"]) == SLOWED and rec["counter"] == "time":
            by_binary.setdefault(rec["binary"], []).append(rec)

    def logs(v):
        return [math.log(r["reported"]["ratio"]) for r in by_binary[os.path.basename(v.path)] if r["reported"].get("ratio")]

    def across(v):
        return statistics.mean(r["summary"]["median"] for r in by_binary[os.path.basename(v.path)])

    base = built[0]
    for v in built:
        # Welch's 99% interval of the difference of the mean log ratios (this build's processes'
        # ratios against the unslowed build's): processes are the unit, as in compare.py.
        a, b = logs(base), logs(v)
        d = statistics.mean(b) - statistics.mean(a)
        se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b)) if min(len(a), len(b)) > 1 else math.inf
        half = student_t.ppf(0.995, max(1, len(a) + len(b) - 2)) * se
        v.in_process, v.in_process_ci = math.exp(d), (math.exp(d - half), math.exp(d + half))
        v.across = across(v) / across(base)


def variants(project: str, percents: list[float], processes: int, benchlab: str) -> tuple[list[Variant], float]:
    """The unslowed build (0) and one per percent, with their measured slowdowns; and the ppm
    that make 1%."""
    build("suites/calls/calls.c", f"{project}/calls")
    shutil.copy("suites/calls/calls.c", project)
    base = variant(project, 0.0, 0)
    listed = [call([p, "--list"])[0].stdout for p in (f"{project}/calls", base.path)]
    if listed[0] != listed[1]:
        raise SystemExit("error: bench/calls_slowdown.c no longer has the benchmarks of suites/calls/calls.c: copy them again")
    if not percents:
        return [base], 0.0
    # Each extra iteration costs a call and its share of the loop, and the figure is the call
    # with the empty loop subtracted: how many ppm make 1% is measured, on a probe build.
    probe = variant(project, PROBE_PPM / 1e4, PROBE_PPM, base.path, name="calls_probe")
    measure(project, benchlab, [base, probe], processes)
    per_pct = PROBE_PPM / (100 * (probe.in_process - 1))
    built = [base] + [variant(project, p, round(p * per_pct), base.path) for p in percents]
    log(f"variants: {len(built)} builds ({per_pct:.0f} ppm make 1%); measuring them in {processes} processes each")
    measure(project, benchlab, built, processes)
    return built, per_pct


def variants_table(built: list[Variant], factor: float, processes: int) -> tuple[Table, str]:
    t = Table(box=box.MARKDOWN, show_edge=True)
    for head in ("variant", "built with", "measured: in its processes", "99% interval", "measured: across builds", "note"):
        t.add_column(head, justify="left" if head in ("variant", "note") else "right")
    for v in built[1:]:
        t.add_row(f"args/0 {v.pct:g}% slower", f"{v.ppm} ppm", pct(v.in_process - 1),
                  f"[{pct(v.in_process_ci[0] - 1)}, {pct(v.in_process_ci[1] - 1)}]", pct(v.across - 1),
                  f"{processes} processes of each build, interleaved (`benchlab run`)")
    return t, (f"in its processes: args/0 over the baseline empty_call (the header's paired ratio), geometric mean over "
                 f"the processes, over the unslowed build's; across builds: args/0's figure (mean of the process medians) "
                 f"over the unslowed build's. ppm = percent x {factor:.0f}, from a probe build of {PROBE_PPM} ppm measured "
                 f"the same way")


# ---- Table 1: A/A, separate runs ---------------------------------------------------------

@dataclass
class RunPair:
    gate_exit: int
    comparisons: list[dict]
    process_medians: tuple[dict, dict]    # per run: {row: [median of each process]}
    seconds: float


def process_medians(doc: dict) -> dict[str, list[float]]:
    medians: dict[str, list[float]] = {}
    for rec in doc["records"]:
        if rec["counter"] == "time" and rec["summary"].get("median"):
            medians.setdefault(row_name(rec["bench"], rec["param"]), []).append(rec["summary"]["median"])
    return medians


def runs(project: str, count: int, benchlab: str, fresh_db: bool) -> list[RunPair]:
    """`benchlab run calls.c` twice, then `benchlab gate --baseline FIRST SECOND`, per pair.
    One database for all pairs, as a machine that keeps its runs: from the second pair on,
    compare's error term has the spread of the earlier runs in it (src/benchlab/statistics/noise.py);
    with `fresh_db` every pair has a database of its own, and processes only."""
    call([benchlab, "run", "calls.c", "--no-store", "--processes", "1"], cwd=project)  # builds; not counted
    pairs = []
    for i in range(count):
        db = f"sqlite:///{project}/runs{i if fresh_db else ''}.db"
        start = time.perf_counter()
        ids, medians = [], []
        for _ in range(2):
            done, _ = call([benchlab, "run", "calls.c", "--format", "json", "--db", db], cwd=project)
            doc = json.loads(done.stdout)
            ids.append(str(doc["run"]["id"]))
            medians.append(process_medians(doc))
        done, _ = call([benchlab, "gate", "--baseline", ids[0], ids[1], "--format", "json", "--db", db],
                       cwd=project, ok=(0, 3, 4))
        pairs.append(RunPair(done.returncode, json.loads(done.stdout)["comparisons"], (medians[0], medians[1]),
                             time.perf_counter() - start))
        alarms = sum(flagged(c) for c in pairs[-1].comparisons)
        history = sum(c["interval"] == EARLIER_RUNS for c in pairs[-1].comparisons)
        log(f"A/A runs {i + 1}/{count}: gate exit {done.returncode}, {alarms} rows slower or faster, "
            f"{history} rows with earlier runs in the error term")
    return pairs


# ---- Tables 2, 3, 5: ab pairs ------------------------------------------------------------

@dataclass
class ABPair:
    kind: str            # "A/A" or "N%"
    pct: float           # the variant's nominal slowdown (0 for A/A)
    duet: bool
    time_limit: float
    exit: int
    comparisons: list[dict]
    seconds: float       # the whole command
    rounds: int


def ab(project: str, benchlab: str, a: str, b: str, *, pct_: float, duet: bool, time_limit: float) -> ABPair:
    argv = [benchlab, "ab", a, b, "--time-limit", f"{time_limit:g}", "--max-regression", f"{MAX_REGRESSION_PCT:g}",
            "--format", "json", *(["--duet"] if duet else [])]
    done, wall = call(argv, cwd=project, ok=(0, 3, 4))
    found = re.search(r"(\d+) rounds of A and B", done.stderr)
    return ABPair("A/A" if a == b else f"{pct_:g}%", pct_, duet, time_limit, done.returncode,
                  json.loads(done.stdout)["comparisons"], wall, int(found.group(1)) if found else 0)


def ab_command(a: str, b: str, time_limit: float, duet: bool) -> str:
    return (f"benchlab ab {a} {b} --time-limit {time_limit:g} --max-regression {MAX_REGRESSION_PCT:g} --format json"
            + (" --duet" if duet else ""))


def ab_pairs(project: str, benchlab: str, count: int, time_limit: float, sections: set[str],
             built: dict[float, Variant]) -> list[ABPair]:
    """Per pair, in turn: A/A plain, A/A duet, 2% plain, 2% duet (those the sections ask for),
    so that every kind meets the same load."""
    base = built[0.0].path
    kinds = []
    if "ab" in sections:
        kinds += [(base, 0.0, False)] + ([(base, 0.0, True)] if "duet" in sections else [])
    if "sensitivity" in sections:
        slow = built[DETECT_PCT].path
        kinds += [(slow, DETECT_PCT, False)] + ([(slow, DETECT_PCT, True)] if "duet" in sections else [])
    done = []
    for i in range(count):
        for b, p, duet in kinds:
            done.append(ab(project, benchlab, base, b, pct_=p, duet=duet, time_limit=time_limit))
            d = done[-1]
            log(f"ab pair {i + 1}/{count} {d.kind}{' duet' if duet else ''}: exit {d.exit}, {d.rounds} rounds, {d.seconds:.1f} s")
    return done


def sweep(project: str, benchlab: str, count: int, time_limit: float, built: dict[float, Variant]) -> list[ABPair]:
    done = []
    for i in range(count):
        for p in SWEEP_PCTS:
            done.append(ab(project, benchlab, built[0.0].path, built[p].path, pct_=p, duet=False, time_limit=time_limit))
            log(f"sweep pair {i + 1}/{count} {p:g}%: {slowed(done[-1])['verdict']}, {done[-1].seconds:.1f} s")
    return done


def slowed(pair: ABPair) -> dict:
    return next(c for c in pair.comparisons if (c["test"], c["param"]) == SLOWED)


def others(pair: ABPair) -> list[dict]:
    return [c for c in pair.comparisons if (c["test"], c["param"]) != SLOWED]


# ---- The tables --------------------------------------------------------------------------

def aa_table(run_pairs: list[RunPair], aa: list[ABPair]) -> tuple[Table, dict]:
    """Tables 1 and 2 share columns: one row per judge."""
    t = Table(box=box.MARKDOWN, show_edge=True)
    for head in ("judge", "pairs flagged", "rows flagged", "median half-width", "median |B/A-1|", "s per pair (median / max)"):
        t.add_column(head, justify="left" if head == "judge" else "right")
    figures = {}

    def add(label, pairs_flagged, rows_flagged, rows, comparisons, seconds):
        hw = median_or_none([half_width(*c["ratio_ci"], c["ratio"]) for c in comparisons])
        dev = median_or_none([abs(c["ratio"] - 1) for c in comparisons])
        t.add_row(label, share(pairs_flagged, len(seconds)), share(rows_flagged, rows), pct(hw), pct(dev),
                  f"{statistics.median(seconds):.1f} / {max(seconds):.1f}" if seconds else "-")
        figures[label] = {"pairs": len(seconds), "pairs_flagged": pairs_flagged, "rows": rows, "rows_flagged": rows_flagged,
                          "median_half_width": hw, "median_abs_dev": dev, "seconds": seconds}

    for label, pairs in (("separate runs", run_pairs), *((f"ab{' --duet' if d else ''}", [p for p in aa if p.duet == d])
                                                         for d in (False, True))):
        if not pairs:
            continue
        comparisons = [c for p in pairs for c in p.comparisons]
        seconds = [p.seconds for p in pairs]
        exits = [p.gate_exit if isinstance(p, RunPair) else p.exit for p in pairs]
        exit_label = ("separate runs, `gate --baseline FIRST SECOND`: exit 3" if label == "separate runs"
                      else f"`{label} --max-regression {MAX_REGRESSION_PCT:g}`: exit 3")
        add(exit_label, sum(e == 3 for e in exits),
            sum(c["verdict"] == "slower" and c["ratio_ci"][0] > 1 + MAX_REGRESSION_PCT / 100 for c in comparisons),
            len(comparisons), comparisons, seconds)
        add("separate runs, `compare FIRST SECOND`: slower or faster" if label == "separate runs"
            else f"`{label}`: slower or faster",
            sum(any(flagged(c) for c in p.comparisons) for p in pairs),
            sum(flagged(c) for c in comparisons), len(comparisons), comparisons, seconds)
    return t, figures


def sensitivity_table(pairs: list[ABPair], built: dict[float, Variant]) -> tuple[Table, dict, str]:
    t = Table(box=box.MARKDOWN, show_edge=True)
    for head in ("slowdown (nominal / measured)", "mode", "time limit", "args/0 flagged slower", "median B/A of args/0",
                 "median half-width", "other rows flagged", "s per ab (median / max)", "rounds (median)"):
        t.add_column(head, justify="left" if head in ("slowdown (nominal / measured)", "mode") else "right")
    figures, smallest = {}, None
    groups: dict[tuple, list[ABPair]] = {}
    for p in pairs:
        if p.kind != "A/A":
            groups.setdefault((p.time_limit, p.pct, p.duet), []).append(p)
    for (limit, p_, duet), group in sorted(groups.items(), key=lambda kv: (-kv[0][0], kv[0][2], kv[0][1])):
        rows = [slowed(p) for p in group]
        hits = sum(r["verdict"] == "slower" for r in rows)
        rest = [c for p in group for c in others(p)]
        v = built[p_]
        label = f"{p_:g}% / {pct(v.in_process - 1, 1)}"
        seconds = [p.seconds for p in group]
        t.add_row(label, "duet" if duet else "plain", f"{limit:g} s", share(hits, len(group)),
                  f"{statistics.median(r['ratio'] for r in rows):.4f}",
                  pct(statistics.median(half_width(*r["ratio_ci"], r["ratio"]) for r in rows)),
                  share(sum(flagged(c) for c in rest), len(rest)),
                  f"{statistics.median(seconds):.1f} / {max(seconds):.1f}", f"{statistics.median(p.rounds for p in group):g}")
        figures[f"{p_:g}% {'duet' if duet else 'plain'} {limit:g} s"] = {
            "pairs": len(group), "flagged": hits, "measured": v.in_process, "seconds": seconds,
            "ratios": [r["ratio"] for r in rows], "other_rows_flagged": sum(flagged(c) for c in rest)}
        if not duet and limit == min(k[0] for k in groups) and hits >= FOUND * len(group):
            smallest = p_ if smallest is None else min(smallest, p_)
    note = ""
    if len({k[1] for k in groups if not k[2]}) > 1:
        limit = min(k[0] for k in groups)
        note = (f"smallest slowdown flagged in at least {FOUND:.0%} of its pairs at {limit:g} s: "
                + (f"{smallest:g}%" if smallest is not None else f"none of {', '.join(f'{p:g}%' for p in SWEEP_PCTS)}"))
    return t, figures, note


def gbench_table(run_pairs: list[RunPair], aa: list[ABPair], slow: list[ABPair]) -> tuple[Table, dict]:
    t = Table(box=box.MARKDOWN, show_edge=True)
    for head in ("pairs", "U test per row over", "A/A pairs flagged", "A/A rows flagged", f"{DETECT_PCT:g}% flagged (args/0 slower)",
                 "benchlab on the same pairs: A/A pairs flagged / 2% flagged"):
        t.add_column(head, justify="left" if head in ("pairs", "U test per row over") else "right")
    figures = {}
    if run_pairs:
        judged = [[u_flags(p.process_medians[0][k], p.process_medians[1][k])[0] for k in p.process_medians[0]
                   if k in p.process_medians[1]] for p in run_pairs]
        n = statistics.median(len(v) for p in run_pairs for v in p.process_medians[0].values())
        ours = sum(any(flagged(c) for c in p.comparisons) for p in run_pairs)
        t.add_row("A/A separate runs", f"the {n:g} process medians of each run", share(sum(map(any, judged)), len(judged)),
                  share(sum(map(sum, judged)), sum(map(len, judged))), "-", f"{share(ours, len(run_pairs))} (compare) / -")
        figures["separate runs"] = {"pairs": len(judged), "pairs_flagged": sum(map(any, judged)),
                                    "rows_flagged": sum(map(sum, judged)), "rows": sum(map(len, judged))}
    for duet in (False, True):
        aa_d = [p for p in aa if p.duet == duet]
        slow_d = [p for p in slow if p.duet == duet]
        if not aa_d and not slow_d:
            continue
        judged = [[u_flags(c["rounds"]["a"], c["rounds"]["b"])[0] for c in p.comparisons] for p in aa_d]
        detected = [u_flags(slowed(p)["rounds"]["a"], slowed(p)["rounds"]["b"]) for p in slow_d]
        ours_aa = sum(any(flagged(c) for c in p.comparisons) for p in aa_d)
        ours_slow = sum(slowed(p)["verdict"] == "slower" for p in slow_d)
        label = f"ab{' --duet' if duet else ''}"
        t.add_row(f"{label} (A/A and {DETECT_PCT:g}%)", "the per-round medians of A and of B (unpaired)",
                  share(sum(map(any, judged)), len(judged)), share(sum(map(sum, judged)), sum(map(len, judged))),
                  share(sum(s and up for s, up in detected), len(detected)),
                  f"{share(ours_aa, len(aa_d))} / {share(ours_slow, len(slow_d))}")
        figures[label] = {"aa_pairs": len(judged), "aa_pairs_flagged": sum(map(any, judged)),
                          "aa_rows_flagged": sum(map(sum, judged)), "aa_rows": sum(map(len, judged)),
                          "slow_pairs": len(detected), "slow_flagged": sum(s and up for s, up in detected)}
    return t, figures


def duet_table(aa: list[ABPair], slow: list[ABPair]) -> tuple[Table, dict]:
    t = Table(box=box.MARKDOWN, show_edge=True)
    for head in ("mode", "A/A pairs flagged (verdicts / exit 3)", "A/A median half-width", f"{DETECT_PCT:g}% flagged",
                 f"{DETECT_PCT:g}% median half-width (args/0)", "median B/A of args/0", "rounds (median)", "s per ab (median)"):
        t.add_column(head, justify="left" if head == "mode" else "right")
    figures = {}
    for duet in (False, True):
        aa_d = [p for p in aa if p.duet == duet]
        slow_d = [p for p in slow if p.duet == duet]
        aa_rows = [c for p in aa_d for c in p.comparisons]
        slow_rows = [slowed(p) for p in slow_d]
        hw_aa = median_or_none([half_width(*c["ratio_ci"], c["ratio"]) for c in aa_rows])
        hw_slow = median_or_none([half_width(*c["ratio_ci"], c["ratio"]) for c in slow_rows])
        aa_flagged = sum(any(flagged(c) for c in p.comparisons) for p in aa_d)
        found = sum(r["verdict"] == "slower" for r in slow_rows)
        t.add_row("duet" if duet else "plain", f"{share(aa_flagged, len(aa_d))} / {share(sum(p.exit == 3 for p in aa_d), len(aa_d))}",
                  pct(hw_aa), share(found, len(slow_d)), pct(hw_slow),
                  f"{statistics.median(r['ratio'] for r in slow_rows):.4f}" if slow_rows else "-",
                  f"{statistics.median(p.rounds for p in aa_d + slow_d):g}",
                  f"{statistics.median(p.seconds for p in aa_d + slow_d):.1f}")
        figures["duet" if duet else "plain"] = {"aa_pairs": len(aa_d), "aa_flagged": aa_flagged, "aa_half_width": hw_aa,
                                                "slow_pairs": len(slow_d), "slow_flagged": found, "slow_half_width": hw_slow}
    return t, figures


# ---- Main --------------------------------------------------------------------------------

def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one or two pairs per section at short time limits (~1-2 min)")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated, of {','.join(SECTIONS)} (default all); the Google Benchmark table "
                             "comes from whatever ran")
    parser.add_argument("--pairs", type=int, help="pairs of every section (sets the three counts below)")
    parser.add_argument("--run-pairs", type=int, help=f"A/A pairs of separate runs (default {RUN_PAIRS})")
    parser.add_argument("--ab-pairs", type=int, help=f"pairs of each ab kind: A/A and {DETECT_PCT:g}%%, plain and duet (default {AB_PAIRS})")
    parser.add_argument("--sweep-pairs", type=int, help=f"pairs per slowdown of the sweep (default {SWEEP_PAIRS})")
    parser.add_argument("--truth-processes", type=int, help=f"processes of each variant measuring its slowdown (default {TRUTH_PROCESSES})")
    parser.add_argument("--time-limit", type=float, help=f"ab's --time-limit for A/A and {DETECT_PCT:g}%% (default {AB_TIME_LIMIT:g})")
    parser.add_argument("--sweep-time-limit", type=float, help=f"ab's --time-limit of the sweep (default {SWEEP_TIME_LIMIT:g})")
    parser.add_argument("--fresh-db", action="store_true",
                        help="a database of its own for each A/A run pair: no earlier runs in compare's error term")
    parser.add_argument("--benchlab", default=".venv/bin/benchlab")
    parser.add_argument("--raw", default="bench/build/regressions.json", help="every figure and comparison, as JSON")
    args = parser.parse_args()
    sections = set(s.strip() for s in args.sections.split(",") if s.strip())
    if not sections <= set(SECTIONS):
        parser.error(f"--sections: unknown {', '.join(sorted(sections - set(SECTIONS)))} (of {','.join(SECTIONS)})")
    if sections == {"duet"}:
        parser.error("--sections duet runs the pairs of ab and sensitivity with --duet: add ab or sensitivity")
    if "duet" in sections and len(os.sched_getaffinity(0)) < 2:
        print("regressions.py: one CPU only: --duet (A and B on two CPUs at once) left out", file=sys.stderr)
        sections.discard("duet")
    args.sections = [s for s in SECTIONS if s in sections]
    defaults = QUICK if args.quick else {"run_pairs": RUN_PAIRS, "ab_pairs": AB_PAIRS, "sweep_pairs": SWEEP_PAIRS,
                                         "truth_processes": TRUTH_PROCESSES, "time_limit": AB_TIME_LIMIT,
                                         "sweep_time_limit": SWEEP_TIME_LIMIT}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, args.pairs if args.pairs is not None and name.endswith("pairs") else value)
    return args


def reproduce(args, sections: list[str]) -> str:
    """The command that reproduces one table: its sections, and the counts this run used for them."""
    s = set(sections)
    flags = ["--quick"] if args.quick else []
    flags.append(f"--sections {','.join(sections)}")
    if "runs" in s:
        flags.append(f"--run-pairs {args.run_pairs}" + (" --fresh-db" if args.fresh_db else ""))
    if s & {"ab", "sensitivity"}:
        flags += [f"--ab-pairs {args.ab_pairs}", f"--time-limit {args.time_limit:g}"]
    if "sweep" in s:
        flags += [f"--sweep-pairs {args.sweep_pairs}", f"--sweep-time-limit {args.sweep_time_limit:g}"]
    if s & {"sensitivity", "sweep"}:
        flags.append(f"--truth-processes {args.truth_processes}")
    return ".venv/bin/python bench/regressions.py " + " ".join(flags)


def estimate(args) -> float:
    """Seconds this run should take on a quiet 2-core machine (ab runs to its time limit)."""
    s = set(args.sections)
    kinds = ("ab" in s) + ("sensitivity" in s)
    per_ab = args.time_limit + 1
    return (20 + args.truth_processes * 1.2
            + ("runs" in s) * args.run_pairs * 4
            + kinds * (2 if "duet" in s else 1) * args.ab_pairs * per_ab
            + ("sweep" in s) * args.sweep_pairs * len(SWEEP_PCTS) * (args.sweep_time_limit + 1))


def main() -> None:
    args = parse()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    benchlab = os.path.abspath(args.benchlab if os.path.isabs(args.benchlab) or os.path.exists(args.benchlab)
                               else os.path.join(root, args.benchlab))
    args.raw = args.raw and os.path.abspath(args.raw)
    os.chdir(root)  # the sources it builds are named from the project's root
    sections = set(args.sections)
    log(f"sections {','.join(args.sections)}; about {estimate(args) / 60:.0f} min on a quiet machine")
    started, load0 = time.perf_counter(), os.getloadavg()
    project = tempfile.mkdtemp(prefix="bench-regressions-")
    os.makedirs(f"{project}/include")
    shutil.copy("include/benchlab.h", f"{project}/include/")
    raw: dict = {"args": vars(args)}
    printed: list = []
    try:
        percents = sorted(({DETECT_PCT} if "sensitivity" in sections else set())
                          | (set(SWEEP_PCTS) if "sweep" in sections else set()))
        built_list, factor = variants(project, percents, args.truth_processes, benchlab)
        built = {v.pct: v for v in built_list}
        raw["variants"] = [v.__dict__ for v in built_list]
        if percents:
            t, note = variants_table(built_list, factor, args.truth_processes)
            printed.append(("0. The slowed variants: the slowdown each really has", t,
                            reproduce(args, [s for s in ("sensitivity", "sweep") if s in sections]), note))
        run_pairs = runs(project, args.run_pairs, benchlab, args.fresh_db) if "runs" in sections else []
        pairs = ab_pairs(project, benchlab, args.ab_pairs, args.time_limit, sections, built) \
            if sections & {"ab", "sensitivity"} else []
        swept = sweep(project, benchlab, args.sweep_pairs, args.sweep_time_limit, built) if "sweep" in sections else []
        aa = [p for p in pairs if p.kind == "A/A"]
        slow = [p for p in pairs if p.kind != "A/A"]
        raw["runs"] = [p.__dict__ for p in run_pairs]
        raw["ab"] = [p.__dict__ for p in pairs + swept]
        base, slow_path = "calls_slow0", f"calls_slow{DETECT_PCT:g}"
        raw["aa"] = {}
        if run_pairs:
            t, raw["aa"]["runs"] = aa_table(run_pairs, [])
            printed.append(("1. A/A, separate runs: the same program run twice, judged by the default gate and by compare", t,
                            reproduce(args, ["runs"]),
                            f"{plural(len(run_pairs), 'pair')}, each `benchlab run calls.c --format json --db DB` twice (5 processes "
                            "each), then `benchlab gate --baseline FIRST SECOND --format json --db DB`, whose table is "
                            "`benchlab compare FIRST SECOND`'s; "
                            + ("a database of its own for each pair" if args.fresh_db else "one database for all pairs")
                            + f": {sum(any(c['interval'] == EARLIER_RUNS for c in p.comparisons) for p in run_pairs)} of "
                            f"{len(run_pairs)} pairs had the spread of earlier runs in the error term"))
        if aa:
            t, raw["aa"]["ab"] = aa_table([], aa)
            printed.append(("2. A/A, ab: the same executable as A and as B", t,
                            reproduce(args, [s for s in ("ab", "duet") if s in sections]),
                            f"{plural(len([p for p in aa if not p.duet]), 'pair')} of `{ab_command(base, base, args.time_limit, False)}`"
                            + (", and as many with --duet, alternating" if any(p.duet for p in aa) else "")))
        if slow or swept:
            t, raw["sensitivity"], found = sensitivity_table(slow + swept, built)
            printed.append(("3. A slowdown of args/0 found by ab (B: the variant, A: the unslowed build)", t,
                            reproduce(args, [s for s in ("sensitivity", "sweep", "duet") if s in sections]),
                            f"each pair: `{ab_command(base, 'calls_slowP', args.time_limit, False)}` (the sweep: "
                            f"--time-limit {args.sweep_time_limit:g}); flagged: args/0's verdict is slower. " + found))
        if run_pairs or pairs:
            t, raw["gbench"] = gbench_table(run_pairs, aa, slow)
            printed.append((f"4. The same pairs judged as Google Benchmark's tools/compare.py does: Mann-Whitney U, two-sided, "
                            f"alpha {GB_ALPHA:g}", t, reproduce(args, [s for s in args.sections if s != "sweep"]),
                            "flagged: p < alpha for a row; GB applies it to the repetitions of one process per side"))
        if "duet" in sections and pairs:
            t, raw["duet"] = duet_table(aa, slow)
            printed.append(("5. --duet against plain interleaving, on the same kinds of pairs, alternating", t,
                            reproduce(args, [s for s in ("ab", "sensitivity", "duet") if s in sections]),
                            f"{plural(args.ab_pairs, 'pair')} of each kind; A/A rows: all 10; {DETECT_PCT:g}%: args/0"))
    finally:
        shutil.rmtree(project, ignore_errors=True)
    took = time.perf_counter() - started
    console = Console(width=250)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    console.print(f"{now}  {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Linux {platform.release()}; "
                  f"{'quick' if args.quick else 'full'}, sections {','.join(args.sections)}: {plural(args.run_pairs, 'A/A run pair')}, "
                  f"{plural(args.ab_pairs, 'ab pair')} of each kind (--time-limit {args.time_limit:g}), "
                  f"{plural(args.sweep_pairs, 'sweep pair')} per slowdown (--time-limit "
                  f"{args.sweep_time_limit:g})")
    console.print(f"load average at start {load0[0]:.2f}, at end {os.getloadavg()[0]:.2f}; took {took:.0f} s")
    for title, t, command, note in printed:
        console.print(f"\n{title}")
        console.print(t)
        if note:
            console.print(note, soft_wrap=True)
        console.print(f"reproduce: {command}", soft_wrap=True)
    if args.raw:
        os.makedirs(os.path.dirname(args.raw) or ".", exist_ok=True)
        with open(args.raw, "w") as f:
            json.dump(raw, f, default=str)


if __name__ == "__main__":
    main()
