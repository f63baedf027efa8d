"""How long `benchlab show` takes for a run of 12,500, 25,000 and 100,000 rows: it must
grow linearly with the rows (issue 18: 12,500 rows took 59 s, 25,000 did not finish in
250 s, because each row's cells asked questions of the whole table).

Stores one synthetic run per size in a scratch SQLite database (one record of 10
samples per row, one platform), then times `benchlab show RUN --db URL` as a user runs
it, in a fresh process, best of REPEATS. Prints the seconds per size, the seconds per
1,000 rows, and the ratio of each size's time to the smallest's against the ratio of
their rows (linear: the two agree). A benchmark, not a test: it prints figures and exits
0 whatever they are.

    .venv/bin/python bench/show_rows.py              # 12,500 / 25,000 / 100,000 rows
    .venv/bin/python bench/show_rows.py 1000 4000    # other sizes
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (12_500, 25_000, 100_000)
REPEATS = 3
SAMPLES = 10
BENCHLAB = os.path.abspath(".venv/bin/benchlab")


def store_run(url: str, rows: int) -> int:
    """One run of `rows` rows, ten parameters per benchmark name: its id."""
    from benchlab.records import Record
    from benchlab.storage.store import open_store
    rng = random.Random(rows)
    records = [Record(bench=f"bench{i // 10}", param=i % 10, platform="native", binary="suite",
                      samples=[100 + rng.random() for _ in range(SAMPLES)]) for i in range(rows)]
    store = open_store(url)
    run_id = store.begin_run(["benchlab", "run", "suite"], ["native"], {})
    store.add_unit(run_id, records, [])
    store.finish_run(run_id, "complete", 0)
    store.close()
    return run_id


def time_show(url: str, run_id: int) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        subprocess.run([BENCHLAB, "show", str(run_id), "--db", url], check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=list(SIZES), help="rows per run")
    sizes = sorted(parser.parse_args().sizes)
    with tempfile.TemporaryDirectory(prefix="benchlab-show-rows-") as scratch:
        url = f"sqlite:///{Path(scratch) / 'rows.db'}"
        runs = {rows: store_run(url, rows) for rows in sizes}
        print(f"benchlab show of one run, best of {REPEATS} fresh processes (start-up included)")
        print(f"{'rows':>8}  {'seconds':>8}  {'s per 1000 rows':>15}  {'time ratio':>10}  {'rows ratio':>10}")
        first = None
        for rows in sizes:
            seconds = time_show(url, runs[rows])
            first = first or (rows, seconds)
            print(f"{rows:>8,}  {seconds:>8.2f}  {1000 * seconds / rows:>15.3f}  {seconds / first[1]:>10.2f}  "
                  f"{rows / first[0]:>10.2f}")
    print(f"reproduce: flock /tmp/benchlab-timing.lock .venv/bin/python bench/show_rows.py {' '.join(map(str, sizes))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
