"""Shared fixtures: a throw-away project with the real header, compiled test programs,
and a way to run the `benchlab` command in-process with exact stdout/stderr."""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

from benchlab.cli import main

REPO = Path(__file__).resolve().parents[2]
HEADER = REPO / "include" / "benchlab.h"

#: Flags that keep every benchlab binary in the tests to a fraction of a second.
FAST = ["--samples=8", "--time-limit=0.05"]

#: Small programs shared with the fuzzers' seeds (tests/programs/).
PROGRAMS = REPO / "tests" / "programs"
#: A small benchlab program: a baseline, a plain benchmark and a parameterised one.
SMALL_BENCH = (PROGRAMS / "small_bench.c").read_text()

@dataclasses.dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch):
    """Tables laid out whole, as for a pipe, whatever COLUMNS the shell running the tests exports
    (output/fitting.py); a test of the width sets it."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """An empty project directory with the repository's include/, as the cwd."""
    root = tmp_path / "project"
    root.mkdir()
    if HEADER.exists():
        (root / "include").mkdir()
        shutil.copy(HEADER, root / "include" / "benchlab.h")
    monkeypatch.chdir(root)
    monkeypatch.delenv("BENCHLAB_DB", raising=False)
    monkeypatch.delenv("BENCHLAB_CONFIG", raising=False)
    return root


#: The estimate of the time left at the end of a progress line ("[2/5] small on native (~3 s
#: left)"): it depends on how long the processes took, so the CLI tests see the lines without
#: it (tests/python/output/test_progress.py tests the estimates with a clock of their own).
ESTIMATE = re.compile(r" \((?:~|at most )[^()]* left\)$", re.MULTILINE)


@pytest.fixture
def benchlab(capsys):
    """Run `benchlab ARGS...` in-process; returns exit code, stdout and stderr (without the
    progress lines' estimates of the time left, see ESTIMATE)."""
    def run(*args: str) -> Result:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return Result(int(code), out, ESTIMATE.sub("", err))
    return run


