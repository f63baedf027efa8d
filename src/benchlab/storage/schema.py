"""The store's tables, each column named once: its name, type, whether it may be NULL,
whether it holds JSON, and what it refers to.

Everything else is built or checked from here: the statements of sql.py take their column
lists from it, the store encodes and decodes the JSON columns it names (connection.py), Alembic's environment compares the databases with `metadata()`, and
tests/python/storage/test_migrations.py checks that the head of the revisions
(migrations/versions) makes exactly these tables, on SQLite and PostgreSQL. A schema
change is a new revision plus the same change here.

Importing this module imports no SQLAlchemy: `metadata()` does, for Alembic and the tests.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlalchemy as sa

#: Alembic's table of the current revision. Not its default `alembic_version`, so that a
#: PostgreSQL database shared with another program that uses Alembic keeps both apart.
VERSION_TABLE = "benchlab_alembic_version"

#: Names that are keywords in PostgreSQL, quoted wherever a statement names them.
QUOTED = frozenset({"binary"})


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    length: int | None = None  # of a "string"
    nullable: bool = True
    #: "table.column" this column refers to, and what deleting that row does (CASCADE,
    #: RESTRICT, or None: refused while referred to).
    references: str | None = None
    on_delete: str | None = None
    index: bool = False
    #: The value the database gives a row that names none (a column added to existing rows).
    default: str | None = None
    primary_key: bool = False

    @property
    def sql(self) -> str:
        """The name as a statement writes it."""
        return f'"{self.name}"' if self.name in QUOTED else self.name


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    #: (name, columns) of indexes beyond each column's own, and of unique constraints.
    indexes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    unique: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def json(self) -> frozenset[str]:
        return frozenset(column.name for column in self.columns if column.type == "json")

    @property
    def written(self) -> tuple[Column, ...]:
        """The columns an insert names: all but a generated id."""
        return tuple(column for column in self.columns if column.type != "id")


def _id() -> Column:
    return Column("id", "id", nullable=False, primary_key=True)


def _run_id(on_delete: str = "CASCADE") -> Column:
    return Column("run_id", "integer", nullable=False, references="runs.id", on_delete=on_delete, index=True)


def _string(name: str, length: int = 255, nullable: bool = True, **more) -> Column:
    return Column(name, "string", length, nullable, **more)


RUNS = Table("runs", (
    _id(),
    _string("started_at", 32, nullable=False),
    _string("finished_at", 32),
    _string("status", 16, nullable=False),  # running | complete | failed | interrupted
    Column("exit_code", "integer"),
    _string("host"),
    Column("pid", "integer"),
    Column("argv", "json"),
    Column("platforms", "json"),
    Column("context", "json"),
    # The imported file's sha256, for runs `benchlab import` made (context["imported"]).
    _string("imported_sha256", 64, index=True),
))

RECORDS = Table("records", (
    _id(),
    _run_id(),
    _string("platform", nullable=False),
    _string("binary", nullable=False),
    _string("bench", nullable=False),
    Column("param", "bigint"),
    _string("param_name"),
    _string("counter", nullable=False),
    _string("unit", 32, nullable=False),
    _string("format", 32),
    Column("iterations", "bigint"),
    # The median as a column too, so that a later `compare` can query it directly.
    Column("median", "float"),
    Column("sweep", "json"),
    Column("samples", "json", nullable=False),
    Column("sample_iterations", "json"),
    Column("summary", "json"),
    Column("reported", "json"),
    # A parameter that is text (revision 0007); `param` is then NULL.
    _string("param_text"),
), indexes=(
    # `history`'s reads: one benchmark's counter, newest runs first (revision 0008).
    ("ix_records_bench_counter_run_id", ("bench", "counter", "run_id")),
))

FAULTS = Table("faults", (
    _id(),
    _run_id(),
    _string("platform", nullable=False),
    _string("binary", nullable=False),
    Column("reason", "text", nullable=False),
    Column("stderr_tail", "json"),
    Column("sweep", "json"),
    # records.FAILED | records.NOT_BUILT, and which copy of an `instances` sweep failed (revision 0009).
    _string("kind", 16, nullable=False, default="failed"),
    Column("copy", "integer"),
))

#: Finished units, one row each, committed with the unit's records and faults: what
#: `benchlab show` compares with the run's plan (context "plan") to name missing units.
UNITS = Table("units", (
    _id(),
    _run_id(),
    _string("binary", nullable=False),
    _string("platform", nullable=False),
    Column("sweep", "json"),
))

#: Names for stored runs (`benchlab baseline`). A run a baseline names cannot be deleted
#: (RESTRICT; Store.delete_run says which baseline holds it).
BASELINES = Table("baselines", (
    _id(),
    _string("name", nullable=False),
    _run_id(on_delete="RESTRICT"),
    _string("saved_at", 32, nullable=False),
), unique=(("uq_baselines_name", ("name",)),))

#: Profiles (`benchlab profile`): one row per bucket of a run's profile on one platform,
#: self or inclusive, in the buckets file's order (`position`), "other" included. The
#: profiler, its unit and the buckets file are in the run's context ("profile").
PROFILE_BUCKETS = Table("profile_buckets", (
    _id(),
    _run_id(),
    _string("platform", nullable=False),
    _string("target", nullable=False),
    _string("kind", 16, nullable=False),  # self | inclusive
    Column("position", "integer", nullable=False),
    _string("bucket", nullable=False),
    Column("samples", "bigint", nullable=False),  # samples (perf) or instructions (callgrind)
    Column("share", "float", nullable=False),
    Column("top_symbols", "json"),
))

#: What `benchlab calibrate` measured of a machine's between-run noise, per kind of kernel
#: (noise.py, "The prior"); the newest calibration of a machine stands for it.
MACHINE_PRIORS = Table("machine_priors", (
    _id(),
    _string("machine", 16, nullable=False, index=True),  # noise.Machine.id
    _string("host"),
    _string("cpu"),
    _string("kernel"),
    _string("kind", 32, nullable=False),
    Column("variance", "float", nullable=False),
    Column("df", "integer", nullable=False),
    Column("process_cv2", "float", nullable=False),
    Column("process_df", "integer", nullable=False),
    Column("runs", "integer", nullable=False),
    _string("measured_at", 32, nullable=False),
    Column("load", "float"),
))

#: Executables kept for baselines, content-addressed (sha256), so that `gate` can run a
#: baseline's binaries again beside the candidate's, wherever the database is.
BINARIES = Table("binaries", (
    _string("sha256", 64, nullable=False, primary_key=True),
    Column("bytes", "bigint", nullable=False),
    Column("content", "bytes", nullable=False),
))

#: Which binary a baseline keeps for each (binary, platform) unit of its run.
BASELINE_BINARIES = Table("baseline_binaries", (
    _id(),
    Column("baseline_id", "integer", nullable=False, references="baselines.id", on_delete="CASCADE", index=True),
    _string("binary", nullable=False),
    _string("platform", nullable=False),
    _string("sha256", 64, nullable=False, references="binaries.sha256"),
    _string("file_name", nullable=False),
))

TABLES = {table.name: table for table in (RUNS, RECORDS, FAULTS, UNITS, BASELINES, PROFILE_BUCKETS, MACHINE_PRIORS,
                                          BINARIES, BASELINE_BINARIES)}


def metadata() -> "sa.MetaData":
    """The tables as SQLAlchemy's: what Alembic compares a database with (migrations/env.py)."""
    import sqlalchemy as sa

    types = {"id": sa.Integer, "integer": sa.Integer, "bigint": sa.BigInteger, "float": sa.Float, "text": sa.Text,
             "json": sa.JSON, "bytes": sa.LargeBinary}
    result = sa.MetaData()
    for table in TABLES.values():
        columns = []
        for column in table.columns:
            kind = sa.String(column.length) if column.type == "string" else types[column.type]
            foreign = ([sa.ForeignKey(column.references, ondelete=column.on_delete)] if column.references else [])
            columns.append(sa.Column(column.name, kind, *foreign, primary_key=column.primary_key,
                                     autoincrement=column.type == "id" or "auto",
                                     nullable=column.nullable and not column.primary_key, index=column.index or None,
                                     server_default=column.default))
        sa.Table(table.name, result, *columns, *(sa.Index(name, *names) for name, names in table.indexes),
                 *(sa.UniqueConstraint(*names, name=name) for name, names in table.unique))
    return result
