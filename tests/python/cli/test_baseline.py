"""`benchlab baseline save|list|show|delete`: exact output, errors and exit codes, on SQLite
and on PostgreSQL (db_url)."""
import pytest
import sqlalchemy as sa

from benchlab.errors import UserError
from benchlab.records import Record
from benchlab.storage.store import open_store
from conftest import write


class Clock:
    """The store's clock (run dates, save dates), set by the test."""
    now = "2026-11-20T09:00:00Z"


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("benchlab.storage.store.now", lambda: clock.now)
    monkeypatch.setattr("benchlab.storage.store.socket.gethostname", lambda: "ci-box-1")
    return clock


@pytest.fixture
def stored(project, db_url, clock, monkeypatch):
    """Three runs: 1 complete at commit 0123..., 2 complete on a dirty tree, 3 interrupted."""
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    store = open_store(db_url)
    for day, status, git, median in (("20", "complete", {"commit": "0123456789abcdef", "dirty": False}, 10.0),
                                     ("21", "complete", {"commit": "fedcba9876543210", "dirty": True}, 11.0),
                                     ("22", "interrupted", None, 12.0)):
        clock.now = f"2026-11-{day}T09:00:00Z"
        run_id = store.begin_run(["benchlab", "run"], ["native"], {"git": git} if git else {})
        store.add_unit(run_id, [Record(bench="getpid", param=None, samples=[median] * 3, iterations=1000,
                                       platform="native", binary="sys", format="jsonl")], [])
        store.finish_run(run_id, status, 130 if status == "interrupted" else 0)
    store.close()
    clock.now = "2026-11-23T12:00:00Z"
    return db_url


LIST_HEADER = ("NAME                 RUN   SAVED                  RUN DATE               HOST       COMMIT        BINARIES\n"
               + "─" * 106 + "\n")


def test_save_list_show_and_delete(stored, benchlab, clock):
    saved = benchlab("baseline", "save", "nightly-2026-11-20", "1")
    assert (saved.exit_code, saved.stdout, saved.stderr) == (
        0, "saved baseline 'nightly-2026-11-20' at 2026-11-23T12:00:00Z: run 1 of 2026-11-20T09:00:00Z\n", "")
    clock.now = "2026-11-23T12:05:00Z"
    saved = benchlab("baseline", "save", "nightly-2026-11-21", "-2")  # as `show -2`: the run before the latest
    assert (saved.exit_code, saved.stdout) == (
        0, "saved baseline 'nightly-2026-11-21' at 2026-11-23T12:05:00Z: run 2 of 2026-11-21T09:00:00Z\n")
    clock.now = "2026-11-23T12:10:00Z"
    saved = benchlab("baseline", "save", "main")  # the latest run by default: run 3, interrupted
    assert (saved.exit_code, saved.stdout, saved.stderr) == (
        0, "saved baseline 'main' at 2026-11-23T12:10:00Z: run 3 of 2026-11-22T09:00:00Z\n",
        "warning: run 3 is interrupted: a comparison with baseline 'main' sees only what the run stored "
        "(benchlab show 3)\n")

    listing = benchlab("baseline", "list")
    assert (listing.exit_code, listing.stderr) == (0, "")
    assert listing.stdout == LIST_HEADER + (
        "main                   3   2026-11-23T12:10:00Z   2026-11-22T09:00:00Z   ci-box-1                 -\n"
        "nightly-2026-11-21     2   2026-11-23T12:05:00Z   2026-11-21T09:00:00Z   ci-box-1   fedcba9876+   -\n"
        "nightly-2026-11-20     1   2026-11-23T12:00:00Z   2026-11-20T09:00:00Z   ci-box-1   0123456789    -\n")

    # exit 1 for a run that ended part-way, as `show` says; 3 samples make a figure uncertain (?)
    for name, run, code, figure in (("nightly-2026-11-20", "1", 0, "10?"), ("main", "3", 1, "12?")):
        shown, direct = benchlab("baseline", "show", name), benchlab("show", run)
        assert (shown.exit_code, shown.stdout, shown.stderr) == (code, direct.stdout, direct.stderr)
        assert (direct.exit_code, direct.stdout.splitlines()[2].split()[:2]) == (code, ["getpid", figure])
    csv = benchlab("baseline", "show", "nightly-2026-11-21", "--format", "csv")
    assert csv.stdout == benchlab("show", "2", "--format", "csv").stdout and ",11.0," in csv.stdout

    deleted = benchlab("baseline", "delete", "main")
    assert (deleted.exit_code, deleted.stdout, deleted.stderr) == (
        0, "deleted baseline 'main' (run 3 stays stored)\n", "")
    assert benchlab("baseline", "list").stdout == LIST_HEADER + "\n".join(listing.stdout.splitlines()[3:]) + "\n"
    assert benchlab("show", "3").exit_code == 1  # the run is still there


