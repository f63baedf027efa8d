"""`history --last 1000` and `report --history 10000` on stores of 1,000 and 10,000 runs:
CPU, wall and peak memory, before and after, in one run (issue 40).

The store is bench/scale.py's (the same synthetic runs through Store.import_run: two
binaries on two platforms, 80 records of 40 samples per run, a second machine taking 40
runs of every 400, the latest of 10,000 among them), grown to 1,000 runs, timed, grown to
10,000, timed again. Each command runs in a fresh process of each benchlab:

    before   the source of git revision --before (default: the branch's merge base with
             main), extracted into a scratch directory and put first on PYTHONPATH
    after    this checkout's

and its CPU seconds (user + system), wall seconds and peak memory (ru_maxrss of that one
child, from os.wait4) are printed per size, with the ratio 10,000 / 1,000 runs. The targets:
`history --last 1000` within 1.2x from 1,000 to 10,000 runs, and `report --history 10000`'s
peak memory bounded (not growing with the runs it reads). A benchmark, not a test: it
prints figures and exits 0 whatever they are (non-zero when a command fails).

    flock /work/bench.lock .venv/bin/python bench/history_scale.py           # about 10 minutes
    .venv/bin/python bench/history_scale.py --sizes 60,180 --history 180     # a quick look
    .venv/bin/python bench/history_scale.py --keep /tmp/hs                   # keep (and reuse) the store there
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import io
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import HISTORY_NAME, Synthetic, grow  # noqa: E402  (bench/ is not a package)

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1_000, 10_000)
REPEATS = 3


def commands(size: int, history: int, scratch: Path) -> dict[str, list[str]]:
    return {f"history {HISTORY_NAME} --last 1000": ["history", HISTORY_NAME, "--last", "1000"],
            f"report --history {history}": ["report", "--history", str(history), "--out", str(scratch / "report")]}


def before_source(revision: str, scratch: Path) -> Path:
    """The src/ of `revision`, extracted into `scratch` (its `benchlab` package first on PYTHONPATH)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "src", "include"], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(scratch / "before", filter="data")
    return scratch / "before" / "src"


def run_one(argv: list[str], url: str, cwd: Path, source: Path | None) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak MB) of one benchlab process."""
    env = dict(os.environ, BENCHLAB_DB=url)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "benchlab", *argv], cwd=cwd, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"history_scale: `benchlab {' '.join(argv)}` exited {child.returncode}: "
                         f"{stderr.decode(errors='replace').strip()[-500:]}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="store sizes in runs (default 1000,10000)")
    parser.add_argument("--history", type=int, default=10_000, help="report --history N (default 10000)")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="processes per history figure (the report: 1)")
    parser.add_argument("--before", help="git revision of `before` (default: git merge-base HEAD main)")
    parser.add_argument("--keep", metavar="DIR", help="grow the store in DIR and keep it (reused when there)")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    revision = args.before or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], check=True,
                                             capture_output=True, text=True).stdout.strip()
    scratch = Path(tempfile.mkdtemp(prefix="benchlab-history-scale-"))
    store_dir = Path(args.keep) if args.keep else scratch
    store_dir.mkdir(parents=True, exist_ok=True)
    try:
        sides = {"before": before_source(revision, scratch), "after": None}
        url = f"sqlite:///{store_dir / 'history-scale.db'}"
        found: dict[tuple[str, str], dict[int, tuple]] = {}
        stored = _stored_runs(url)
        synthetic = Synthetic()
        for size in sizes:
            if stored > size:
                raise SystemExit(f"history_scale: the kept store has {stored} runs, more than {size}")
            if stored < size:
                started = time.perf_counter()
                grow(url, synthetic, stored, size)
                print(f"{size:,} runs stored ({size - stored:,} in {time.perf_counter() - started:.0f} s)",
                      file=sys.stderr, flush=True)
                stored = size
            for command, argv in commands(size, args.history, scratch).items():
                for side, source in sides.items():
                    repeats = 1 if command.startswith("report") else args.repeats
                    runs = [run_one(argv, url, scratch, source) for _ in range(repeats)]
                    found.setdefault((command, side), {})[size] = tuple(statistics.median(r[i] for r in runs)
                                                                         for i in range(3))
                    cpu, wall, peak = found[(command, side)][size]
                    print(f"  {size:,} runs, {command}, {side}: {cpu:.2f} s CPU, {wall:.2f} s wall, {peak:.0f} MB",
                          file=sys.stderr, flush=True)
        print(f"before: {revision[:10]}; after: this checkout; load average at the end "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(table(sizes, found))
        print("reproduce: .venv/bin/python bench/history_scale.py " + " ".join(sys.argv[1:]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _stored_runs(url: str) -> int:
    from benchlab.storage.store import open_store
    store = open_store(url)
    try:
        rows = store.list_runs(limit=1)
        return int(rows[0]["id"]) if rows else 0
    finally:
        store.close()


def table(sizes: list[int], found: dict[tuple[str, str], dict[int, tuple]]) -> str:
    first, last = sizes[0], sizes[-1]
    head = ["command", "side"] + [f"{s:,} runs: CPU s (wall), peak MB" for s in sizes] + [f"CPU {last:,}/{first:,}",
                                                                                          f"peak {last:,}/{first:,}"]
    rows = [head]
    for (command, side), by_size in found.items():
        rows.append([command, side] + [f"{by_size[s][0]:.2f} ({by_size[s][1]:.2f}), {by_size[s][2]:.0f}" for s in sizes]
                    + [f"{by_size[last][0] / by_size[first][0]:.2f}", f"{by_size[last][2] / by_size[first][2]:.2f}"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
