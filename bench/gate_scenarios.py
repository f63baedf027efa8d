"""Does `benchlab gate` catch a regression whatever the store's history holds? The
scenarios of issue 17, by the commands a user runs, on a hash loop (FNV-1a) and on
suites/calls (bench/calls_slowdown.c's knob), each with variants 3% and 10% slower.

    .venv/bin/python bench/gate_scenarios.py [--quick] [--sections LIST] [--reps N] [--pairs N] [--stores N]
                                             [--lock FILE]

--lock FILE takes an exclusive lock on FILE (flock) around each repetition, pair and
store, not the whole hour: another benchmark on the machine that takes the same lock
runs between them and never during a measurement.

Sections, in the order of the tables (bench/README.md, "Gate scenarios"):
    alternating  a fresh store; the unchanged build saved as baseline `base`; 12 runs
                 alternating unchanged / 3% slower / unchanged / 10% slower, `benchlab gate
                 --baseline base` (defaults: re-measures) after each: slower runs caught
                 (exit 3), unchanged ones passed (exit 0); per repetition (--reps)
    mixed        a store of 40 runs of mixed code, then pairs of (an unchanged run, a 3%
                 slower run), each gated at defaults against the baseline (--pairs)
    widths       a program whose processes agree to ~0.1%: its `run` interval in a fresh
                 store against after 20 runs of other code in the store (both with the
                 machine's prior); the ratio must stay within 2
    fresh        --stores fresh stores (each with the machine's prior, one calibration
                 copied): three default runs of a chain driver each; how often each run's
                 interval holds the other runs' figures (at least 95%)

One `benchlab calibrate` measures the machine's prior first, into a template store every
scenario copies: what a machine that was calibrated once has. A benchmark, not a test:
it prints figures and exits 0 whatever they are (non-zero when something cannot run).
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCHLAB = str(REPO / ".venv" / "bin" / "benchlab")
SECTIONS = ["alternating", "mixed", "widths", "fresh"]
FULL = {"reps": 3, "pairs": 10, "stores": 20, "history": 40}
QUICK = {"reps": 1, "pairs": 2, "stores": 3, "history": 8}
#: The work of the hash loop: 100 steps, 103 (3% slower), 110 (10% slower).
HASH_STEPS = {"unchanged": 100, "3%": 103, "10%": 110}
#: The probe build of calls_slowdown.c whose slowdown sizes the 3% and 10% builds (about 1.5%).
PROBE_PPM = 300000
#: The alternating history of issue 17.
ALTERNATION = ["unchanged", "3%", "unchanged", "10%"] * 3

HASH = """/* FNV-1a over a counter: a dependent xor-multiply chain of STEPS steps per iteration. */
#include "benchlab.h"
static volatile unsigned long hash_sink;
BL_BENCH(fnv1a, n) {
    unsigned long h = 1469598103934665603ul, i; int k;
    for (i = 0; i < n; i++) {
        for (k = 0; k < STEPS; k++) h = (h ^ (unsigned long)k) * 1099511628211ul;
        BL_KEEP(h);
    }
    hash_sink = h;
}
BL_MAIN()
"""
CHAIN = """/* The chain driver: 100 dependent multiply-adds per iteration. */
#include "benchlab.h"
static volatile unsigned long mul = 6364136223846793005ul, add = 1442695040888963407ul;
BL_BENCH(chain100, n) {
    unsigned long x = 1, a = mul, b = add, i; int k;
    for (i = 0; i < n; i++) { for (k = 0; k < 100; k++) x = x * a + b; BL_KEEP(x); }
}
BL_MAIN()
"""


#: The lock file of --lock (None: no lock).
LOCK: str | None = None


@contextlib.contextmanager
def locked(path: str | None):
    """Holds the lock file `path` (none: nothing to hold), so that no two benchmarks time at once."""
    if path is None:
        yield
        return
    with open(path, "a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)


def measuring():
    """Holds --lock's file for one repetition, pair or store."""
    return locked(LOCK)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def call(argv: list[str], cwd: Path, ok=(0,)) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env={**os.environ, "BL_NO_WARN": "1"})
    if done.returncode not in ok:
        raise SystemExit(f"error: {' '.join(argv)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done, time.perf_counter() - start


class Project:
    """A scratch project: benchlab's header, one directory per variant holding hash.c and
    calls.c (same names in every variant, so that their figures pair up)."""

    def __init__(self, root: Path, calls_ppm: dict[str, int]):
        self.root = root
        shutil.copytree(REPO / "include", root / "include")
        for name, steps in HASH_STEPS.items():
            directory = root / "variants" / name.replace("%", "pct")
            directory.mkdir(parents=True)
            (directory / "hash.c").write_text(f"#define STEPS {steps}\n" + HASH)
            (directory / "calls.c").write_text(calls_source(calls_ppm[name]))
        (root / "chain").mkdir()
        (root / "chain" / "chain.c").write_text(CHAIN)

    def variant(self, name: str) -> str:
        return str(self.root / "variants" / name.replace("%", "pct"))

    def run(self, db: str, target: str, *extra: str) -> int:
        done, _ = call([BENCHLAB, "run", target, "--db", db, "--format", "json", *extra], self.root)
        return json.loads(done.stdout)["run"]["id"]

    def gate(self, db: str, *extra: str) -> tuple[int, float, dict]:
        done, wall = call([BENCHLAB, "gate", "--baseline", "base", "--db", db, "--format", "json", *extra],
                          self.root, ok=(0, 3, 4))
        return done.returncode, wall, json.loads(done.stdout)

    def intervals(self, db: str, run_id: int) -> dict[str, tuple[float, list[float]]]:
        done, _ = call([BENCHLAB, "show", str(run_id), "--db", db, "--format", "json"], self.root)
        return {row["test"] + ("" if row["param"] is None else f"/{row['param']}"):
                (row["cells"]["native"]["median"], row["cells"]["native"]["median_ci"])
                for row in json.loads(done.stdout)["rows"] if row["cells"]["native"].get("median_ci")}


def calls_source(ppm: int) -> str:
    """bench/calls_slowdown.c with its knob set (whole: benchlab finds a program's main in its own text)."""
    return f"#define BL_SLOWDOWN_PPM {ppm}\n" + (REPO / "bench" / "calls_slowdown.c").read_text()


def calls_ppm(root: Path) -> dict[str, int]:
    """The knob of calls_slowdown.c for 3% and 10% on args/0, from a probe of PROBE_PPM
    measured against the unslowed build by `benchlab ab` (paired rounds, 20 s): separate
    runs read it 3 times too high here (probe at 50,000 ppm: 0.82% in 6 processes each,
    0.25% paired)."""
    probe = root / "probe"
    probe.mkdir()
    for name, ppm in (("base", 0), ("probe", PROBE_PPM)):
        (probe / f"calls_{name}.c").write_text(calls_source(ppm))
    shutil.copytree(REPO / "include", probe / "include")
    done, _ = call([BENCHLAB, "ab", "calls_base.c", "calls_probe.c", "--time-limit", "20", "--format", "json"], probe,
                   ok=(0, 3, 4))
    [args0] = [c for c in json.loads(done.stdout)["comparisons"] if c["test"] == "args" and c["param"] == 0]
    per_pct = PROBE_PPM / (100 * (args0["ratio"] - 1))
    log(f"calls: {per_pct:.0f} ppm make 1% of args/0 (probe {args0['ratio']:.4f} at {PROBE_PPM} ppm)")
    return {"unchanged": 0, "3%": round(3 * per_pct), "10%": round(10 * per_pct)}


def fresh_store(template: Path, directory: Path, name: str) -> str:
    path = directory / f"{name}.db"
    shutil.copy(template, path)
    return f"sqlite:///{path}"


def alternating(project: Project, template: Path, reps: int) -> dict:
    caught = {"3%": [0, 0], "10%": [0, 0]}
    flagged, walls, methods, gates = [0, 0], [], set(), []
    for rep in range(reps):
        with measuring():
            db = fresh_store(template, project.root, f"alternating{rep}")
            project.run(db, project.variant("unchanged"))
            call([BENCHLAB, "baseline", "save", "base", "--db", db], project.root)
            for name in ALTERNATION:
                project.run(db, project.variant(name))
                code, wall, doc = project.gate(db)
                walls.append(wall)
                methods.update(c["interval"].split(":")[0] for c in doc["comparisons"])
                gates.append({"variant": name, "exit": code, "wall_s": wall, **widest(doc["comparisons"])})
                tally = flagged if name == "unchanged" else caught[name]
                tally[0] += code == 3
                tally[1] += 1
                log(f"alternating {rep + 1}/{reps}: {name}: gate exit {code} in {wall:.1f} s")
    return {"caught": caught, "unchanged_flagged": flagged, "gate_wall_median_s": statistics.median(walls),
            "gate_wall_max_s": max(walls), "methods": sorted(methods), "gates": gates}


def widest(comparisons: list[dict]) -> dict:
    """The row with the widest interval of a gate (the one that kept it running), and the
    slowed rows' ratios (args/0 of calls, fnv1a of the hash loop)."""
    def half(c: dict) -> float:
        return (c["ratio_ci"][1] - c["ratio_ci"][0]) / 2 / c["ratio"]
    wide = max(comparisons, key=half)
    slowed = {f"{c['test']}/{c['param']}" if c["param"] is not None else c["test"]: round(c["ratio"], 4)
              for c in comparisons if (c["test"], c["param"]) in (("args", 0), ("fnv1a", None))}
    return {"widest": wide["test"] + ("" if wide["param"] is None else f"/{wide['param']}"),
            "widest_half": half(wide), "rounds": wide["interval"], "slowed": slowed}


def mixed(project: Project, template: Path, pairs: int, history: int) -> dict:
    db = fresh_store(template, project.root, "mixed")
    with measuring():
        project.run(db, project.variant("unchanged"))
        call([BENCHLAB, "baseline", "save", "base", "--db", db], project.root)
        for j in range(history):
            project.run(db, project.variant(["3%", "10%", "unchanged"][j % 3]))
    aa, slow, walls, stored_aa, stored_slow = [0, 0], [0, 0], [], [0, 0], [0, 0]
    for pair in range(pairs):
        for name, tally, stored in (("unchanged", aa, stored_aa), ("3%", slow, stored_slow)):
            with measuring():
                project.run(db, project.variant(name))
                code, wall, _ = project.gate(db)
                stored_code, _, _ = project.gate(db, "--no-remeasure")
            walls.append(wall)
            tally[0] += code == 3
            tally[1] += 1
            stored[0] += stored_code == 3
            stored[1] += 1
        log(f"mixed {pair + 1}/{pairs}: A/A flagged {aa[0]}/{aa[1]}, 3% caught {slow[0]}/{slow[1]}")
    return {"aa_flagged": aa, "slow_caught": slow, "stored_aa_flagged": stored_aa, "stored_slow_caught": stored_slow,
            "gate_wall_median_s": statistics.median(walls), "history_runs": history}


def widths(project: Project, template: Path) -> dict:
    def half(db: str) -> float:
        run_id = project.run(db, str(project.root / "chain"))
        median, (low, high) = project.intervals(db, run_id)["chain100"]
        return (high - low) / 2 / median
    with measuring():
        fresh = half(fresh_store(template, project.root, "widths-fresh"))
        db = fresh_store(template, project.root, "widths-history")
        for j in range(20):
            project.run(db, project.variant(["3%", "10%"][j % 2]))
        after = half(db)
    return {"fresh_half_width": fresh, "after_20_other_half_width": after, "ratio": after / fresh if fresh else None}


def fresh(project: Project, template: Path, stores: int) -> dict:
    held, checks, widths_seen, runs = 0, 0, [], []
    for s in range(stores):
        db = fresh_store(template, project.root, f"fresh{s}")
        with measuring():
            figures = [project.intervals(db, project.run(db, str(project.root / "chain")))["chain100"]
                       for _ in range(3)]
        runs.append(figures)
        for i, (_, (low, high)) in enumerate(figures):
            widths_seen.append((high - low) / 2 / figures[i][0])
            for j, (other, _) in enumerate(figures):
                if i != j:
                    held += low <= other <= high
                    checks += 1
        log(f"fresh {s + 1}/{stores}: held {held}/{checks}")
    return {"held": held, "checks": checks, "coverage": held / checks,
            "half_width_median": statistics.median(widths_seen), "runs": runs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument("--lock", help="a file to flock around each repetition, pair and store")
    for key in FULL:
        parser.add_argument(f"--{key}", type=int)
    args = parser.parse_args()
    counts = {key: getattr(args, key) or (QUICK if args.quick else FULL)[key] for key in FULL}
    sections = args.sections.split(",")
    global LOCK
    LOCK = args.lock
    results: dict = {"counts": counts, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with tempfile.TemporaryDirectory(prefix="benchlab-gate-scenarios-") as scratch:
        root = Path(scratch)
        template = root / "template.db"
        with measuring():
            project = Project(root / "project", calls_ppm(root))
            log("calibrating the template store (benchlab calibrate)")
            done, wall = call([BENCHLAB, "calibrate", "--db", f"sqlite:///{template}"], project.root)
        results["calibration"] = done.stdout.strip().splitlines()
        started = time.perf_counter()
        if "alternating" in sections:
            results["alternating"] = alternating(project, template, counts["reps"])
        if "mixed" in sections:
            results["mixed"] = mixed(project, template, counts["pairs"], counts["history"])
        if "widths" in sections:
            results["widths"] = widths(project, template)
        if "fresh" in sections:
            results["fresh"] = fresh(project, template, counts["stores"])
        results["seconds"] = time.perf_counter() - started
    out = REPO / "bench" / "build" / "gate_scenarios.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(render(results))
    return 0


def render(results: dict) -> str:
    lines = [f"gate scenarios, {results['started']} ({results['seconds']:.0f} s); counts {results['counts']}",
             "calibration: " + " | ".join(results["calibration"][1:4])]
    if "alternating" in results:
        a = results["alternating"]
        lines.append(f"alternating history: 3% caught {a['caught']['3%'][0]}/{a['caught']['3%'][1]}, "
                     f"10% caught {a['caught']['10%'][0]}/{a['caught']['10%'][1]} (target >= 95%); unchanged flagged "
                     f"{a['unchanged_flagged'][0]}/{a['unchanged_flagged'][1]} (target <= 1%); gate wall median "
                     f"{a['gate_wall_median_s']:.1f} s, max {a['gate_wall_max_s']:.1f} s; methods {a['methods']}")
    if "mixed" in results:
        m = results["mixed"]
        lines.append(f"mixed store ({m['history_runs']} runs of mixed code): default gate: 3% caught "
                     f"{m['slow_caught'][0]}/{m['slow_caught'][1]} (target >= 95%), A/A flagged {m['aa_flagged'][0]}/"
                     f"{m['aa_flagged'][1]} (target <= 1%), wall median {m['gate_wall_median_s']:.1f} s (target <= 15 s); "
                     f"--no-remeasure: 3% caught {m['stored_slow_caught'][0]}/{m['stored_slow_caught'][1]}, A/A flagged "
                     f"{m['stored_aa_flagged'][0]}/{m['stored_aa_flagged'][1]}")
    if "widths" in results:
        w = results["widths"]
        lines.append(f"interval widths: chain100 +-{100 * w['fresh_half_width']:.3f}% in a fresh store, "
                     f"+-{100 * w['after_20_other_half_width']:.3f}% after 20 runs of other code: ratio "
                     f"{w['ratio']:.2f} (target <= 2)")
    if "fresh" in results:
        f = results["fresh"]
        lines.append(f"fresh stores: the first 3 runs' intervals held the others' figures {f['held']}/{f['checks']} "
                     f"({100 * f['coverage']:.0f}%, target >= 95%); median half-width +-{100 * f['half_width_median']:.3f}%")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
