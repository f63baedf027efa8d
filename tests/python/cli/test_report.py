"""`benchlab report`: what it prints, and its errors: one line each, exit 2, nothing written."""
from __future__ import annotations

import re

import pytest

from benchlab.storage.store import open_store
from report_data import store_run, suite_run


@pytest.fixture
def db(project, monkeypatch):
    url = f"sqlite:///{project / 'results.db'}"
    monkeypatch.setenv("BENCHLAB_DB", url)
    return url


@pytest.fixture
def stored(db):
    store = open_store(db)
    store_run(store, suite_run(hostile=False), ["native", "wasm"], "ab" * 20, "2026-11-20T09:00:00Z")
    store.close()
    return db


def test_report_prints_the_path_of_index_html(stored, project, benchlab):
    result = benchlab("report", "--out", "out")
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"{project / 'out' / 'index.html'}\n", "")
    assert sorted(p.name for p in (project / "out").iterdir()) == [
        ".benchlab-report", "index.html", "plotly.min.js", "report.js", "run-1-1-sys.html", "run-1.html", "runs.html"]


def test_an_earlier_report_is_replaced_whole(stored, project, benchlab):
    assert benchlab("report", "--out", "out").exit_code == 0
    (project / "out" / "index.html").write_text("old")
    assert benchlab("report", "1", "--out", "out").exit_code == 0
    assert "benchlab report: run 1" in (project / "out" / "index.html").read_text()
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".out")) == []


def written(project) -> list[str]:
    return sorted(p.name for p in project.iterdir() if p.name not in ("include", "results.db", "results.db-wal",
                                                                       "results.db-shm", "a-file", "busy", ".benchlab"))


@pytest.mark.parametrize("args, message", [
    (("--out", "a-file"), "error: --out a-file is a file (give a directory: the report is DIR/index.html and its scripts)\n"),
    (("--out", "no/such/dir"), "error: --out no/such/dir: the directory {project}/no/such does not exist "
                               "(create it first, or give another path)\n"),
    (("--out", "busy"), "error: --out busy holds files that are not an earlier benchlab report (give a new or "
                        "empty directory (an earlier report's directory is replaced))\n"),
    (("7", "--out", "out"), "error: no run with id 7 in {db} (list runs with: benchlab runs)\n"),
    (("-2", "--out", "out"), "error: no run '-2': the database has fewer runs (list them with: benchlab runs)\n"),
    ((), "error: Missing option '--out'. (see 'benchlab report --help')\n"),
    (("nightly", "--out", "out"), "error: no run or baseline 'nightly' in {db} (a run is an id, 'latest' or -N: "
                                  "list runs with: benchlab runs, baselines with: benchlab baseline list)\n"),
    (("--baseline", "nightly", "--out", "out"), "error: no run or baseline 'nightly' in {db} (a run is an id, "
                                                "'latest' or -N: list runs with: benchlab runs, baselines with: "
                                                "benchlab baseline list)\n"),
])
def test_bad_input_is_one_error_and_writes_nothing(stored, project, benchlab, args, message):
    (project / "a-file").write_text("keep")
    (project / "busy").mkdir()
    (project / "busy" / "notes.txt").write_text("keep")
    result = benchlab("report", *args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == message.format(project=project, db=stored.removeprefix("sqlite:///") and stored)
    assert written(project) == []
    assert (project / "a-file").read_text() == "keep" and (project / "busy" / "notes.txt").read_text() == "keep"


def test_an_empty_store_says_what_to_do(db, project, benchlab):
    result = benchlab("report", "--out", "out")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"error: the database {db} has no runs to report (store one first: benchlab run TARGET, "
                             "or benchlab import FILE)\n")
    assert not (project / "out").exists()


def test_baseline_takes_a_name_or_a_run(stored, project, benchlab):
    store = open_store(stored)
    store_run(store, suite_run(110.0, hostile=False), ["native", "wasm"], "cd" * 20, "2026-11-21T09:00:00Z")
    store.save_baseline("nightly", 1)
    store.close()
    assert benchlab("report", "--baseline", "nightly", "--out", "out").exit_code == 0
    assert "<h1>benchlab report: run 2 against baseline nightly (run 1)</h1>" in (project / "out" / "index.html").read_text()
    assert benchlab("report", "--baseline", "1", "--out", "out").exit_code == 0
    html = (project / "out" / "index.html").read_text()
    assert "<h1>benchlab report: run 2 against run 1</h1>" in html and "Run 2 against run 1" in html


def test_max_regression_judges_as_the_gate(db, project, benchlab):
    from report_data import baseline_and_regression, earlier_runs, regression_records
    store = open_store(db)
    # Earlier runs of the same code first, as a user's store has them: without them (and without
    # a machine prior) a rerun of 3 processes may move as far as one, and +20% reaches past 30%.
    earlier_runs(store, regression_records)
    baseline_and_regression(store)  # sys_close +20% [+16%, +23%], tiny_call 19x, fs_read -20%
    store.close()
    assert benchlab("report", "--baseline", "main", "--out", "floor").exit_code == 0
    assert benchlab("report", "--baseline", "main", "--max-regression", "30%", "--out", "gate").exit_code == 0
    tiles = {name: re.findall(r'<span class="count">(\d+)</span><span class="word">(\w+)',
                              (project / name / "index.html").read_text()) for name in ("floor", "gate")}
    # at +30%: tiny_call (19x) slower on both platforms, ipc_pipe (processes 30% apart) too wide to say
    assert tiles == {"floor": [("4", "slower"), ("4", "inconclusive"), ("2", "not")],
                     "gate": [("2", "slower"), ("2", "inconclusive"), ("6", "not")]}
    assert "Judged at +30%, --max-regression" in (project / "gate" / "index.html").read_text()
    result = benchlab("report", "--max-regression", "0.5", "--out", "bad")
    assert (result.exit_code, result.stdout) == (2, "") and "--max-regression" in result.stderr
    assert not (project / "bad").exists()
