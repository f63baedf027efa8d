"""`benchlab` imports a subcommand's modules only when that subcommand runs (cli/__init__.py,
LazyGroup): a default `benchlab run` is about a second, and the HTML report's, the
profiler's, ab's and history's imports were a fifth of it. `benchlab --help` imports no
subcommand, and `benchlab show` reads an SQLite store without SQLAlchemy (storage/store.py):
issue 20's 0.3 s, which bench/startup.py measures (no timing here: machines are noisy)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.cli import SUBCOMMANDS, cli
from benchlab.records import Record
from benchlab.storage.store import open_store

#: Modules only other subcommands need.
NOT_FOR_RUN = ("benchlab.output.htmlreport", "benchlab.profiling", "benchlab.measuring.ab", "benchlab.cli.ab", "benchlab.judging",
               "benchlab.statistics.changepoints", "benchlab.cli.history", "benchlab.formats.importing", "benchlab.cli.report")

IMPORTED_BY = """
import json, sys
from benchlab.cli import main
status = main([{args}])
print(json.dumps([status, sorted(sys.modules)]))
"""


def imported_by(tmp_path, *args: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", IMPORTED_BY.format(args=", ".join(map(repr, args)))],
                          capture_output=True, text=True, cwd=tmp_path, check=True)
    status, modules = json.loads(done.stdout.splitlines()[-1])
    return status, modules


#: What a run whose stderr is not a terminal does not need: rich's progress bar, and numpy.ma
#: (np.median imports it). About 25 ms together.
NOT_FOR_A_PIPED_RUN = ("rich.progress", "numpy.ma")
TINY = """#include "benchlab.h"
BL_BENCH(nothing, n) { for (uint64_t i = 0; i < n; i++) BL_KEEP(i); }
BL_MAIN()
"""


def test_run_imports_only_what_run_needs(tmp_path):
    status, modules = imported_by(tmp_path, "run", "--help")
    assert status == 0 and "benchlab.cli.run" in modules and "benchlab.measuring.runner" in modules
    assert [m for m in modules if m.startswith(NOT_FOR_RUN)] == []


def test_a_default_run_with_stderr_piped_skips_what_only_a_terminal_needs(tmp_path):
    (tmp_path / "include").mkdir()
    shutil.copy(Path(__file__).parents[2] / "include" / "benchlab.h", tmp_path / "include")
    (tmp_path / "tiny.c").write_text(TINY)
    status, modules = imported_by(tmp_path, "run", "tiny.c", "--processes", "2", "--time-limit", "0.01")
    assert status == 0 and "benchlab.storage.store" in modules and "benchlab.statistics.combine" in modules  # it ran, and stored
    assert [m for m in modules if m in NOT_FOR_A_PIPED_RUN or m.startswith(tuple(f"{n}." for n in NOT_FOR_A_PIPED_RUN))] == []


def test_a_default_run_imports_no_numpy_and_records_its_version(tmp_path):
    """numpy's import was a third of a default run's own CPU (issue 40, bench/run_overhead.py):
    a run's statistics are plain Python (stats.py), the first run and one that reads its
    history alike; the context still names the numpy installed, read from its version.py.
    Nor the smaller imports a default run does without (tomllib, difflib, secrets: 0.01 s)."""
    import numpy
    (tmp_path / "include").mkdir()
    shutil.copy(Path(__file__).parents[2] / "include" / "benchlab.h", tmp_path / "include")
    (tmp_path / "tiny.c").write_text(TINY)
    for run in range(4):  # from the fourth, the run level of identical code's history (noise.estimate)
        status, modules = imported_by(tmp_path, "run", "tiny.c", "--processes", "2", "--time-limit", "0.01")
        assert status == 0 and "benchlab.statistics.combine" in modules and "benchlab.storage.store" in modules
        assert heavy(modules, ("numpy", "secrets")) == []
        if run > 0:  # (the first creates the store through Alembic, which reads TOML of its own)
            # A project without benchlab.toml has no TOML to read, nor typos to suggest a key for.
            assert heavy(modules, ("tomllib", "difflib")) == []
    reader = open_store(f"sqlite:///{tmp_path / '.benchlab' / 'results.db'}")
    assert reader.run_row(4)["context"]["numpy"] == numpy.__version__


def test_a_run_into_an_existing_sqlite_store_imports_no_sqlalchemy(tmp_path):
    """SQLAlchemy's import was a fifth of a default run: a run into an SQLite store at the head
    revision writes it through sqlite3 (storage/store.py). The first run creates the store."""
    (tmp_path / "include").mkdir()
    shutil.copy(Path(__file__).parents[2] / "include" / "benchlab.h", tmp_path / "include")
    (tmp_path / "tiny.c").write_text(TINY)
    flags = ("run", "tiny.c", "--processes", "2", "--time-limit", "0.01")
    status, first = imported_by(tmp_path, *flags)
    assert status == 0 and "sqlalchemy" in first and "alembic" in first  # created the store
    status, second = imported_by(tmp_path, *flags)
    assert status == 0 and "benchlab.storage.store" in second and "benchlab.statistics.combine" in second
    assert heavy(second, ("sqlalchemy", "alembic", "benchlab.storage.engine")) == []
    reader = open_store(f"sqlite:///{tmp_path / '.benchlab' / 'results.db'}")
    assert [(run["id"], run["status"], run["records"]) for run in reader.list_runs()] == [
        (2, "complete", 2), (1, "complete", 2)]


def test_history_imports_its_own_modules_on_use(tmp_path):
    _, modules = imported_by(tmp_path, "history", "--help")
    modules = [m for m in modules if m.startswith("benchlab")]
    assert "benchlab.cli.history" in modules and "benchlab.cli.report" not in modules


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_every_listed_subcommand_resolves_to_a_command_of_that_name(name):
    command = cli.get_command(None, name)
    assert command is not None and command.name == name
    assert cli.get_command(None, "no-such-command") is None


def test_a_run_with_history_estimates_its_noise_without_scipy(tmp_path):
    """The run level of 3 or more earlier runs of identical code (noise.estimate, the
    pooled process spread's winsorized mean) uses the chi-square distribution by hand:
    scipy.stats took half a second to import, and a default run is about a second."""
    (tmp_path / "include").mkdir()
    shutil.copy(Path(__file__).parents[2] / "include" / "benchlab.h", tmp_path / "include")
    (tmp_path / "tiny.c").write_text(TINY)
    flags = ("run", "tiny.c", "--processes", "2", "--time-limit", "0.01")
    for _ in range(4):
        assert imported_by(tmp_path, *flags)[0] == 0
    status, modules = imported_by(tmp_path, *flags, "--format", "json")
    assert status == 0 and "benchlab.statistics.noise" in modules
    assert [m for m in modules if m == "scipy.stats" or m.startswith("scipy.stats.")] == []


#: What `--help` and `--version` need none of: numpy (0.15 s), SQLAlchemy (0.35 s), Alembic, rich.
HEAVY = ("numpy", "sqlalchemy", "alembic", "rich")
#: What `show` of an SQLite store at the head revision does without.
NOT_FOR_SHOW = ("sqlalchemy", "alembic", "benchlab.storage.engine", "benchlab.formats.parsers")


def heavy(modules: list[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in modules if m in names or m.startswith(tuple(f"{n}." for n in names))]


@pytest.mark.parametrize("args", [["--help"], ["--version"], []])
def test_help_and_version_import_no_subcommand_and_nothing_heavy(tmp_path, args):
    status, modules = imported_by(tmp_path, *args)
    assert status == (0 if args else 2)
    assert heavy(modules, HEAVY) == []
    assert [m for m in modules if m.startswith("benchlab.cli.")] == []


def test_help_lists_every_subcommand_with_its_line_of_the_table():
    from click.testing import CliRunner
    out = CliRunner().invoke(cli, ["--help"], terminal_width=200).output
    listed = out[out.index("Commands:"):].splitlines()[1:]
    assert [line.split(None, 1) for line in listed] == [[name, help] for name, (_, _, help) in SUBCOMMANDS.items()]


@pytest.fixture
def stored(tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    store = open_store(url)
    run_id = store.begin_run(["benchlab", "run"], ["native"], {})
    store.add_unit(run_id, [Record(bench="nothing", param=None, samples=[3.0, 1.0, 2.0], iterations=10, platform="native",
                                   binary="tiny")], [])
    store.finish_run(run_id, "complete", 0)
    store.close()
    return url


@pytest.mark.parametrize("args", [["show", "latest"], ["show", "1", "--format", "json"], ["stats", "latest"],
                                  ["export", "latest", "--format", "jsonl"]])
def test_readers_of_an_sqlite_store_import_no_sqlalchemy(tmp_path, stored, args):
    status, modules = imported_by(tmp_path, *args, "--db", stored)
    assert status == 0 and "benchlab.storage.store" in modules and "benchlab.stats" in modules  # it read and summarised
    assert heavy(modules, NOT_FOR_SHOW) == []


def test_show_of_a_store_with_no_runs_imports_no_sqlalchemy(tmp_path):
    open_store(f"sqlite:///{tmp_path / 'empty.db'}").close()
    status, modules = imported_by(tmp_path, "show", "latest", "--db", f"sqlite:///{tmp_path / 'empty.db'}")
    assert status == 2 and heavy(modules, NOT_FOR_SHOW) == []


def test_show_of_a_store_to_create_or_upgrade_opens_it_through_sqlalchemy(tmp_path):
    status, modules = imported_by(tmp_path, "show", "latest", "--db", f"sqlite:///{tmp_path / 'new.db'}")
    assert status == 2 and "sqlalchemy" in modules and (tmp_path / "new.db").is_file()  # created, as before
