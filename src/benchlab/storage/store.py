"""Every run kept: an SQLite file by default, PostgreSQL by URL for a team or a CI fleet
writing into one history. One Store, over one connection, runs sql.py's statements.

open_store decides the connection. An SQLite file that exists at this benchlab's schema
revision (migrations.HEAD) is used through Python's sqlite3 alone (SqliteConnection):
SQLAlchemy's import was a fifth of a default run, more than the whole of `benchlab show`.
A new file or one to upgrade is migrated through SQLAlchemy and Alembic first, then used
the same way; PostgreSQL and other URLs (an SQLite URL with options, in memory) are used
through SQLAlchemy (engine.py). An SQLite file this process cannot write (a read-only file
system, file or directory) is opened read-only, so that `runs`, `show` and the other
readers still read it; a write to it is then one error.

Writes are transactional by unit: the run row is committed when the run starts, each
finished (binary, platform) unit's records and faults in one transaction, the final status
last. A run killed at any moment leaves the runs before it intact and its own completed
units, never a half-written unit or a corrupt file (SQLite's journal rolls back an
unfinished transaction when the file is next opened). An import is one transaction whole
(import_run): nothing of it is visible until all of it is.

How a Record or a Fault is a row, and back, is in one place each (record_row beside
row_record, fault_row beside row_fault): a column of schema.py named as a field holds it as
it is, so that a new one is spelled in schema.py and its revision only.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import os
import re
import socket
import sys
from pathlib import Path
from typing import Any, Iterator

from benchlab.errors import StoreFailed, UserError
from benchlab.records import NAME_FIELDS, Fault, Record, missing_units, printable, storable, storable_name
from benchlab.statistics import noise
from benchlab.storage import migrations, schema, sql
from benchlab.storage.connection import (Connection, DatabaseError, Run, SqliteConnection, errors,
                                         existing_sqlite_file)

DB_ENVIRONMENT_VARIABLE = "BENCHLAB_DB"

READ_FIX = "check the database given by --db, BENCHLAB_DB or run.db"
WRITE_FIX = "make the database writable or free disk space, or run with --no-store or another --db"
IMPORT_FIX = "make the database writable or free disk space, or give another --db; nothing was imported"
OPEN_FIX = ("check the path or URL given by --db, BENCHLAB_DB or run.db; "
            "a file that is not a benchlab database needs another name")

#: Baseline names: typed on command lines and shown in tables, so no spaces, and never a
#: run reference (`latest`, a number, -N), which `show` and `compare` read as a run.
MAX_BASELINE_NAME = 100
_BASELINE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,%d}" % (MAX_BASELINE_NAME - 1))

#: Rows of records written per statement.
_ROWS_PER_BATCH = 2000

#: Prior rows already warned about in this process (url, id): once each, not per figure.
_WARNED_PRIORS: set[tuple[str, Any]] = set()


def database_url(option: str | None, config_value: str | None, state_dir: Path) -> str:
    """--db, else $BENCHLAB_DB, else run.db of benchlab.toml, else .benchlab/results.db."""
    url = option or os.environ.get(DB_ENVIRONMENT_VARIABLE) or config_value
    if url:
        return url
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a project on a read-only file system that never had a database
        raise UserError(f"cannot create {state_dir} for the database: {exc.strerror}",
                        "give another database with --db or BENCHLAB_DB, e.g. sqlite:////tmp/results.db") from None
    return f"sqlite:///{state_dir / 'results.db'}"


def open_store(url: str) -> Store:
    """The store at `url`, at this benchlab's schema revision: created or upgraded if it
    must be (and can be), else one UserError saying what is wrong and how to fix it."""
    path = existing_sqlite_file(url)
    if path is not None:
        connection = SqliteConnection(url, path)
        if connection.read_only:
            return Store(_at_head_read_only(connection))
        if _revision(connection) == migrations.HEAD:
            return Store(connection)
        connection.close()
    from benchlab.storage.engine import SqlAlchemyConnection  # here: SQLAlchemy is a third of a second
    engine = SqlAlchemyConnection(url)
    if engine.read_only:
        return Store(_at_head_read_only(engine))
    with errors(engine.url, "open", OPEN_FIX):
        engine.upgrade()
    path = existing_sqlite_file(url)
    if path is None:  # PostgreSQL, or an SQLite URL with options or in memory
        return Store(engine)
    engine.close()
    return Store(SqliteConnection(url, path))


def _revision(connection: Connection) -> str | None:
    """The schema revision of the database; None when it has none, or cannot say."""
    try:
        return connection.revision()
    except DatabaseError:
        return None


def _at_head_read_only(connection: Connection) -> Connection:
    """A store open read-only cannot be upgraded: it is read only at this benchlab's schema revision."""
    with errors(connection.url, "open", OPEN_FIX):
        revision = connection.revision()
    if revision != migrations.HEAD:
        connection.close()
        raise UserError(f"database {connection.url!r} is read-only ({connection.read_only}) and its schema is at "
                        f"revision {revision or 'none'}, not this benchlab's {migrations.HEAD}: it cannot be upgraded",
                        "make it writable for one benchlab command, which upgrades it, or read it with the "
                        "benchlab that wrote it")
    return connection


