"""Every run kept, through SQLAlchemy Core: an SQLite file by default, any URL later.

Writes are transactional by unit: the run row is committed when the run starts,
each finished (binary, platform) unit's records and faults in one transaction, the
final status last. A run killed at any moment leaves the runs before it intact and
its own completed units, never a half-written unit or a corrupt file (SQLite's
journal rolls back an unfinished transaction when the file is next opened).
"""
from __future__ import annotations

import contextlib
import datetime
import os
import socket
from pathlib import Path
from typing import Any, Iterator

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from benchlab.errors import StoreFailed, UserError
from benchlab.records import Fault, Record

DB_ENVIRONMENT_VARIABLE = "BENCHLAB_DB"

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

#: pip packages of the database drivers SQLAlchemy imports, by module name.
_DRIVER_PACKAGES = {"psycopg": "'psycopg[binary]'", "psycopg2": "psycopg2-binary", "pymysql": "pymysql",
                    "MySQLdb": "mysqlclient", "asyncpg": "asyncpg", "pg8000": "pg8000"}




def database_url(option: str | None, config_value: str | None, state_dir: Path) -> str:
    """--db, else $BENCHLAB_DB, else run.db of benchlab.toml, else .benchlab/results.db."""
    url = option or os.environ.get(DB_ENVIRONMENT_VARIABLE) or config_value
    if url:
        return url
    state_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{state_dir / 'results.db'}"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class Store:
    def __init__(self, url: str):
        self.url = url
        fix = "give --db or BENCHLAB_DB as e.g. sqlite:///results.db or postgresql+psycopg://host/db"
        try:
            self.engine = sa.create_engine(url)
        except (ArgumentError, NoSuchModuleError, ValueError) as exc:
            raise UserError(f"cannot use database URL {url!r}: {exc}", fix) from None
        except ImportError as exc:
            # SQLAlchemy knows the dialect, but its driver (a separate package) is not installed.
            module = (exc.name or "").split(".")[0]
            package = _DRIVER_PACKAGES.get(module, module or "the database driver")
            raise UserError(f"cannot use database URL {url!r}: its Python driver '{module}' is not installed",
                            f"pip install {package} into benchlab's environment, or use sqlite:///FILE") from None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        with self._errors("open", "check the path or URL given by --db, BENCHLAB_DB or run.db; "
                                  "a file that is not a benchlab database needs another name"):
            metadata.create_all(self.engine)

    @contextlib.contextmanager
    def _errors(self, doing: str, fix: str, error: type[UserError] = UserError) -> Iterator[None]:
        """Database failures (not a database, read-only, disk full, server gone) as one user error."""
        try:
            yield
        except SQLAlchemyError as exc:
            reason = getattr(exc, "orig", None) or exc
            raise error(f"cannot {doing} database {self.url!r}: {str(reason).splitlines()[0]}", fix) from None

    # -- writing ------------------------------------------------------------------------------

    _WRITE_FIX = "make the database writable or free disk space, or run with --no-store or another --db"

    def begin_run(self, argv: list[str], platforms: list[str], context: dict[str, Any]) -> int:
        with self._errors("write to", self._WRITE_FIX), self.engine.begin() as connection:
            result = connection.execute(runs.insert().values(
                started_at=_now(), status="running", host=socket.gethostname(), pid=os.getpid(),
                argv=argv, platforms=platforms, context=context))
            return int(result.inserted_primary_key[0])

    def add_unit(self, run_id: int, unit_records: list[Record], unit_faults: list[Fault],
                 unit: dict[str, Any] | None = None) -> None:
        """One finished unit, all or nothing; `unit` ({binary, platform, sweep}) marks it done."""
        with self._errors("write to", self._WRITE_FIX, StoreFailed), self.engine.begin() as connection:
            if unit_records:
                connection.execute(records.insert(), [_record_row(run_id, r) for r in unit_records])
            if unit_faults:
                connection.execute(faults.insert(), [
                    dict(run_id=run_id, platform=f.platform, binary=f.binary, reason=f.reason,
                         stderr_tail=f.stderr_tail, sweep=f.sweep) for f in unit_faults])
            if unit is not None:
                connection.execute(units.insert().values(run_id=run_id, **unit))

    def update_context(self, run_id: int, context: dict[str, Any]) -> None:
        with self._errors("write to", self._WRITE_FIX, StoreFailed), self.engine.begin() as connection:
            connection.execute(runs.update().where(runs.c.id == run_id).values(context=context))

    def finish_run(self, run_id: int, status: str, exit_code: int) -> None:
        with self._errors("write to", self._WRITE_FIX, StoreFailed), self.engine.begin() as connection:
            connection.execute(runs.update().where(runs.c.id == run_id).values(
                status=status, exit_code=exit_code, finished_at=_now()))

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

    def delete_run(self, run_id: int) -> None:
        """Forget a run that measured nothing (e.g. a --filter that matched no benchmark)."""
        with self._errors("write to", self._WRITE_FIX, StoreFailed), self.engine.begin() as connection:
            for table in (units, records, faults):
                connection.execute(table.delete().where(table.c.run_id == run_id))
            connection.execute(runs.delete().where(runs.c.id == run_id))

    # -- reading ------------------------------------------------------------------------------

    def list_runs(self, limit: int | None = None) -> list[dict[str, Any]]:
        record_count = (sa.select(sa.func.count()).where(records.c.run_id == runs.c.id).scalar_subquery())
        fault_count = (sa.select(sa.func.count()).where(faults.c.run_id == runs.c.id).scalar_subquery())
        query = sa.select(runs, record_count.label("records"), fault_count.label("faults")).order_by(runs.c.id.desc())
        if limit:
            query = query.limit(limit)
        with self._errors("read", self._READ_FIX), self.engine.connect() as connection:
            rows = [dict(row._mapping) for row in connection.execute(query)]
        for row in rows:
            row["status"] = _effective_status(row)
        return rows

    _READ_FIX = "check the database given by --db, BENCHLAB_DB or run.db"

    def resolve_run_id(self, text: str) -> int:
        """A run id, or 'latest' / a negative index (-1 is the latest run)."""
        with self._errors("read", self._READ_FIX), self.engine.connect() as connection:
            if text == "latest" or (text.startswith("-") and text[1:].isdigit() and len(text) <= 19):
                offset = 0 if text == "latest" else int(text[1:]) - 1
                row = connection.execute(sa.select(runs.c.id).order_by(runs.c.id.desc()).offset(offset).limit(1)).first()
                if row is None:
                    raise UserError(f"no run {text!r}: the database has fewer runs", "list them with: benchlab runs")
                return int(row.id)
            if not text.isdigit() or len(text) > 18:
                raise UserError(f"run id must be a number, 'latest' or -N, got {text!r}", "list runs with: benchlab runs")
            row = connection.execute(sa.select(runs.c.id).where(runs.c.id == int(text))).first()
            if row is None:
                raise UserError(f"no run with id {text} in {self.url}", "list runs with: benchlab runs")
            return int(row.id)

    def load_run(self, run_id: int) -> tuple[dict[str, Any], list[Record], list[Fault]]:
        """The run (with `missing`: planned units that never finished), its records and faults."""
        with self._errors("read", self._READ_FIX), self.engine.connect() as connection:
            run = dict(connection.execute(sa.select(runs).where(runs.c.id == run_id)).one()._mapping)
            run["status"] = _effective_status(run)
            done = [dict(row._mapping) for row in connection.execute(
                sa.select(units.c.binary, units.c.platform, units.c.sweep).where(units.c.run_id == run_id))]
            run["missing"] = missing_units((run.get("context") or {}).get("plan"), done)
            loaded = [_row_record(row._mapping) for row in
                      connection.execute(sa.select(records).where(records.c.run_id == run_id).order_by(records.c.id))]
            loaded_faults = [
                Fault(binary=row.binary, platform=row.platform, reason=row.reason,
                      stderr_tail=row.stderr_tail or [], sweep=row.sweep)
                for row in connection.execute(sa.select(faults).where(faults.c.run_id == run_id).order_by(faults.c.id))]
        return run, loaded, loaded_faults


