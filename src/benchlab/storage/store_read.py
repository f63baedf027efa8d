"""What the readers of one stored run (`show`, `stats`, `export`) ask of a store, in
plain SQL that SQLite and PostgreSQL both take, and a reader of an SQLite file that asks
it through Python's sqlite3 alone.

SQLAlchemy takes over a third of a second to import, more than the whole of
`benchlab show` otherwise. So an SQLite file that exists and is at this benchlab's
schema revision (migrations.HEAD) is read without it (open_reader); anything else (a
new file, one to upgrade, PostgreSQL, a URL with options) opens as a Store, which
inherits these same queries and runs them through SQLAlchemy.
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import sys
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Iterator

from benchlab.statistics import noise
from benchlab.errors import UserError
from benchlab.records import Fault, Record, missing_units, printable

#: Seconds an SQLite writer waits for another's transaction (a unit's records: milliseconds)
#: before giving up: several runs on one machine, or `baseline save` during a run, take turns.
SQLITE_BUSY_TIMEOUT_S = 60

DB_ENVIRONMENT_VARIABLE = "BENCHLAB_DB"

READ_FIX = "check the database given by --db, BENCHLAB_DB or run.db"

#: A query as _reading gives it: (sql with :name parameters, parameters, the JSON columns) -> rows.
Query = Callable[..., list[dict[str, Any]]]

# The columns of each table, in store.py's order. "binary" is quoted: a keyword in PostgreSQL.
_RUN_COLUMNS = ("id, started_at, finished_at, status, exit_code, host, pid, argv, platforms, context, "
                "imported_sha256")
_RUN_JSON = ("argv", "platforms", "context")
_RECORD_COLUMNS = ('id, run_id, platform, "binary", bench, param, param_name, counter, unit, format, iterations, '
                   "median, sweep, samples, sample_iterations, summary, reported, param_text")
_RECORD_JSON = ("sweep", "samples", "sample_iterations", "summary", "reported")
_PROFILE_COLUMNS = "id, run_id, platform, target, kind, position, bucket, samples, share, top_symbols"
#: Prior rows already warned about in this process (url, id): once each, not per figure.
_WARNED_PRIORS: set[tuple[str, Any]] = set()
_PRIOR_COLUMNS = ("id, machine, host, cpu, kernel, kind, variance, df, process_cv2, process_df, runs, measured_at, "
                  "load")


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


class StoreReader:
    """The reads of a stored run. A subclass gives `url` and `_reading`."""

    url: str

    def _reading(self) -> contextlib.AbstractContextManager[Query]:
        """One connection to read through: yields query(sql, params, json=()) -> rows as dicts,
        the columns named in `json` decoded; a database failure is one UserError."""
        raise NotImplementedError

    def close(self) -> None:
        """Give back what the store holds open (nothing here: a read closes its connection)."""

    def resolve_run_id(self, text: str) -> int:
        """A run id, 'latest' / a negative index (-1 is the latest run), or a baseline's name
        (which is never one of the others: check_baseline_name), so that every command that
        takes a run takes a baseline too."""
        # ASCII digits only: str.isdigit() also holds for '²', which int() refuses.
        number = text.isascii() and text.isdigit()
        with self._reading() as query:
            if text == "latest" or (text.startswith("-") and text[1:].isascii() and text[1:].isdigit()
                                    and len(text) <= 19):
                offset = 0 if text == "latest" else int(text[1:]) - 1
                rows = query("SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET :offset", {"offset": offset})
                if not rows:
                    raise UserError(f"no run {text!r}: the database has fewer runs", "list them with: benchlab runs")
                return int(rows[0]["id"])
            if text.startswith("-") or (number and len(text) > 18):
                raise UserError(f"run id must be a number, 'latest' or -N, got {text!r}", "list runs with: benchlab runs")
            if not number:
                rows = query("SELECT run_id FROM baselines WHERE name = :name", {"name": text})
                if not rows:
                    raise UserError(f"no run or baseline {text!r} in {self.url}",
                                    "a run is an id, 'latest' or -N: list runs with: benchlab runs, "
                                    "baselines with: benchlab baseline list")
                return int(rows[0]["run_id"])
            rows = query("SELECT id FROM runs WHERE id = :id", {"id": int(text)})
            if not rows:
                raise UserError(f"no run with id {text} in {self.url}", "list runs with: benchlab runs")
            return int(rows[0]["id"])

    def run_row(self, run_id: int) -> dict[str, Any]:
        """The run's row (context, host, status) without its records: for a caller that needs
        the context alone, as the gate does before it loads the sides it compares."""
        with self._reading() as query:
            found = query(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = :id", {"id": run_id}, _RUN_JSON)
        if len(found) != 1:
            raise UserError(f"cannot read database {self.url!r}: no run with id {run_id}", READ_FIX)
        return found[0]

    def load_run(self, run_id: int) -> tuple[dict[str, Any], list[Record], list[Fault]]:
        """The run (with `missing`: planned units that never finished), its records and faults."""
        with self._reading() as query:
            found = query(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = :id", {"id": run_id}, _RUN_JSON)
            if len(found) != 1:
                raise UserError(f"cannot read database {self.url!r}: no run with id {run_id}", READ_FIX)
            run = found[0]
            run["status"] = effective_status(run)
            done = query('SELECT "binary", platform, sweep FROM units WHERE run_id = :id', {"id": run_id}, ("sweep",))
            run["missing"] = missing_units((run.get("context") or {}).get("plan"), done)
            loaded = [row_record(row) for row in query(
                f"SELECT {_RECORD_COLUMNS} FROM records WHERE run_id = :id ORDER BY id", {"id": run_id}, _RECORD_JSON)]
            loaded_faults = [
                Fault(binary=row["binary"], platform=row["platform"], reason=row["reason"],
                      stderr_tail=row["stderr_tail"] or [], sweep=row["sweep"])
                for row in query('SELECT "binary", platform, reason, stderr_tail, sweep FROM faults '
                                 "WHERE run_id = :id ORDER BY id", {"id": run_id}, ("stderr_tail", "sweep"))]
        return run, loaded, loaded_faults

    def load_profile(self, run_id: int) -> list[dict[str, Any]]:
        """The run's profile buckets, by platform, kind and position; [] for a run without a profile."""
        with self._reading() as query:
            return query(f"SELECT {_PROFILE_COLUMNS} FROM profile_buckets WHERE run_id = :id "
                         "ORDER BY platform, kind, position", {"id": run_id}, ("top_symbols",))

    def run_levels(self, run_id: int, context: dict[str, Any] | None) -> dict[tuple, noise.RunLevel]:
        """The between-run noise of each figure of run `run_id` (noise.run_levels)."""
        return noise.run_levels(self, run_id, context)

    #: Runs read at most, looking back for a machine's history of identical code.
    _HISTORY_PAGE, _HISTORY_SCAN = 100, 1000

    def earlier_runs(self, run_id: int) -> Iterator[tuple[int, dict[str, Any] | None]]:
        """(id, context) of the complete runs before `run_id`, newest first, page by page,
        at most _HISTORY_SCAN of them (noise.same_code_window picks its window from them)."""
        for offset in range(0, self._HISTORY_SCAN, self._HISTORY_PAGE):
            with self._reading() as query:
                page = query("SELECT id, context FROM runs WHERE id < :id AND status = :status "
                             "ORDER BY id DESC LIMIT :limit OFFSET :offset",
                             {"id": run_id, "status": "complete", "limit": self._HISTORY_PAGE, "offset": offset},
                             ("context",))
            yield from ((row["id"], row["context"]) for row in page)
            if len(page) < self._HISTORY_PAGE:
                return

    def runs_up_to(self, run_id: int) -> Iterator[dict[str, Any]]:
        """Every run up to run `run_id` (included), newest first: its row (id, started_at, host,
        status, pid, context), read a page at a time, so that a caller who stops early (the
        report's history of one machine) reads no further back than it needs."""
        before = run_id + 1
        while True:
            with self._reading() as query:
                page = query("SELECT id, started_at, host, status, pid, context FROM runs WHERE id < :before "
                             "ORDER BY id DESC LIMIT :limit", {"before": before, "limit": self._HISTORY_PAGE},
                             ("context",))
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
        names = {f"run{index}": run_id for index, run_id in enumerate(run_ids)}
        with self._reading() as query:
            rows = query('SELECT run_id, platform, "binary", bench, param, param_text, counter, sweep, median '
                         f"FROM records WHERE run_id IN ({', '.join(':' + name for name in names)}) "
                         "AND median IS NOT NULL", names, ("sweep",))
        for row in rows:
            row["param"] = stored_param(row)
        return rows

    def bench_runs(self, bench: str, counter: str, *, limit: int, before: int | None = None,
                   platform: str | None = None, param: str | None = None) -> list[dict[str, Any]]:
        """The newest `limit` runs (before run id `before`, when given) with a figure of `bench`'s
        `counter` (on `platform`, and of the parameter that reads as `param`, when given), newest
        first: each run's row (id, started_at, host, status, pid, context). `benchlab history`
        reads a series a page at a time with it, so that a long history is read only as far back
        as it shows (the index of revision 0008 serves it), and then the records of the runs it
        keeps (bench_records)."""
        where, params = _bench_condition(bench, counter, platform, param)
        with self._reading() as query:
            ids = [row["run_id"] for row in query(
                f"SELECT DISTINCT run_id FROM records WHERE {where}"
                + (" AND run_id < :before" if before is not None else "") + " ORDER BY run_id DESC LIMIT :limit",
                {**params, "before": before, "limit": limit})]
            if not ids:
                return []
            names = {f"run{index}": run_id for index, run_id in enumerate(ids)}
            runs = {row["id"]: row for row in query(
                f"SELECT id, started_at, host, status, pid, context FROM runs WHERE id IN "
                f"({', '.join(':' + name for name in names)})", names, ("context",))}
        for run in runs.values():
            run["context"] = run["context"] or {}
            run["status"] = effective_status(run)
        return [runs[run_id] for run_id in ids]

    def bench_records(self, bench: str, counter: str, run_ids: list[int], *, platform: str | None = None,
                      param: str | None = None) -> dict[int, list[Record]]:
        """The records of bench_runs' runs `run_ids` (the same figures of `bench`'s `counter`,
        on `platform` and of `param` when given), each run's in stored order."""
        found: dict[int, list[Record]] = {run_id: [] for run_id in run_ids}
        if not run_ids:
            return found
        where, params = _bench_condition(bench, counter, platform, param)
        names = {f"run{index}": run_id for index, run_id in enumerate(run_ids)}
        with self._reading() as query:
            for row in query(f"SELECT {_RECORD_COLUMNS} FROM records WHERE {where} AND run_id IN "
                             f"({', '.join(':' + name for name in names)}) ORDER BY run_id, id",
                             {**params, **names}, _RECORD_JSON):
                found[row["run_id"]].append(row_record(row))
        return found

    def bench_series_keys(self, bench: str) -> list[dict[str, Any]]:
        """What is stored of `bench`, for the errors of `history` that name it: each distinct
        counter, platform and parameter (param, param_text), and whether it has a figure
        (`measured`: a median). Read only when a series was not found: every record of `bench`."""
        with self._reading() as query:
            rows = query("SELECT DISTINCT counter, platform, param, param_text, "
                         "CASE WHEN median IS NULL THEN 0 ELSE 1 END AS measured FROM records WHERE bench = :bench",
                         {"bench": bench})
        for row in rows:
            row["param"] = stored_param(row)
        return rows

    def bench_names(self) -> list[str]:
        """Every benchmark name stored, in any run."""
        with self._reading() as query:
            return [row["bench"] for row in query("SELECT DISTINCT bench FROM records ORDER BY bench", {})]

    def machine_priors(self, machine: noise.Machine) -> list[dict[str, Any]]:
        """The newest calibration of `machine`, one row per kind; [] when it was never calibrated.
        A row whose figures are not usable (noise.prior_problem) is left out, with a warning:
        a NaN or infinite prior gave tracebacks and `+-nan` in every command that reads it."""
        with self._reading() as query:
            rows = query(f"SELECT {_PRIOR_COLUMNS} FROM machine_priors WHERE machine = :machine ORDER BY kind",
                         {"machine": machine.id})
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


