"""Deterministic mode against time mode on a busy machine (issue 36, item 2; docs/ci.md,
"Deterministic mode"): an A/A and a 3% slowdown of a CPU-bound and a memory-bound kernel,
each gated as a CI job would, under 4 busy loops on the 2 cores:

    time mode    benchlab run K.c --platform native, then benchlab gate --baseline main
    counts mode  benchlab run K.c --platform native --platform callgrind, then
                 benchlab gate --baseline main --judge counts

    .venv/bin/python bench/deterministic_gate.py [--reps N] [--lock FILE]

Per cell, in a fresh store: the baseline built from variants/base/K.c is run and saved as
`main` (not timed), then the candidate (variants/same: identical code in another directory;
variants/slower: 3% slower) is run and gated; the table gives the gate's exit code and its
judged rows' verdicts, the candidate run's and the gate's wall seconds (what the CI job of a
pull request spends). The busy loops run only while a cell runs; --lock FILE (flock) is held
around each cell, so another benchmark that takes the same lock runs between cells, never
beside the loops.

The kernels: `cpu` a dependent multiply-add chain of WORK steps an iteration (100; 103 is 3%
more work and time); `memory` one byte read every STRIDE bytes through 512 MiB, beyond the 260 MiB L3 and far beyond the
caches (32 bytes: a new cache line every other read; 33: 3% more lines, so 3% more estimated
cycles and about 3% more time, the same instructions). Both read their knob at run time (a
volatile), so the code is the same and only the count differs. A benchmark, not a test: it
prints what it measured and exits 0 whatever the verdicts are.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate_scenarios import call, locked, log  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
BENCHLAB = str(REPO / ".venv" / "bin" / "benchlab")
BUSY_LOOPS = 4

CPU = """/* A dependent multiply-add chain: WORK steps an iteration (read at run time). */
#include "benchlab.h"
static volatile unsigned long work = WORK, sink;
BL_BENCH(cpu, n) {
    unsigned long x = sink, k = work, i, j;
    for (i = 0; i < n; i++) for (j = 0; j < k; j++) x = x * 6364136223846793005ul + 1442695040888963407ul;
    sink = x;
}
BL_MAIN()
"""
MEMORY = """/* One byte every STRIDE bytes (read at run time) through 512 MiB, populated by the kernel
   (mmap's MAP_POPULATE: real pages, not written by the program, so callgrind need not run it). */
#define _GNU_SOURCE
#include "benchlab.h"
#include <sys/mman.h>
#define SIZE ((size_t)1 << 29)
static volatile size_t stride = STRIDE;
static volatile unsigned long sink;
static unsigned char *buffer;
BL_BENCH(memory, n) {
    static size_t pos;
    size_t s = stride, i;
    unsigned long sum = 0;
    BL_SUSPEND {
        if (!buffer) buffer = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    }
    for (i = 0; i < n; i++) { sum += buffer[pos]; pos += s; if (pos >= SIZE) pos -= SIZE; }
    sink = sum;
}
BL_MAIN()
"""
#: kernel -> (source, its knob, the knob's values: base, same, slower)
KERNELS = {"cpu": (CPU, "WORK", {"base": 100, "same": 100, "slower": 103}),
           "memory": (MEMORY, "STRIDE", {"base": 32, "same": 32, "slower": 33})}
CHANGES = {"A/A": "same", "3% slower": "slower"}
MODES = {"time": (["--platform", "native"], []),
         "counts": (["--platform", "native", "--platform", "callgrind"], ["--judge", "counts"])}


@contextlib.contextmanager
def busy_loops(count: int):
    """`count` shell loops that never sleep, each in its own process group, ended by their ids."""
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"], start_new_session=True) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            os.killpg(loop.pid, signal.SIGKILL)
            loop.wait()


def project(root: Path, kernel: str) -> None:
    """include/, benchlab.toml and variants/{base,same,slower}/K.c."""
    shutil.copytree(REPO / "include", root / "include")
    # the first gate's calibration (about 20 s) would fall on the first cell only: not measured here
    (root / "benchlab.toml").write_text("[gate]\ncalibrate = false\n")
    source, knob, values = KERNELS[kernel]
    for variant, value in values.items():
        (root / "variants" / variant).mkdir(parents=True)
        (root / "variants" / variant / f"{kernel}.c").write_text(f"#define {knob} {value}\n" + source)


def cell(kernel: str, change: str, mode: str) -> dict:
    """One CI job's gate, in a fresh store: the baseline run and saved, the candidate run and gated."""
    platforms, judge = MODES[mode]
    with tempfile.TemporaryDirectory(prefix="detgate-") as scratch:
        root = Path(scratch)
        project(root, kernel)
        db = ["--db", f"sqlite:///{root / 'store.db'}"]
        call([BENCHLAB, "run", f"variants/base/{kernel}.c", *platforms, *db], root)
        call([BENCHLAB, "baseline", "save", "main", "latest", *db], root)
        _, run_s = call([BENCHLAB, "run", f"variants/{CHANGES[change]}/{kernel}.c", *platforms, *db], root)
        done, gate_s = call([BENCHLAB, "gate", "--baseline", "main", *judge, "--format", "json", *db], root,
                            ok=(0, 3, 4))
    rows = json.loads(done.stdout)["comparisons"]
    return {"kernel": kernel, "change": change, "mode": mode, "exit": done.returncode, "run_s": run_s,
            "gate_s": gate_s, "rows": [(row["counter"], row["ratio"], row["ratio_ci"], row["verdict"]) for row in rows]}


EXITS = {0: "pass", 3: "slower", 4: "inconclusive"}


def row_text(rows) -> str:
    return "; ".join(f"{counter} {ratio:.4f}x [{low:.4f}, {high:.4f}] {verdict}"
                     for counter, ratio, (low, high), verdict in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2, help="repetitions of every cell (default 2)")
    parser.add_argument("--lock", help="a lock file (flock) held around each cell")
    options = parser.parse_args()
    results = []
    for rep in range(options.reps):
        for kernel in KERNELS:
            for change in CHANGES:
                for mode in MODES:
                    with locked(options.lock), busy_loops(BUSY_LOOPS):
                        load = os.getloadavg()[0]
                        result = cell(kernel, change, mode)
                    result["load"] = load
                    results.append(result)
                    log(f"rep {rep + 1} {kernel} {change} {mode}: exit {result['exit']}, run {result['run_s']:.1f} s, "
                        f"gate {result['gate_s']:.1f} s")
    print(f"{BUSY_LOOPS} busy loops on {os.cpu_count()} CPUs; each cell a fresh store; {options.reps} repetition(s)")
    print(f"{'kernel':<7} {'change':<10} {'mode':<7} {'gate verdict':<21} {'run s':>6} {'gate s':>7} {'job s':>6}  "
          "judged rows (B/A [99% interval] verdict)")
    for r in sorted(results, key=lambda r: (list(KERNELS).index(r["kernel"]), list(CHANGES).index(r["change"]),
                                            list(MODES).index(r["mode"]))):
        verdict = f"{EXITS.get(r['exit'], r['exit'])} (exit {r['exit']})"
        print(f"{r['kernel']:<7} {r['change']:<10} {r['mode']:<7} {verdict:<21} "
              f"{r['run_s']:>6.1f} {r['gate_s']:>7.1f} {r['run_s'] + r['gate_s']:>6.1f}  {row_text(r['rows'])}")
    print(f"reproduce: .venv/bin/python bench/deterministic_gate.py --reps {options.reps}"
          + (f" --lock {options.lock}" if options.lock else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
