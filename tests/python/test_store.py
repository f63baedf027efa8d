"""Storage survives interruptions: only completed units, never a corrupt file."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
import sqlalchemy as sa

from benchlab.records import Fault, Record
from benchlab.runner import Runner
from benchlab.store import Store, records as records_table
from conftest import REPO, write


def lind_script(project, name, line, hang=False):
    tail = "sleep 60\n" if hang else ""
    return write(project / "suite" / f"{name}.sh", f"#!/bin/sh\nprintf '{line}\\n'\n{tail}", executable=True)


def integrity(db_path) -> str:
    with sqlite3.connect(db_path) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]


def test_round_trip_of_records_faults_and_context(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
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



def test_unsupported_counters_and_throughput_records_round_trip(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
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

def test_ctrl_c_mid_run_keeps_the_completed_units_and_marks_the_run(project, benchlab, monkeypatch):
    lind_script(project, "a_first", "First\\t1\\t100\\t10")
    lind_script(project, "b_second", "Second\\t1\\t100\\t20")
    real_run_unit = Runner.run_unit
    calls = []

    def interrupted_on_second(self, unit):
        calls.append(unit)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_run_unit(self, unit)

    monkeypatch.setattr(Runner, "run_unit", interrupted_on_second)
    result = benchlab("run", "suite")
    assert result.exit_code == 130
    assert result.stderr == ("[1/2] a_first.sh on native\n[2/2] b_second.sh on native\n"
                             "interrupted: run 1 keeps the 1 records completed so far\n")
    db = project / ".benchlab" / "results.db"
    assert integrity(db) == "ok"
    store = Store(f"sqlite:///{db}")
    [run] = store.list_runs()
    assert run["status"] == "interrupted" and run["exit_code"] == 130
    _, stored, _ = store.load_run(run["id"])
    assert [r.bench for r in stored] == ["First"]


def test_kill_9_mid_run_leaves_completed_records_and_a_sound_database(project):
    lind_script(project, "a_done", "Done\\t1\\t100\\t10")
    lind_script(project, "b_stuck", "Partial\\t1\\t100\\t20", hang=True)
    db = project / ".benchlab" / "results.db"
    child = subprocess.Popen([sys.executable, "-m", "benchlab", "run", "suite"], cwd=project,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    try:
        engine = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if db.exists():
                engine = engine or sa.create_engine(f"sqlite:///{db}")
                try:
                    with engine.connect() as connection:
                        if connection.execute(sa.select(sa.func.count()).select_from(records_table)).scalar():
                            break
                except sa.exc.OperationalError:
                    pass  # tables not created yet
            time.sleep(0.05)
        else:
            pytest.fail("the first unit never reached the database")
        time.sleep(0.2)  # now inside the hanging second unit
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    assert integrity(db) == "ok"
    store = Store(f"sqlite:///{db}")
    [run] = store.list_runs()
    assert run["status"] == "killed"  # still 'running' in the file, but its process is gone
    _, stored, faults = store.load_run(run["id"])
    assert [r.bench for r in stored] == ["Done"] and faults == []
    # and the database takes the next run as usual
    next_id = store.begin_run(["benchlab"], ["native"], {})
    assert next_id == run["id"] + 1


def test_runs_and_show_print_stored_runs(project, benchlab):
    lind_script(project, "one", "One\\t1\\t100\\t10")
    assert benchlab("run", "suite", "--seed", "3").exit_code == 0
    listing = benchlab("runs")
    assert listing.exit_code == 0
    header, _, row = listing.stdout.splitlines()[:3]
    assert header.split()[:6] == ["ID", "DATE", "STATUS", "PLATFORMS", "RECORDS", "FAILURES"]
    assert row.split()[0] == "1" and row.split()[2:5] == ["complete", "native", "1"]
    shown = benchlab("show", "1", "--format", "csv")
    assert shown.exit_code == 0
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("test,param,counter,unit,sweep,platform,binary,status,median")
    assert lines[1].startswith("One,1,time,ns,,native,one.sh,ok,10.0")
    assert benchlab("show", "latest").stdout == benchlab("show", "-1").stdout


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