def test_list_fits_a_narrow_terminal_and_says_what_went(stored, benchlab, clock, monkeypatch):
    assert benchlab("baseline", "save", "nightly-2026-11-20", "1").exit_code == 0
    monkeypatch.setenv("COLUMNS", "60")
    narrow = benchlab("baseline", "list").stdout.splitlines()
    # BINARIES, the dates' year and seconds, HOST and SAVED go (51 columns); NAME, RUN and the run's date stay
    assert narrow == ["NAME                 RUN   RUN DATE      COMMIT",
                      "─" * 51,
                      "nightly-2026-11-20     1   11-20 09:00   0123456789",
                      "(at 60 columns: BINARIES hidden, dates without year and",
                      "seconds, HOST hidden, SAVED hidden; widen the terminal)"]
    monkeypatch.setenv("COLUMNS", "34")
    tiny = benchlab("baseline", "list").stdout.splitlines()
    assert max(len(line) for line in tiny) <= 34
    assert tiny[0].split() == ["NAME", "RUN", "RUN", "DATE"] and tiny[2].startswith("nightly-2026-11…")


def test_saving_an_existing_name_needs_force(stored, benchlab, clock):
    assert benchlab("baseline", "save", "main", "1").exit_code == 0
    again = benchlab("baseline", "save", "main", "2")
    assert (again.exit_code, again.stdout, again.stderr) == (
        2, "", "error: baseline 'main' exists: run 1, saved 2026-11-23T12:00:00Z (give --force to point it at "
               "run 2, or choose another name)\n")
    clock.now = "2026-11-24T08:00:00Z"
    forced = benchlab("baseline", "save", "main", "2", "--force")
    assert (forced.exit_code, forced.stdout, forced.stderr) == (
        0, "saved baseline 'main' at 2026-11-24T08:00:00Z: run 2 of 2026-11-21T09:00:00Z; it was run 1, saved "
           "2026-11-23T12:00:00Z\n", "")
    assert benchlab("baseline", "list").stdout.splitlines()[2].split()[:3] == ["main", "2", "2026-11-24T08:00:00Z"]


def test_unknown_names_and_runs_are_one_error_each(stored, benchlab):
    url = open_store(stored).url
    for command in (["show", "nope"], ["delete", "nope"]):
        result = benchlab("baseline", *command)
        assert (result.exit_code, result.stdout, result.stderr) == (
            2, "", f"error: no baseline 'nope' in {url} (list them with: benchlab baseline list)\n")
    result = benchlab("baseline", "save", "x", "99")
    assert (result.exit_code, result.stderr) == (2, f"error: no run with id 99 in {url} (list runs with: benchlab runs)\n")
    result = benchlab("baseline", "save", "x", "-4")
    assert (result.exit_code, result.stderr) == (
        2, "error: no run '-4': the database has fewer runs (list them with: benchlab runs)\n")
    assert benchlab("baseline", "list").stdout == "NAME   RUN   SAVED   RUN DATE   HOST   COMMIT   BINARIES\n" + "─" * 56 + "\n"


