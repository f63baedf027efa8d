"""What a run writes to a store, in plain SQL that SQLite and PostgreSQL both take, and a
store of an SQLite file that writes it through Python's sqlite3 alone.

A default `benchlab run` is about a second, and SQLAlchemy's import took a fifth of it
(bench/README.md, *Time budget*). So, as store_read.py reads without it, a run into an
SQLite file that exists, is writable and is at this benchlab's schema revision
(migrations.HEAD) writes without it (open_writer); anything else (a new file, one to
upgrade, a read-only one, PostgreSQL, a URL with options) opens as a Store, which
inherits these same writes and runs them through SQLAlchemy.

Each write is one transaction: on SQLite it takes the write lock at BEGIN (IMMEDIATE), so
that several runs on one machine take turns instead of failing (store.py, _write).
"""
from __future__ import annotations

import contextlib
import datetime
import json
import os
import socket
import sqlite3
import time
from typing import Any, Callable, Iterator

from benchlab.errors import StoreFailed, UserError
from benchlab.records import NAME_FIELDS, Fault, Record, storable, storable_name
from benchlab.storage.store_read import (  # noqa: F401 (database_url: imported from here too)
    SqliteReader, StoreReader, cannot_write, database_url, existing_sqlite_file, read_write_connection,
    sqlite_error)

#: A write as _writing gives it: (sql with :name parameters, one row of parameters or a list of
#: them, the JSON columns among them) -> the rows the statement returns (RETURNING), as dicts.
Execute = Callable[..., list[dict[str, Any]]]

WRITE_FIX = "make the database writable or free disk space, or run with --no-store or another --db"
IMPORT_FIX = "make the database writable or free disk space, or give another --db; nothing was imported"

_RUN_JSON = ("argv", "platforms", "context")
_INSERT_RUN = ("INSERT INTO runs (started_at, finished_at, status, exit_code, host, pid, argv, platforms, context, "
               "imported_sha256) VALUES (:started_at, :finished_at, :status, :exit_code, :host, :pid, :argv, "
               ":platforms, :context, :imported_sha256) RETURNING id")
_RECORD_FIELDS = ("run_id", "platform", "binary", "bench", "param", "param_name", "counter", "unit", "format",
                  "iterations", "median", "sweep", "samples", "sample_iterations", "summary", "reported", "param_text")
_RECORD_JSON = ("sweep", "samples", "sample_iterations", "summary", "reported")
_FAULT_FIELDS = ("run_id", "platform", "binary", "reason", "stderr_tail", "sweep")
_FAULT_JSON = ("stderr_tail", "sweep")
_UNIT_FIELDS = ("run_id", "binary", "platform", "sweep")


def _insert(table: str, fields: tuple[str, ...]) -> str:
    # "binary" is quoted: a keyword in PostgreSQL.
    columns = ", ".join('"binary"' if field == "binary" else field for field in fields)
    return f"INSERT INTO {table} ({columns}) VALUES ({', '.join(':' + field for field in fields)})"


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def imported_sha256(context: dict[str, Any] | None) -> str | None:
    """The sha256 of the file an imported run came from (context["imported"]), else None."""
    imported = context.get("imported") if isinstance(context, dict) else None
    digest = imported.get("sha256") if isinstance(imported, dict) else None
    return digest if isinstance(digest, str) and len(digest) <= 64 else None