def write(path: Path, text: str, executable: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    if executable:
        path.chmod(0o755)
    return path


def compile_c(source: Path, output: Path, *, wasm: bool = False, flags: tuple[str, ...] = ()) -> Path:
    compiler = ["clang", "--target=wasm32-wasi"] if wasm else ["cc"]
    subprocess.run([*compiler, "-O2", *flags, f"-I{REPO / 'include'}", str(source), "-o", str(output)],
                   check=True, capture_output=True)
    return output


#: Threaded runs in the tests: 0.2 s each (docs/threads.md: -d=D seconds).
SHORT_DURATION = "-d=0.2"


@pytest.fixture(scope="session")
def concurrency_binaries(tmp_path_factory) -> dict[str, Path]:
    """The project's own suites/concurrency programs, built as docs/threads.md says."""
    directory = tmp_path_factory.mktemp("concurrency")
    return {name: compile_c(REPO / "suites" / "concurrency" / f"{name}.c", directory / name, flags=("-pthread",))
            for name in ("empty", "hash_map")}


@pytest.fixture(scope="session")
def counters_binary(tmp_path_factory) -> Path:
    """examples/counters.c, built plainly: no jemalloc, so jemalloc-allocated is never supported."""
    directory = tmp_path_factory.mktemp("counters")
    return compile_c(REPO / "examples" / "counters.c", directory / "counters")


@pytest.fixture(scope="session")
def small_bench_binary(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("small_bench")
    source = write(directory / "small.c", SMALL_BENCH)
    return compile_c(source, directory / "small")


def run_binary(binary: Path, *args: str) -> str:
    return subprocess.run([str(binary), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, "BL_NO_WARN": "1"}).stdout


GBENCH_SOURCE = (PROGRAMS / "gbench.cc").read_text()


@pytest.fixture(scope="session")
def gbench_binary(tmp_path_factory):
    directory = tmp_path_factory.mktemp("gbench")
    source = directory / "gb.cc"
    source.write_text(GBENCH_SOURCE)
    binary = directory / "gb"
    built = subprocess.run(["g++", "-O2", str(source), "-o", str(binary), "-lbenchmark", "-lpthread"],
                           capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"Google Benchmark (libbenchmark-dev) not available: {built.stderr[-200:]}")
    return binary


def store_example_run(root: Path, platforms=("native", "wasm"), date="2026-11-20T10:00:00Z") -> int:
    """A run stored through the Store API with figures simple enough to check by hand: two
    processes per platform, the empty loop's samples, a parameter, another counter, an
    unsupported one, a benchmark without a parameter, and a failure. Its id."""
    from benchlab.records import Fault, Record
    from benchlab.storage.store import open_store
    (root / ".benchlab").mkdir(exist_ok=True)
    store = open_store(f"sqlite:///{root / '.benchlab' / 'results.db'}")
    context = {"date": date, "host": "box", "cpu": "CPU X", "git": {"commit": "abc1234", "dirty": True}, "seed": 5}
    run_id = store.begin_run(["benchlab", "run", "suite"], list(platforms), context)
    common = dict(bench="copy", param=64, param_name="size", iterations=100, binary="bench", format="jsonl")
    records = []
    for platform in platforms:
        wasm = platform != "native"
        for process, samples, overhead in ((0, [10.0, 11.0, 12.0], [1.0, 1.0, 1.5]), (1, [12.0, 13.0, 14.0], [1.0, 1.0, 1.0])):
            records.append(Record(samples=[2 * x for x in samples] if wasm else samples,
                                  overhead_samples=None if wasm else overhead,
                                  sample_iterations=[100, 100, 101], platform=platform,
                                  reported={"process": process, "stack_offset": 16 * process}, **common))
    records.append(Record(bench="copy", param=64, param_name="size", counter="page-faults", unit="events",
                          samples=[0.5, 0.25, 0.5], iterations=100, sample_iterations=[100, 100, 101],
                          platform=platforms[0], binary="bench", format="jsonl", reported={"process": 0}))
    records.append(Record(bench="copy", param=64, param_name="size", counter="instructions", unit="instructions",
                          samples=[], sample_iterations=[], platform=platforms[0], binary="bench", format="jsonl",
                          reported={"process": 0, "supported": False, "reason": "no PMU in this VM"}))
    records.append(Record(bench="empty", param=None, samples=[1.0, 1.25], iterations=1000, platform=platforms[0],
                          binary="bench", format="lind"))
    store.add_unit(run_id, records, [Fault("crash", platforms[-1], "exit status 3", ["boom"])])
    store.finish_run(run_id, "failed", 1)
    return run_id


# -- databases: the store's tests run on SQLite and on a real PostgreSQL server ----------------

PG_TEST_SERVER = REPO / "scripts" / "pg-test-server"
#: pg-test-server's exit status when PostgreSQL's server binaries are not installed.
PG_NOT_INSTALLED = 3


@pytest.fixture(scope="session")
def postgresql_server() -> str:
    """A throw-away PostgreSQL server on 127.0.0.1 for the session (scripts/pg-test-server):
    the URL of its `postgres` database, as its superuser `benchlab` with a password.

    Not installed: the PostgreSQL cases fail in CI (CI=true), where scripts/setup.sh
    installs it and its absence is a broken setup, and are skipped elsewhere."""
    # Under /tmp, not pytest's tmp_path: as root the server runs as `postgres`, which cannot
    # enter root's private pytest directories.
    directory = tempfile.mkdtemp(prefix="benchlab-pg-", dir="/tmp")
    started = subprocess.run([str(PG_TEST_SERVER), "start", directory], capture_output=True, text=True)
    if started.returncode == PG_NOT_INSTALLED:
        shutil.rmtree(directory, ignore_errors=True)
        message = f"no PostgreSQL server to test with: {started.stderr.strip()}"
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    if started.returncode != 0:
        subprocess.run([str(PG_TEST_SERVER), "stop", directory], capture_output=True)
        pytest.fail(f"scripts/pg-test-server start failed (exit {started.returncode}): {started.stderr.strip()}",
                    pytrace=False)
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run([str(PG_TEST_SERVER), "stop", directory], capture_output=True)


_databases = itertools.count(1)


@pytest.fixture
def postgresql_url(postgresql_server) -> str:
    """A new, empty database on the session's server: its postgresql:// URL."""
    import psycopg
    name = f"test_{os.getpid()}_{next(_databases)}"
    with psycopg.connect(postgresql_server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return postgresql_server.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A new, empty database on each engine: an SQLite file, a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'results.db'}"
    return request.getfixturevalue("postgresql_url")


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper that a container's init may never be counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def counting(store):
    """Every statement `store` (a Store) runs in the block, with the rows it returned: [(sql, rows)]."""
    seen = []
    reading = store._reading

    @contextlib.contextmanager
    def counted():
        with reading() as query:
            def query_counted(statement, params=None):
                rows = query(statement, params)
                seen.append((statement.sql, len(rows)))
                return rows
            yield query_counted
    store._reading = counted
    try:
        yield seen
    finally:
        del store._reading  # the class's again


def sweep_plain(cell: str) -> str:
    """A sweep table's cell (or row) without its intervals and marks (output/exporters/columns.py,
    scaling_cell): `100 +-0% (0.850 [0.800, 0.900])?` -> `100 (0.850)`; `(linearity
    uninformative)` stays, as it has no number."""
    import re
    cell = re.sub(r" (\+-\S+|uninformative)(?= \()", "", cell)
    cell = re.sub(r" \[[0-9.]+, [0-9.]+\]\)", ")", cell)
    return re.sub(r"\)[?!^#~]+", ")", cell)