class SqliteReader(StoreReader):
    """A StoreReader of an SQLite file at the head revision, through sqlite3 alone."""

    def __init__(self, url: str, connect: Callable[[], sqlite3.Connection]):
        self.url = url
        self._connect = connect

    def at_head(self) -> bool:
        """Whether the file is a benchlab store at this benchlab's schema revision. When it is
        not (not a database, no version table, locked out, older), a Store says what to do."""
        from benchlab.storage.migrations import HEAD, VERSION_TABLE  # light: Alembic itself is imported only to upgrade
        try:
            connection = self._connect()
            try:
                revision = connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchall()
            finally:
                connection.close()
        except sqlite3.Error:
            return False
        return revision == [(HEAD,)]

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Query]:
        def query(sql: str, params: dict[str, Any], json_columns: tuple[str, ...] = ()) -> list[dict[str, Any]]:
            cursor = connection.execute(sql, params)
            names = [column[0] for column in cursor.description]
            rows = [dict(zip(names, row)) for row in cursor]
            for row in rows:  # the JSON type of store.py is text in SQLite
                for name in json_columns:
                    if row[name] is not None:
                        row[name] = json.loads(row[name])
            return rows

        try:
            connection = self._connect()
        except sqlite3.Error as exc:
            raise sqlite_error(self.url, "read", READ_FIX, UserError, exc) from None
        try:
            yield query
        except sqlite3.Error as exc:
            raise sqlite_error(self.url, "read", READ_FIX, UserError, exc) from None
        finally:
            connection.close()