class StoreWriter(StoreReader):
    """The writes of a run (and of an import). A subclass gives `_writing` and `reclaim`."""

    def _writing(self, doing: str, fix: str, error: type[UserError]) -> contextlib.AbstractContextManager[Execute]:
        """One write transaction: yields execute(sql, params, json=()) -> rows; committed when the
        block ends, rolled back if it raises; a database failure is one `error`."""
        raise NotImplementedError

    def reclaim(self) -> None:
        """After a failed write on a full disk: give back what the failed writes took."""

    def begin_run(self, argv: list[str], platforms: list[str], context: dict[str, Any]) -> int:
        with self._writing("write to", WRITE_FIX, UserError) as execute:
            return _insert_run(execute, argv, platforms, context, "running", None, None)

    def add_unit(self, run_id: int, unit_records: list[Record], unit_faults: list[Fault],
                 unit: dict[str, Any] | None = None) -> None:
        """One finished unit, all or nothing; `unit` ({binary, platform, sweep}) marks it done."""
        with self._writing("write to", WRITE_FIX, StoreFailed) as execute:
            _insert_unit(execute, run_id, unit_records, unit_faults, [unit] if unit is not None else [])

    def import_run(self, argv: list[str], platforms: list[str], context: dict[str, Any], run_records: list[Record],
                   run_faults: list[Fault], done: list[dict[str, Any]], status: str, exit_code: int) -> int:
        """A whole run at once (`benchlab import`): its row with its final status, its records,
        faults and finished units (`done`), in one transaction. Nothing of it is visible until
        all of it is: a process killed or a disk filled on the way leaves no run behind, not an
        empty one shown as killed that would refuse the file's next import (imported_as)."""
        with self._writing("write to", IMPORT_FIX, StoreFailed) as execute:
            run_id = _insert_run(execute, argv, platforms, context, status, exit_code, now())
            _insert_unit(execute, run_id, run_records, run_faults, done)
        return run_id

    def update_context(self, run_id: int, context: dict[str, Any]) -> None:
        with self._writing("write to", WRITE_FIX, StoreFailed) as execute:
            execute("UPDATE runs SET context = :context WHERE id = :id", {"context": context, "id": run_id},
                    ("context",))

    def finish_run(self, run_id: int, status: str, exit_code: int) -> None:
        with self._writing("write to", WRITE_FIX, StoreFailed) as execute:
            execute("UPDATE runs SET status = :status, exit_code = :exit_code, finished_at = :finished_at "
                    "WHERE id = :id", {"status": status, "exit_code": exit_code, "finished_at": now(), "id": run_id})

    def delete_run(self, run_id: int) -> None:
        """Forget a run (e.g. one whose --filter matched no benchmark); not one a baseline names."""
        with self._writing("write to", WRITE_FIX, StoreFailed) as execute:
            names = [row["name"] for row in execute(
                "SELECT name FROM baselines WHERE run_id = :id ORDER BY name", {"id": run_id})]
            if names:
                shown = ", ".join(repr(name) for name in names)
                raise UserError(f"run {run_id} is kept as baseline {shown}",
                                f"delete the baseline first: benchlab baseline delete {names[0]}")
            for table in ("units", "records", "faults", "profile_buckets"):
                execute(f"DELETE FROM {table} WHERE run_id = :id", {"id": run_id})
            execute("DELETE FROM runs WHERE id = :id", {"id": run_id})


def _insert_run(execute: Execute, argv: list[str], platforms: list[str], context: dict[str, Any], status: str,
                exit_code: int | None, finished_at: str | None) -> int:
    [row] = execute(_INSERT_RUN, {
        "started_at": finished_at or now(), "finished_at": finished_at, "status": status, "exit_code": exit_code,
        "host": socket.gethostname(), "pid": os.getpid(), "argv": argv, "platforms": platforms, "context": context,
        "imported_sha256": imported_sha256(context)}, _RUN_JSON)
    return int(row["id"])


#: Rows of records written per statement.
_ROWS_PER_BATCH = 2000


def _insert_unit(execute: Execute, run_id: int, unit_records: list[Record], unit_faults: list[Fault],
                 done: list[dict[str, Any]]) -> None:
    """Rows of records, faults and finished units ({binary, platform, sweep}), in the caller's transaction."""
    # A batch of rows at a time: an import's million records as rows (and their JSON) at once
    # would double what the import holds (issue 31); still one transaction, the caller's.
    for start in range(0, len(unit_records), _ROWS_PER_BATCH):
        execute(_insert("records", _RECORD_FIELDS),
                [_record_row(run_id, r) for r in unit_records[start:start + _ROWS_PER_BATCH]], _RECORD_JSON)
    if unit_faults:
        execute(_insert("faults", _FAULT_FIELDS), [
            # PostgreSQL's text columns cannot hold a NUL, which a compiler's message
            # quoting a broken source can carry: written as \0 on both engines alike.
            dict(run_id=run_id, platform=f.platform, binary=f.binary, reason=f.reason.replace("\0", "\\0"),
                 stderr_tail=f.stderr_tail, sweep=f.sweep) for f in unit_faults], _FAULT_JSON)
    if done:
        execute(_insert("units", _UNIT_FIELDS),
                [{"run_id": run_id, "sweep": None, **unit} for unit in done], ("sweep",))


