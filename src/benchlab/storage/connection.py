"""How a Store reaches its database: one statement of sql.py at a time, through Python's
sqlite3 for an SQLite file (SqliteConnection) or through SQLAlchemy (engine.py) for
PostgreSQL, other URLs and migrations; both behind the one Connection protocol, their
failures one DatabaseError, their parameters expanded and JSON encoded in one place
(expand, decoded). And what an SQLite file needs: whether it can be written, connections
that never create it, WAL and the pragmas every writer sets.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

from benchlab.errors import UserError
from benchlab.storage import sql
from benchlab.storage.sql import Statement

#: Seconds an SQLite writer waits for another's transaction (a unit's records: milliseconds)
#: before giving up: several runs on one machine, or `baseline save` during a run, take turns.
SQLITE_BUSY_TIMEOUT_S = 60

# -- connections: one statement of sql.py at a time, on sqlite3 or SQLAlchemy --------------------

#: Runs a statement: (statement, one row of parameters, or a list of rows for executemany) -> rows.
Run = Callable[..., list[dict[str, Any]]]


class DatabaseError(Exception):
    """A failure of the database, in its words (the first line); `connection_fix` when it is
    one of reaching the server (what to do about it), `integrity` when a row broke a key,
    `value` when a value did not fit its column (PostgreSQL's DataError)."""

    def __init__(self, reason: str, connection_fix: str | None = None, integrity: bool = False,
                 value: bool = False):
        super().__init__(reason)
        self.reason, self.connection_fix, self.integrity, self.value = reason, connection_fix, integrity, value


#: What to do when a value did not fit its column: nothing about the database (its disk,
#: its permissions) is wrong, benchlab should have checked the value before (issue 37).
VALUE_FIX = "a value benchlab should have checked first did not fit its column: please report this as a benchlab bug"


class Connection(Protocol):
    """What a Store runs its statements through (SqliteConnection, engine.SqlAlchemyConnection)."""

    url: str  # as errors show it: without a password
    read_only: str | None  # why the store is open read-only, else None

    def reading(self) -> contextlib.AbstractContextManager[Run]: ...
    def writing(self) -> contextlib.AbstractContextManager[Run]: ...
    def revision(self) -> str | None: ...
    def reclaim(self) -> None: ...
    def close(self) -> None: ...


@contextlib.contextmanager
def errors(url: str, doing: str, fix: str, error: type[UserError] = UserError) -> Iterator[None]:
    """Database failures (not a database, read-only, disk full, server gone) as one user error."""
    try:
        yield
    except DatabaseError as exc:
        if exc.connection_fix:
            raise error(f"cannot connect to database {url!r}: {exc.reason}", exc.connection_fix) from None
        raise error(f"cannot {doing} database {url!r}: {exc.reason}", VALUE_FIX if exc.value else fix) from None


def expand(statement: Statement, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The statement's text and parameters, a list or tuple parameter (`IN (:run_ids)`)
    made one parameter per item, and its JSON parameters encoded: JSON as text, None as
    'null', as every store has written them."""
    text, flat = statement.sql, {}
    for name, value in params.items():
        if isinstance(value, (list, tuple)) and name not in statement.json:
            names = [f"{name}_{index}" for index in range(len(value))]
            text = re.sub(rf":{name}\b", ", ".join(":" + item for item in names), text)
            flat.update(zip(names, value))
        else:
            flat[name] = json.dumps(value) if name in statement.json else value
    return text, flat


def decoded(statement: Statement, row: dict[str, Any], decode_json: bool) -> dict[str, Any]:
    """A result row, its JSON columns decoded when the driver gives them as text."""
    if decode_json:
        for name in statement.json.intersection(row):
            if row[name] is not None:
                row[name] = json.loads(row[name])
    return row


#: The one statement that returns a value it wrote (sql.INSERT_RUN), and the SQLite that has it.
RETURNING_ID = " RETURNING id"
RETURNING_SINCE = (3, 35, 0)


class SqliteConnection:
    """An SQLite file through Python's sqlite3: one connection, held, that runs one read or
    write at a time (a run stores from whichever thread finished its unit)."""

    def __init__(self, url: str, path: str):
        self.url = url
        self.read_only = cannot_write(path)
        self._path = path
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    def _connected(self) -> sqlite3.Connection:
        if self._connection is None:
            connect = read_only_connection(self._path) if self.read_only else read_write_connection(self._path)
            connection = connect()
            connection.isolation_level = None  # transactions are begun and ended below, not by the module
            if not self.read_only:
                sqlite_pragmas(connection)
            self._connection = connection
        return self._connection

    def _run(self, statement: Statement, params: dict[str, Any] | list[dict[str, Any]] | None = None
             ) -> list[dict[str, Any]]:
        connection = self._connected()
        if isinstance(params, list):
            if params:
                text, _ = expand(statement, params[0])
                connection.executemany(text, [expand(statement, row)[1] for row in params])
            return []
        text, flat = expand(statement, params or {})
        if text.endswith(RETURNING_ID) and sqlite3.sqlite_version_info < RETURNING_SINCE:
            # An SQLite before 3.35 (RHEL 8, Ubuntu 20.04) has no RETURNING: the row's id is
            # the cursor's lastrowid, read in the same call.
            cursor = connection.execute(text[:-len(RETURNING_ID)], flat)
            return [{"id": cursor.lastrowid}]
        cursor = connection.execute(text, flat)
        names = [column[0] for column in cursor.description or ()]
        return [decoded(statement, dict(zip(names, row)), True) for row in cursor.fetchall()]

    @contextlib.contextmanager
    def reading(self) -> Iterator[Run]:
        with self._lock:
            try:
                yield self._run
            except sqlite3.Error as exc:
                raise _sqlite_failure(exc) from None

    @contextlib.contextmanager
    def writing(self) -> Iterator[Run]:
        """One transaction. It takes the write lock at BEGIN (IMMEDIATE), so that a transaction
        that reads before it writes waits its turn behind another writer instead of failing:
        SQLite cannot upgrade a read snapshot that another commit made stale."""
        with self._lock:
            try:
                connection = self._connected()
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _sqlite_failure(exc) from None
            try:
                yield self._run
                connection.execute("COMMIT")
            except sqlite3.Error as exc:
                _rollback(connection)
                raise _sqlite_failure(exc) from None
            except BaseException:
                _rollback(connection)
                raise

    def revision(self) -> str | None:
        with self.reading() as run:
            if not run(sql.SQLITE_VERSION_TABLE):
                return None
            rows = run(sql.REVISION)
        return rows[0]["version_num"] if rows else None

    def reclaim(self) -> None:
        """After a failed write on a full disk: the failed transactions' frames stay in the
        write-ahead log, which only grows; a checkpoint that truncates it frees that space,
        so that closing the run (a small update) can still be written."""
        try:
            with self._lock:
                self._connected().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


def _sqlite_failure(exc: sqlite3.Error) -> DatabaseError:
    return DatabaseError(str(exc).strip().splitlines()[0], integrity=isinstance(exc, sqlite3.IntegrityError),
                         value=isinstance(exc, sqlite3.DataError))


def _rollback(connection: sqlite3.Connection) -> None:
    try:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # SQLite rolled it back itself (a full disk can end the transaction)


# -- SQLite files ---------------------------------------------------------------------------------

def existing_sqlite_file(url: str) -> str | None:
    """The path of a plain sqlite:///FILE URL whose file exists, else None: a URL with options,
    an in-memory database, a file to create or another engine is SQLAlchemy's to open."""
    if not url.startswith("sqlite:///") or "?" in url:
        return None
    path = urllib.parse.unquote(url[len("sqlite:///"):])  # as SQLAlchemy's make_url reads it
    return path if path not in ("", ":memory:") and os.path.isfile(path) else None


def cannot_write(path: str | None) -> str | None:
    """Why this process cannot write the SQLite file at `path` (which exists), else None.

    SQLite writes beside the file too (the WAL and its index, -wal and -shm), so a
    read-only directory is as read-only as the file. os.access answers for root too
    on a read-only file system or an immutable file (chattr +i)."""
    if not path:
        return None
    file = Path(path)
    try:
        if not file.is_file():
            return None
        if os.statvfs(file).f_flag & os.ST_RDONLY:
            return "it is on a read-only file system"
    except OSError:  # a name too long, a loop of links: SQLite says so in its own words
        return None
    if not os.access(file, os.W_OK):
        return "the file is not writable"
    if not os.access(file.parent, os.W_OK):
        return "its directory is not writable"
    return None


def read_write_connection(path: str) -> Callable[[], sqlite3.Connection]:
    """Connections to the SQLite file at `path` that may write it, and never create it."""
    uri = "file:" + urllib.parse.quote(str(Path(path).resolve()))

    def connect() -> sqlite3.Connection:
        # mode=rw: never create a file (it existed a moment ago; opening it says so if it went).
        return sqlite3.connect(f"{uri}?mode=rw", uri=True, timeout=SQLITE_BUSY_TIMEOUT_S, check_same_thread=False)
    return connect


def read_only_connection(path: str) -> Callable[[], sqlite3.Connection]:
    """Connections that only read the SQLite file at `path`.

    Read-only mode reads the WAL of a writer that did not finish (killed, or still
    running elsewhere) through its index (-shm), which SQLite creates when it is
    missing; in a read-only directory it cannot, and then, with no WAL either, the file
    holds every committed transaction and is read as an immutable one."""
    uri = "file:" + urllib.parse.quote(str(Path(path).resolve()))

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=SQLITE_BUSY_TIMEOUT_S,
                                     check_same_thread=False)
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opening is lazy
            return connection
        except sqlite3.OperationalError:
            connection.close()
            if os.path.exists(f"{path}-wal"):
                raise
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False)
    return connect


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
