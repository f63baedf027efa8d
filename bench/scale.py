"""How the read commands' cost grows with the store: 100, 1,000 and 10,000 stored runs (issue 29).

A team's store grows by a run per CI job; a command that reads a run, a comparison or
a history must not grow with it. This grows one store per engine (SQLite, and a
throw-away PostgreSQL server from scripts/pg-test-server) to each size in turn and, at
each size, times every read command as a user types it, in a fresh process:

    show latest, runs, stats latest, compare -2 latest, history NAME, history NAME --last 50,
    report latest --out DIR, export latest, gate latest --baseline main --no-remeasure

Each figure is the median of REPEATS processes: the CPU seconds of the benchlab process
(user + system, from its rusage; a PostgreSQL server's own CPU is not in it) and its wall
seconds. The table puts them side by side per size, with the ratio of the largest size
to the one before it (10,000 / 1,000 runs): the target is 2x at most for every command,
and `>2x` marks a command over it.

The runs are synthetic but shaped like real ones (a default `benchlab run suites/sys
suites/calls` stores 250 records of 20-200 samples, a context of 17 kB): two binaries on
two platforms, four figures each in 5 processes (80 records of 40 samples, with their
empty-loop samples, summaries and per-process fields), a context with a plan, code
identities, the binaries' own context records, the load at the start and end and a git
commit. Across runs, as on a CI fleet: a new commit per run, the code of one binary
changing every 25 runs (a 5% level shift of its figures), a second machine (another
host and CPU) taking over for a stretch, and stretches of a busy machine whose figures
read 40% high. They are written through the store's own write path (Store.import_run:
one transaction per run, each unit's records in one statement), a baseline `main` kept
10 runs before the latest.

A benchmark, not a test: it prints figures and exits 0 whatever they are (non-zero
only when a command fails or a store cannot be built).

    .venv/bin/python bench/scale.py --lock /work/bench.lock      # 100 / 1,000 / 10,000 runs, both engines
    .venv/bin/python bench/scale.py --quick                       # 60 / 180 runs, SQLite, one process each
    .venv/bin/python bench/scale.py --sizes 100,1000 --engines sqlite

--lock FILE takes an exclusive flock on FILE around each size's timings (not while the
store grows), so that no other timing run shares the machine with them.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate_scenarios import locked  # noqa: E402  (bench/ is not a package)

ROOT = Path(__file__).resolve().parents[1]
BENCHLAB = [sys.executable, "-m", "benchlab"]
PG_TEST_SERVER = ROOT / "scripts" / "pg-test-server"

SIZES = (100, 1_000, 10_000)
QUICK_SIZES = (60, 180)
REPEATS, QUICK_REPEATS = 3, 1
#: The target: every command within this factor between the last two sizes.
TARGET_RATIO = 2.0

#: The synthetic suite: binary -> its figures (bench, param); on both platforms, in PROCESSES processes.
SUITE = {"sys": [("getpid", None), ("close", None)], "calls": [("args", 0), ("args", 4)]}
PLATFORMS = ("native", "wasm")
PROCESSES = 5
SAMPLES = 40
#: Runs between two changes of one binary's code (each a 5% level shift of its figures).
CODE_EVERY = 25
#: The second machine's stretch: runs [start, start + length) of every CYCLE runs.
MACHINE_CYCLE, MACHINE_STRETCH = 400, 40
#: A busy stretch: BUSY_STRETCH runs of every BUSY_CYCLE, their figures BUSY_FACTOR high.
BUSY_CYCLE, BUSY_STRETCH, BUSY_FACTOR = 150, 6, 1.4
#: The benchmark `history` is timed on.
HISTORY_NAME = "getpid"

MACHINES = ({"host": "ci-runner-1", "cpu": "AMD EPYC 7B13", "kernel": "6.1.0-27-cloud-amd64", "arch": "x86_64"},
            {"host": "ci-runner-7", "cpu": "Intel(R) Xeon(R) Platinum 8370C", "kernel": "6.1.0-27-cloud-amd64",
             "arch": "x86_64"})
#: Each figure's level in ns on native (wasm: twice).
LEVELS = {("getpid", None): 95.0, ("close", None): 210.0, ("args", 0): 2.1, ("args", 4): 3.4}


class Synthetic:
    """Runs shaped like real ones (module docstring), the n-th always the same (seeded by n)."""

    def __init__(self):
        from benchlab import stats
        rng = random.Random(29)
        # One template per (figure, platform, process): samples around 1.0, summarised once;
        # each run scales them (summaries are linear in the samples but for counts).
        self.templates = {}
        for binary, benches in SUITE.items():
            for bench, param in benches:
                for platform in PLATFORMS:
                    for process in range(PROCESSES):
                        samples = [1.0 + abs(rng.gauss(0, 0.01)) for _ in range(SAMPLES)]
                        overhead = [0.23 + rng.random() * 0.001 for _ in range(SAMPLES)]
                        summary = stats.summarize(samples, None)
                        self.templates[(binary, bench, param, platform, process)] = (samples, overhead, summary)
        self.rng = rng

    def machine(self, n: int) -> dict:
        return MACHINES[1] if (n % MACHINE_CYCLE) >= MACHINE_CYCLE - MACHINE_STRETCH else MACHINES[0]

    @staticmethod
    def busy(n: int) -> bool:
        return (n % BUSY_CYCLE) >= BUSY_CYCLE - BUSY_STRETCH

    def code(self, n: int, binary: str) -> int:
        """Which version of `binary`'s code run n measured: the binaries change in turn."""
        offset = list(SUITE).index(binary) * CODE_EVERY // len(SUITE)
        return (n + offset) // CODE_EVERY

    def context(self, n: int) -> dict:
        day, second = divmod(n * 600, 86400)
        date = f"2026-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}T{second // 3600:02d}:{second // 60 % 60:02d}:00Z"
        plan = [{"binary": b, "platform": p, "sweep": None} for _ in range(PROCESSES) for b in SUITE for p in PLATFORMS]
        average = 3.6 if self.busy(n) else 0.4
        machine = self.machine(n)
        code = {f"{b}@{p}": {"id": f"{b}-{p}-v{self.code(n, b)}", "sha256": f"{self.code(n, b):064x}",
                             "path": f"/home/runner/work/app/.benchlab/build/{p}/{b}-{self.code(n, b):016x}",
                             "flavor": "benchlab", "flags": {"args": [], "subtract": True}}
                for b in SUITE for p in PLATFORMS}
        binaries = {f"{b}@{p}": {"type": "context", "schema": 2, "benchlab": "0.2.0", "date": date, **machine,
                                 "compiler": "gcc 12.2.0", "compiler_flags": "-O2", "timer": "tsc",
                                 "timer_resolution_ns": 10.01, "timer_cost_ns": 18.3, "seed": n, "schedule": "rounds",
                                 "samples": None, "max_samples": 1000, "time_limit_s": 0.01, "precision_pct": 0.5,
                                 "subtract": True, "stack_offset": 2944, "start_cpu": 0}
                    for b in SUITE for p in PLATFORMS}
        return {"benchlab": "0.2.0", "date": date, **machine, "os": "Linux", "python": "3.11.2", "numpy": "2.1.3",
                "compilers": {"native": "gcc 12.2.0", "wasm32-wasi": "clang 14.0.6"},
                "cflags": {"native": ["-O2"], "wasm32-wasi": ["-O2"]},
                "git": {"commit": hashlib.sha1(str(n).encode()).hexdigest(), "dirty": False}, "seed": n,
                "argv": ["benchlab", "run", "suites/sys", "suites/calls"],
                "load": {"start": {"average": average, "cpus": 2}, "end": {"average": average, "cpus": 2}},
                "platforms": {p: {"command": None, "launchers": [], "build": p, "version": None} for p in PLATFORMS},
                "binaries": binaries, "plan": plan, "code": code}

    def records(self, n: int) -> list:
        from benchlab.records import Record
        records = []
        noisy = random.Random(n)
        for binary, benches in SUITE.items():
            # a 5% level shift per change of the binary's code, up and down in turn
            version = self.code(n, binary)
            level = (1.05 if version % 2 else 1.0) * (BUSY_FACTOR if self.busy(n) else 1.0)
            level *= 1.08 if self.machine(n) is MACHINES[1] else 1.0
            run_level = level * (1 + noisy.gauss(0, 0.005))
            for platform in PLATFORMS:
                for bench, param in benches:
                    base = LEVELS[(bench, param)] * (2 if platform == "wasm" else 1) * run_level
                    for process in range(PROCESSES):
                        samples, overhead, summary = self.templates[(binary, bench, param, platform, process)]
                        factor = base * (1 + noisy.gauss(0, 0.003))
                        records.append(Record(
                            bench=bench, param=param, param_name="args" if param is not None else None,
                            counter="time", unit="ns", format="jsonl", iterations=1000, platform=platform,
                            binary=binary, samples=[x * factor for x in samples],
                            sample_iterations=[1000] * SAMPLES, overhead_samples=overhead,
                            summary=_scaled(summary, factor),
                            reported={"process": process, "env_pad": 512 * process, "stack_offset": 64 * process,
                                      "start_cpu": process % 2, "stopped": "samples", "subtracted": True,
                                      "preempted": 0, "left_out": 0, "involuntary_switches": 0, "run_delay_ns": 0.0,
                                      "sampled_ns": 1.1e6, "short_samples": False,
                                      "unit": len(records) // PROCESSES}))
        return records


#: Summary statistics that are counts or flags, not values: not scaled with the samples.
_UNSCALED = {"n", "ci_level", "ci_scope", "outliers_low", "outliers_high", "zero", "loop_share"}


def _scaled(summary: dict, factor: float) -> dict:
    def scale(value):
        if isinstance(value, list):
            return [v * factor for v in value]
        return value * factor if isinstance(value, float) else value
    return {key: value if key in _UNSCALED else scale(value) for key, value in summary.items()}


def grow(url: str, synthetic: Synthetic, start: int, end: int) -> None:
    """Runs start..end-1 stored in `url` through Store.import_run, a baseline `main` 10 runs before the end."""
    from benchlab.storage.store import open_store
    store = open_store(url)
    try:
        last = None
        for n in range(start, end):
            context = synthetic.context(n)
            done = [{"binary": b, "platform": p, "sweep": None} for b in SUITE for p in PLATFORMS] * PROCESSES
            last = store.import_run(context["argv"], list(PLATFORMS), context, synthetic.records(n), [], done,
                                    "complete", 0)
            if n == end - 11:
                store.save_baseline("main", last, force=True)
    finally:
        store.close()


def commands(scratch: Path) -> dict[str, list[str]]:
    """The read commands, as a user types them."""
    return {
        "show": ["show", "latest"],
        "runs": ["runs"],
        "stats": ["stats", "latest"],
        "compare": ["compare", "-2", "latest"],
        "history": ["history", HISTORY_NAME],
        "history --last 50": ["history", HISTORY_NAME, "--last", "50"],
        "report": ["report", "latest", "--out", str(scratch / "report")],
        "export": ["export", "latest"],
        "gate --no-remeasure": ["gate", "latest", "--baseline", "main", "--no-remeasure"],
    }


#: Exit statuses that are answers, not failures: gate's 3 (slower) and 4 (inconclusive).
ANSWERS = {"gate --no-remeasure": (0, 3, 4)}


def time_command(name: str, argv: list[str], url: str, cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh benchlab process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([*BENCHLAB, *argv, "--db", url], cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ANSWERS.get(name, (0,)):
        raise SystemExit(f"scale: `benchlab {' '.join(argv)}` exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


@contextlib.contextmanager
def database(engine: str, scratch: Path) -> Iterator[str]:
    """An empty store's URL: an SQLite file in `scratch`, or a database on a throw-away PostgreSQL server."""
    if engine == "sqlite":
        yield f"sqlite:///{scratch / 'scale.db'}"
        return
    # Under /tmp: as root the server runs as `postgres`, which must be able to enter it.
    directory = tempfile.mkdtemp(prefix="benchlab-scale-pg-", dir="/tmp")
    started = subprocess.run([str(PG_TEST_SERVER), "start", directory], capture_output=True, text=True)
    if started.returncode != 0:
        shutil.rmtree(directory, ignore_errors=True)
        raise SystemExit(f"scale: scripts/pg-test-server could not start PostgreSQL: {started.stderr.strip()}")
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run([str(PG_TEST_SERVER), "stop", directory], capture_output=True)


def measure(engine: str, sizes: list[int], repeats: int, lock: str | None) -> dict[str, dict[int, tuple]]:
    """{command: {size: (median CPU s, median wall s)}} on one engine's store grown to each size."""
    found: dict[str, dict[int, tuple]] = {}
    synthetic = Synthetic()
    with tempfile.TemporaryDirectory(prefix="benchlab-scale-") as name:
        scratch = Path(name)
        with database(engine, scratch) as url:
            stored = 0
            for size in sizes:
                started = time.perf_counter()
                grow(url, synthetic, stored, size)
                print(f"{engine}: {size:,} runs stored ({size - stored:,} in {time.perf_counter() - started:.0f} s)",
                      file=sys.stderr, flush=True)
                stored = size
                with locked(lock):
                    for command, argv in commands(scratch).items():
                        times = [time_command(command, argv, url, scratch) for _ in range(repeats)]
                        found.setdefault(command, {})[size] = (statistics.median(t[0] for t in times),
                                                               statistics.median(t[1] for t in times))
    return found


def table(engine: str, sizes: list[int], found: dict[str, dict[int, tuple]]) -> str:
    last, before = sizes[-1], sizes[-2] if len(sizes) > 1 else sizes[-1]
    head = ["command"] + [f"{s:,} runs" for s in sizes] + [f"ratio {last:,}/{before:,}"]
    rows = [head]
    for command, by_size in found.items():
        ratio = by_size[last][0] / by_size[before][0]
        mark = f" >{TARGET_RATIO:g}x" if ratio > TARGET_RATIO else ""
        rows.append([command] + [f"{by_size[s][0]:.2f} ({by_size[s][1]:.2f})" for s in sizes] +
                    [f"{ratio:.2f}{mark}"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"{engine}: CPU seconds of the benchlab process (wall seconds), median of its processes"]
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="60 and 180 runs on SQLite, one process per figure")
    parser.add_argument("--sizes", help="store sizes in runs, comma-separated (default 100,1000,10000)")
    parser.add_argument("--engines", help="sqlite, postgresql or both (default: both; --quick: sqlite)")
    parser.add_argument("--repeats", type=int, help=f"processes per figure (default {REPEATS}; --quick {QUICK_REPEATS})")
    parser.add_argument("--lock", metavar="FILE", help="flock FILE around each size's timings")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(",")) if args.sizes else list(QUICK_SIZES if args.quick else SIZES)
    engines = args.engines.split(",") if args.engines else (["sqlite"] if args.quick else ["sqlite", "postgresql"])
    repeats = args.repeats or (QUICK_REPEATS if args.quick else REPEATS)
    for engine in engines:
        if engine not in ("sqlite", "postgresql"):
            parser.error(f"--engines takes sqlite and postgresql (got {engine!r})")
    # SIGTERM as an exit, so that the scratch store and the PostgreSQL server are removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"benchlab read commands against the store's size: {', '.join(f'{s:,}' for s in sizes)} runs "
          f"({len(SUITE) * len(PLATFORMS) * 2 * PROCESSES} records of {SAMPLES} samples each); "
          f"target: {TARGET_RATIO:g}x at most from {sizes[-2] if len(sizes) > 1 else sizes[-1]:,} to {sizes[-1]:,}")
    for engine in engines:
        found = measure(engine, sizes, repeats, args.lock)
        print()
        print(table(engine, sizes, found))
    print()
    print("reproduce: .venv/bin/python bench/scale.py " + " ".join(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