def _record_row(run_id: int, record: Record) -> dict[str, Any]:
    # Fields set after the record was made (a binary's name from an undecodable file name)
    # are made storable here too: one bad name must not fail the write of a whole unit.
    text = {field: storable_name(field, getattr(record, field)) for field in NAME_FIELDS}
    return dict(
        run_id=run_id, platform=text["platform"], binary=text["binary"], bench=text["bench"],
        # a number in `param`, text in `param_text` (revision 0007)
        param=None if isinstance(record.param, str) else record.param,
        param_text=storable(record.param) if isinstance(record.param, str) else None, param_name=text["param_name"], counter=text["counter"], unit=text["unit"], format=text["format"],
        iterations=record.iterations, median=record.median, sweep=record.sweep, samples=record.samples,
        sample_iterations=record.sample_iterations, summary=record.summary,
        # the empty loop's sample of each round, beside the samples, so the subtraction can be redone
        reported={**record.reported, "overhead_samples": record.overhead_samples}
        if record.overhead_samples else record.reported)


#: How long a connection retries switching a store to WAL while another holds the lock.
WAL_RETRY_S = 60.0


def sqlite_pragmas(connection: sqlite3.Connection) -> None:
    """What every connection that writes an SQLite store sets first."""
    # WAL: `benchlab runs` can read while a run writes; a killed writer's
    # uncommitted frames are simply ignored on the next open.
    set_wal(connection)
    # In WAL mode NORMAL syncs at checkpoints, not at every commit: a run commits each
    # unit as it finishes, and an fsync each cost more than the unit's parsing. A crash
    # of the process loses nothing; only a power cut can lose the last units, never
    # corrupting the file (SQLite's documentation, "synchronous").
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA foreign_keys=ON")


def set_wal(connection, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
            patience_s: float = WAL_RETRY_S) -> None:
    """PRAGMA journal_mode=WAL, retried while the file is locked. Switching a new file to WAL
    takes an exclusive lock, and when two processes open a new store at once SQLite can say
    "database is locked" at once rather than wait out the busy timeout (seen in
    tests/python/storage/test_store_concurrency.py, 1 run in several). The pragma is the same
    whoever wins, so the loser tries again."""
    deadline = clock() + patience_s
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or clock() >= deadline:
                raise
            sleep(0.01)


class SqliteStore(StoreWriter, SqliteReader):
    """A StoreWriter (and reader) of a writable SQLite file at the head revision, through sqlite3
    alone. It holds one connection for its writes, as SQLAlchemy's pool would."""

    def __init__(self, url: str, path: str):
        super().__init__(url, read_write_connection(path))
        self._connection: sqlite3.Connection | None = None

    def _writer(self) -> sqlite3.Connection:
        if self._connection is None:
            connection = self._connect()
            connection.isolation_level = None  # transactions are begun and ended below, not by the module
            sqlite_pragmas(connection)
            self._connection = connection
        return self._connection

    @contextlib.contextmanager
    def _writing(self, doing: str, fix: str, error: type[UserError]) -> Iterator[Execute]:
        def execute(sql: str, params: dict[str, Any] | list[dict[str, Any]],
                    json_columns: tuple[str, ...] = ()) -> list[dict[str, Any]]:
            if isinstance(params, list):
                connection.executemany(sql, [_encoded(row, json_columns) for row in params])
                return []
            cursor = connection.execute(sql, _encoded(params, json_columns))
            names = [column[0] for column in cursor.description or ()]
            return [dict(zip(names, row)) for row in cursor.fetchall()]

        try:
            connection = self._writer()
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise sqlite_error(self.url, doing, fix, error, exc) from None
        try:
            yield execute
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(connection)
            raise sqlite_error(self.url, doing, fix, error, exc) from None
        except BaseException:
            _rollback(connection)
            raise

    def reclaim(self) -> None:
        """The failed transactions' frames stay in SQLite's WAL file, which only grows; a
        checkpoint that truncates it frees that space, so that closing the run (a small
        update) can still be written."""
        try:
            self._writer().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _encoded(params: dict[str, Any], json_columns: tuple[str, ...]) -> dict[str, Any]:
    """The JSON columns as text, as SQLAlchemy's JSON type writes them to SQLite (None as 'null')."""
    return {**params, **{name: json.dumps(params[name]) for name in json_columns}}


def _rollback(connection: sqlite3.Connection) -> None:
    try:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # SQLite rolled it back itself (a full disk can end the transaction)


def open_writer(url: str) -> SqliteStore | None:
    """A store that writes `url` without SQLAlchemy when it is a plain sqlite:///FILE whose file
    exists, is writable and is at this benchlab's schema revision; else None (open a Store:
    it creates, upgrades or says what is wrong, as every command does)."""
    path = existing_sqlite_file(url)
    if path is None or cannot_write(path):
        return None
    store = SqliteStore(url, path)
    return store if store.at_head() else None
