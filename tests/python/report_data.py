"""Stored runs for the report's tests: made up, so that every section has something to draw
and a test knows what each chart must hold."""
from __future__ import annotations

import dataclasses
import datetime
import random

from benchlab.records import Record
from benchlab.storage.store import open_store, Store

#: Benchmark names a user could give that would break a page that does not escape them.
HOSTILE_NAMES = ("<script>alert(1)</script>", '"quotes" & ampersands')


def time_records(bench: str, platform: str, level: float, processes: int = 3, *, param=None,
                 binary: str = "sys", seed: int = 0) -> list[Record]:
    """One time record per process: 20 samples around `level`, each process a little apart,
    with an empty loop of ~2 ns to subtract."""
    rng = random.Random(f"{bench}{platform}{level}{seed}")
    result = []
    for process in range(processes):
        offset = level * 0.01 * (process - 1)
        samples = [level + offset + rng.gauss(0, level * 0.005) + 2.0 for _ in range(20)]
        overhead = [2.0 + rng.gauss(0, 0.01) for _ in range(20)]
        result.append(Record(bench=bench, param=param, samples=samples, overhead_samples=overhead, iterations=1000,
                             platform=platform, binary=binary, format="jsonl", reported={"process": process}))
    return result


def sweep_records(platform: str = "native") -> list[Record]:
    """A threaded target's throughput at 1, 2 and 4 threads."""
    return [Record(bench="hash_map", param=threads, param_name="threads", counter="throughput", unit="ops/s",
                   samples=[1e6 * threads ** 0.8], iterations=1, platform=platform, binary="hash_map", format="jsonl",
                   sweep={"flag": "threads", "value": threads}) for threads in (1, 2, 4)]


def workload_records(scale: float = 1.0) -> list[Record]:
    measures = (("user", "s", 1.2), ("sys", "s", 0.1), ("wall", "s", 1.4), ("max_rss", "KiB", 5000.0))
    return [Record(bench="gzip", param=None, counter=counter, unit=unit, iterations=1,
                   samples=[value * scale * f for f in (0.98, 1.0, 1.03)], platform="native", binary="gzip",
                   format="workload") for counter, unit, value in measures]


def store_run(store: Store, records: list[Record], platforms: list[str], commit: str, date: str) -> int:
    # One code identity for every run (noise.py): the 10% shift of `history` reads as the
    # machine's, so that later runs have identical-code history for their intervals.
    context = {"date": date, "host": "ci-box-1", "cpu": "Test CPU", "kernel": "6.1.0",
               "git": {"commit": commit, "dirty": False},
               "code": {f"{r.binary}@{r.platform}": {"id": "same"} for r in records}}
    run_id = store.begin_run(["benchlab", "run", "suites/sys"], platforms, context)
    store.add_unit(run_id, records, [])
    store.finish_run(run_id, "complete", 0)
    return run_id


def earlier_runs(store: Store, records_of, count: int = 3) -> list[int]:
    """`count` runs of `records_of(seed=k)` on store_run's machine, one a day before 2026-11-20: the
    earlier runs of identical code a user's store holds before the runs a test compares, which
    give their figures a run level (noise.py). Without them, and without a machine prior, a
    run's own processes stand in, and a rerun of 3 may move as far as one of them at 2 degrees
    of freedom: +-10% for time_records' processes 1% apart (noise.own_level)."""
    return [store_run(store, records_of(seed=seed), ["native", "wasm"], f"{seed:02d}" + "ee" * 19,
                      f"2026-11-{19 - count + seed:02d}T09:00:00Z") for seed in range(1, count + 1)]


def profile_run(store: Store, shares: dict[str, float], date: str) -> int:
    """A run as `benchlab profile` stores it: no records, a share per bucket (self and inclusive)."""
    context = {"date": date, "host": "ci-box-1", "cpu": "Test CPU", "kernel": "6.1.0",
               "profile": {"profiler": "perf", "unit": "samples"}}
    run_id = store.begin_run(["benchlab", "profile", "gzip"], ["native"], context)
    rows = [dict(platform="native", target="gzip", kind=kind, position=position, bucket=bucket,
                 samples=int(share * 10), share=share, top_symbols=[])
            for kind in ("self", "inclusive") for position, (bucket, share) in enumerate(shares.items())]
    store.add_profile(run_id, rows)
    store.finish_run(run_id, "complete", 0)
    return run_id


