"""Right, inconclusive and wrong verdicts of `benchlab gate` and `benchlab ab` on a quiet
and a busy machine (issue 27): A/A, 3%, 10% and 2x slowdowns, on suites/calls and on a
12-binary suite, beside 0, 2 and 6 busy loops.

    .venv/bin/python bench/verdicts.py [--pairs N] [--loads 0,2,6] [--judges gate,ab] [--suites calls,sys12]
                                       [--variants aa,3%,10%,2x] [--ppm-per-pct P] [--quick] [--lock FILE]

The slowdowns are bench/calls_slowdown.c's knob on `args/0` (the same instructions at
the same addresses; a word of data makes the loop longer), sized by a paired `ab` probe
as bench/gate_scenarios.py does (or `--ppm-per-pct` from an earlier run). The 12-binary
suite is suites/sys's six programs, the slowed calls program, and five hash loops of
different lengths: every row but `args/0` is identical code in both builds.

Per suite and load, once: a store, a run of the unchanged build saved as baseline `base`
(its binaries kept), and a run of each variant; then, per pair, `benchlab gate RUN
--baseline base --format json` at its defaults (it re-measures both builds interleaved).
`ab` runs as a user runs it on two git revisions: `benchlab ab --rev base --rev VARIANT
SUITE --max-regression 2 --format json`. A judgment is
- right: A/A passed (exit 0); a slowdown failed (exit 3) with args/0 slower and no other row slower;
- inconclusive: exit 4 (nothing slower for sure, some row undecided), or a slowdown whose
  args/0 is undecided: never counted as right;
- wrong: a slowdown passed (exit 0), or identical code flagged (any other row slower).
Targets (issue 27): wrong at most 1 in 100 at every load; inconclusive at most 10 in 100
at load 0. The busy loops are `bash -c 'while :; do :; done'`, started before a cell and
stopped after it; the table gives the load average each cell saw.

A benchmark, not a test: it prints figures and exits 0 whatever they are (non-zero when
something cannot run). Every judgment is in bench/build/verdicts.json.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate_scenarios import BENCHLAB, HASH, REPO, calls_ppm, calls_source, call, locked, log  # noqa: E402

VARIANTS = {"aa": 0, "3%": 3, "10%": 10, "2x": 100}   # percent slower on args/0
SUITES = ("calls", "sys12")
JUDGES = ("gate", "ab")
SYS_PROGRAMS = ("fs_read.c", "fs_write.c", "ipc_pipe.c", "ipc_uds.c", "sys_close.c", "sys_geteuid.c")
HASH_STEPS = (20, 40, 60, 80, 100)
MAX_REGRESSION = "2"
RIGHT, INCONCLUSIVE, WRONG = "right", "inconclusive", "wrong"


@contextlib.contextmanager
def busy_loops(count: int):
    """`count` shell busy loops for the duration of the block."""
    loops = [subprocess.Popen(["bash", "-c", "while :; do :; done"]) for _ in range(count)]
    try:
        time.sleep(2 if count else 0)  # let the load average see them start
        yield
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


def write_suite(directory: Path, suite: str, ppm: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "calls.c").write_text(calls_source(ppm))
    if suite == "sys12":
        for name in SYS_PROGRAMS + ("sysbench.h",):
            shutil.copy(REPO / "suites" / "sys" / name, directory / name)
        for steps in HASH_STEPS:
            (directory / f"hash{steps}.c").write_text(f"#define STEPS {steps}\n" + HASH)


class Lab:
    """A scratch project: the header, benchlab.toml, and per suite a git repository whose
    tag `base` is the unchanged build and whose tag per variant is that build."""

    def __init__(self, root: Path, ppm_per_pct: float, suites: list[str], variants: list[str]):
        self.root, self.ppm_per_pct = root, ppm_per_pct
        shutil.copytree(REPO / "include", root / "include")
        # the gate re-measures; no calibration of a first stored-figures gate in between
        (root / "benchlab.toml").write_text("[gate]\ncalibrate = false\n")
        git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        for suite in suites:
            write_suite(root / suite, suite, 0)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", "base"], check=True)
        subprocess.run([*git, "tag", "base"], check=True)
        for variant in variants:
            if variant == "aa":
                continue
            subprocess.run([*git, "checkout", "-q", "base"], check=True)
            for suite in suites:
                write_suite(root / suite, suite, self.ppm(variant))
            subprocess.run([*git, "commit", "-qam", variant], check=True)
            subprocess.run([*git, "tag", self.tag(variant)], check=True)
        subprocess.run([*git, "checkout", "-q", "base"], check=True)
        self.git = git

    def ppm(self, variant: str) -> int:
        return round(VARIANTS[variant] * self.ppm_per_pct)

    @staticmethod
    def tag(variant: str) -> str:
        return "base" if variant == "aa" else "v" + variant.replace("%", "pct")

    def checkout(self, variant: str) -> None:
        subprocess.run([*self.git, "checkout", "-q", self.tag(variant)], check=True)

    def run(self, db: str, suite: str) -> int:
        done, _ = call([BENCHLAB, "run", suite, "--db", db, "--format", "json"], self.root)
        return json.loads(done.stdout)["run"]["id"]


def judge_document(exit_code: int, document: dict, variant: str) -> tuple[str, dict]:
    """The judgment's class and what decided it: args/0's verdict and the other rows' counts."""
    rows = document["comparisons"]
    slowed = [c for c in rows if c["test"] == "args" and c["param"] == 0 and c["counter"] == "time"]
    others = [c for c in rows if c not in slowed]
    detail = {"exit": exit_code, "args0": slowed[0]["verdict"] if slowed else None,
              "args0_ratio": slowed[0]["ratio"] if slowed else None,
              "others_slower": sum(c["verdict"] == "slower" for c in others),
              "others_inconclusive": sum(c["verdict"] == "inconclusive" for c in others), "rows": len(rows),
              "undecided": [(c["test"] if c["param"] is None else f"{c['test']}/{c['param']}", c["ratio_ci"])
                            for c in rows if c["verdict"] == "inconclusive"]}
    if detail["others_slower"] or (variant == "aa" and detail["args0"] == "slower"):
        return WRONG, detail
    if variant == "aa":
        return (RIGHT if exit_code == 0 else INCONCLUSIVE), detail
    if detail["args0"] == "not slower":
        return WRONG, detail
    return (RIGHT if exit_code == 3 and detail["args0"] == "slower" else INCONCLUSIVE), detail


