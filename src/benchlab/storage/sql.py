"""Every statement of the store, once, in plain SQL with named parameters (:run_id).

Each runs as written on SQLite through Python's sqlite3 (its "named" paramstyle) and on
PostgreSQL (or another engine) through SQLAlchemy's text(); nothing here is either's
dialect alone (but SQLITE_VERSION_TABLE, which only sqlite3's connection runs): RETURNING id
rather than lastrowid, no boolean columns, no LIKE, LIMIT only where a limit is given, `->>` for a
field of a run's context (SQLite 3.38 on: JSON_FIELDS). A parameter whose value is a list or tuple (`IN (:run_ids)`) is expanded
into one parameter per item by the connection (connection.expand). The columns of each table
come from schema.py; the JSON among them are what the connection encodes and decodes,
by the tables a statement names (`Statement.json`).
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from benchlab.storage import schema
from benchlab.storage.schema import VERSION_TABLE


@dataclass(frozen=True)
class Statement:
    sql: str
    #: The parameters and result columns holding JSON: those of the tables the statement names.
    json: frozenset[str] = frozenset()


def statement(sql: str, *tables: schema.Table) -> Statement:
    return Statement(sql, frozenset().union(*(table.json for table in tables)))


def columns(table: schema.Table, prefix: str = "") -> str:
    """Every column of `table`, as a SELECT lists them."""
    return ", ".join(prefix + column.sql for column in table.columns)


def insert(table: schema.Table) -> Statement:
    """A row of `table`: a parameter per column but the generated id."""
    written = table.written
    return statement(f"INSERT INTO {table.name} ({', '.join(column.sql for column in written)}) "
                     f"VALUES ({', '.join(':' + column.name for column in written)})", table)


RUNS, RECORDS, FAULTS, UNITS, BASELINES = (schema.RUNS, schema.RECORDS, schema.FAULTS, schema.UNITS,
                                           schema.BASELINES)
PROFILE_BUCKETS, MACHINE_PRIORS = schema.PROFILE_BUCKETS, schema.MACHINE_PRIORS
BINARIES, BASELINE_BINARIES = schema.BINARIES, schema.BASELINE_BINARIES

#: The schema revision of the database (migrations.HEAD when it is this benchlab's).
REVISION = statement(f"SELECT version_num FROM {VERSION_TABLE}")
#: Whether an SQLite file has the version table (a file without one has no revision; SQLAlchemy's
#: connection asks its inspector instead).
SQLITE_VERSION_TABLE = statement(f"SELECT name FROM sqlite_master WHERE type = 'table' AND name = '{VERSION_TABLE}'")

# -- runs ----------------------------------------------------------------------------------------

INSERT_RUN = Statement(insert(RUNS).sql + " RETURNING id", RUNS.json)  # store.RETURNING_ID
UPDATE_CONTEXT = statement("UPDATE runs SET context = :context WHERE id = :id", RUNS)
FINISH_RUN = statement("UPDATE runs SET status = :status, exit_code = :exit_code, finished_at = :finished_at "
                       "WHERE id = :id")
RUN = statement(f"SELECT {columns(RUNS)} FROM runs WHERE id = :id", RUNS)
RUN_ID = statement("SELECT id FROM runs WHERE id = :id")
#: The run `offset` runs before the latest (`latest`, -N).
RUN_BACK = statement("SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET :offset")
#: Runs as the listings show them: their rows, newest first.
_RUN_LISTED = "id, started_at, host, status, pid, argv, platforms, context"
RUNS_BEFORE = statement(f"SELECT {_RUN_LISTED} FROM runs WHERE id < :before ORDER BY id DESC LIMIT :limit", RUNS)


def runs_before(machine: dict | None) -> tuple[Statement, dict]:
    """RUNS_BEFORE, of `machine` only when given (_machine_condition)."""
    if machine is None:
        return RUNS_BEFORE, {}
    condition, params = _machine_condition(machine)
    return statement(f"SELECT {_RUN_LISTED} FROM runs WHERE id < :before{condition} ORDER BY id DESC LIMIT :limit",
                     RUNS), params


RUNS_BY_ID = statement(f"SELECT {_RUN_LISTED} FROM runs WHERE id IN (:ids)", RUNS)
EARLIER_COMPLETE_RUNS = statement("SELECT id, context FROM runs WHERE id < :id AND status = :status "
                                  "ORDER BY id DESC LIMIT :limit OFFSET :offset", RUNS)
_LIST_RUNS = (f"SELECT {columns(RUNS, 'runs.')}, "
              "(SELECT count(*) FROM records WHERE records.run_id = runs.id) AS records, "
              "(SELECT count(*) FROM faults WHERE faults.run_id = runs.id) AS faults FROM runs ORDER BY runs.id DESC")
LIST_RUNS = statement(_LIST_RUNS, RUNS)
LIST_RUNS_LIMITED = statement(_LIST_RUNS + " LIMIT :limit", RUNS)
#: The newest whole import of a file: closed, with records or faults (Store.imported_as).
IMPORTED_AS = statement(
    "SELECT id FROM runs WHERE imported_sha256 = :sha256 AND status IN ('complete', 'failed') AND "
    "(EXISTS (SELECT 1 FROM records WHERE records.run_id = runs.id) OR "
    "EXISTS (SELECT 1 FROM faults WHERE faults.run_id = runs.id)) ORDER BY id DESC LIMIT 1")
#: A run's rows in every table but baselines, children first, then the run.
DELETE_RUN = tuple(statement(f"DELETE FROM {table} WHERE run_id = :id")
                   for table in ("units", "records", "faults", "profile_buckets")) + (
    statement("DELETE FROM runs WHERE id = :id"),)

# -- a run's units, records and faults -----------------------------------------------------------

INSERT_RECORD = insert(RECORDS)
INSERT_FAULT = insert(FAULTS)
INSERT_UNIT = insert(UNITS)
RECORDS_OF_RUNS = statement(f"SELECT {columns(RECORDS)} FROM records WHERE run_id IN (:run_ids) ORDER BY run_id, id",
                            RECORDS)
RECORDS_OF_RUN = statement(f"SELECT {columns(RECORDS)} FROM records WHERE run_id = :run_id ORDER BY id", RECORDS)
FAULTS_OF_RUN = statement(f"SELECT {columns(FAULTS)} FROM faults WHERE run_id = :run_id ORDER BY id", FAULTS)
UNITS_OF_RUN = statement('SELECT "binary", platform, sweep FROM units WHERE run_id = :run_id', UNITS)
MEDIANS_OF_RUNS = statement('SELECT run_id, platform, "binary", bench, param, param_text, counter, sweep, median '
                            "FROM records WHERE run_id IN (:run_ids) AND median IS NOT NULL", RECORDS)
BENCH_NAMES = statement("SELECT DISTINCT bench FROM records ORDER BY bench")
BENCH_SERIES_KEYS = statement("SELECT DISTINCT counter, platform, param, param_text, "
                              "CASE WHEN median IS NULL THEN 0 ELSE 1 END AS measured FROM records "
                              "WHERE bench = :bench")

#: The range of `records.param` (a 64-bit integer): a number outside it is only ever text.
_PARAM_RANGE = range(-2**63, 2**63)


def _bench_condition(platform: str | None, param: str | None) -> tuple[str, dict]:
    """The WHERE clause of one benchmark's figures (a median) of one counter (:bench,
    :counter), on `platform` and of the parameter that reads as `param` when given, and the
    parameters it adds. `param` is a parameter as `history` prints it: a number's digits, a
    text parameter, or "" for none; the caller still compares each record's own (this
    narrows, it does not decide)."""
    where = ["bench = :bench", "counter = :counter", "median IS NOT NULL"]
    params: dict = {}
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


#: Whether SQLite reads `->>` (3.38 on): the one JSON operator SQLite and PostgreSQL share, the
#: same for both engines of this process (SQLAlchemy's SQLite is the same library).
JSON_FIELDS = sqlite3.sqlite_version_info >= (3, 38)
#: A run's machine (noise.Machine.of): its context's host (else the row's), CPU, kernel, arch.
_MACHINE_FIELDS = {"host": "COALESCE(NULLIF(runs.context ->> 'host', ''), runs.host)",
                   "cpu": "runs.context ->> 'cpu'", "kernel": "runs.context ->> 'kernel'",
                   "arch": "runs.context ->> 'arch'"}


def _machine_condition(machine: dict | None) -> tuple[str, dict]:
    """The condition that a run is of `machine` ({host, cpu, kernel, arch}; None: any), read
    from its context in SQL; it narrows, the caller still compares each run's machine."""
    if machine is None:
        return "", {}
    where, params = [], {}
    for field, value in machine.items():
        if value is None:
            where.append(f"{_MACHINE_FIELDS[field]} IS NULL")
        else:
            where.append(f"{_MACHINE_FIELDS[field]} = :machine_{field}")
            params[f"machine_{field}"] = str(value)
    return " AND " + " AND ".join(where), params