#: Two profiles of one workload: "deflate" loses 10 percentage points to the hostile bucket.
PROFILES = ({"deflate": 60.0, HOSTILE_NAMES[0]: 10.0, "other": 30.0},
            {"deflate": 50.0, HOSTILE_NAMES[0]: 20.0, "other": 30.0})


def suite_run(level: float = 100.0, *, seed: int = 0, hostile: bool = True) -> list[Record]:
    """Two platforms, three benchmarks (two with hostile names) of three processes each."""
    names = ["sys_close", *(HOSTILE_NAMES if hostile else ())]
    records = []
    for index, name in enumerate(names):
        for platform, factor in (("native", 1.0), ("wasm", 3.0)):
            records += time_records(name, platform, level * factor * (index + 1), seed=seed)
    return records


def history(store: Store, runs: int = 8, shift_at: int = 5) -> list[int]:
    """`runs` runs of the suite, the level 10% higher from run index `shift_at` on; the last
    also has a sweep; every one a workload. Two profiles come after the first two runs."""
    ids = []
    for index in range(runs):
        if index in (1, 2):
            profile_run(store, PROFILES[index - 1], day(index, "08:00:00"))
        level = 100.0 * (1.10 if index >= shift_at else 1.0)
        records = suite_run(level, seed=index)
        if index == runs - 1:
            records += sweep_records()
        records += workload_records(1.0 + 0.02 * index)
        ids.append(store_run(store, records, ["native", "wasm"], f"{index:02d}" + "ab" * 19, day(index, "09:00:00")))
    return ids


def day(index: int, time: str) -> str:
    """The date of history's run `index`: one a day from 2026-11-10."""
    return f"{datetime.date(2026, 11, 10) + datetime.timedelta(days=index)}T{time}Z"


# -- the four stores whose first screen the browser tests photograph ---------------------------

def regression_records(level: float = 100.0, *, changed: bool = False, seed: int = 0) -> list[Record]:
    """A suite of five benchmarks on native and wasm. Changed: sys_close 20% slower, fs_read 20%
    faster, tiny_call 19x slower (a benchmark whose body changed), and ipc_pipe's processes 30%
    apart (its interval straddles any limit: inconclusive); the others as they were."""
    factors = {"sys_close": 1.20, "fs_read": 0.80, "tiny_call": 19.0} if changed else {}
    records = []
    for index, name in enumerate(("sys_close", "fs_read", "tiny_call", "sys_geteuid", "ipc_pipe")):
        for platform, factor in (("native", 1.0), ("wasm", 3.0)):
            base = level * factor * (index + 1) * factors.get(name, 1.0)
            found = time_records(name, platform, base, seed=seed, binary=name if name != "tiny_call" else "calls")
            if name == "ipc_pipe":  # processes 30% apart: a wide interval (summary={}: summarized anew)
                found = [dataclasses.replace(record, summary={},
                                             samples=[v * (1 + 0.3 * (record.process - 1)) for v in record.samples])
                         for record in found]
            records += found
    return records


def baseline_and_regression(store: Store) -> tuple[int, int]:
    """Run 1 saved as baseline `main`, run 2 with regression_records' changes."""
    first = store_run(store, regression_records(), ["native", "wasm"], "a1" * 20, "2026-11-20T09:00:00Z")
    store.save_baseline("main", first)
    second = store_run(store, regression_records(changed=True, seed=1), ["native", "wasm"], "b2" * 20,
                       "2026-11-21T09:00:00Z")
    return first, second


def profiles_last(store: Store) -> list[int]:
    """history(), then a third profile as the latest run: the default report must not be about it."""
    ids = history(store, runs=4, shift_at=9)
    ids.append(profile_run(store, {"deflate": 45.0, HOSTILE_NAMES[0]: 25.0, "other": 30.0}, "2026-11-30T08:00:00Z"))
    return ids
