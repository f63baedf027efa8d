"""Every run kept, through SQLAlchemy Core: an SQLite file by default, PostgreSQL by URL
for a team or a CI fleet writing into one history.

Writes are transactional by unit: the run row is committed when the run starts,
each finished (binary, platform) unit's records and faults in one transaction, the
final status last. A run killed at any moment leaves the runs before it intact and
its own completed units, never a half-written unit or a corrupt file (SQLite's
journal rolls back an unfinished transaction when the file is next opened). An import
is one transaction whole (import_run): nothing of it is visible until all of it is.

The tables below are what the code queries; the schema itself is created and upgraded
by the Alembic revisions of benchlab.storage.migrations when a store is opened. The reads of one
run (Store inherits them) are in store_read.py, which reads an SQLite file at the head
revision without SQLAlchemy for `show`, `stats` and `export`; a run's writes likewise in
store_write.py, which writes such a file without SQLAlchemy for `benchlab run`. An SQLite file
this process cannot write (a read-only file system, file or directory) is opened
read-only instead, so that `runs`, `show` and the other readers still read it; a write
to it is then one error.
"""
from __future__ import annotations

import contextlib
import hashlib
import re
from typing import Any, Iterator

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError, SQLAlchemyError

from benchlab.storage import migrations, store_write
from benchlab.statistics import noise
from benchlab.errors import StoreFailed, UserError
from benchlab.storage.store_read import (  # noqa: F401 (database_url: imported from here too)
    DB_ENVIRONMENT_VARIABLE, READ_FIX, SQLITE_BUSY_TIMEOUT_S, Query, cannot_write, database_url,
    effective_status, read_only_connection)
from benchlab.storage.store_write import WRITE_FIX, Execute, StoreWriter, sqlite_pragmas

metadata = sa.MetaData()

runs = sa.Table(
    "runs", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("started_at", sa.String(32), nullable=False),
    sa.Column("finished_at", sa.String(32)),
    # running | complete | failed | interrupted
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("exit_code", sa.Integer),
    sa.Column("host", sa.String(255)),
    sa.Column("pid", sa.Integer),
    sa.Column("argv", sa.JSON),
    sa.Column("platforms", sa.JSON),
    sa.Column("context", sa.JSON),
    # The imported file's sha256, for runs `benchlab import` made (context["imported"]).
    sa.Column("imported_sha256", sa.String(64), index=True),
)

records = sa.Table(
    "records", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("platform", sa.String(255), nullable=False),
    sa.Column("binary", sa.String(255), nullable=False),
    sa.Column("bench", sa.String(255), nullable=False),
    sa.Column("param", sa.BigInteger),
    sa.Column("param_name", sa.String(255)),
    # A parameter that is text (revision 0007); `param` is then NULL.
    sa.Column("param_text", sa.String(255)),
    sa.Column("counter", sa.String(255), nullable=False),
    sa.Column("unit", sa.String(32), nullable=False),
    sa.Column("format", sa.String(32)),
    sa.Column("iterations", sa.BigInteger),
    # The median as a column too, so that a later `compare` can query it directly.
    sa.Column("median", sa.Float),
    sa.Column("sweep", sa.JSON),
    sa.Column("samples", sa.JSON, nullable=False),
    sa.Column("sample_iterations", sa.JSON),
    sa.Column("summary", sa.JSON),
    sa.Column("reported", sa.JSON),
    # `history`'s reads: one benchmark's counter, newest runs first (revision 0008).
    sa.Index("ix_records_bench_counter_run_id", "bench", "counter", "run_id"),
)

faults = sa.Table(
    "faults", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("platform", sa.String(255), nullable=False),
    sa.Column("binary", sa.String(255), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("stderr_tail", sa.JSON),
    sa.Column("sweep", sa.JSON),
)


#: Finished units, one row each, committed with the unit's records and faults: what
#: `benchlab show` compares with the run's plan (context "plan") to name missing units.
units = sa.Table(
    "units", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("binary", sa.String(255), nullable=False),
    sa.Column("platform", sa.String(255), nullable=False),
    sa.Column("sweep", sa.JSON),
)

#: Names for stored runs (`benchlab baseline`). A run a baseline names cannot be deleted
#: (RESTRICT; Store.delete_run says which baseline holds it).
baselines = sa.Table(
    "baselines", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(255), nullable=False),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="RESTRICT"), nullable=False, index=True),
    sa.Column("saved_at", sa.String(32), nullable=False),
    sa.UniqueConstraint("name", name="uq_baselines_name"),
)