def sqlite_error(url: str, doing: str, fix: str, error: type[UserError], exc: sqlite3.Error) -> UserError:
    """What Store's errors say of the same failure (its first line)."""
    return error(f"cannot {doing} database {url!r}: {str(exc).strip().splitlines()[0]}", fix)


def existing_sqlite_file(url: str) -> str | None:
    """The path of a plain sqlite:///FILE URL whose file exists, else None: a URL with options,
    an in-memory database, a file to create or another engine is a Store's to open."""
    if not url.startswith("sqlite:///") or "?" in url:
        return None
    path = urllib.parse.unquote(url[len("sqlite:///"):])  # as SQLAlchemy's make_url reads it
    return path if path not in ("", ":memory:") and os.path.isfile(path) else None


def read_write_connection(path: str) -> Callable[[], sqlite3.Connection]:
    """Connections to the SQLite file at `path` that may write it, and never create it."""
    uri = "file:" + urllib.parse.quote(str(Path(path).resolve()))

    def connect() -> sqlite3.Connection:
        # mode=rw: never create a file (it existed a moment ago; a Store says so if it went).
        # A writer (store_write.SqliteStore) writes one transaction at a time, from whichever
        # thread the run stores from.
        return sqlite3.connect(f"{uri}?mode=rw", uri=True, timeout=SQLITE_BUSY_TIMEOUT_S, check_same_thread=False)
    return connect


