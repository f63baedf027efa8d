"""Storage survives interruptions: only completed units, never a corrupt file.

Tests taking `db_url` run twice: on an SQLite file and on a database of a real
PostgreSQL server (conftest.postgresql_server)."""
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time

import pytest
import sqlalchemy as sa

from benchlab.errors import UserError
from benchlab.records import Fault, Record
from benchlab.measuring.runner import Runner
from benchlab.storage.store import Store, open_store
from conftest import REPO, write


def lind_script(project, name, line, hang=False):
    # a hanging script says when it hangs (a file `hanging`): a test waits for that, not for a time
    tail = f"touch {project / 'hanging'}\nsleep 60\n" if hang else ""
    return write(project / "suite" / f"{name}.sh", f"#!/bin/sh\nprintf '{line}\\n'\n{tail}", executable=True)


def engine_of(url: str) -> sa.Engine:
    return sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def integrity(db_path) -> str:
    with sqlite3.connect(db_path) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]


def test_round_trip_of_records_faults_and_context(db_url):
    store = open_store(db_url)
    run_id = store.begin_run(["benchlab", "run"], ["native", "wasm"], {"seed": 5})
    record = Record(bench="read", param=1024, samples=[3.0, 1.0, 2.0], iterations=100, platform="wasm",
                    binary="fs_read", format="jsonl", reported={"ratio": 1.5})
    store.add_unit(run_id, [record], [Fault("fs_write", "wasm", "exit status 3", ["boom"])])
    store.finish_run(run_id, "failed", 1)
    run, loaded, faults = store.load_run(store.resolve_run_id("latest"))
    assert run["status"] == "failed" and run["context"] == {"seed": 5} and run["platforms"] == ["native", "wasm"]
    assert loaded[0].samples == [3.0, 1.0, 2.0] and loaded[0].median == 2.0 and loaded[0].param == 1024
    assert loaded[0].reported == {"ratio": 1.5}
    assert faults == [Fault("fs_write", "wasm", "exit status 3", ["boom"], None)]



def test_unsupported_counters_and_throughput_records_round_trip(db_url):
    store = open_store(db_url)
    run_id = store.begin_run(["benchlab", "run"], ["native"], {})
    unsupported = Record(bench="b", param=None, counter="instructions", unit="instructions", samples=[],
                         sample_iterations=[], platform="native", binary="b", format="jsonl",
                         reported={"supported": False, "reason": "perf_event_open: ENOENT", "pass": "perf-hardware"})
    throughput = Record(bench="hash_map", param=2, param_name="threads", counter="throughput", unit="ops/s",
                        samples=[2.5e7], iterations=5000000, platform="native", binary="hash_map",
                        reported={"throughput_min": 2.4e7, "ops": [{"op": 0, "name": "lookup", "p99_ns": 60.5}]},
                        sweep={"flag": "threads", "value": "2"})
    store.add_unit(run_id, [unsupported, throughput], [])
    _, (first, second), _ = store.load_run(run_id)
    assert not first.supported and first.reason == "perf_event_open: ENOENT" and first.samples == []
    assert first.median is None and first.counter == "instructions"
    assert second.supported and second.median == 2.5e7 and second.param_name == "threads"
    assert second.reported["ops"][0]["p99_ns"] == 60.5 and second.sweep == {"flag": "threads", "value": "2"}

def test_ctrl_c_mid_run_keeps_the_completed_units_and_marks_the_run(project, benchlab, monkeypatch, db_url):
    lind_script(project, "a_first", "First\\t1\\t100\\t10")
    lind_script(project, "b_second", "Second\\t1\\t100\\t20")
    real_run_unit = Runner.run_unit
    calls = []

    def interrupted_on_second(self, unit, process=None):
        calls.append(unit)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_run_unit(self, unit, process)

    monkeypatch.setattr(Runner, "run_unit", interrupted_on_second)
    result = benchlab("run", "suite", "--processes", "1", "--db", db_url)
    assert result.exit_code == 130
    assert result.stderr == ("[1/2] a_first.sh on native\n[2/2] b_second.sh on native\n"
                             "interrupted: run 1 keeps the 1 records completed so far\n")
    if db_url.startswith("sqlite"):
        assert integrity(db_url.removeprefix("sqlite:///")) == "ok"
    store = open_store(db_url)
    [run] = store.list_runs()
    assert run["status"] == "interrupted" and run["exit_code"] == 130
    _, stored, _ = store.load_run(run["id"])
    assert [r.bench for r in stored] == ["First"]