def gate_cell(lab: Lab, suite: str, variants: list[str], pairs: int, load: int) -> list[dict]:
    db = f"sqlite:///{lab.root / f'gate-{suite}-{load}.db'}"
    lab.checkout("aa")
    lab.run(db, suite)
    call([BENCHLAB, "baseline", "save", "base", "--db", db], lab.root)
    judgments = []
    for variant in variants:
        lab.checkout(variant)
        run_id = lab.run(db, suite)
        for pair in range(pairs):
            started = time.perf_counter()
            done, _ = call([BENCHLAB, "gate", str(run_id), "--baseline", "base", "--max-regression", MAX_REGRESSION,
                            "--format", "json", "--db", db], lab.root, ok=(0, 3, 4))
            kind, detail = judge_document(done.returncode, json.loads(done.stdout), variant)
            judgments.append(record("gate", suite, load, variant, kind, detail, time.perf_counter() - started))
            log(f"gate {suite} load {load} {variant} {pair + 1}/{pairs}: {kind} (exit {done.returncode}, "
                f"args/0 {detail['args0']}) in {judgments[-1]['seconds']:.1f} s")
    lab.checkout("aa")
    return judgments


def ab_cell(lab: Lab, suite: str, variants: list[str], pairs: int, load: int) -> list[dict]:
    judgments = []
    for variant in variants:
        for pair in range(pairs):
            started = time.perf_counter()
            done, _ = call([BENCHLAB, "ab", "--rev", "base", "--rev", lab.tag(variant), suite, "--max-regression",
                            MAX_REGRESSION, "--format", "json"], lab.root, ok=(0, 3, 4))
            kind, detail = judge_document(done.returncode, json.loads(done.stdout), variant)
            judgments.append(record("ab", suite, load, variant, kind, detail, time.perf_counter() - started))
            log(f"ab {suite} load {load} {variant} {pair + 1}/{pairs}: {kind} (exit {done.returncode}, "
                f"args/0 {detail['args0']}) in {judgments[-1]['seconds']:.1f} s")
    return judgments


