"""A store's writes through Python's sqlite3 (connection.SqliteConnection, what every command uses
for an SQLite file at the head revision) store exactly what they store through SQLAlchemy
(engine.SqlAlchemyConnection, here for an SQLite URL with options), fail the same way, and
are used only where they can be."""
import sqlite3

import pytest

from benchlab.errors import StoreFailed, UserError
from benchlab.records import Fault, Record
from benchlab.storage.connection import SqliteConnection
from benchlab.storage.store import open_store

TABLES = {"runs": "id, status, exit_code, host, argv, platforms, context, imported_sha256",
          "records": 'id, run_id, platform, "binary", bench, param, param_name, counter, unit, format, iterations, '
                     "median, sweep, samples, sample_iterations, summary, reported",
          "faults": 'id, run_id, platform, "binary", reason, stderr_tail, sweep',
          "units": 'id, run_id, "binary", platform, sweep'}


def new_store(tmp_path, name: str, writer: str):
    """A store of a new SQLite file, writing through SQLAlchemy ("sqlalchemy") or sqlite3 ("sqlite3")."""
    url = f"sqlite:///{tmp_path / name}"
    # SQLAlchemy's for a URL with options (SQLite's own busy timeout, as open_store's)
    store = open_store(url + "?timeout=60" if writer == "sqlalchemy" else url)
    assert type(store.connection).__name__ == {"sqlalchemy": "SqlAlchemyConnection", "sqlite3": "SqliteConnection"}[writer]
    return store


def write_example_run(store) -> int:
    """A run with every kind of column: JSON of nested values and None, a NUL in a fault, a
    sweep, an empty loop's samples, an unsupported counter, a context updated at the end."""
    run_id = store.begin_run(["benchlab", "run", "é"], ["native", "wasm"], {"seed": 5, "plan": []})
    timed = Record(bench="read", param=1024, samples=[3.0, 1.0, 2.0], iterations=100, platform="wasm",
                   binary="fs_read", format="jsonl", reported={"ratio": 1.5}, overhead_samples=[0.25, 0.5, 0.25],
                   sweep={"flag": "size", "value": "4"})
    unsupported = Record(bench="b", param=None, counter="instructions", unit="instructions", samples=[],
                         sample_iterations=[], platform="native", binary="b", format="jsonl",
                         reported={"supported": False, "reason": "no PMU"})
    store.add_unit(run_id, [timed, unsupported], [Fault("fs_write", "wasm", "exit status 3\0", ["boom"])],
                   {"binary": "fs_read", "platform": "wasm", "sweep": {"flag": "size", "value": "4"}})
    store.add_unit(run_id, [], [], {"binary": "b", "platform": "native", "sweep": None})
    store.finish_run(run_id, "failed", 1)
    store.update_context(run_id, {"seed": 5, "plan": [], "finished": True})
    return run_id


def rows(path) -> dict[str, list[tuple]]:
    """Every row as SQLite holds it (its type and text), but the dates and the pid."""
    with sqlite3.connect(path) as connection:
        return {table: connection.execute(f"SELECT {columns} FROM {table} ORDER BY id").fetchall()
                for table, columns in TABLES.items()}


def test_both_writers_store_the_same_rows(tmp_path):
    stores = {writer: new_store(tmp_path, f"{writer}.db", writer) for writer in ("sqlalchemy", "sqlite3")}
    for store in stores.values():
        assert write_example_run(store) == 1
        store.close()
    written = {writer: rows(tmp_path / f"{writer}.db") for writer in stores}
    assert written["sqlite3"] == written["sqlalchemy"]
    # and what they hold is the run: a test of two empty tables would pass above
    record = written["sqlite3"]["records"][0]
    assert (record[4], record[5], record[11]) == ("read", 1024, 2.0)
    assert record[-1] == '{"ratio": 1.5, "overhead_samples": [0.25, 0.5, 0.25]}'
    assert written["sqlite3"]["faults"][0][4] == "exit status 3\\0"
    assert [unit[4] for unit in written["sqlite3"]["units"]] == ['{"flag": "size", "value": "4"}', "null"]
    assert written["sqlite3"]["runs"][0][1:3] == ("failed", 1)


@pytest.mark.parametrize("writer", ["sqlalchemy", "sqlite3"])
def test_a_run_written_either_way_reads_back(tmp_path, writer):
    store = new_store(tmp_path, "results.db", writer)
    run_id = write_example_run(store)
    run, loaded, faults = store.load_run(store.resolve_run_id("latest"))
    assert (run_id, run["status"], run["exit_code"], run["context"]["finished"]) == (1, "failed", 1, True)
    assert run["missing"] == [] and run["argv"] == ["benchlab", "run", "é"]
    assert [(r.bench, r.median, r.overhead_samples, r.supported) for r in loaded] == [
        ("read", 2.0, [0.25, 0.5, 0.25], True), ("b", None, None, False)]
    assert faults == [Fault("fs_write", "wasm", "exit status 3\\0", ["boom"], None)]