#: Profiles (`benchlab profile`): one row per bucket of a run's profile on one platform,
#: self or inclusive, in the buckets file's order (`position`), "other" included. The
#: profiler, its unit and the buckets file are in the run's context ("profile").
profile_buckets = sa.Table(
    "profile_buckets", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("platform", sa.String(255), nullable=False),
    sa.Column("target", sa.String(255), nullable=False),
    # self | inclusive
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("bucket", sa.String(255), nullable=False),
    # samples (perf) or instructions (callgrind)
    sa.Column("samples", sa.BigInteger, nullable=False),
    sa.Column("share", sa.Float, nullable=False),
    sa.Column("top_symbols", sa.JSON),
)

#: What `benchlab calibrate` measured of a machine's between-run noise, per kind of kernel
#: (noise.py, "The prior"); the newest calibration of a machine stands for it.
machine_priors = sa.Table(
    "machine_priors", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("machine", sa.String(16), nullable=False, index=True),  # noise.Machine.id
    sa.Column("host", sa.String(255)),
    sa.Column("cpu", sa.String(255)),
    sa.Column("kernel", sa.String(255)),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("variance", sa.Float, nullable=False),
    sa.Column("df", sa.Integer, nullable=False),
    sa.Column("process_cv2", sa.Float, nullable=False),
    sa.Column("process_df", sa.Integer, nullable=False),
    sa.Column("runs", sa.Integer, nullable=False),
    sa.Column("measured_at", sa.String(32), nullable=False),
    sa.Column("load", sa.Float),
)

#: Executables kept for baselines, content-addressed (sha256), so that `gate` can run a
#: baseline's binaries again beside the candidate's, wherever the database is.
binaries = sa.Table(
    "binaries", metadata,
    sa.Column("sha256", sa.String(64), primary_key=True),
    sa.Column("bytes", sa.BigInteger, nullable=False),
    sa.Column("content", sa.LargeBinary, nullable=False),
)

#: Which binary a baseline keeps for each (binary, platform) unit of its run.
baseline_binaries = sa.Table(
    "baseline_binaries", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("baseline_id", sa.Integer, sa.ForeignKey("baselines.id", ondelete="CASCADE"), nullable=False,
              index=True),
    sa.Column("binary", sa.String(255), nullable=False),
    sa.Column("platform", sa.String(255), nullable=False),
    sa.Column("sha256", sa.String(64), sa.ForeignKey("binaries.sha256"), nullable=False),
    sa.Column("file_name", sa.String(255), nullable=False),
)

#: pip packages of the database drivers SQLAlchemy imports, by module name.
_DRIVER_PACKAGES = {"psycopg": "'psycopg[binary]'", "psycopg2": "psycopg2-binary", "pymysql": "pymysql",
                    "MySQLdb": "mysqlclient", "asyncpg": "asyncpg", "pg8000": "pg8000"}

#: Seconds to wait for a PostgreSQL server to answer a connection (unless the URL sets
#: connect_timeout): libpq waits forever for a host that drops packets.
PG_CONNECT_TIMEOUT_S = 10

#: The URL schemes that mean PostgreSQL through psycopg 3, the driver benchlab installs
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

#: Baseline names: typed on command lines and shown in tables, so no spaces, and never a
#: run reference (`latest`, a number, -N), which `show` and `compare` read as a run.
MAX_BASELINE_NAME = 100
_BASELINE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,%d}" % (MAX_BASELINE_NAME - 1))