def test_kill_9_mid_run_leaves_completed_records_and_a_sound_database(project, db_url):
    lind_script(project, "a_done", "Done\\t1\\t100\\t10")
    lind_script(project, "b_stuck", "Partial\\t1\\t100\\t20", hang=True)
    open_store(db_url).close()  # the schema, for the polling below; the child opens it as it is
    engine = engine_of(db_url)
    child = subprocess.Popen([sys.executable, "-m", "benchlab", "run", "suite", "--processes", "1", "--db", db_url],
                             cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with engine.connect() as connection:
                if connection.execute(sa.select(sa.func.count()).select_from(sa.table("records"))).scalar():
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the first unit never reached the database")
        while not (project / "hanging").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (project / "hanging").exists()  # now inside the hanging second unit
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    if db_url.startswith("sqlite"):
        assert integrity(db_url.removeprefix("sqlite:///")) == "ok"
    store = open_store(db_url)
    [run] = store.list_runs()
    assert run["status"] == "killed"  # still 'running' in the database, but its process is gone
    _, stored, faults = store.load_run(run["id"])
    assert [r.bench for r in stored] == ["Done"] and faults == []
    # and the database takes the next run as usual
    next_id = store.begin_run(["benchlab"], ["native"], {})
    assert next_id == run["id"] + 1


def test_runs_and_show_print_stored_runs(project, benchlab, db_url, monkeypatch):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    lind_script(project, "one", "One\\t1\\t100\\t10")
    assert benchlab("run", "suite", "--seed", "3").exit_code == 0
    listing = benchlab("runs")
    assert listing.exit_code == 0
    header, _, row = listing.stdout.splitlines()[:3]
    assert header.split()[:6] == ["ID", "DATE", "STATUS", "PLATFORMS", "RECORDS", "FAILURES"]
    assert row.split()[0] == "1" and row.split()[2:5] == ["complete", "native", "5"]  # one record per process
    shown = benchlab("show", "1", "--format", "csv")
    assert shown.exit_code == 0
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("test,param,counter,unit,sweep,platform,binary,status,median")
    assert lines[1].startswith("One,1,time,ns,,native,one.sh,ok,10.0")
    assert benchlab("show", "latest").stdout == benchlab("show", "-1").stdout
    # --limit N: the latest N runs, newest first
    assert benchlab("run", "suite", "--seed", "4").exit_code == 0
    ids = lambda *flags: [line.split()[0] for line in benchlab("runs", *flags).stdout.splitlines()[2:]]
    assert ids() == ["2", "1"] and ids("--limit", "1") == ["2"]
    assert benchlab("runs", "--limit", "0").exit_code == 2  # at least 1: click's usage error


def test_db_option_and_environment_choose_the_database(project, benchlab, monkeypatch, tmp_path):
    lind_script(project, "one", "One\\t1\\t100\\t10")
    other = tmp_path / "other.db"
    assert benchlab("run", "suite", "--db", f"sqlite:///{other}").exit_code == 0
    monkeypatch.setenv("BENCHLAB_DB", f"sqlite:///{other}")
    assert "One" in benchlab("show", "1").stdout
    monkeypatch.delenv("BENCHLAB_DB")
    assert not (project / ".benchlab" / "results.db").exists() or benchlab("show", "1").exit_code == 2
    bad = benchlab("runs", "--db", "nosuchdialect://x")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: cannot use database URL 'nosuchdialect://x'")


WRITE_FIX = "(make the database writable or free disk space, or run with --no-store or another --db)"


def test_a_read_only_database_is_an_error_before_anything_runs_and_can_still_be_read(project, benchlab, tmp_path):
    lind_script(project, "one", "One\\t1\\t100\\t10")
    path = tmp_path / "ro.db"
    assert benchlab("run", "suite", "--db", f"sqlite:///{path}").exit_code == 0
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"  # read-only even for root, unlike chmod
    result = benchlab("run", "suite", "--db", read_only)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"error: cannot write to database {read_only!r}: attempt to write a readonly database {WRITE_FIX}\n"
    listing = benchlab("runs", "--db", read_only)
    row = listing.stdout.splitlines()[2].split()
    assert listing.exit_code == 0 and (row[0], row[2]) == ("1", "complete")


@pytest.mark.parametrize("content", [os.urandom(4096), b"SQLite format 3\0" + b"garbage" * 600])
def test_a_file_that_is_not_a_database_is_one_error(project, benchlab, content):
    lind_script(project, "one", "One\\t1\\t100\\t10")
    (project / "junk.db").write_bytes(content)
    for command in (["run", "suite"], ["runs"], ["show"]):
        result = benchlab(*command, "--db", "sqlite:///junk.db")
        assert result.exit_code == 2
        assert result.stderr == ("error: cannot open database 'sqlite:///junk.db': file is not a database (check the "
                                 "path or URL given by --db, BENCHLAB_DB or run.db; a file that is not a benchlab "
                                 "database needs another name)\n")
    assert (project / "junk.db").read_bytes() == content  # and left as it was


def test_postgresql_without_its_driver_is_one_error(project, benchlab):
    result = benchlab("runs", "--db", "postgresql+psycopg2://localhost/bench")
    assert result.exit_code == 2
    assert result.stderr == ("error: cannot use database URL 'postgresql+psycopg2://localhost/bench': its Python driver "
                             "'psycopg2' is not installed (pip install psycopg2-binary into benchlab's environment, "
                             "or use sqlite:///FILE)\n")


@pytest.mark.parametrize("url", ["postgresql://localhost/bench", "postgres://localhost/bench"])
def test_postgresql_without_the_postgres_extra_names_it(project, benchlab, monkeypatch, url):
    # psycopg is benchlab[postgres] (issue 39), not a dependency: as if it were not installed.
    monkeypatch.setitem(sys.modules, "psycopg", None)
    result = benchlab("runs", "--db", url)
    assert result.exit_code == 2
    assert result.stderr == (f"error: cannot use database URL '{url}': PostgreSQL needs benchlab's postgres extra, "
                             "which is not installed (pip install 'benchlab[postgres]')\n")


@pytest.fixture
def disk_full_after_begin(monkeypatch):
    """SQLite's 'database or disk is full' for every write that grows the file after the run
    row is written: SQLITE_FULL, as on a full disk (max_page_count caps the file's size)."""
    real_begin = Store.begin_run
    used = []

    def begin_then_fill(self, *args):
        run_id = real_begin(self, *args)
        used.append(type(self.connection).__name__)
        if type(self.connection).__name__ == "SqliteConnection":  # an SQLite file, through sqlite3 alone
            connection = self.connection._connected()
            pages = connection.execute("PRAGMA page_count").fetchone()[0]
            connection.execute(f"PRAGMA max_page_count = {pages}")
            return run_id
        with self.connection.engine.connect() as connection:
            pages = connection.exec_driver_sql("PRAGMA page_count").scalar()
            connection.exec_driver_sql(f"PRAGMA max_page_count = {pages}")
        return run_id

    monkeypatch.setattr(Store, "begin_run", begin_then_fill)
    return used


@pytest.mark.parametrize("existing", [False, True], ids=["new-store", "existing-store"])
def test_a_full_disk_keeps_every_measurement_and_closes_the_run(project, benchlab, disk_full_after_begin, existing):
    if existing:  # made before the run, which opens it at the head revision
        (project / ".benchlab").mkdir(exist_ok=True)
        open_store(f"sqlite:///{project}/.benchlab/results.db").close()
    # Many samples, so that each unit needs new pages of the file.
    for name, value in (("a_first", 10), ("b_second", 20)):
        samples = ",".join([str(value)] * 2000)
        line = f'{{"type":"result","bench":"{name}","param":null,"iterations":5,"samples":[{samples}]}}'
        write(project / "suite" / f"{name}.sh", f"#!/bin/sh\necho '{line}'\n", executable=True)
    result = benchlab("run", "suite", "--out", "results.json", "--processes", "1")
    assert disk_full_after_begin == ["SqliteConnection"]  # a new file too is written through sqlite3, once made
    assert result.exit_code == 2
    # the run went on: both measurements printed and written to --out
    assert [line.split()[:2] for line in result.stdout.splitlines()[2:4]] == [["a_first", "10"], ["b_second", "20"]]
    assert [r["samples"] for r in json.loads((project / "results.json").read_text())["records"]] == [
        [10.0] * 2000, [20.0] * 2000]
    db = f"sqlite:///{project}/.benchlab/results.db"
    assert result.stderr == (
        "[1/2] a_first.sh on native\n"
        f"warning: cannot write to database {db!r}: database or disk is full; the run goes on and keeps its results "
        "in memory\n"
        "[2/2] b_second.sh on native\n"
        f"error: run 1 is not completely stored: cannot write to database {db!r}: database or disk is full "
        f"{WRITE_FIX[:-1]}; the results are printed above and in results.json)\n")
    # closed, not left 'running' (which `runs` would show as killed), and show says what is missing
    [run] = open_store(db).list_runs()
    assert run["status"] == "failed" and run["exit_code"] == 2
    shown = benchlab("show", "1")
    assert shown.exit_code == 1
    assert shown.stdout.splitlines()[-3:] == [
        "partial run: run 1 did not store every unit; 2 of 2 units did not finish:",
        "    a_first.sh on native", "    b_second.sh on native"]


def test_show_of_an_interrupted_run_names_the_missing_units(project, benchlab, monkeypatch, db_url):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    lind_script(project, "a_first", "First\\t1\\t100\\t10")
    lind_script(project, "b_second", "Second\\t1\\t100\\t20")
    real_run_unit = Runner.run_unit

    def interrupted_on_second(self, unit, process=None):
        if unit.target.name == "b_second.sh":
            raise KeyboardInterrupt
        return real_run_unit(self, unit, process)

    monkeypatch.setattr(Runner, "run_unit", interrupted_on_second)
    assert benchlab("run", "suite", "--processes", "1").exit_code == 130
    shown = benchlab("show")
    assert shown.exit_code == 1
    assert shown.stdout.splitlines()[0].split()[:2] == ["TEST", "PARAM"]
    assert shown.stdout.splitlines()[-2:] == [
        "partial run: run 1 was interrupted part-way; 1 of 2 units did not finish:", "    b_second.sh on native"]
    document = json.loads(benchlab("show", "--format", "json").stdout)
    assert document["run"]["missing"] == [{"binary": "b_second.sh", "platform": "native", "sweep": None}]
    complete = benchlab("run", "suite/a_first.sh")
    assert complete.exit_code == 0 and benchlab("show").exit_code == 0


def test_run_numbers_beyond_64_bits_are_usage_errors(project, benchlab, db_url, monkeypatch):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    lind_script(project, "one", "One\\t1\\t100\\t10")
    assert benchlab("run", "suite").exit_code == 0
    shown = benchlab("show", "--", "-99999999999999999999")
    assert (shown.exit_code, shown.stderr) == (
        2, "error: run id must be a number, 'latest' or -N, got '-99999999999999999999' (list runs with: benchlab runs)\n")
    listing = benchlab("runs", "--limit", "99999999999999999999")
    assert (listing.exit_code, listing.stderr) == (
        2, "error: Invalid value for '--limit': 99999999999999999999 is not in the range 1<=x<=4611686018427387904. "
           "(see 'benchlab runs --help')\n")


def test_a_nul_in_a_fault_is_stored_alike_on_both_engines(db_url):
    # PostgreSQL's text columns refuse NUL; its JSON keeps one as \u0000.
    store = open_store(db_url)
    run_id = store.begin_run(["benchlab"], ["native"], {"compiler": "cc\0"})
    store.add_unit(run_id, [], [Fault("broken.c", "native", "error: stray '\0' in program", ["line\0 1"])])
    run, _, [fault] = store.load_run(run_id)
    assert fault.reason == "error: stray '\\0' in program" and fault.stderr_tail == ["line\0 1"]
    assert run["context"] == {"compiler": "cc\0"}


# -- PostgreSQL by URL ------------------------------------------------------------------------

def closed_port() -> int:
    """A loopback port nothing listens on (the kernel just handed it out and took it back)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def with_password(url: str, password: str) -> str:
    parsed = sa.make_url(url)
    return parsed.set(password=password).render_as_string(hide_password=False)


def test_postgresql_urls_use_psycopg_in_every_spelling(postgresql_url):
    for url in (postgresql_url, postgresql_url.replace("postgresql://", "postgres://"),
                postgresql_url.replace("postgresql://", "postgresql+psycopg://")):
        store = open_store(url)
        assert (store.connection.engine.dialect.name, store.connection.engine.driver) == ("postgresql", "psycopg")
        assert store.begin_run(["benchlab"], ["native"], {}) >= 1
        assert "***" in store.url and sa.make_url(url).password not in store.url  # errors never show it
        store.close()
    assert [run["id"] for run in open_store(postgresql_url).list_runs()] == [3, 2, 1]


def test_an_unreachable_server_is_one_error_and_nothing_runs(project, benchlab):
    lind_script(project, "one", "One\\t1\\t100\\t10")
    port = closed_port()
    url = f"postgresql://bench:s3cret@127.0.0.1:{port}/bench"
    for command in (["run", "suite"], ["runs"], ["baseline", "save", "nightly"]):
        result = benchlab(*command, "--db", url)
        assert (result.exit_code, result.stdout) == (2, ""), command
        assert result.stderr == (
            f"error: cannot connect to database 'postgresql://bench:***@127.0.0.1:{port}/bench': connection to "
            f"server at \"127.0.0.1\", port {port} failed: Connection refused (start the server, or correct the "
            "host and port of the URL given by --db, BENCHLAB_DB or run.db)\n")


def test_a_wrong_password_is_one_error(project, benchlab, postgresql_url):
    url = with_password(postgresql_url, "wrong")
    shown = url.replace(":wrong@", ":***@")
    result = benchlab("runs", "--db", url)
    assert (result.exit_code, result.stdout) == (2, "")
    host, port = sa.make_url(url).host, sa.make_url(url).port
    assert result.stderr == (
        f"error: cannot connect to database {shown!r}: connection to server at \"{host}\", port {port} failed: "
        "password authentication failed for user \"benchlab\" (check the user and password in the URL "
        "(postgresql://USER:PASSWORD@HOST:PORT/DATABASE), or give the password in PGPASSWORD or ~/.pgpass)\n")


def test_a_database_that_does_not_exist_is_one_error(project, benchlab, postgresql_url):
    url = postgresql_url.rsplit("/", 1)[0] + "/nosuchdb"
    result = benchlab("baseline", "list", "--db", url)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.endswith(
        "failed: database \"nosuchdb\" does not exist (create the database (createdb NAME, or CREATE DATABASE "
        "NAME), or name an existing one in the URL)\n")
    assert result.stderr.startswith("error: cannot connect to database 'postgresql://benchlab:***@127.0.0.1:")


def test_the_password_can_come_from_libpq_s_environment(postgresql_url, monkeypatch):
    url = sa.make_url(postgresql_url)
    without = f"postgresql://{url.username}@{url.host}:{url.port}/{url.database}"
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", "/nonexistent")  # not the user's own ~/.pgpass
    with pytest.raises(UserError) as refused:
        open_store(without)
    assert refused.value.what.endswith("failed: fe_sendauth: no password supplied")
    assert refused.value.fix.startswith("check the user and password in the URL")
    monkeypatch.setenv("PGPASSWORD", url.password)
    store = open_store(without)
    assert store.begin_run(["benchlab"], ["native"], {}) == 1
    store.close()


# -- import: one transaction (issue 18 #1) ------------------------------------------------------

#: `benchlab import` in a process that kills itself (SIGKILL, as kill -9) right after its
#: records went to the database, before the import's transaction could commit.
KILLED_MID_IMPORT = """
import os, signal, sys
from benchlab.storage import store
real_insert_unit = store._insert_unit
def insert_unit(*args):
    real_insert_unit(*args)  # the records are written, in the import's transaction
    os.kill(os.getpid(), signal.SIGKILL)
store._insert_unit = insert_unit
from benchlab.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_kill_9_mid_import_leaves_no_run_and_the_file_imports_again(project, benchlab, db_url):
    lines = "".join(f"Read\t{n}\t1000\t{200 + n}\n" for n in range(500))
    (project / "lind.txt").write_text(lines)
    for _ in range(2):  # the second kill sees the first's leftovers, if there were any
        child = subprocess.run([sys.executable, "-c", KILLED_MID_IMPORT, "import", "lind.txt", "--db", db_url],
                               cwd=project, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
        assert child.returncode == -signal.SIGKILL, child.stderr
    if db_url.startswith("sqlite"):
        assert integrity(db_url.removeprefix("sqlite:///")) == "ok"
    store = open_store(db_url)
    assert store.list_runs() == []  # not an empty run shown as killed
    result = benchlab("import", "lind.txt", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    [run] = store.list_runs()
    assert (run["status"], run["records"]) == ("complete", 500)


def test_only_a_whole_import_refuses_the_same_file_again(db_url):
    store = open_store(db_url)
    context = {"imported": {"sha256": "ab" * 32}}
    # what older benchlabs left: an import killed before its records (shown as killed), one
    # killed after them, one whose records a full disk refused
    empty_killed = store.begin_run(["benchlab", "import"], ["native"], context)
    killed = store.begin_run(["benchlab", "import"], ["native"], context)
    store.add_unit(killed, [Record(bench="a", param=None, samples=[1.0], platform="native", binary="f")], [])
    empty = store.begin_run(["benchlab", "import"], ["native"], context)
    store.finish_run(empty, "complete", 0)
    with engine_of(db_url).begin() as connection:  # their processes are gone
        connection.execute(sa.text("UPDATE runs SET pid = 0 WHERE id IN (:a, :b)"), {"a": empty_killed, "b": killed})
    assert store.imported_as("ab" * 32) is None
    whole = store.import_run(["benchlab", "import"], ["native"], context,
                             [Record(bench="a", param=None, samples=[1.0], platform="native", binary="f")], [], [],
                             "complete", 0)
    failed = store.import_run(["benchlab", "import"], ["native"], {"imported": {"sha256": "cd" * 32}}, [],
                              [Fault("f", "native", "BM_x: no device")], [], "failed", 1)
    assert (store.imported_as("ab" * 32), store.imported_as("cd" * 32)) == (whole, failed)
    assert [run["status"] for run in store.list_runs()][:2] == ["failed", "complete"]


# -- a store that cannot be written is still read (issue 18 #3) ----------------------------------

#: Runs "$@" with directory $1 mounted read-only over itself, in a mount namespace of its own:
#: read-only even for root, which chmod is not.
READ_ONLY_MOUNT = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"'


def in_read_only(directory, *argv) -> subprocess.CompletedProcess:
    return subprocess.run(["unshare", "-m", "sh", "-c", READ_ONLY_MOUNT, "sh", str(directory), *argv],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})


@pytest.fixture
def read_only_dir(tmp_path):
    directory = tmp_path / "ro"
    directory.mkdir()
    if in_read_only(directory, "true").returncode != 0:
        pytest.skip("needs root and unshare -m (util-linux) to mount a directory read-only")
    return directory


def benchlab_in(directory, *args) -> subprocess.CompletedProcess:
    return in_read_only(directory, sys.executable, "-m", "benchlab", *args)


def test_a_store_on_a_read_only_file_system_is_listed_and_shown_and_refuses_writes(project, read_only_dir):
    url = f"sqlite:///{read_only_dir / 'results.db'}"
    write(project / "lind.txt", "Read\t1\t1000\t240\nRead\t2\t1000\t250\n")
    subprocess.run([sys.executable, "-m", "benchlab", "import", "lind.txt", "--db", url], cwd=project, check=True,
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    files = {path.name: path.read_bytes() for path in read_only_dir.iterdir()}
    assert list(files) == ["results.db"]  # closed: no WAL, and no index of one that SQLite could make here
    listed = benchlab_in(read_only_dir, "runs", "--db", url)
    assert listed.returncode == 0, listed.stderr
    row = listed.stdout.splitlines()[2].split()
    assert (row[0], row[2], row[4]) == ("1", "complete", "2")  # id, status, records
    shown = benchlab_in(read_only_dir, "show", "1", "--db", url)
    assert shown.returncode == 0 and [line.split()[:3] for line in shown.stdout.splitlines()[2:4]] == [
        ["Read", "1", "240?"], ["Read", "2", "250?"]], shown.stdout + shown.stderr
    exported = benchlab_in(read_only_dir, "export", "1", "--format", "csv", "--db", url)
    assert exported.returncode == 0 and exported.stdout.count("Read") == 2
    refused = benchlab_in(read_only_dir, "import", str(project / "lind.txt"), "--again", "--db", url)
    assert (refused.returncode, refused.stderr) == (2, (
        f"error: cannot write to database {url!r}: attempt to write a readonly database (make the database writable "
        "or free disk space, or give another --db; nothing was imported)\n"))
    assert {path.name: path.read_bytes() for path in read_only_dir.iterdir()} == files


def test_a_read_only_store_shows_what_a_killed_writer_committed_to_its_wal(project, read_only_dir):
    url = f"sqlite:///{read_only_dir / 'results.db'}"
    # a writer killed after its commit: the run is in the WAL (-wal, -shm), not yet in the file
    writer = ("import os, sys; from benchlab.storage.store import open_store; from benchlab.records import Record; "
              "open_store(sys.argv[1]).import_run(['benchlab', 'import'], ['native'], {}, "
              "[Record(bench='a', param=None, samples=[1.0], platform='native', binary='f')], [], [], 'complete', 0); "
              "os._exit(0)")
    subprocess.run([sys.executable, "-c", writer, url], check=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert (read_only_dir / "results.db-wal").stat().st_size > 0
    listed = benchlab_in(read_only_dir, "runs", "--db", url)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[2].split()[0] == "1"


def test_a_read_only_store_of_an_older_schema_is_one_error(project, read_only_dir):
    from benchlab.storage import migrations
    path = read_only_dir / "results.db"
    open_store(f"sqlite:///{path}").close()
    with sqlite3.connect(path) as connection:
        connection.execute(f"UPDATE {migrations.VERSION_TABLE} SET version_num = '0001'")
    url = f"sqlite:///{path}"
    listed = benchlab_in(read_only_dir, "runs", "--db", url)
    assert (listed.returncode, listed.stdout) == (2, "")
    assert listed.stderr == (
        f"error: database {url!r} is read-only (it is on a read-only file system) and its schema is at revision 0001, "
        f"not this benchlab's {migrations.HEAD}: it cannot be upgraded (make it writable for one benchlab command, "
        "which upgrades it, or read it with the benchlab that wrote it)\n")


def test_a_project_on_a_read_only_file_system_without_a_database_is_one_error(read_only_dir):
    result = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind -o ro "$1" "$1" && cd "$1" && shift && exec "$@"',
                             "sh", str(read_only_dir), sys.executable, "-m", "benchlab", "runs"],
                            capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO / "src"), "BENCHLAB_DB": ""})
    assert (result.returncode, result.stderr) == (2, (
        f"error: cannot create {read_only_dir / '.benchlab'} for the database: Read-only file system "
        "(give another database with --db or BENCHLAB_DB, e.g. sqlite:////tmp/results.db)\n"))


