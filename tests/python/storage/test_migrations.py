"""The schema is Alembic's, the same on SQLite and PostgreSQL, and databases made before it
had revisions upgrade in place, every row kept. Each test taking `db_url` runs on both."""
import hashlib
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from benchlab import __version__ as benchlab_version
from benchlab.storage import migrations
from benchlab.errors import UserError
from benchlab.records import FAILED, NOT_BUILT, Fault, Record
from benchlab.storage.schema import TABLES, metadata
from benchlab.storage.store import open_store

# -- the tables as benchlab created them before revisions (store.py of commit 3028a9c, frozen) --

frozen = sa.MetaData()

frozen_runs = sa.Table(
    "runs", frozen,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("started_at", sa.String(32), nullable=False),
    sa.Column("finished_at", sa.String(32)),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("exit_code", sa.Integer),
    sa.Column("host", sa.String(255)),
    sa.Column("pid", sa.Integer),
    sa.Column("argv", sa.JSON),
    sa.Column("platforms", sa.JSON),
    sa.Column("context", sa.JSON),
)

frozen_records = sa.Table(
    "records", frozen,
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
    sa.Column("median", sa.Float),
    sa.Column("sweep", sa.JSON),
    sa.Column("samples", sa.JSON, nullable=False),
    sa.Column("sample_iterations", sa.JSON),
    sa.Column("summary", sa.JSON),
    sa.Column("reported", sa.JSON),
)