class Store(StoreWriter):
    """A store through SQLAlchemy: every write (those of StoreWriter too), and every read (those of
    StoreReader too)."""

    def __init__(self, url: str):
        fix = "give --db or BENCHLAB_DB as e.g. sqlite:///results.db or postgresql://user@host/db"
        try:
            given = sa.make_url(url)
            engine_url = given.set(drivername="postgresql+psycopg") if given.drivername in _PSYCOPG_SCHEMES else given
            #: The URL as errors show it: as given, without its password.
            self.url = given.render_as_string(hide_password=True) if given.password is not None else url
            #: Why the store is open read-only (an SQLite file this process cannot write), else None.
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
            package = _DRIVER_PACKAGES.get(module, module or "the database driver")
            raise UserError(f"cannot use database URL {url!r}: its Python driver '{module}' is not installed",
                            f"pip install {package} into benchlab's environment, or use sqlite:///FILE") from None
        if self.engine.dialect.name == "sqlite" and not self.read_only:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        with self._errors("open", "check the path or URL given by --db, BENCHLAB_DB or run.db; "
                                  "a file that is not a benchlab database needs another name"):
            if self.read_only:
                self._check_revision()
            else:
                migrations.upgrade(self.engine, repr(self.url))

    def _check_revision(self) -> None:
        """A store open read-only cannot be upgraded: it is read only at this benchlab's schema revision."""
        with self.engine.connect() as connection:
            revision = (connection.execute(sa.text(f"SELECT version_num FROM {migrations.VERSION_TABLE}")).scalar()
                        if sa.inspect(connection).has_table(migrations.VERSION_TABLE) else None)
        if revision != migrations.HEAD:
            raise UserError(f"database {self.url!r} is read-only ({self.read_only}) and its schema is at revision "
                            f"{revision or 'none'}, not this benchlab's {migrations.HEAD}: it cannot be upgraded",
                            "make it writable for one benchlab command, which upgrades it, or read it with the "
                            "benchlab that wrote it")

    def close(self) -> None:
        """Close the pooled connections (a PostgreSQL server counts them against max_connections)."""
        self.engine.dispose()

    @contextlib.contextmanager
    def _errors(self, doing: str, fix: str, error: type[UserError] = UserError) -> Iterator[None]:
        """Database failures (not a database, read-only, disk full, server gone) as one user error."""
        try:
            yield
        except SQLAlchemyError as exc:
            reason = str(getattr(exc, "orig", None) or exc).strip()
            # psycopg's "connection failed: connection to server at ... failed: FATAL:  password ..."
            first = reason.splitlines()[0].removeprefix("connection failed: ").replace("FATAL:  ", "")
            lowered = reason.lower()
            for clues, connection_fix in _CONNECTION_FIXES:
                if isinstance(exc, sa.exc.OperationalError) and any(clue in lowered for clue in clues):
                    raise error(f"cannot connect to database {self.url!r}: {first}", connection_fix) from None
            raise error(f"cannot {doing} database {self.url!r}: {first}", fix) from None

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Query]:
        with self._errors("read", READ_FIX), self.engine.connect() as connection:
            def query(sql: str, params: dict[str, Any], json_columns: tuple[str, ...] = ()) -> list[dict[str, Any]]:
                statement = sa.text(sql).columns(**{name: sa.JSON for name in json_columns})
                return [dict(row._mapping) for row in connection.execute(statement, params)]
            yield query

    @contextlib.contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """A write transaction. On SQLite it takes the write lock at BEGIN (IMMEDIATE), so a
        transaction that reads before it writes waits its turn behind another writer
        instead of failing: SQLite cannot upgrade a read snapshot that another commit made stale."""
        with self.engine.begin() as connection:
            if connection.dialect.name == "sqlite":
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            yield connection

    # -- writing ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _writing(self, doing: str, fix: str, error: type[UserError]) -> Iterator[Execute]:
        with self._errors(doing, fix, error), self._write() as connection:
            def execute(sql: str, params: dict[str, Any] | list[dict[str, Any]],
                        json_columns: tuple[str, ...] = ()) -> list[dict[str, Any]]:
                statement = sa.text(sql).bindparams(*(sa.bindparam(name, type_=sa.JSON) for name in json_columns))
                result = connection.execute(statement, params)
                return [dict(row._mapping) for row in result] if result.returns_rows else []
            yield execute

    def reclaim(self) -> None:
        """After a failed write on a full disk: give back the write-ahead log's space.

        The failed transactions' frames stay in SQLite's WAL file, which only grows; a
        checkpoint that truncates it frees that space, so that closing the run (a small
        update) can still be written. Nothing to do for other databases."""
        if self.engine.dialect.name != "sqlite":
            return
        try:
            with self.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        except SQLAlchemyError:
            pass

    def add_profile(self, run_id: int, rows: list[dict[str, Any]]) -> None:
        """A run's profile buckets (profile_buckets' columns but id and run_id), in one transaction."""
        with self._errors("write to", WRITE_FIX, StoreFailed), self._write() as connection:
            connection.execute(profile_buckets.insert(), [{**row, "run_id": run_id} for row in rows])

    # -- reading ------------------------------------------------------------------------------

    def latest_profiled_run(self) -> int | None:
        """The id of the newest run with a profile, or None."""
        with self._errors("read", READ_FIX), self.engine.connect() as connection:
            return connection.execute(sa.select(sa.func.max(profile_buckets.c.run_id))).scalar()

    def list_runs(self, limit: int | None = None) -> list[dict[str, Any]]:
        record_count = (sa.select(sa.func.count()).where(records.c.run_id == runs.c.id).scalar_subquery())
        fault_count = (sa.select(sa.func.count()).where(faults.c.run_id == runs.c.id).scalar_subquery())
        query = sa.select(runs, record_count.label("records"), fault_count.label("faults")).order_by(runs.c.id.desc())
        if limit:
            query = query.limit(limit)
        with self._errors("read", READ_FIX), self.engine.connect() as connection:
            rows = [dict(row._mapping) for row in connection.execute(query)]
        for row in rows:
            row["status"] = effective_status(row)
        return rows

    def imported_as(self, sha256: str) -> int | None:
        """The run that an import of a file with this content made, if any (the newest). Only a
        whole one counts: closed (complete or failed) with records or faults. An import by an
        older benchlab killed or failed midway left a run `running` (shown as killed) or
        empty, which must not stand in the way of importing the file again."""
        whole = runs.c.status.in_(("complete", "failed")) & (
            sa.exists().where(records.c.run_id == runs.c.id) | sa.exists().where(faults.c.run_id == runs.c.id))
        with self._errors("read", READ_FIX), self.engine.connect() as connection:
            found = connection.execute(sa.select(runs.c.id).where(runs.c.imported_sha256 == sha256, whole)
                                       .order_by(runs.c.id.desc()).limit(1)).scalar()
        return None if found is None else int(found)

    # -- machine priors -----------------------------------------------------------------------

    def save_machine_priors(self, machine: noise.Machine, rows: list[dict[str, Any]]) -> None:
        """A calibration of `machine`: one row per kind (machine_priors' columns but the
        machine's and measured_at), replacing the machine's earlier ones, in one transaction."""
        measured = store_write.now()
        with self._errors("write to", WRITE_FIX), self._write() as connection:
            connection.execute(machine_priors.delete().where(machine_priors.c.machine == machine.id))
            connection.execute(machine_priors.insert(), [
                {**row, "machine": machine.id, "host": machine.host, "cpu": machine.cpu, "kernel": machine.kernel,
                 "measured_at": measured} for row in rows])

    # -- baselines ----------------------------------------------------------------------------

    def save_baseline(self, name: str, run_id: int, force: bool = False,
                      kept: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
        """Name run `run_id` NAME, dated now; with `force` an existing NAME moves to it.
        `kept`: the run's binaries to keep with it ({binary, platform, file_name, content}),
        content-addressed. Returns the baseline it replaced, if any."""
        check_baseline_name(name)
        with self._errors("write to", WRITE_FIX):
            for attempt in (1, 2):
                try:
                    with self._write() as connection:
                        previous = connection.execute(sa.select(baselines).where(baselines.c.name == name)).first()
                        if previous is not None and not force:
                            raise UserError(f"baseline {name!r} exists: run {previous.run_id}, saved {previous.saved_at}",
                                            f"give --force to point it at run {run_id}, or choose another name")
                        if previous is None:
                            connection.execute(baselines.insert().values(name=name, run_id=run_id,
                                                                         saved_at=store_write.now()))
                        else:
                            connection.execute(baselines.update().where(baselines.c.name == name)
                                               .values(run_id=run_id, saved_at=store_write.now()))
                            connection.execute(baseline_binaries.delete()
                                               .where(baseline_binaries.c.baseline_id == previous.id))
                        self._keep_binaries(connection, name, kept or [])
                    return dict(previous._mapping) if previous is not None else None
                except IntegrityError:
                    # Another process saved the same name in between (PostgreSQL's unique index
                    # tells; SQLite's IMMEDIATE transactions take turns): look again, once.
                    if attempt == 2:
                        raise
        raise AssertionError("unreachable")

    @staticmethod
    def _keep_binaries(connection: sa.Connection, name: str, kept: list[dict[str, Any]]) -> None:
        baseline_id = connection.execute(sa.select(baselines.c.id).where(baselines.c.name == name)).scalar_one()
        for entry in kept:
            digest = hashlib.sha256(entry["content"]).hexdigest()
            if connection.execute(sa.select(binaries.c.sha256).where(binaries.c.sha256 == digest)).first() is None:
                connection.execute(binaries.insert().values(sha256=digest, bytes=len(entry["content"]),
                                                            content=entry["content"]))
            connection.execute(baseline_binaries.insert().values(
                baseline_id=baseline_id, binary=entry["binary"], platform=entry["platform"], sha256=digest,
                file_name=entry["file_name"]))
        Store._forget_unkept_binaries(connection)

    @staticmethod
    def _forget_unkept_binaries(connection: sa.Connection) -> None:
        """Delete the binaries no baseline keeps any more."""
        kept = sa.select(baseline_binaries.c.sha256)
        connection.execute(binaries.delete().where(binaries.c.sha256.not_in(kept)))

    def baseline_binaries(self, name: str) -> list[dict[str, Any]]:
        """The binaries baseline NAME keeps: binary, platform, file_name, sha256 (as recorded),
        content, and `intact` (whether the content still hashes to it)."""
        query = (sa.select(baseline_binaries.c.binary, baseline_binaries.c.platform, baseline_binaries.c.file_name,
                           baseline_binaries.c.sha256, binaries.c.content)
                 .join(baselines, baselines.c.id == baseline_binaries.c.baseline_id)
                 .join(binaries, binaries.c.sha256 == baseline_binaries.c.sha256)
                 .where(baselines.c.name == name).order_by(baseline_binaries.c.id))
        with self._errors("read", READ_FIX), self.engine.connect() as connection:
            rows = [dict(row._mapping) for row in connection.execute(query)]
        for row in rows:
            row["intact"] = hashlib.sha256(row["content"]).hexdigest() == row["sha256"]
        return rows

    def baseline(self, name: str) -> dict[str, Any]:
        """The baseline NAME, as list_baselines gives each."""
        found = self.list_baselines(name)
        if not found:
            raise UserError(f"no baseline {name!r} in {self.url}", "list them with: benchlab baseline list")
        return found[0]

    def list_baselines(self, name: str | None = None) -> list[dict[str, Any]]:
        """Every baseline (or the one named), the latest saved first: name, run_id, saved_at, and
        its run's started_at, host, status, git commit and whether the tree was dirty."""
        query = (sa.select(baselines.c.id, baselines.c.name, baselines.c.run_id, baselines.c.saved_at, runs.c.started_at,
                           runs.c.host, runs.c.status, runs.c.pid, runs.c.context)
                 .join(runs, runs.c.id == baselines.c.run_id)
                 .order_by(baselines.c.saved_at.desc(), baselines.c.id.desc()))
        if name is not None:
            query = query.where(baselines.c.name == name)
        sizes = (sa.select(baseline_binaries.c.baseline_id, sa.func.count().label("binaries"),
                           sa.func.sum(binaries.c.bytes).label("binary_bytes"))
                 .join(binaries, binaries.c.sha256 == baseline_binaries.c.sha256)
                 .group_by(baseline_binaries.c.baseline_id))
        with self._errors("read", READ_FIX), self.engine.connect() as connection:
            rows = [dict(row._mapping) for row in connection.execute(query)]
            kept = {row.baseline_id: (row.binaries, int(row.binary_bytes or 0)) for row in connection.execute(sizes)}
        for row in rows:
            row["binaries"], row["binary_bytes"] = kept.get(row.pop("id"), (0, 0))
        for row in rows:
            row["status"] = effective_status(row)
            git = (row.pop("context") or {}).get("git") or {}
            row["commit"], row["dirty"] = git.get("commit"), bool(git.get("dirty"))
        return rows

    def delete_baseline(self, name: str) -> dict[str, Any]:
        """Forget the name (the run stays); returns what it was."""
        with self._errors("write to", WRITE_FIX), self._write() as connection:
            row = connection.execute(sa.select(baselines).where(baselines.c.name == name)).first()
            if row is None:
                raise UserError(f"no baseline {name!r} in {self.url}", "list them with: benchlab baseline list")
            connection.execute(baseline_binaries.delete().where(baseline_binaries.c.baseline_id == row.id))
            connection.execute(baselines.delete().where(baselines.c.name == name))
            self._forget_unkept_binaries(connection)
        return dict(row._mapping)


def check_baseline_name(name: str) -> None:
    if name == "latest" or name.isdigit() or not _BASELINE_NAME.fullmatch(name):
        raise UserError(f"baseline name {name!r} is not allowed",
                        f"use 1 to {MAX_BASELINE_NAME} letters, digits and . _ - : / @ +, starting with a letter or "
                        f"digit, e.g. nightly-2026-11-22; 'latest' and numbers name runs")


def _cannot_write(url: sa.URL) -> str | None:
    """Why this process cannot write the SQLite file of `url` (store_read.cannot_write), else None."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:") or url.query.get("uri"):
        return None
    return cannot_write(url.database)


def _connect_args(url: sa.URL) -> dict[str, Any]:
    if url.get_backend_name() == "sqlite":
        return {"timeout": SQLITE_BUSY_TIMEOUT_S}
    if url.get_driver_name() == "psycopg" and "connect_timeout" not in url.query:
        return {"connect_timeout": PG_CONNECT_TIMEOUT_S}
    return {}


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    sqlite_pragmas(dbapi_connection)