def test_a_database_path_too_long_to_open_is_one_error(project, benchlab):
    # looked at before SQLite opens it (is it writable?): a name over 255 bytes must still be SQLite's one error
    url = f"sqlite:///{'a' * 300}.db"
    result = benchlab("runs", "--db", url)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert ("unable to open database file" in result.stderr or "too long" in result.stderr), result.stderr


def test_runs_up_to_reads_no_further_back_than_its_caller_goes(db_url):
    """The report's history of one machine (issue 29): runs newest first, a page of 100 at a
    time, so a caller that stops after a few has read one page, whatever the store holds."""
    store = open_store(db_url)
    ids = [store.import_run(["benchlab", "import", "x"], ["native"], {"n": n}, [], [], [], "complete", 0)
           for n in range(130)]
    statements = []
    reading = store._reading

    def counted():
        statements.append(1)
        return reading()
    store._reading = counted
    runs = store.runs_up_to(ids[120])
    assert [next(runs)["id"] for _ in range(3)] == [ids[120], ids[119], ids[118]]
    assert len(statements) == 1  # one page of 100 runs
    assert [run["id"] for run in runs] == ids[117::-1] and len(statements) == 2
    assert [run["context"] for run in store.runs_up_to(ids[1])] == [{"n": 1}, {"n": 0}]
    store.close()


