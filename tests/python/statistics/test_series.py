"""The history model (statistics/series.py) without a command: which runs a series is made
of, its points and their intervals, its shifts, and that it reads no more than it shows; on
SQLite and PostgreSQL (db_url). Runs are stored through the Store API with figures known
exactly: three processes at median-1, median, median+1, so the combined figure is the median."""
import pytest

from benchlab.output.htmlreport.history import read_history
from benchlab.output.htmlreport.runs import load_id
from benchlab.records import Record
from benchlab.statistics import series
from benchlab.statistics import noise
from benchlab.statistics.combine import figures, history_key
from benchlab.storage import sql
from benchlab.storage.store import Store, open_store
from conftest import counting

MACHINES = {"a": {"host": "ci-a", "cpu": "CPU A", "kernel": "6.1.0"},
            "b": {"host": "ci-b", "cpu": "CPU B", "kernel": "6.1.0", "arch": "x86_64"}}


def store_run(store: Store, day: int, machine: str, levels: dict[tuple[str, str], float], code: str) -> int:
    """One run on `machine` with a figure per (bench, platform) of `levels`, of code `code`."""
    platforms = sorted({platform for _, platform in levels})
    context = {"date": f"2026-10-{1 + day // 24:02d}T{day % 24:02d}:00:00Z", **MACHINES[machine],
               "git": {"commit": f"{day:040x}", "dirty": False}, "platforms": {p: {} for p in platforms},
               "code": {f"sys@{p}": {"id": f"{code}-{p}"} for p in platforms},
               # a plan of 3 processes per unit: noise.several_processes
               "plan": [{"binary": "sys", "platform": p, "sweep": None} for p in platforms for _ in range(3)]}
    run_id = store.begin_run(["benchlab", "run"], platforms, context)
    records = [Record(bench=bench, param=None, counter="time", samples=[m - 0.5, m, m + 0.5] * 3, iterations=1000,
                      platform=platform, binary="sys", format="jsonl", reported={"process": process})
               for (bench, platform), median in levels.items()
               for process, m in enumerate((median - 1 + 0.01 * day, median + 0.01 * day, median + 1 + 0.02 * day))]
    store.add_unit(run_id, records, [])
    store.finish_run(run_id, "complete", 0)
    return run_id


def fleet(store: Store, runs: int = 36) -> dict[str, list[int]]:
    """Machine a's runs, with every third run on machine b (twice as slow): getpid and close on
    native and wasm; getpid on a 20% slower from a's 12th run on (its code changed there)."""
    ids: dict[str, list[int]] = {"a": [], "b": []}
    for day in range(runs):
        machine = "b" if day % 3 == 2 else "a"
        shifted = machine == "a" and len(ids["a"]) >= 12
        factor = (2.0 if machine == "b" else 1.0)
        getpid = 100.0 * factor * (1.2 if shifted else 1.0)
        levels = {("getpid", "native"): getpid, ("getpid", "wasm"): 3 * getpid,
                  ("close", "native"): 300.0 * factor, ("close", "wasm"): 900.0 * factor}
        ids[machine].append(store_run(store, day, machine, levels, "v2" if shifted else "v1"))
    return ids


@pytest.fixture
def store(project, db_url):
    store = open_store(db_url)
    yield store
    store.close()