@pytest.mark.parametrize("name", ["latest", "42", "a b", "-x", "x" * 101, "nightly;rm", "ünïcode"])
def test_names_that_could_be_misread_are_refused(stored, benchlab, name):
    result = benchlab("baseline", "save", "--", name, "1") if name.startswith("-") else \
        benchlab("baseline", "save", name, "1")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"error: baseline name {name!r} is not allowed (use 1 to 100 letters, digits and . _ - : "
                             "/ @ +, starting with a letter or digit, e.g. nightly-2026-11-22; 'latest' and numbers "
                             "name runs)\n")
    assert open_store(stored).list_baselines() == []


def test_a_run_a_baseline_names_cannot_be_deleted(stored):
    store = open_store(stored)
    store.save_baseline("release-1.0", 2)
    store.save_baseline("nightly", 2)
    with pytest.raises(UserError) as refused:
        store.delete_run(2)
    assert str(refused.value) == ("run 2 is kept as baseline 'nightly', 'release-1.0' (delete the baseline first: "
                                  "benchlab baseline delete nightly)")
    # and the schema refuses it too (ON DELETE RESTRICT), whoever deletes
    engine = sa.create_engine(stored.replace("postgresql://", "postgresql+psycopg://", 1))
    with pytest.raises(sa.exc.IntegrityError), engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")  # as every connection of a store sets it
        connection.execute(sa.text("DELETE FROM runs WHERE id = 2"))
        connection.commit()
    engine.dispose()
    assert [run["id"] for run in store.list_runs()] == [3, 2, 1]
    store.delete_baseline("nightly")
    store.delete_baseline("release-1.0")
    store.delete_run(2)
    assert [run["id"] for run in store.list_runs()] == [3, 1]
    store.close()


def test_a_baseline_of_a_run_of_benchlab_run(project, benchlab, db_url, monkeypatch):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    write(project / "suite" / "one.sh", "#!/bin/sh\nprintf 'One\\t1\\t100\\t10\\n'\n", executable=True)
    assert benchlab("run", "suite", "--processes", "2").exit_code == 0
    saved = benchlab("baseline", "save", "first")
    assert saved.exit_code == 0 and saved.stdout.startswith("saved baseline 'first' at ")
    shown = benchlab("baseline", "show", "first", "--format", "json")
    assert shown.exit_code == 0 and shown.stdout == benchlab("show", "1", "--format", "json").stdout
    assert '"median": 10.0' in shown.stdout


def test_every_command_that_takes_a_run_takes_a_baseline_s_name(stored, benchlab, clock):
    assert benchlab("baseline", "save", "release-1.0", "2").exit_code == 0
    by_name, by_id = benchlab("show", "release-1.0", "--format", "csv"), benchlab("show", "2", "--format", "csv")
    assert (by_name.exit_code, by_name.stdout) == (0, by_id.stdout) and ",11.0," in by_name.stdout
    copied = benchlab("baseline", "save", "release-1.0-copy", "release-1.0")
    assert copied.stdout == "saved baseline 'release-1.0-copy' at 2026-11-23T12:00:00Z: run 2 of 2026-11-21T09:00:00Z\n"
    url = open_store(stored).url
    for text in ("nope", "²", "1.5"):  # '²' is a digit to str.isdigit(), not to int()
        result = benchlab("show", text)
        assert (result.exit_code, result.stdout, result.stderr) == (
            2, "", f"error: no run or baseline {text!r} in {url} (a run is an id, 'latest' or -N: list runs with: "
                   "benchlab runs, baselines with: benchlab baseline list)\n")


def test_baseline_alone_prints_its_commands(benchlab):
    result = benchlab("baseline")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("Usage: benchlab baseline [OPTIONS] COMMAND [ARGS]...\n")
    assert [line.split()[0] for line in result.stderr.splitlines()[-4:]] == ["delete", "list", "save", "show"]