def test_an_sqlite_without_returning_gets_each_runs_id_from_the_cursor(tmp_path, monkeypatch):
    # SQLite before 3.35 (RHEL 8, Ubuntu 20.04) refuses RETURNING: the store asks lastrowid instead.
    url = f"sqlite:///{tmp_path / 'old.db'}"
    open_store(url).close()  # created (and migrated) by today's code path first
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 31, 1))
    store = open_store(url)
    sent = []
    store.connection._connected().set_trace_callback(sent.append)
    first = store.begin_run(["benchlab", "run"], ["native"], {})
    second = store.begin_run(["benchlab", "run"], ["native"], {})
    store.add_unit(second, [Record(bench="b", param=None, samples=[1.0], platform="native", binary="b")], [])
    assert (first, second) == (1, 2)
    assert store.load_run(store.resolve_run_id("latest"))[0]["id"] == 2
    assert sum("INSERT INTO runs" in text for text in sent) == 2 and not any("RETURNING" in text for text in sent)


def test_a_machines_runs_are_read_in_sql_as_noise_machine_reads_them(db_url):
    """Store.bench_runs and runs_up_to with a machine: the runs whose context names it (a
    context without a host: the row's; a field it lacks: none), whatever else the store holds."""
    from benchlab.statistics.noise import Machine
    store = open_store(db_url)
    try:
        contexts = [{"host": "ci", "cpu": "CPU A", "kernel": "6.1"}, {"host": "ci", "cpu": "CPU B", "kernel": "6.1"},
                    {"cpu": "CPU A", "kernel": "6.1"}, {"host": "", "cpu": "CPU A"},
                    {"host": "ci", "cpu": "CPU A", "kernel": "6.1", "arch": "aarch64"}]
        ids = []
        for context in contexts:
            run_id = store.begin_run(["benchlab", "run"], ["native"], context)
            store.add_unit(run_id, [Record(bench="b", param=None, samples=[1.0, 2.0, 3.0], platform="native",
                                           binary="x")], [])
            ids.append(run_id)
        machines = {run_id: Machine.of(context, socket.gethostname()) for run_id, context in zip(ids, contexts)}
        for machine in set(machines.values()):
            mine = [run_id for run_id in reversed(ids) if machines[run_id] == machine]
            assert [row["id"] for row in store.bench_runs("b", "time", limit=10, machine=machine)] == mine
            assert [row["id"] for row in store.runs_up_to(ids[-1], machine)] == mine
        assert machines[ids[2]].host == socket.gethostname() and len(set(machines.values())) == 5
    finally:
        store.close()