def bench_run_ids(platform: str | None, param: str | None, before: bool,
                  machine: dict | None = None) -> tuple[Statement, dict]:
    """The newest :limit runs (before run :before, with `before`) with a figure of :bench's
    :counter: the range of revision 0008's index, walked from its newest end; of `machine`
    only, when given: the runs' rows walked from the newest, each run's records looked up
    in that index."""
    where, params = _bench_condition(platform, param)
    if machine is None:
        return statement(f"SELECT DISTINCT run_id FROM records WHERE {where}"
                         + (" AND run_id < :before" if before else "") + " ORDER BY run_id DESC LIMIT :limit"), params
    condition, machine_params = _machine_condition(machine)
    return statement(f"SELECT runs.id AS run_id FROM runs WHERE EXISTS (SELECT 1 FROM records WHERE "
                     f"records.run_id = runs.id AND {where})" + condition
                     + (" AND runs.id < :before" if before else "") + " ORDER BY runs.id DESC LIMIT :limit"), \
        {**params, **machine_params}


def bench_records(platform: str | None, param: str | None) -> tuple[Statement, dict]:
    """The records of bench_run_ids' figures in runs :run_ids, each run's in stored order."""
    where, params = _bench_condition(platform, param)
    return statement(f"SELECT {columns(RECORDS)} FROM records WHERE {where} AND run_id IN (:run_ids) "
                     "ORDER BY run_id, id", RECORDS), params


