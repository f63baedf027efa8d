"""The store's connection through SQLAlchemy: PostgreSQL, an SQLite URL with options or in
memory, and the migrations (Alembic) of any database, an SQLite file's included.

store.open_store imports this module only when it needs it: SQLAlchemy takes a third of a
second to import. It runs the same statements (sql.py) as connection.SqliteConnection, through
text(), and says a failure in the same words (store.DatabaseError).
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError, SQLAlchemyError

from benchlab.errors import UserError, missing_extra
from benchlab.storage import migrations
from benchlab.storage.sql import Statement
from benchlab.storage.connection import (SQLITE_BUSY_TIMEOUT_S, DatabaseError, Run, cannot_write, decoded, expand,
                                    read_only_connection, sqlite_pragmas)

#: pip packages of the database drivers SQLAlchemy imports, by module name.
_DRIVER_PACKAGES = {"psycopg2": "psycopg2-binary", "pymysql": "pymysql",
                    "MySQLdb": "mysqlclient", "asyncpg": "asyncpg", "pg8000": "pg8000"}

#: Seconds to wait for a PostgreSQL server to answer a connection (unless the URL sets
#: connect_timeout): libpq waits forever for a host that drops packets.
PG_CONNECT_TIMEOUT_S = 10

#: The URL schemes that mean PostgreSQL through psycopg 3, the driver benchlab's postgres extra installs
#: (SQLAlchemy's default for postgresql:// is psycopg2; postgres:// is libpq's own spelling).
_PSYCOPG_SCHEMES = ("postgresql", "postgres")

#: What a connection failure's message says, and what fixes it (libpq's and the server's
#: words; a server configured for another language falls back to the general fix).
_CONNECTION_FIXES = (
    (("password authentication failed", "no password supplied", "authentication failed", "role \""),
     "check the user and password in the URL (postgresql://USER:PASSWORD@HOST:PORT/DATABASE), "
     "or give the password in PGPASSWORD or ~/.pgpass"),
    (("database \"",),
     "create the database (createdb NAME, or CREATE DATABASE NAME), or name an existing one in the URL"),
    (("connection refused", "could not translate host name", "timeout expired", "no route to host",
      "network is unreachable", "could not connect", "is the server running"),
     "start the server, or correct the host and port of the URL given by --db, BENCHLAB_DB or run.db"),
)


class SqlAlchemyConnection:
    """A database through an SQLAlchemy engine: a pooled connection per read or write."""

    def __init__(self, url: str):
        fix = "give --db or BENCHLAB_DB as e.g. sqlite:///results.db or postgresql://user@host/db"
        try:
            given = sa.make_url(url)
            engine_url = given.set(drivername="postgresql+psycopg") if given.drivername in _PSYCOPG_SCHEMES else given
            #: The URL as errors show it: as given, without its password.
            self.url = given.render_as_string(hide_password=True) if given.password is not None else url
            self.read_only = _cannot_write(engine_url)
            if self.read_only:
                self.engine = sa.create_engine(engine_url, creator=read_only_connection(engine_url.database))
            else:
                self.engine = sa.create_engine(engine_url, connect_args=_connect_args(engine_url))
        except (ArgumentError, NoSuchModuleError, ValueError) as exc:
            raise UserError(f"cannot use database URL {url!r}: {exc}", fix) from None
        except ImportError as exc:
            # SQLAlchemy knows the dialect, but its driver (a separate package) is not installed.
            module = (exc.name or "").split(".")[0]
            if module == "psycopg":  # the driver benchlab installs for PostgreSQL, with its postgres extra
                raise missing_extra(f"cannot use database URL {url!r}: PostgreSQL", "postgres") from None
            package = _DRIVER_PACKAGES.get(module, module or "the database driver")
            raise UserError(f"cannot use database URL {url!r}: its Python driver '{module}' is not installed",
                            f"pip install {package} into benchlab's environment, or use sqlite:///FILE") from None
        if self.engine.dialect.name == "sqlite" and not self.read_only:
            event.listen(self.engine, "connect", lambda dbapi_connection, _record: sqlite_pragmas(dbapi_connection))
        #: PostgreSQL's drivers give its json columns decoded; SQLite's (and others') give text.
        self._decode_json = self.engine.dialect.name != "postgresql"

    def upgrade(self) -> None:
        """Bring the database to the head revision (migrations.upgrade)."""
        with _failures():
            migrations.upgrade(self.engine, repr(self.url))

    def _runner(self, connection: sa.Connection) -> Run:
        def run(statement: Statement, params: dict[str, Any] | list[dict[str, Any]] | None = None
                ) -> list[dict[str, Any]]:
            if isinstance(params, list):
                if params:
                    text, _ = expand(statement, params[0])
                    connection.execute(sa.text(text), [expand(statement, row)[1] for row in params])
                return []
            text, flat = expand(statement, params or {})
            result = connection.execute(sa.text(text), flat)
            if not result.returns_rows:
                return []
            return [decoded(statement, dict(row._mapping), self._decode_json) for row in result]
        return run

    @contextlib.contextmanager
    def reading(self) -> Iterator[Run]:
        with _failures(), self.engine.connect() as connection:
            yield self._runner(connection)

    @contextlib.contextmanager
    def writing(self) -> Iterator[Run]:
        """One transaction. On SQLite it takes the write lock at BEGIN (IMMEDIATE), as
        connection.SqliteConnection's do."""
        with _failures(), self.engine.begin() as connection:
            if connection.dialect.name == "sqlite":
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            yield self._runner(connection)

    def revision(self) -> str | None:
        with _failures(), self.engine.connect() as connection:
            return migrations.stored_revision(connection)

    def reclaim(self) -> None:
        """After a failed write on a full disk: give back the write-ahead log's space (see
        connection.SqliteConnection.reclaim). Nothing to do for other databases."""
        if self.engine.dialect.name != "sqlite":
            return
        try:
            with self.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        except SQLAlchemyError:
            pass

    def close(self) -> None:
        """Close the pooled connections (a PostgreSQL server counts them against max_connections)."""
        self.engine.dispose()


@contextlib.contextmanager
def _failures() -> Iterator[None]:
    """SQLAlchemy's errors as store.DatabaseError: the driver's first line, and what to do
    when it could not reach the server."""
    try:
        yield
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip()
        # psycopg's "connection failed: connection to server at ... failed: FATAL:  password ..."
        first = reason.splitlines()[0].removeprefix("connection failed: ").replace("FATAL:  ", "")
        lowered = reason.lower()
        connection_fix = next((fix for clues, fix in _CONNECTION_FIXES
                               if isinstance(exc, sa.exc.OperationalError) and any(c in lowered for c in clues)), None)
        raise DatabaseError(first, connection_fix, isinstance(exc, IntegrityError),
                            isinstance(exc, sa.exc.DataError)) from None


def _cannot_write(url: sa.URL) -> str | None:
    """Why this process cannot write the SQLite file of `url` (connection.cannot_write), else None."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:") or url.query.get("uri"):
        return None
    return cannot_write(url.database)


def _connect_args(url: sa.URL) -> dict[str, Any]:
    if url.get_backend_name() == "sqlite":
        return {"timeout": SQLITE_BUSY_TIMEOUT_S}
    if url.get_driver_name() == "psycopg" and "connect_timeout" not in url.query:
        return {"connect_timeout": PG_CONNECT_TIMEOUT_S}
    return {}