def open_reader(url: str) -> SqliteReader | None:
    """A reader of `url` without SQLAlchemy when it is a plain sqlite:///FILE whose file exists
    at this benchlab's schema revision; else None (open a Store: it creates, upgrades or
    says what is wrong, as every command does)."""
    path = existing_sqlite_file(url)
    if path is None:
        return None
    reader = SqliteReader(url, read_only_connection(path) if cannot_write(path) else read_write_connection(path))
    return reader if reader.at_head() else None


def cannot_write(path: str) -> str | None:
    """Why this process cannot write the SQLite file at `path` (which exists), else None.

    SQLite writes beside the file too (the WAL and its index, -wal and -shm), so a
    read-only directory is as read-only as the file. os.access answers for root too
    on a read-only file system or an immutable file (chattr +i)."""
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


#: The range of `records.param` (a 64-bit integer): a number outside it is only ever text.
_PARAM_RANGE = range(-2**63, 2**63)


def _bench_condition(bench: str, counter: str, platform: str | None,
                     param: str | None) -> tuple[str, dict[str, Any]]:
    """The WHERE clause of bench_runs' records (a figure: a median), and its parameters. `param`
    is a parameter as `history` prints it: a number's digits, a text parameter, or "" for none;
    the caller still compares each record's own (this narrows, it does not decide)."""
    where = ["bench = :bench", "counter = :counter", "median IS NOT NULL"]
    params: dict[str, Any] = {"bench": bench, "counter": counter}
    if platform is not None:
        where.append("platform = :platform")
        params["platform"] = platform
    if param == "":
        where.append("param IS NULL AND param_text IS NULL")
    elif param is not None:
        digits = param[1:] if param.startswith("-") else param
        number = int(param) if digits.isascii() and digits.isdigit() else None
        if number is not None and str(number) == param and number in _PARAM_RANGE:
            where.append("(param = :param_number OR param_text = :param_text)")
            params["param_number"] = number
        else:
            where.append("param_text = :param_text")
        params["param_text"] = param
    return " AND ".join(where), params


def stored_param(row: Any) -> int | str | None:
    """A row's parameter: its number, or its text (revision 0007's `param_text`)."""
    text = row.get("param_text")
    return row["param"] if text is None else text


def row_record(row: dict[str, Any]) -> Record:
    """A stored row of `records` (by column name) as a Record."""
    reported = dict(row["reported"] or {})
    return Record(
        overhead_samples=reported.pop("overhead_samples", None),
        bench=row["bench"], param=stored_param(row), param_name=row["param_name"], counter=row["counter"],
        unit=row["unit"], format=row["format"] or "", iterations=row["iterations"], sweep=row["sweep"],
        samples=row["samples"], sample_iterations=row["sample_iterations"], summary=row["summary"] or {},
        reported=reported, platform=row["platform"], binary=row["binary"])