@pytest.mark.parametrize("writer", ["sqlalchemy", "sqlite3"])
def test_a_failed_write_stores_nothing_of_its_unit_and_says_so_alike(tmp_path, writer):
    store = new_store(tmp_path, "results.db", writer)
    run_id = store.begin_run(["benchlab"], ["native"], {})
    good = Record(bench="kept", param=None, samples=[1.0], iterations=1, platform="native", binary="x")
    # A unit of a run that does not exist: the foreign key refuses it, after its first row went in.
    with pytest.raises(StoreFailed) as failed:
        store.add_unit(run_id + 1, [good], [Fault("x", "native", "exit status 1", [])])
    assert str(failed.value.what) == f"cannot write to database {store.url!r}: FOREIGN KEY constraint failed"
    store.add_unit(run_id, [good], [])  # the store is usable after it
    assert [r.bench for r in store.load_run(run_id)[1]] == ["kept"]
    with sqlite3.connect(tmp_path / "results.db") as connection:
        assert connection.execute("SELECT count(*) FROM records").fetchone() == (1,)


@pytest.mark.parametrize("writer", ["sqlalchemy", "sqlite3"])
def test_a_run_a_baseline_keeps_is_not_deleted(tmp_path, writer):
    store = new_store(tmp_path, "results.db", writer)
    kept, forgotten = write_example_run(store), write_example_run(store)
    open_store(store.url).save_baseline("nightly", kept)
    with pytest.raises(UserError, match="run 1 is kept as baseline 'nightly'"):
        store.delete_run(kept)
    store.delete_run(forgotten)
    left = rows(tmp_path / "results.db")
    assert [run[0] for run in left["runs"]] == [kept]
    assert {record[1] for record in left["records"]} == {kept} and len(left["records"]) == 2
    assert {unit[1] for unit in left["units"]} == {kept}


def connection_of(url: str) -> str:
    store = open_store(url)
    store.close()
    return type(store.connection).__name__


def test_open_store_takes_sqlite3_for_a_plain_sqlite_file_and_sqlalchemy_for_other_urls(tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    assert connection_of(url) == "SqliteConnection"  # a new file: made through SQLAlchemy, then used as the others
    assert (tmp_path / "results.db").is_file()
    assert connection_of(url) == "SqliteConnection"
    assert connection_of(url + "?timeout=5") == "SqlAlchemyConnection"  # options are SQLAlchemy's to read
    assert connection_of("sqlite://") == "SqlAlchemyConnection"  # in memory
    (tmp_path / "garbage.db").write_bytes(b"SQLite format 3\0" + b"garbage" * 600)
    with pytest.raises(UserError, match="cannot open database .*garbage.db'"):
        open_store(f"sqlite:///{tmp_path / 'garbage.db'}")


def test_the_sqlite3_writer_keeps_what_makes_a_store_safe(tmp_path):
    """WAL, NORMAL syncs and foreign keys, as SQLAlchemy's connections set them too (connection.sqlite_pragmas)."""
    store = new_store(tmp_path, "results.db", "sqlite3")
    store.begin_run(["benchlab"], ["native"], {})
    assert isinstance(store.connection, SqliteConnection)
    connection = store.connection._connected()
    assert [connection.execute(f"PRAGMA {name}").fetchone()[0] for name in
            ("journal_mode", "synchronous", "foreign_keys")] == ["wal", 1, 1]
    assert not connection.in_transaction  # every write committed, none left open to block another process


def test_switching_to_wal_is_retried_while_another_process_holds_the_lock():
    import sqlite3
    from benchlab.storage.connection import set_wal

    class Locked:
        """A connection whose first `failures` WAL pragmas find the file locked."""
        def __init__(self, failures, message="database is locked"):
            self.failures, self.message, self.calls = failures, message, 0

        def execute(self, sql):
            self.calls += 1
            assert sql == "PRAGMA journal_mode=WAL"
            if self.calls <= self.failures:
                raise sqlite3.OperationalError(self.message)

    now, slept = [0.0], []
    clock = lambda: now[0]  # noqa: E731

    def sleep(seconds):
        slept.append(seconds)
        now[0] += seconds

    twice = Locked(2)
    set_wal(twice, clock=clock, sleep=sleep, patience_s=1.0)
    assert twice.calls == 3 and slept == [0.01, 0.01]
    always = Locked(10 ** 6)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        set_wal(always, clock=clock, sleep=sleep, patience_s=1.0)
    assert 99 <= always.calls <= 102  # 1 s of the injected clock, 0.01 s a try
    other = Locked(1, "disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        set_wal(other, clock=clock, sleep=sleep)
    assert other.calls == 1