def record(judge: str, suite: str, load: int, variant: str, kind: str, detail: dict, seconds: float) -> dict:
    return {"judge": judge, "suite": suite, "loops": load, "variant": variant, "kind": kind, "seconds": seconds,
            "load_average": os.getloadavg()[0], **detail}


def table(judgments: list[dict]) -> str:
    heads = ("suite", "judge", "loops", "load avg", "variant", "args/0 B/A", "pairs", "right", "inconcl.", "wrong",
             "median s")
    cells: dict[tuple, list[dict]] = {}
    for j in judgments:
        cells.setdefault((j["suite"], j["judge"], j["loops"], j["variant"]), []).append(j)
    rows = []
    for (suite, judge, loops, variant), found in cells.items():
        count = {kind: sum(j["kind"] == kind for j in found) for kind in (RIGHT, INCONCLUSIVE, WRONG)}
        ratios = [j["args0_ratio"] for j in found if j["args0_ratio"] is not None]
        rows.append((suite, judge, str(loops), f"{statistics.median(j['load_average'] for j in found):.1f}", variant,
                     f"{statistics.median(ratios):.3f}" if ratios else "-",
                     str(len(found)), str(count[RIGHT]), str(count[INCONCLUSIVE]), str(count[WRONG]),
                     f"{statistics.median(j['seconds'] for j in found):.1f}"))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(heads, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in rows]
    total = len(judgments)
    wrong = sum(j["kind"] == WRONG for j in judgments)
    quiet = [j for j in judgments if j["loops"] == 0]
    lines.append(f"wrong verdicts: {wrong} of {total} judgments (target: at most 1 in 100 at every load); "
                 f"inconclusive at 0 loops: {sum(j['kind'] == INCONCLUSIVE for j in quiet)} of {len(quiet)} "
                 "(target: at most 10 in 100)")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="judgments per cell (default 5; the issue's: 100)")
    parser.add_argument("--loads", default="0,2,6", help="busy loops beside each cell")
    parser.add_argument("--judges", default=",".join(JUDGES))
    parser.add_argument("--suites", default=",".join(SUITES))
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--ppm-per-pct", type=float, help="calls_slowdown.c's knob per 1%% (default: a probe)")
    parser.add_argument("--quick", action="store_true", help="1 pair of A/A and 2x on calls, gate only, 0 loops")
    parser.add_argument("--lock", help="a file to flock around each cell")
    parser.add_argument("--raw", default=str(REPO / "bench" / "build" / "verdicts.json"))
    args = parser.parse_args()
    if args.quick:
        args.pairs, args.loads, args.judges, args.suites, args.variants = 1, "0", "gate", "calls", "aa,2x"
    loads = [int(x) for x in args.loads.split(",")]
    judges, suites, variants = args.judges.split(","), args.suites.split(","), args.variants.split(",")
    for name, given, known in (("--judges", judges, JUDGES), ("--suites", suites, SUITES),
                               ("--variants", variants, tuple(VARIANTS))):
        unknown = [g for g in given if g not in known]
        if unknown:
            parser.error(f"{name}: {', '.join(unknown)} (choose from {', '.join(known)})")
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    judgments: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="benchlab-verdicts-") as scratch:
        root = Path(scratch)
        if args.ppm_per_pct:
            per_pct = args.ppm_per_pct
        else:
            with locked(args.lock):
                per_pct = calls_ppm(root)["3%"] / 3
            if not per_pct > 0:
                raise SystemExit(f"error: the probe measured no slowdown ({per_pct:.0f} ppm per 1%): run on a quieter "
                                 "machine, or give --ppm-per-pct from an earlier run")
        lab = Lab(root / "lab", per_pct, suites, variants)
        for load in loads:
            for suite in suites:
                for judge in judges:
                    with locked(args.lock), busy_loops(load):
                        cell = gate_cell if judge == "gate" else ab_cell
                        judgments += cell(lab, suite, variants, args.pairs, load)
    out = Path(args.raw)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"started": started, "ppm_per_pct": per_pct, "judgments": judgments}, indent=1))
    command = " ".join(["bench/verdicts.py", *sys.argv[1:]])
    print(f"verdicts of gate and ab, {started}, {per_pct:.0f} ppm per 1% of args/0 "
          f"({command}; every judgment in {out})")
    print(table(judgments))
    return 0


if __name__ == "__main__":
    sys.exit(main())