# -- profiles and machine priors -----------------------------------------------------------------

INSERT_PROFILE_BUCKET = insert(PROFILE_BUCKETS)
PROFILE_OF_RUN = statement(f"SELECT {columns(PROFILE_BUCKETS)} FROM profile_buckets WHERE run_id = :run_id "
                           "ORDER BY platform, kind, position", PROFILE_BUCKETS)
LATEST_PROFILED_RUN = statement("SELECT max(run_id) AS run_id FROM profile_buckets")
INSERT_MACHINE_PRIOR = insert(MACHINE_PRIORS)
DELETE_MACHINE_PRIORS = statement("DELETE FROM machine_priors WHERE machine = :machine")
MACHINE_PRIORS_OF = statement(f"SELECT {columns(MACHINE_PRIORS)} FROM machine_priors WHERE machine = :machine "
                              "ORDER BY kind")

# -- baselines and the binaries they keep --------------------------------------------------------

BASELINE_RUN = statement("SELECT run_id FROM baselines WHERE name = :name")
BASELINE = statement(f"SELECT {columns(BASELINES)} FROM baselines WHERE name = :name")
BASELINE_NAMES_OF_RUN = statement("SELECT name FROM baselines WHERE run_id = :run_id ORDER BY name")
INSERT_BASELINE = insert(BASELINES)
MOVE_BASELINE = statement("UPDATE baselines SET run_id = :run_id, saved_at = :saved_at WHERE name = :name")
DELETE_BASELINE = statement("DELETE FROM baselines WHERE name = :name")
BINARY_KEPT = statement("SELECT sha256 FROM binaries WHERE sha256 = :sha256")
INSERT_BINARY = insert(BINARIES)
INSERT_BASELINE_BINARY = insert(BASELINE_BINARIES)
DELETE_BASELINE_BINARIES = statement("DELETE FROM baseline_binaries WHERE baseline_id = :baseline_id")
#: The binaries no baseline keeps any more.
FORGET_UNKEPT_BINARIES = statement("DELETE FROM binaries WHERE sha256 NOT IN (SELECT sha256 FROM baseline_binaries)")
BINARIES_OF_BASELINE = statement(
    "SELECT baseline_binaries.\"binary\", baseline_binaries.platform, baseline_binaries.file_name, "
    "baseline_binaries.sha256, binaries.content FROM baseline_binaries "
    "JOIN baselines ON baselines.id = baseline_binaries.baseline_id "
    "JOIN binaries ON binaries.sha256 = baseline_binaries.sha256 "
    "WHERE baselines.name = :name ORDER BY baseline_binaries.id")
_LIST_BASELINES = ("SELECT baselines.id, baselines.name, baselines.run_id, baselines.saved_at, runs.started_at, "
                   "runs.host, runs.status, runs.pid, runs.context FROM baselines JOIN runs ON runs.id = baselines.run_id"
                   "{where} ORDER BY baselines.saved_at DESC, baselines.id DESC")
LIST_BASELINES = statement(_LIST_BASELINES.format(where=""), RUNS)
LIST_BASELINE = statement(_LIST_BASELINES.format(where=" WHERE baselines.name = :name"), RUNS)
#: How many binaries each baseline keeps, and their bytes.
BASELINE_SIZES = statement("SELECT baseline_binaries.baseline_id, count(*) AS binaries, "
                           "sum(binaries.bytes) AS binary_bytes FROM baseline_binaries "
                           "JOIN binaries ON binaries.sha256 = baseline_binaries.sha256 "
                           "GROUP BY baseline_binaries.baseline_id")
