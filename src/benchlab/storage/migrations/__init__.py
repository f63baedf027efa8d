"""The store's schema, created and upgraded by Alembic whenever a store is opened.

The revisions in versions/ are the schema's history, the same DDL on SQLite and
PostgreSQL; schema.py's tables are what the code queries, and
tests/python/storage/test_migrations.py checks that the head of the revisions matches them on
both engines. A schema change is a new file versions/NNNN_what.py (`revision = "NNNN"`,
`down_revision` the previous one, an `upgrade()` written with alembic.op, and
op.batch_alter_table for changes to existing columns, which SQLite makes by copying the
table) plus the same change in schema.py. A released revision is never edited: databases
out there have run it.

Opening a database at the head costs one read, takes no lock and does not import
Alembic (a quarter of a second), so a read-only file opens as before, and quickly. Otherwise the upgrade holds the schema lock (SQLite: the write lock,
PostgreSQL: an advisory lock) in one transaction with all its DDL, so processes that
open a new database at once create it once, and a failed upgrade leaves it as it was.

Databases made before the schema had revisions (benchlab 0.1 created its tables with
`metadata.create_all`) have benchlab's tables but no version table: they are recognised
by their columns, stamped with the revision they match, and upgraded from there, rows
untouched.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from benchlab.bundled import version as benchlab_version
from benchlab.errors import UserError
from benchlab.storage.schema import VERSION_TABLE

# SQLAlchemy is imported by the functions that use it: store.py reads HEAD to open a
# store without it.
if TYPE_CHECKING:
    import sqlalchemy as sa
    from alembic.config import Config

#: The newest revision in versions/ (a test checks that it is Alembic's head): a database
#: at it needs nothing, and Alembic is imported only for one that does.
HEAD = "0009"


DIRECTORY = Path(__file__).resolve().parent

#: The tables and columns of the databases made before revisions, and the revision each
#: state is: `units` came with fault handling, after the first release of the store.
_UNVERSIONED = {
    "runs": {"id", "started_at", "finished_at", "status", "exit_code", "host", "pid", "argv", "platforms",
             "context"},
    "records": {"id", "run_id", "platform", "binary", "bench", "param", "param_name", "counter", "unit", "format",
                "iterations", "median", "sweep", "samples", "sample_iterations", "summary", "reported"},
    "faults": {"id", "run_id", "platform", "binary", "reason", "stderr_tail", "sweep"},
    "units": {"id", "run_id", "binary", "platform", "sweep"},
}
_UNVERSIONED_REVISION = {frozenset({"runs", "records", "faults"}): "0001",
                         frozenset({"runs", "records", "faults", "units"}): "0002"}

#: PostgreSQL's advisory lock of schema changes: "benchlab" in ASCII, as a 64-bit key.
_ADVISORY_LOCK = 0x62656E63686C6162


def upgrade(engine: sa.Engine, shown_url: str) -> None:
    """Bring the database of `engine` to the head revision (`shown_url` names it in errors)."""
    with engine.connect() as connection:
        if stored_revision(connection) == HEAD:
            return
    from alembic import command  # here, not at the top: see HEAD
    from alembic.script import ScriptDirectory

    config = _config()
    script = ScriptDirectory.from_config(config)
    target = script.get_current_head()
    known = {revision.revision for revision in script.walk_revisions()}
    with engine.connect() as connection:
        current = _current(connection, known, shown_url)
        if current == target:
            return
        connection.rollback()  # end the read, so that the lock below starts the transaction
        _lock(connection)
        # Another process may have upgraded it while this one waited for the lock.
        current = _current(connection, known, shown_url)
        if current == target:
            return
        config.attributes["connection"] = connection
        if current is None:
            unversioned = _unversioned_revision(connection, shown_url)
            if unversioned:
                command.stamp(config, unversioned)
        command.upgrade(config, "head")
        connection.commit()


def stored_revision(connection: sa.Connection) -> str | None:
    """The revision in the version table, read without Alembic; None when there is none."""
    import sqlalchemy as sa

    from benchlab.storage import sql  # here: only a database through SQLAlchemy needs it
    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return None
    return connection.execute(sa.text(sql.REVISION.sql)).scalar()


def _config() -> "Config":
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(DIRECTORY))
    return config


def _current(connection: sa.Connection, known: set[str], shown_url: str) -> str | None:
    """The database's revision; an error, before anything is written, for one this code does not know."""
    from alembic.runtime.migration import MigrationContext

    revision = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE}).get_current_revision()
    if revision is not None and revision not in known:
        raise UserError(f"database {shown_url} has schema revision {revision!r}, which benchlab {benchlab_version()} does "
                        f"not know: a newer benchlab has upgraded it",
                        "upgrade benchlab on this machine (pip install --upgrade the newer wheel or git+URL, "
                        "or in a checkout git pull and bash scripts/setup.sh), or give another --db")
    return revision


def _lock(connection: sa.Connection) -> None:
    """Begin the transaction of the upgrade, holding the lock that serialises upgrades."""
    import sqlalchemy as sa
    if connection.dialect.name == "sqlite":
        # IMMEDIATE takes the write lock now (waiting out the busy timeout), not at the first
        # write, so two processes never both decide to create the tables.
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    elif connection.dialect.name == "postgresql":
        # Released with the transaction. Concurrent CREATE TABLEs would otherwise fail on
        # PostgreSQL's catalog, not wait for each other.
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK})


def _unversioned_revision(connection: sa.Connection, shown_url: str) -> str | None:
    """The revision of a database made before revisions: None for a new (or unrelated) one."""
    import sqlalchemy as sa
    names = set(sa.inspect(connection).get_table_names())
    ours = names & {*_UNVERSIONED, "baselines"}
    if not ours:
        return None
    columns = {name: {column["name"] for column in sa.inspect(connection).get_columns(name)} for name in ours}
    revision = _UNVERSIONED_REVISION.get(frozenset(ours))
    if revision is None or any(columns[name] != _UNVERSIONED[name] for name in ours):
        different = ", ".join(sorted(name for name in ours if columns[name] != _UNVERSIONED.get(name)))
        raise UserError(f"database {shown_url} has tables named as benchlab's ({', '.join(sorted(ours))}) but no "
                        f"benchlab schema revision" + (f", and {different} not as benchlab made them" if different
                                                       else ""),
                        "give benchlab a database of its own with --db, BENCHLAB_DB or run.db")
    return revision