def test_a_series_is_one_benchmark_platform_and_machine_with_its_shift(store):
    ids = fleet(store)
    found = series.read_series(store, "getpid", platform="native", counter="time", param=None, host="ci-a", last=100)
    assert [p.run["id"] for p in found.points] == ids["a"]  # machine b's runs left out, said
    assert "12 runs" in found.notes[-1] and "ci-b" in found.notes[-1]
    day = {run_id: index for index, run_id in enumerate(sorted(ids["a"] + ids["b"]))}
    expected = [(100.0 if i < 12 else 120.0) + 0.01 * day[run_id] + 0.01 * day[run_id] / 3
                for i, run_id in enumerate(ids["a"])]
    assert [p.record.median for p in found.points] == pytest.approx(expected)
    assert all(p.record.samples == [] for p in found.points)  # held without their samples
    shifts = series.shifts(found.points)
    assert [(s.change.index, round(s.change.change, 2)) for s in shifts] == [(12, 0.2)]
    # Each run's interval is its processes' combined with the run level of the runs of the same
    # code before it (Leveller); the first three runs of each code have too few before them,
    # and on a machine with no prior their own processes stand in (noise.own_level), as in show's.
    records = store.bench_records("getpid", "time", ids["a"], platform="native")
    alone = {run_id: figures(records[run_id])[0] for run_id in ids["a"]}
    own = {run_id: figures(records[run_id], {history_key(figure): noise.own_level(figure.figures.process_medians)})[0]
           for run_id, figure in alone.items()}
    same = [tuple(p.interval) == tuple(alone[p.run["id"]].figures.interval) for p in found.points]
    with_own = [tuple(p.interval) == tuple(own[p.run["id"]].figures.interval) for p in found.points]
    assert all(with_own[0:3]) and all(with_own[12:15]) and not any(with_own[3:12]) and not any(with_own[15:])
    assert not any(same)


def test_the_report_draws_the_series_history_reads(store):
    """One model: the report's trend line of a benchmark is `benchlab history`'s series, run for
    run, figure and interval alike; and its change points are history's."""
    ids = fleet(store)
    latest = load_id(store, ids["a"][-1])
    history = read_history(store, latest, latest, 10_000)
    assert [stored.id for stored in history.runs] == ids["a"] and history.measured == set(ids["a"])
    assert all(stored.records == [] for stored in history.runs if stored.id != latest.id)  # rows, not records
    for bench, platform in (("getpid", "native"), ("getpid", "wasm"), ("close", "native")):
        command = series.read_series(store, bench, platform=platform, counter="time", param=None, host="ci-a",
                                     last=100).points
        key = next(k for k in history.series if k[0][0] == bench and k[1] == platform)
        drawn = history.series[key]
        assert [(p.run["id"], p.record.median, p.interval) for p in drawn] == \
               [(p.run["id"], p.record.median, p.interval) for p in command]
        assert [s.change for s in series.shifts(drawn)] == [s.change for s in series.shifts(command)]


def test_later_pages_of_a_series_read_its_machine_only(store):
    """--last 2 of machine b (a run in three): a page of 22 runs of getpid picks the machine;
    the next pages are b's runs only, in SQL, not a's 2 runs in 3 read and left out."""
    ids = fleet(store, runs=90)
    with counting(store) as read:
        found = series.read_series(store, "getpid", platform="native", counter="time", param=None, host=None,
                                   last=2)
    assert [p.run["id"] for p in found.points] == ids["b"][-2:]
    run_rows = [rows for statement, rows in read if "FROM runs WHERE id IN" in statement]
    assert sql.JSON_FIELDS, "this SQLite has no ->>: the machine is not read in SQL"
    # the first page: 22 runs of getpid (7 of b); then b's runs only, as many as the 22 asked for
    assert run_rows == [22, 22]
    assert sum("->>" in statement for statement, _ in read) == 1


def test_the_report_reads_its_history_a_page_of_runs_at_a_time(store, monkeypatch):
    ids = fleet(store)
    latest = load_id(store, ids["a"][-1])
    whole = read_history(store, latest, latest, 10_000)
    monkeypatch.setattr(series, "RUNS_PER_PAGE", 5)
    with counting(store) as read:
        paged = read_history(store, latest, latest, 10_000)
    records = [rows for statement, rows in read if "FROM records WHERE run_id IN" in statement]
    # 24 runs of machine a, 5 a statement, each run's 12 records (2 benchmarks, 2 platforms, 3 processes)
    assert records == [60, 60, 60, 60, 48]
    # the runs' rows: machine a's only (the machine in SQL), not b's 12 among them
    assert sum(rows for statement, rows in read if "FROM runs WHERE id <" in statement) == len(ids["a"])
    assert {key: [(p.run["id"], p.record.median, p.interval) for p in points]
            for key, points in paged.series.items()} == \
           {key: [(p.run["id"], p.record.median, p.interval) for p in points] for key, points in whole.series.items()}
