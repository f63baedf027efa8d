"""Ctrl-C and SIGTERM end every command alike (signals.py, issue 37): it says what it kept,
exits 128 + the signal (130, 143), and prints no traceback. Real signals sent to a real
`benchlab` process, each at a known point: the command waits there (BENCHLAB_PAUSE_AT) and
says so, and the test signals it once it has said so, never after a guessed delay."""
import json
import os
import signal
import subprocess
import sys

import pytest

from benchlab.storage.store import open_store
from conftest import REPO

SIGNALS = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]


def signalled(cwd, args, point: str, number: int) -> subprocess.CompletedProcess:
    """`benchlab ARGS` stopped at POINT, then sent signal NUMBER: its exit status and output."""
    env = {**os.environ, "BENCHLAB_PAUSE_AT": point, "PYTHONPATH": str(REPO / "src")}
    child = subprocess.Popen([sys.executable, "-m", "benchlab", *args], cwd=cwd, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    said = child.stderr.readline()  # blocks until the command is at POINT
    assert said == f"benchlab: paused at {point}\n", said + child.stderr.read()
    child.send_signal(number)
    out, err = child.communicate()
    return subprocess.CompletedProcess(args, child.returncode, out, err)


def results_file(directory) -> str:
    path = directory / "results.jsonl"
    path.write_text("".join(json.dumps({"type": "result", "bench": name, "param": None, "counter": "time",
                                        "unit": "ns", "samples": [1.0, 2.0, 3.0], "iterations": 10}) + "\n"
                            for name in ("a", "b")))
    return str(path)


@pytest.mark.parametrize("number, status", SIGNALS)
@pytest.mark.parametrize("args, said", [
    (["import", "results.jsonl"], "interrupted: nothing imported (an import is stored whole or not at all)"),
    (["baseline", "save", "main"], "interrupted: no baseline saved or deleted (each is stored whole or not at all)"),
    (["report", "1"], "interrupted: no report written (a report appears whole or not at all; one written before "
                      "is kept)"),
    (["ab", "a", "b"], "interrupted: nothing to keep (ab stores nothing)"),
    (["gate", "--baseline", "main"], "interrupted: nothing judged (the store gains at most a first calibration of "
                                     "this machine, whole)"),
    (["show", "1"], "interrupted: nothing changed (it only reads)"),
])
def test_every_command_says_what_it_kept_whichever_signal_ends_it(tmp_path, args, said, number, status):
    results_file(tmp_path)
    ended = signalled(tmp_path, args, "command", number)
    assert (ended.returncode, ended.stdout) == (status, "")
    assert ended.stderr.strip().splitlines() == [said]  # one line: no traceback
    assert not (tmp_path / ".benchlab" / "results.db").exists() or not open_store(
        f"sqlite:///{tmp_path / '.benchlab' / 'results.db'}").list_runs()


@pytest.mark.parametrize("number, status", SIGNALS)
def test_a_signal_while_the_command_starts_says_so_without_a_traceback(tmp_path, number, status):
    ended = signalled(tmp_path, ["import", "results.jsonl"], "start", number)
    assert (ended.returncode, ended.stderr) == (status, "interrupted: nothing changed (benchlab was starting)\n")


@pytest.mark.parametrize("number, status", SIGNALS)
def test_a_signal_after_an_import_committed_says_it_is_stored(tmp_path, db_url, number, status):
    path = results_file(tmp_path)
    ended = signalled(tmp_path, ["import", path, "--db", db_url], "imported", number)
    assert ended.returncode == status
    assert ended.stderr.strip().splitlines() == [
        f"interrupted: {path} is imported whole as run 1 (benchlab show 1)"]
    store = open_store(db_url)
    try:
        assert [run["id"] for run in store.list_runs()] == [1]
        assert sorted(record.bench for record in store.load_run(1)[1]) == ["a", "b"]
    finally:
        store.close()


def test_the_handlers_are_installed_before_anything_heavy_is_imported():
    """What runs before the entry point installs its handlers: the package and start.py
    alone, which import nothing of benchlab's but signals.py (Ctrl-C in the first 0.05 s
    printed a traceback from inside the package's import, issue 37)."""
    code = ("import sys; before = set(sys.modules); import benchlab.start; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    imported = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONPATH": str(REPO / "src")}).stdout.split()
    assert sorted(name for name in imported if name.startswith("benchlab")) == [
        "benchlab", "benchlab.signals", "benchlab.start"]
    assert not {"pathlib", "re", "click", "numpy"} & set(imported)