frozen_faults = sa.Table(
    "faults", frozen,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("platform", sa.String(255), nullable=False),
    sa.Column("binary", sa.String(255), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("stderr_tail", sa.JSON),
    sa.Column("sweep", sa.JSON),
)

frozen_units = sa.Table(
    "units", frozen,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("binary", sa.String(255), nullable=False),
    sa.Column("platform", sa.String(255), nullable=False),
    sa.Column("sweep", sa.JSON),
)

#: Two runs as benchlab 0.1 stored them: one complete with two processes' records, one
#: interrupted with a fault and a planned unit that never finished.
PLAN = [{"binary": "fs_read", "platform": "native", "sweep": None},
        {"binary": "fs_read", "platform": "wasm", "sweep": None}]
OLD_RUNS = [
    dict(id=1, started_at="2026-11-20T09:00:00Z", finished_at="2026-11-20T09:01:00Z", status="complete",
         exit_code=0, host="ci-box-1", pid=4242, argv=["benchlab", "run", "suites/sys"], platforms=["native"],
         context={"git": {"commit": "0123456789abcdef0123", "dirty": False}, "seed": 7, "cpu": "AMD EPYC"}),
    dict(id=2, started_at="2026-11-21T09:00:00Z", finished_at="2026-11-21T09:00:30Z", status="interrupted",
         exit_code=130, host="ci-box-2", pid=4343, argv=["benchlab", "run"], platforms=["native", "wasm"],
         context={"plan": PLAN, "seed": 8}),
]
OLD_RECORDS = [
    dict(id=1, run_id=1, platform="native", binary="fs_read", bench="fs_read", param=1024, param_name=None,
         counter="time", unit="ns", format="jsonl", iterations=56371, median=355.0, sweep=None,
         samples=[354.0, 355.0, 360.5], sample_iterations=[56371, 56371, 56371],
         summary={"median": 355.0, "median_ci": [354.0, 360.5], "n": 3},
         reported={"process": 0, "ratio": 1.5, "overhead_samples": [1.0, 1.5, 1.25]}),
    dict(id=2, run_id=1, platform="native", binary="fs_read", bench="fs_read", param=1024, param_name=None,
         counter="time", unit="ns", format="jsonl", iterations=56000, median=351.0, sweep=None,
         samples=[350.0, 351.0, 352.0], sample_iterations=[56000, 56000, 56000],
         summary={"median": 351.0, "n": 3}, reported={"process": 1}),
    dict(id=3, run_id=2, platform="native", binary="fs_read", bench="fs_read", param=-9223372036854775808,
         param_name="size", counter="throughput", unit="ops/s", format="csb", iterations=5000000, median=2.5e7,
         sweep={"flag": "threads", "value": "2"}, samples=[2.5e7], sample_iterations=None, summary=None,
         reported={"ops": [{"op": 0, "name": "lookup", "p99_ns": 60.5}]}),
]
OLD_FAULTS = [dict(id=1, run_id=2, platform="wasm", binary="fs_write", reason="killed by SIGSEGV",
                   stderr_tail=["boom", "ünïcode"], sweep=None)]
OLD_UNITS = [dict(id=1, run_id=1, binary="fs_read", platform="native", sweep=None),
             dict(id=2, run_id=2, binary="fs_read", platform="native", sweep=None)]


def engine_of(url: str) -> sa.Engine:
    return sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def make_unversioned_database(url: str, with_units: bool = True) -> None:
    """A database as benchlab 0.1 left it: its tables by create_all, and rows, no version table."""
    engine = engine_of(url)
    tables = [frozen_runs, frozen_records, frozen_faults] + ([frozen_units] if with_units else [])
    frozen.create_all(engine, tables=tables)
    with engine.begin() as connection:
        connection.execute(frozen_runs.insert(), OLD_RUNS)
        connection.execute(frozen_records.insert(), OLD_RECORDS)
        connection.execute(frozen_faults.insert(), OLD_FAULTS)
        if with_units:
            connection.execute(frozen_units.insert(), OLD_UNITS)
        if engine.dialect.name == "postgresql":
            # Explicit ids leave the sequences behind; benchlab 0.1's rows took them from the sequences.
            for table in tables:
                connection.exec_driver_sql(f"SELECT setval('{table.name}_id_seq', (SELECT max(id) FROM {table.name}))")
    engine.dispose()


def dump(url: str, tables=("runs", "records", "faults", "units")) -> dict[str, list[dict]]:
    """Every row of the old tables, as the frozen definitions read them."""
    engine = engine_of(url)
    present = set(sa.inspect(engine).get_table_names())
    with engine.connect() as connection:
        rows = {name: [dict(row._mapping) for row in connection.execute(
            sa.select(frozen.tables[name]).order_by(frozen.tables[name].c.id))]
            for name in tables if name in present}
    engine.dispose()
    return rows


def revision_of(url: str) -> str | None:
    engine = engine_of(url)
    with engine.connect() as connection:
        revision = MigrationContext.configure(
            connection, opts={"version_table": migrations.VERSION_TABLE}).get_current_revision()
    engine.dispose()
    return revision


def test_head_is_the_newest_revision_file():
    script = ScriptDirectory(str(migrations.DIRECTORY))
    assert script.get_current_head() == migrations.HEAD == "0009"
    assert [r.revision for r in script.walk_revisions()] == [
        "0009", "0008", "0007", "0006", "0005", "0004", "0003", "0002", "0001"]


def test_a_new_database_gets_the_schema_schema_py_names(db_url):
    store = open_store(db_url)
    assert revision_of(db_url) == migrations.HEAD
    engine = engine_of(db_url)
    with engine.connect() as connection:
        names = set(sa.inspect(connection).get_table_names())
        # Alembic's own comparison of the database with schema.py's tables: columns, types,
        # nullability, indexes, unique constraints, foreign keys. Nothing differs.
        context = MigrationContext.configure(connection, opts={"version_table": migrations.VERSION_TABLE})
        differences = compare_metadata(context, metadata())
        on_delete = {(table, fk["referred_table"], fk["options"].get("ondelete"))
                     for table in ("records", "faults", "units", "baselines", "profile_buckets", "baseline_binaries")
                     for fk in sa.inspect(connection).get_foreign_keys(table)}
    assert names == {"runs", "records", "faults", "units", "baselines", "profile_buckets", "machine_priors",
                     "binaries", "baseline_binaries", migrations.VERSION_TABLE}
    assert differences == []
    assert on_delete == {("records", "runs", "CASCADE"), ("faults", "runs", "CASCADE"), ("units", "runs", "CASCADE"),
                         ("baselines", "runs", "RESTRICT"), ("profile_buckets", "runs", "CASCADE"),
                         ("baseline_binaries", "baselines", "CASCADE"), ("baseline_binaries", "binaries", None)}
    assert names == {*TABLES, migrations.VERSION_TABLE}
    engine.dispose()
    store.close()


def test_an_unversioned_database_upgrades_in_place_keeping_every_row(db_url):
    make_unversioned_database(db_url)
    before = dump(db_url)
    assert revision_of(db_url) is None and sum(len(rows) for rows in before.values()) == 8

    store = open_store(db_url)

    assert revision_of(db_url) == migrations.HEAD
    assert dump(db_url) == before  # every row, every value, as it was
    runs = store.list_runs()
    assert [(r["id"], r["status"], r["records"], r["faults"]) for r in runs] == [
        (2, "interrupted", 1, 1), (1, "complete", 2, 0)]
    run, records, faults = store.load_run(1)
    assert run["context"]["git"]["commit"] == "0123456789abcdef0123" and run["missing"] == []
    assert [(r.process, r.median, r.samples, r.param) for r in records] == [
        (0, 355.0, [354.0, 355.0, 360.5], 1024), (1, 351.0, [350.0, 351.0, 352.0], 1024)]
    assert records[0].overhead_samples == [1.0, 1.5, 1.25] and records[0].reported == {"process": 0, "ratio": 1.5}
    run, records, faults = store.load_run(2)
    assert run["missing"] == [PLAN[1]]
    assert records[0].param == -9223372036854775808 and records[0].reported["ops"][0]["p99_ns"] == 60.5
    assert records[0].sweep == {"flag": "threads", "value": "2"}
    assert faults == [Fault("fs_write", "wasm", "killed by SIGSEGV", ["boom", "ünïcode"], None)]
    # The upgraded database takes new runs and baselines of old runs.
    assert store.begin_run(["benchlab"], ["native"], {}) == 3
    store.save_baseline("before-upgrade", 1)
    assert [(b["name"], b["run_id"], b["host"], b["commit"]) for b in store.list_baselines()] == [
        ("before-upgrade", 1, "ci-box-1", "0123456789abcdef0123")]
    store.close()
    # and opening it again changes nothing
    after = dump(db_url)
    open_store(db_url).close()
    assert dump(db_url) == after and revision_of(db_url) == migrations.HEAD


def test_the_first_stored_schema_without_units_upgrades_too(db_url):
    make_unversioned_database(db_url, with_units=False)
    before = dump(db_url)
    store = open_store(db_url)
    assert revision_of(db_url) == migrations.HEAD and dump(db_url, ("runs", "records", "faults")) == before
    assert dump(db_url, ("units",)) == {"units": []}
    # a run of that time has no plan, so nothing is named missing
    run, records, _ = store.load_run(1)
    assert run["missing"] == [] and len(records) == 2
    store.close()


def test_imported_runs_of_an_older_database_are_found_by_their_sha256_after_the_upgrade(db_url):
    make_unversioned_database(db_url)
    digest = hashlib.sha256(b"BM_x 10 ns").hexdigest()
    engine = engine_of(db_url)
    with engine.begin() as connection:
        connection.execute(frozen_runs.insert(), [dict(
            started_at="2026-11-22T09:00:00Z", status="complete", argv=["benchlab", "import", "x.json"],
            platforms=["native"], context={"imported": {"path": "/x.json", "sha256": digest, "format": "gbench"}})])
        # A whole import has its records (an empty one would not refuse the file again: imported_as).
        connection.execute(frozen_records.insert(), [dict(
            run_id=3, platform="native", binary="x.json", bench="BM_x", counter="time", unit="ns", samples=[10.0])])
    engine.dispose()
    before = dump(db_url)
    store = open_store(db_url)
    assert dump(db_url) == before
    assert store.imported_as(digest) == 3
    assert store.imported_as(hashlib.sha256(b"other").hexdigest()) is None
    # A run imported after the upgrade is found too, and the newest import wins.
    again = store.import_run(["benchlab", "import", "x.json"], ["native"], {"imported": {"sha256": digest}},
                             [Record(bench="BM_x", param=None, samples=[10.0], platform="native", binary="x.json")],
                             [], [], "complete", 0)
    assert again == 4 and store.imported_as(digest) == 4
    assert store.imported_as("") is None and store.begin_run(["benchlab", "run"], ["native"], {}) == 5
    store.close()


def test_a_failed_upgrade_leaves_the_database_as_it_was(db_url, monkeypatch):
    make_unversioned_database(db_url)
    before = dump(db_url)
    from alembic import command
    real_upgrade = command.upgrade

    def upgrade_then_fail(config, revision):
        real_upgrade(config, revision)  # the stamp and every revision have run ...
        raise sa.exc.OperationalError("upgrade", {}, Exception("disk I/O error"))  # ... and then this

    monkeypatch.setattr(command, "upgrade", upgrade_then_fail)
    with pytest.raises(UserError, match="disk I/O error"):
        open_store(db_url)
    # One transaction: no version table, no baselines table, the old rows untouched.
    engine = engine_of(db_url)
    assert set(sa.inspect(engine).get_table_names()) == {"runs", "records", "faults", "units"}
    engine.dispose()
    assert dump(db_url) == before
    monkeypatch.undo()
    open_store(db_url).close()
    assert revision_of(db_url) == migrations.HEAD


def file_state(url: str) -> str:
    """The bytes of an SQLite database file, or every row and the version of another database."""
    if url.startswith("sqlite:///"):
        return hashlib.sha256(Path(url.removeprefix("sqlite:///")).read_bytes()).hexdigest()
    return repr((dump(url), revision_of(url)))


def test_a_database_of_a_newer_revision_is_one_error_and_nothing_is_written(db_url, project, benchlab):
    open_store(db_url).close()
    engine = engine_of(db_url)
    with engine.begin() as connection:
        connection.exec_driver_sql(f"UPDATE {migrations.VERSION_TABLE} SET version_num = '0042'")
    engine.dispose()
    before = file_state(db_url)
    (project / "suite").mkdir()
    (project / "suite" / "one.sh").write_text("#!/bin/sh\nprintf 'One\\t1\\t100\\t10\\n'\n")
    (project / "suite" / "one.sh").chmod(0o755)
    shown = db_url.replace(":" + (sa.make_url(db_url).password or "-") + "@", ":***@")
    expected = (f"error: database {shown!r} has schema revision '0042', which "
                f"benchlab {benchlab_version} does not know: a newer benchlab has upgraded it (upgrade benchlab on this machine "
                "(pip install --upgrade the newer wheel or git+URL, or in a checkout git pull and bash scripts/setup.sh), "
                "or give another --db)\n")
    for command in (["run", "suite"], ["runs"], ["show"], ["baseline", "save", "nightly"], ["baseline", "list"]):
        result = benchlab(*command, "--db", db_url)
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", expected), command
    assert file_state(db_url) == before
    assert revision_of(db_url) == "0042"


def test_tables_named_as_benchlabs_but_not_its_are_refused(db_url):
    engine = engine_of(db_url)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE runs (id INTEGER PRIMARY KEY, title VARCHAR(20))")
        connection.exec_driver_sql("INSERT INTO runs VALUES (1, 'not ours')")
    with pytest.raises(UserError) as error:
        open_store(db_url)
    assert error.value.what.endswith("has tables named as benchlab's (runs) but no benchlab schema revision, "
                                     "and runs not as benchlab made them")
    assert error.value.fix == "give benchlab a database of its own with --db, BENCHLAB_DB or run.db"
    assert set(sa.inspect(engine).get_table_names()) == {"runs"}
    engine.dispose()


def test_text_parameters_are_kept_beside_numbers_on_both_engines(db_url):
    """Revision 0007: a text parameter (Lind's '-', '(STREAM, 1)') in param_text, a number in param."""
    store = open_store(db_url)
    records = [Record(bench="uds", param=param, samples=[float(median)], platform="native", binary="ipc_uds")
               for param, median in (("(STREAM, 1)", 8399), (1024, 8107), ("-", 127), (None, 5))]
    run_id = store.import_run(["benchlab", "import", "x"], ["native"], {}, records, [], [], "complete", 0)
    _, loaded, _ = store.load_run(run_id)
    assert [(r.param, r.median) for r in loaded] == [("(STREAM, 1)", 8399.0), (1024, 8107.0), ("-", 127.0), (None, 5.0)]
    assert [row["param"] for row in store.medians_of_runs([run_id])] == ["(STREAM, 1)", 1024, "-", None]
    [run] = store.bench_runs("uds", "time", limit=10)
    history = store.bench_records("uds", "time", [run["id"]])[run["id"]]
    assert [r.param for r in history] == ["(STREAM, 1)", 1024, "-", None]
    # `history --param`'s text picks the record whose parameter reads so: a number or a text
    for text, param in (("1024", 1024), ("-", "-"), ("(STREAM, 1)", "(STREAM, 1)"), ("", None)):
        assert [r["id"] for r in store.bench_runs("uds", "time", limit=10, param=text)] == [run_id]
        picked = store.bench_records("uds", "time", [run_id], param=text)[run_id]
        assert [r.param for r in picked] == [param]
    assert store.bench_runs("uds", "time", limit=10, param="1025") == []
    with engine_of(db_url).connect() as connection:
        stored = connection.execute(sa.text("SELECT param, param_text FROM records ORDER BY id")).all()
    assert [tuple(row) for row in stored] == [(None, "(STREAM, 1)"), (1024, None), (None, "-"), (None, None)]
    store.close()


def database_at(url: str, revision: str) -> None:
    """A new database migrated up to `revision` only, as the benchlab of that revision left it."""
    from alembic import command
    engine = engine_of(url)
    with engine.connect() as connection:
        config = migrations._config()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        connection.commit()
    engine.dispose()


#: Reasons of faults stored before revision 0009, and the kind and copy it reads from them.
OLD_REASONS = [
    ("not built for wasm: includes <pthread.h> (no threads)", "not-built", None),
    ("copy 2 of 4: killed by SIGSEGV", "failed", 2),
    ("copy 12 of 16: exit status 3", "failed", 12),
    ("exit status 1", "failed", None),
    ("Not built for wasm", "failed", None),  # the words are measuring/buildable.py's, case and all
    ("copy x of 4: not a number", "failed", None),
    ("the copy 1 of 2: not at the start", "failed", None),
]


def test_revision_0009_reads_each_stored_fault_s_kind_and_copy_from_its_reason(db_url):
    database_at(db_url, "0008")
    # more copies than the revision reads at once (1000), so that its second batch counts too
    many = [(f"copy {n} of 1200: exit status 1", "failed", n) for n in range(1, 1201)]
    engine = engine_of(db_url)
    with engine.begin() as connection:
        connection.execute(sa.text("INSERT INTO runs (started_at, status) VALUES ('2026-11-20T09:00:00Z', 'failed')"))
        connection.execute(sa.text('INSERT INTO faults (run_id, platform, "binary", reason) '
                                   "VALUES (1, 'native', 'b', :reason)"),
                           [{"reason": reason} for reason, _, _ in OLD_REASONS + many])
    assert revision_of(db_url) == "0008"
    store = open_store(db_url)
    assert revision_of(db_url) == migrations.HEAD
    _, _, faults = store.load_run(1)
    assert [(f.reason, f.kind, f.copy) for f in faults] == OLD_REASONS + many
    # a row written without a kind (by SQL of a benchlab before 0009) is a failure
    with engine.begin() as connection:
        connection.execute(sa.text('INSERT INTO faults (run_id, platform, "binary", reason) '
                                   "VALUES (1, 'native', 'b', 'exit status 2')"))
    assert [(f.kind, f.copy) for f in store.load_run(1)[2][-1:]] == [("failed", None)]
    engine.dispose()
    store.close()


def test_a_fault_s_kind_and_copy_are_stored_and_read_back(db_url):
    store = open_store(db_url)
    run_id = store.begin_run(["benchlab", "run"], ["native", "wasm"], {})
    written = [Fault("threads", "wasm", "not built for wasm: includes <pthread.h>", [], None, kind=NOT_BUILT),
               Fault("server", "native", "copy 3 of 4: killed by SIGKILL", ["boom"], {"flag": "instances", "value": "4"},
                     kind=FAILED, copy=3)]
    store.add_unit(run_id, [], written)
    assert store.load_run(run_id)[2] == written
    store.close()