# -- the store ------------------------------------------------------------------------------------

class Store:
    """A store's reads and writes, each a statement of sql.py run through `connection`."""

    def __init__(self, connection: Connection):
        self.connection = connection
        self.url = connection.url

    def close(self) -> None:
        """Give back the connection (a PostgreSQL server counts them against max_connections)."""
        self.connection.close()

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Run]:
        with errors(self.url, "read", READ_FIX), self.connection.reading() as run:
            yield run

    @contextlib.contextmanager
    def _writing(self, fix: str = WRITE_FIX, error: type[UserError] = StoreFailed) -> Iterator[Run]:
        """One write transaction: committed when the block ends, rolled back if it raises."""
        with errors(self.url, "write to", fix, error), self.connection.writing() as run:
            yield run

    def reclaim(self) -> None:
        """After a failed write on a full disk: give back what the failed writes took."""
        self.connection.reclaim()

    # -- a run's writes ---------------------------------------------------------------------------

    def begin_run(self, argv: list[str], platforms: list[str], context: dict[str, Any]) -> int:
        with self._writing(error=UserError) as run:
            return _insert_run(run, argv, platforms, context, "running", None, None)

    def add_unit(self, run_id: int, unit_records: list[Record], unit_faults: list[Fault],
                 unit: dict[str, Any] | None = None) -> None:
        """One finished unit, all or nothing; `unit` ({binary, platform, sweep}) marks it done."""
        with self._writing() as run:
            _insert_unit(run, run_id, unit_records, unit_faults, [unit] if unit is not None else [])

    def import_run(self, argv: list[str], platforms: list[str], context: dict[str, Any], run_records: list[Record],
                   run_faults: list[Fault], done: list[dict[str, Any]], status: str, exit_code: int) -> int:
        """A whole run at once (`benchlab import`): its row with its final status, its records,
        faults and finished units (`done`), in one transaction. Nothing of it is visible until
        all of it is: a process killed or a disk filled on the way leaves no run behind, not an
        empty one shown as killed that would refuse the file's next import (imported_as)."""
        with self._writing(IMPORT_FIX) as run:
            run_id = _insert_run(run, argv, platforms, context, status, exit_code, now())
            _insert_unit(run, run_id, run_records, run_faults, done)
        return run_id

    def update_context(self, run_id: int, context: dict[str, Any]) -> None:
        with self._writing() as run:
            run(sql.UPDATE_CONTEXT, {"context": context, "id": run_id})

    def finish_run(self, run_id: int, status: str, exit_code: int) -> None:
        with self._writing() as run:
            run(sql.FINISH_RUN, {"status": status, "exit_code": exit_code, "finished_at": now(), "id": run_id})

    def delete_run(self, run_id: int) -> None:
        """Forget a run (e.g. one whose --filter matched no benchmark); not one a baseline names."""
        with self._writing() as run:
            names = [row["name"] for row in run(sql.BASELINE_NAMES_OF_RUN, {"run_id": run_id})]
            if names:
                shown = ", ".join(repr(name) for name in names)
                raise UserError(f"run {run_id} is kept as baseline {shown}",
                                f"delete the baseline first: benchlab baseline delete {names[0]}")
            for statement in sql.DELETE_RUN:
                run(statement, {"id": run_id})

    def add_profile(self, run_id: int, rows: list[dict[str, Any]]) -> None:
        """A run's profile buckets (profile_buckets' columns but id and run_id), in one transaction."""
        with self._writing() as run:
            run(sql.INSERT_PROFILE_BUCKET, [{**row, "run_id": run_id} for row in rows])

    # -- a run's reads ----------------------------------------------------------------------------

    def resolve_run_id(self, text: str) -> int:
        """A run id, 'latest' / a negative index (-1 is the latest run), or a baseline's name
        (which is never one of the others: check_baseline_name), so that every command that
        takes a run takes a baseline too."""
        # ASCII digits only: str.isdigit() also holds for '²', which int() refuses.
        number = text.isascii() and text.isdigit()
        with self._reading() as run:
            if text == "latest" or (text.startswith("-") and text[1:].isascii() and text[1:].isdigit()
                                    and len(text) <= 19):
                rows = run(sql.RUN_BACK, {"offset": 0 if text == "latest" else int(text[1:]) - 1})
                if not rows:
                    raise UserError(f"no run {text!r}: the database has fewer runs", "list them with: benchlab runs")
                return int(rows[0]["id"])
            if text.startswith("-") or (number and len(text) > 18):
                raise UserError(f"run id must be a number, 'latest' or -N, got {text!r}", "list runs with: benchlab runs")
            if not number:
                rows = run(sql.BASELINE_RUN, {"name": text})
                if not rows:
                    raise UserError(f"no run or baseline {text!r} in {self.url}",
                                    "a run is an id, 'latest' or -N: list runs with: benchlab runs, "
                                    "baselines with: benchlab baseline list")
                return int(rows[0]["run_id"])
            rows = run(sql.RUN_ID, {"id": int(text)})
            if not rows:
                raise UserError(f"no run with id {text} in {self.url}", "list runs with: benchlab runs")
            return int(rows[0]["id"])

    def run_row(self, run_id: int) -> dict[str, Any]:
        """The run's row (context, host, status) without its records: for a caller that needs
        the context alone, as the gate does before it loads the sides it compares."""
        with self._reading() as run:
            return self._run_row(run, run_id)

    def _run_row(self, run: Run, run_id: int) -> dict[str, Any]:
        found = run(sql.RUN, {"id": run_id})
        if len(found) != 1:
            raise UserError(f"cannot read database {self.url!r}: no run with id {run_id}", READ_FIX)
        return found[0]

    def load_run(self, run_id: int) -> tuple[dict[str, Any], list[Record], list[Fault]]:
        """The run (with `missing`: planned units that never finished), its records and faults."""
        with self._reading() as run:
            row = self._run_row(run, run_id)
            row["status"] = effective_status(row)
            row["missing"] = missing_units((row.get("context") or {}).get("plan"),
                                           run(sql.UNITS_OF_RUN, {"run_id": run_id}))
            loaded = [row_record(found) for found in run(sql.RECORDS_OF_RUN, {"run_id": run_id})]
            loaded_faults = [row_fault(found) for found in run(sql.FAULTS_OF_RUN, {"run_id": run_id})]
        return row, loaded, loaded_faults

    def load_profile(self, run_id: int) -> list[dict[str, Any]]:
        """The run's profile buckets, by platform, kind and position; [] for a run without a profile."""
        with self._reading() as run:
            return run(sql.PROFILE_OF_RUN, {"run_id": run_id})

    def latest_profiled_run(self) -> int | None:
        """The id of the newest run with a profile, or None."""
        with self._reading() as run:
            return run(sql.LATEST_PROFILED_RUN)[0]["run_id"]

    def list_runs(self, limit: int | None = None) -> list[dict[str, Any]]:
        with self._reading() as run:
            rows = run(sql.LIST_RUNS_LIMITED, {"limit": limit}) if limit else run(sql.LIST_RUNS)
        for row in rows:
            row["status"] = effective_status(row)
        return rows

    def imported_as(self, sha256: str) -> int | None:
        """The run that an import of a file with this content made, if any (the newest). Only a
        whole one counts: closed (complete or failed) with records or faults. An import by an
        older benchlab killed or failed midway left a run `running` (shown as killed) or
        empty, which must not stand in the way of importing the file again."""
        with self._reading() as run:
            found = run(sql.IMPORTED_AS, {"sha256": sha256})
        return int(found[0]["id"]) if found else None

    def run_levels(self, run_id: int, context: dict[str, Any] | None) -> dict[tuple, noise.RunLevel]:
        """The between-run noise of each figure of run `run_id` (noise.run_levels)."""
        return noise.run_levels(self, run_id, context)

    #: Runs read at most, looking back for a machine's history of identical code.
    _HISTORY_PAGE, _HISTORY_SCAN = 100, 1000

    def earlier_runs(self, run_id: int) -> Iterator[tuple[int, dict[str, Any] | None]]:
        """(id, context) of the complete runs before `run_id`, newest first, page by page,
        at most _HISTORY_SCAN of them (noise.same_code_window picks its window from them)."""
        for offset in range(0, self._HISTORY_SCAN, self._HISTORY_PAGE):
            with self._reading() as run:
                page = run(sql.EARLIER_COMPLETE_RUNS, {"id": run_id, "status": "complete",
                                                       "limit": self._HISTORY_PAGE, "offset": offset})
            yield from ((row["id"], row["context"]) for row in page)
            if len(page) < self._HISTORY_PAGE:
                return

    def runs_up_to(self, run_id: int, machine: noise.Machine | None = None) -> Iterator[dict[str, Any]]:
        """Every run up to run `run_id` (included), newest first: its row (id, started_at, host,
        status, pid, argv, platforms, context), read a page at a time, so that a caller who
        stops early (the report's history of one machine) reads no further back than it needs.
        With `machine`, the runs of that machine only, as far as its context says so
        (sql.JSON_FIELDS: otherwise every run)."""
        statement, params = sql.runs_before(dataclasses.asdict(machine) if machine is not None and sql.JSON_FIELDS
                                            else None)
        before = run_id + 1
        while True:
            with self._reading() as run:
                page = run(statement, {**params, "before": before, "limit": self._HISTORY_PAGE})
            for row in page:
                row["status"] = effective_status(row)
            yield from page
            if len(page) < self._HISTORY_PAGE:
                return
            before = page[-1]["id"]

    def medians_of_runs(self, run_ids: list[int]) -> list[dict[str, Any]]:
        """Every stored median of these runs: run_id, platform, binary, bench, param, counter,
        sweep, median (one row per process)."""
        if not run_ids:
            return []
        with self._reading() as run:
            rows = run(sql.MEDIANS_OF_RUNS, {"run_ids": list(run_ids)})
        for row in rows:
            row["param"] = stored_param(row)
        return rows

    def bench_runs(self, bench: str, counter: str, *, limit: int, before: int | None = None,
                   platform: str | None = None, param: str | None = None,
                   machine: noise.Machine | None = None) -> list[dict[str, Any]]:
        """The newest `limit` runs (before run id `before`, when given) with a figure of `bench`'s
        `counter` (on `platform`, and of the parameter that reads as `param`, when given), newest
        first: each run's row (id, started_at, host, status, pid, context). `benchlab history`
        reads a series a page at a time with it, so that a long history is read only as far back
        as it shows (the index of revision 0008 serves it), and then the records of the runs it
        keeps (bench_records). With `machine`, the runs of that machine only, as far as its
        context says so (sql.JSON_FIELDS: otherwise the runs of every machine)."""
        fields = dataclasses.asdict(machine) if machine is not None and sql.JSON_FIELDS else None
        statement, params = sql.bench_run_ids(platform, param, before is not None, fields)
        params.update(bench=bench, counter=counter, limit=limit, **({"before": before} if before is not None else {}))
        with self._reading() as run:
            ids = [row["run_id"] for row in run(statement, params)]
            if not ids:
                return []
            runs = {row["id"]: row for row in run(sql.RUNS_BY_ID, {"ids": ids})}
        for found in runs.values():
            found["context"] = found["context"] or {}
            found["status"] = effective_status(found)
        return [runs[run_id] for run_id in ids]

    def bench_records(self, bench: str, counter: str, run_ids: list[int], *, platform: str | None = None,
                      param: str | None = None) -> dict[int, list[Record]]:
        """The records of bench_runs' runs `run_ids` (the same figures of `bench`'s `counter`,
        on `platform` and of `param` when given), each run's in stored order."""
        found: dict[int, list[Record]] = {run_id: [] for run_id in run_ids}
        if not run_ids:
            return found
        statement, params = sql.bench_records(platform, param)
        with self._reading() as run:
            for row in run(statement, {**params, "bench": bench, "counter": counter, "run_ids": list(run_ids)}):
                found[row["run_id"]].append(row_record(row))
        return found

    def records_of_runs(self, run_ids: list[int]) -> dict[int, list[Record]]:
        """Every record of runs `run_ids`, each run's in stored order, in one statement."""
        found: dict[int, list[Record]] = {run_id: [] for run_id in run_ids}
        if run_ids:
            with self._reading() as run:
                for row in run(sql.RECORDS_OF_RUNS, {"run_ids": list(run_ids)}):
                    found[row["run_id"]].append(row_record(row))
        return found

    def bench_series_keys(self, bench: str) -> list[dict[str, Any]]:
        """What is stored of `bench`, for the errors of `history` that name it: each distinct
        counter, platform and parameter (param, param_text), and whether it has a figure
        (`measured`: a median). Read only when a series was not found: every record of `bench`."""
        with self._reading() as run:
            rows = run(sql.BENCH_SERIES_KEYS, {"bench": bench})
        for row in rows:
            row["param"] = stored_param(row)
        return rows

    def bench_names(self) -> list[str]:
        """Every benchmark name stored, in any run."""
        with self._reading() as run:
            return [row["bench"] for row in run(sql.BENCH_NAMES)]

    # -- machine priors ---------------------------------------------------------------------------

    def save_machine_priors(self, machine: noise.Machine, rows: list[dict[str, Any]]) -> None:
        """A calibration of `machine`: one row per kind (machine_priors' columns but the
        machine's and measured_at), replacing the machine's earlier ones, in one transaction."""
        measured = now()
        with self._writing(error=UserError) as run:
            run(sql.DELETE_MACHINE_PRIORS, {"machine": machine.id})
            run(sql.INSERT_MACHINE_PRIOR, [
                {**row, "machine": machine.id, "host": machine.host, "cpu": machine.cpu,
                 "kernel": machine.kernel, "measured_at": measured} for row in rows])

    def machine_priors(self, machine: noise.Machine) -> list[dict[str, Any]]:
        """The newest calibration of `machine`, one row per kind; [] when it was never calibrated.
        A row whose figures are not usable (noise.prior_problem) is left out, with a warning:
        a NaN or infinite prior gave tracebacks and `+-nan` in every command that reads it."""
        with self._reading() as run:
            rows = run(sql.MACHINE_PRIORS_OF, {"machine": machine.id})
        usable = []
        for row in rows:
            problem = noise.prior_problem(row)
            if problem is None:
                usable.append(row)
            elif (self.url, row.get("id")) not in _WARNED_PRIORS:
                _WARNED_PRIORS.add((self.url, row.get("id")))
                sys.stderr.write(printable(f"warning: the machine prior {row.get('kind')!r} stored in {self.url} is "
                                           f"ignored: {problem} (run benchlab calibrate to measure it again)") + "\n")
        return usable

    # -- baselines --------------------------------------------------------------------------------

    def save_baseline(self, name: str, run_id: int, force: bool = False,
                      kept: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
        """Name run `run_id` NAME, dated now; with `force` an existing NAME moves to it.
        `kept`: the run's binaries to keep with it ({binary, platform, file_name, content}),
        content-addressed. Returns the baseline it replaced, if any."""
        check_baseline_name(name)
        with errors(self.url, "write to", WRITE_FIX):
            for attempt in (1, 2):
                try:
                    with self.connection.writing() as run:
                        return self._save_baseline(run, name, run_id, force, kept or [])
                except DatabaseError as failure:
                    # Another process saved the same name in between (PostgreSQL's unique index
                    # tells; SQLite's IMMEDIATE transactions take turns): look again, once.
                    if attempt == 2 or not failure.integrity:
                        raise
        raise AssertionError("unreachable")

    @staticmethod
    def _save_baseline(run: Run, name: str, run_id: int, force: bool,
                       kept: list[dict[str, Any]]) -> dict[str, Any] | None:
        [previous] = run(sql.BASELINE, {"name": name}) or [None]
        if previous is not None and not force:
            raise UserError(f"baseline {name!r} exists: run {previous['run_id']}, saved {previous['saved_at']}",
                            f"give --force to point it at run {run_id}, or choose another name")
        if previous is None:
            run(sql.INSERT_BASELINE, {"name": name, "run_id": run_id, "saved_at": now()})
        else:
            run(sql.MOVE_BASELINE, {"name": name, "run_id": run_id, "saved_at": now()})
            run(sql.DELETE_BASELINE_BINARIES, {"baseline_id": previous["id"]})
        [baseline] = run(sql.BASELINE, {"name": name})
        for entry in kept:
            digest = hashlib.sha256(entry["content"]).hexdigest()
            if not run(sql.BINARY_KEPT, {"sha256": digest}):
                run(sql.INSERT_BINARY, {"sha256": digest, "bytes": len(entry["content"]), "content": entry["content"]})
            run(sql.INSERT_BASELINE_BINARY, {"baseline_id": baseline["id"], "binary": entry["binary"],
                                             "platform": entry["platform"], "sha256": digest,
                                             "file_name": entry["file_name"]})
        run(sql.FORGET_UNKEPT_BINARIES)
        return previous

    def baseline_binaries(self, name: str) -> list[dict[str, Any]]:
        """The binaries baseline NAME keeps: binary, platform, file_name, sha256 (as recorded),
        content, and `intact` (whether the content still hashes to it)."""
        with self._reading() as run:
            rows = run(sql.BINARIES_OF_BASELINE, {"name": name})
        for row in rows:
            row["content"] = bytes(row["content"])
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
        with self._reading() as run:
            rows = run(sql.LIST_BASELINES) if name is None else run(sql.LIST_BASELINE, {"name": name})
            kept = {row["baseline_id"]: (row["binaries"], int(row["binary_bytes"] or 0))
                    for row in run(sql.BASELINE_SIZES)}
        for row in rows:
            row["binaries"], row["binary_bytes"] = kept.get(row.pop("id"), (0, 0))
            row["status"] = effective_status(row)
            git = (row.pop("context") or {}).get("git") or {}
            row["commit"], row["dirty"] = git.get("commit"), bool(git.get("dirty"))
        return rows

    def delete_baseline(self, name: str) -> dict[str, Any]:
        """Forget the name (the run stays); returns what it was."""
        with self._writing(WRITE_FIX, UserError) as run:
            [row] = run(sql.BASELINE, {"name": name}) or [None]
            if row is None:
                raise UserError(f"no baseline {name!r} in {self.url}", "list them with: benchlab baseline list")
            run(sql.DELETE_BASELINE_BINARIES, {"baseline_id": row["id"]})
            run(sql.DELETE_BASELINE, {"name": name})
            run(sql.FORGET_UNKEPT_BINARIES)
        return row


def check_baseline_name(name: str) -> None:
    if name == "latest" or name.isdigit() or not _BASELINE_NAME.fullmatch(name):
        raise UserError(f"baseline name {name!r} is not allowed",
                        f"use 1 to {MAX_BASELINE_NAME} letters, digits and . _ - : / @ +, starting with a letter or "
                        f"digit, e.g. nightly-2026-11-22; 'latest' and numbers name runs")


# -- rows: a run, its records and its faults, written and read back side by side -----------------

def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def imported_sha256(context: dict[str, Any] | None) -> str | None:
    """The sha256 of the file an imported run came from (context["imported"]), else None."""
    imported = context.get("imported") if isinstance(context, dict) else None
    digest = imported.get("sha256") if isinstance(imported, dict) else None
    return digest if isinstance(digest, str) and len(digest) <= 64 else None


def _insert_run(run: Run, argv: list[str], platforms: list[str], context: dict[str, Any], status: str,
                exit_code: int | None, finished_at: str | None) -> int:
    [row] = run(sql.INSERT_RUN, {
        "started_at": finished_at or now(), "finished_at": finished_at, "status": status, "exit_code": exit_code,
        "host": socket.gethostname(), "pid": os.getpid(), "argv": argv, "platforms": platforms, "context": context,
        "imported_sha256": imported_sha256(context)})
    return int(row["id"])


def _insert_unit(run: Run, run_id: int, unit_records: list[Record], unit_faults: list[Fault],
                 done: list[dict[str, Any]]) -> None:
    """Rows of records, faults and finished units ({binary, platform, sweep}), in the caller's transaction."""
    # A batch of rows at a time: an import's million records as rows (and their JSON) at once
    # would double what the import holds (issue 31); still one transaction, the caller's.
    for start in range(0, len(unit_records), _ROWS_PER_BATCH):
        run(sql.INSERT_RECORD, [record_row(run_id, r) for r in unit_records[start:start + _ROWS_PER_BATCH]])
    if unit_faults:
        run(sql.INSERT_FAULT, [fault_row(run_id, fault) for fault in unit_faults])
    if done:
        run(sql.INSERT_UNIT, [{"run_id": run_id, "sweep": None, **unit} for unit in done])


#: The fields of a Record and of a Fault: a column of `records` or `faults` of a field's name
#: holds that field as it is, unless record_row / fault_row (and their readers) say otherwise.
_RECORD_FIELDS = frozenset(field.name for field in dataclasses.fields(Record))
_FAULT_FIELDS = frozenset(field.name for field in dataclasses.fields(Fault))


def record_row(run_id: int, record: Record) -> dict[str, Any]:
    """A Record as a row of `records` (row_record reads it back)."""
    row = {column.name: getattr(record, column.name, None) for column in schema.RECORDS.written}
    # Fields set after the record was made (a binary's name from an undecodable file name)
    # are made storable here too: one bad name must not fail the write of a whole unit.
    row.update({field: storable_name(field, getattr(record, field)) for field in NAME_FIELDS})
    row.update(
        run_id=run_id,
        # a number in `param`, text in `param_text` (revision 0007)
        param=None if isinstance(record.param, str) else record.param,
        param_text=storable(record.param) if isinstance(record.param, str) else None,
        # the empty loop's sample of each round, beside the samples, so the subtraction can be redone
        reported={**record.reported, "overhead_samples": record.overhead_samples}
        if record.overhead_samples else record.reported)
    return row


def row_record(row: dict[str, Any]) -> Record:
    """A row of `records` (by column name) as a Record (record_row wrote it)."""
    reported = dict(row["reported"] or {})
    overhead_samples = reported.pop("overhead_samples", None)
    fields = {name: value for name, value in row.items() if name in _RECORD_FIELDS}
    fields.update(param=stored_param(row), format=row["format"] or "", summary=row["summary"] or {},
                  reported=reported, overhead_samples=overhead_samples)
    return Record(**fields)


def fault_row(run_id: int, fault: Fault) -> dict[str, Any]:
    """A Fault as a row of `faults` (row_fault reads it back)."""
    row = {column.name: getattr(fault, column.name, None) for column in schema.FAULTS.written}
    # PostgreSQL's text columns cannot hold a NUL, which a compiler's message quoting a
    # broken source can carry: written as \0 on both engines alike, as Fault() makes a
    # reason it is given (records.storable), also when it was set later.
    row.update(run_id=run_id, reason=storable(fault.reason))
    return row


def row_fault(row: dict[str, Any]) -> Fault:
    """A row of `faults` as a Fault (fault_row wrote it)."""
    fields = {name: value for name, value in row.items() if name in _FAULT_FIELDS}
    return Fault(**{**fields, "stderr_tail": row["stderr_tail"] or []})


def stored_param(row: Any) -> int | str | None:
    """A row's parameter: its number, or its text (revision 0007's `param_text`)."""
    text = row.get("param_text")
    return row["param"] if text is None else text


def effective_status(run: dict[str, Any]) -> str:
    """'running' for a run whose process is gone means it was killed: say so."""
    if run["status"] == "running" and run.get("host") == socket.gethostname() and run.get("pid"):
        try:
            os.kill(run["pid"], 0)
        except ProcessLookupError:
            return "killed"
        except PermissionError:
            pass
    return run["status"]