def missing_units(plan: Any, done: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The planned units ({binary, platform, sweep}) not among those done; [] for runs without a plan."""
    if not isinstance(plan, list):
        return []
    finished = [(u["binary"], u["platform"], u.get("sweep")) for u in done]
    missing = []
    for unit in plan:
        key = (unit.get("binary"), unit.get("platform"), unit.get("sweep"))
        if key in finished:
            finished.remove(key)  # a unit planned twice must be done twice
        else:
            missing.append(unit)
    return missing


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    # WAL: `benchlab runs` can read while a run writes; a killed writer's
    # uncommitted frames are simply ignored on the next open.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _effective_status(run: dict[str, Any]) -> str:
    """'running' for a run whose process is gone means it was killed: say so."""
    if run["status"] == "running" and run.get("host") == socket.gethostname() and run.get("pid"):
        try:
            os.kill(run["pid"], 0)
        except ProcessLookupError:
            return "killed"
        except PermissionError:
            pass
    return run["status"]


def _record_row(run_id: int, record: Record) -> dict[str, Any]:
    return dict(
        run_id=run_id, platform=record.platform, binary=record.binary, bench=record.bench, param=record.param,
        param_name=record.param_name, counter=record.counter, unit=record.unit, format=record.format,
        iterations=record.iterations, median=record.median, sweep=record.sweep, samples=record.samples,
        sample_iterations=record.sample_iterations, summary=record.summary,
        # the empty loop's sample of each round, beside the samples, so the subtraction can be redone
        reported={**record.reported, "overhead_samples": record.overhead_samples}
        if record.overhead_samples else record.reported)


def _row_record(row) -> Record:
    reported = dict(row.reported or {})
    return Record(
        overhead_samples=reported.pop("overhead_samples", None),
        bench=row.bench, param=row.param, param_name=row.param_name, counter=row.counter, unit=row.unit,
        format=row.format or "", iterations=row.iterations, sweep=row.sweep, samples=row.samples,
        sample_iterations=row.sample_iterations, summary=row.summary or {}, reported=reported,
        platform=row.platform, binary=row.binary)
