"""`benchlab gate` re-measures: the baseline's kept binaries against the candidate's, in
interleaved processes (remeasure.py), and falls back to stored figures, saying why, where
it cannot. Real programs built by benchlab run, compared the way a CI job would."""
import hashlib
import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from benchlab.measuring import calibration, remeasure, trust
from conftest import write

LOOP = """#include "benchlab.h"
static volatile unsigned long sink;
BL_BENCH(hash, n) {
    unsigned long h = 1469598103934665603ul, i; int k;
    for (i = 0; i < n; i++) { for (k = 0; k < WORK; k++) h = (h ^ (unsigned long)k) * 1099511628211ul; BL_KEEP(h); }
    sink = h;
}
BL_MAIN()
"""
DB = "sqlite:///gate.db"


@pytest.fixture(autouse=True)
def calibrate_at_once(monkeypatch):
    """Calibrations here run back to back, not spread over DEFAULT_SPAN_S: the tests check
    what is stored and said, not the machine."""
    monkeypatch.setattr(calibration, "DEFAULT_SPAN_S", 0.0)


def run_loop(project, benchlab, work: int) -> None:
    write(project / "loop.c", f"#define WORK {work}\n" + LOOP)
    result = benchlab("run", "loop.c", "-N", "2", "--time-limit", "0.005", "--db", DB)
    assert result.exit_code == 0, result.stderr


def setup_gate(project, benchlab, candidate_work: int) -> None:
    write(project / "benchlab.toml", "[gate]\ncalibrate = false\n")
    run_loop(project, benchlab, 100)
    saved = benchlab("baseline", "save", "main", "--db", DB)
    assert "keeps 1 binaries (" in saved.stdout, saved.stdout + saved.stderr
    run_loop(project, benchlab, candidate_work)


def test_a_slower_candidate_is_re_measured_and_fails_an_unchanged_one_passes(project, benchlab):
    setup_gate(project, benchlab, 130)  # 30% more work per iteration
    result = benchlab("gate", "--baseline", "main", "--time", "10", "--db", DB)
    assert result.exit_code == 3, result.stdout + result.stderr
    assert ("re-measuring loop@native against the baseline's binaries: at most 10 s of rounds (--time), less once "
            "every row is decided") in result.stderr
    assert "error term: re-measured: " in result.stdout and "paired rounds of baseline and candidate" in result.stdout
    ratio = float(result.stdout.splitlines()[1].split()[4])
    assert 1.15 < ratio < 1.5
    assert any(line.startswith("regression: hash on native: ") for line in result.stderr.splitlines())
    assert result.stderr.splitlines()[-1] == "gate failed: 1 slower beyond the threshold"
    same = benchlab("baseline", "save", "same", "latest", "--db", DB)
    assert same.exit_code == 0
    run_loop(project, benchlab, 130)  # the same code again
    passed = benchlab("gate", "--baseline", "same", "--time", "10", "--db", DB)
    # Identical code is never slower; beside busy loops 10 s may not decide it (exit 4, said)
    assert passed.exit_code in (0, 4), passed.stdout + passed.stderr
    assert "error term: re-measured" in passed.stdout and "regression:" not in passed.stderr


def test_a_time_limit_that_cannot_fit_a_verdicts_rounds_is_refused_before_anything_runs(project, benchlab):
    setup_gate(project, benchlab, 100)
    before = sorted(path.name for path in (project / ".benchlab").rglob("*"))
    short = benchlab("gate", "--baseline", "main", "--time", "0.01", "--db", DB)
    assert (short.exit_code, short.stdout) == (2, "")
    assert short.stderr == ("error: --time 0.01: 1 program(s) need at least 0.11 s for the 6 rounds a verdict "
                            "needs (give --time 1 or more, or leave it out for the default)\n")
    # the old spelling still works, and says it is the old one
    old = benchlab("gate", "--baseline", "main", "--time-limit", "0.01", "--db", DB)
    assert (old.exit_code, old.stderr.splitlines()) == (2, [
        "note: --time-limit is the old spelling of `gate --time S` (seconds of rounds); write --time "
        "(`run --time-limit` is a sample's seconds)", short.stderr.rstrip("\n")])
    both = benchlab("gate", "--baseline", "main", "--time", "5", "--time-limit", "5", "--db", DB)
    assert both.exit_code == 2 and "give --time alone: --time-limit is its old spelling" in both.stderr
    assert sorted(path.name for path in (project / ".benchlab").rglob("*")) == before  # nothing ran, nothing stored
    # the default for one program: 30 s, said before it starts
    default = benchlab("gate", "--baseline", "main", "--db", DB)
    assert "at most 30 s of rounds (--time)" in default.stderr


def test_stored_figures_stand_in_where_the_gate_cannot_run_again_and_say_why(project, benchlab, tmp_path):
    setup_gate(project, benchlab, 100)
    only = benchlab("gate", "--baseline", "main", "--no-remeasure", "--db", DB)
    # Two stored processes a side: not slower, or too few to decide (exit 4); never slower
    assert only.exit_code in (0, 4) and "stored figures only (--no-remeasure)" in only.stderr
    assert "re-measured" not in only.stdout
    # The candidate's binary rebuilt away (the build cache cleared): its stored figures.
    for built in (project / ".benchlab" / "build" / "native").iterdir():
        built.unlink()
    gone = benchlab("gate", "--baseline", "main", "--db", DB)
    assert gone.exit_code in (0, 4) and "the candidate's binary" in gone.stderr and "is gone or was rebuilt" in gone.stderr
    # A stored binary whose content no longer hashes to its sha256 is refused, never run: it
    # would leave a file behind if it ran.
    witness = tmp_path / "ran"
    engine = sa.create_engine(DB)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE binaries SET content = :c"), {"c": f"#!/bin/sh\ntouch {witness}\n".encode()})
    engine.dispose()
    refused = benchlab("gate", "--baseline", "main", "--db", DB)
    assert refused.exit_code in (0, 4), refused.stderr
    assert "stored figures for loop@native: the baseline's stored binary no longer matches its sha256" in refused.stderr
    assert "refused, never executed" in refused.stderr and not witness.exists()
    # A run id is no baseline: stored figures, said so.
    by_id = benchlab("gate", "--baseline", "1", "--db", DB)
    assert by_id.exit_code in (0, 4) and "stored figures only: 1 is not a baseline" in by_id.stderr


def test_a_result_file_candidate_is_judged_on_stored_figures_and_says_so(project, benchlab):
    setup_gate(project, benchlab, 100)
    exported = benchlab("export", "latest", "--out", "candidate.jsonl", "--db", DB)
    assert exported.exit_code == 0, exported.stderr
    result = benchlab("gate", "candidate.jsonl", "--baseline", "main", "--db", DB)
    assert result.exit_code in (0, 4), result.stdout + result.stderr
    assert "stored figures only: candidate.jsonl is a result file" in result.stderr
    assert "re-measured" not in result.stdout


def test_deleting_a_baseline_frees_its_binaries(project, benchlab):
    setup_gate(project, benchlab, 100)
    listed = benchlab("baseline", "list", "--db", DB).stdout
    assert "1 (" in listed and "KiB)" in listed
    deleted = benchlab("baseline", "delete", "main", "--db", DB)
    assert "its 1 binaries" in deleted.stdout and "are freed" in deleted.stdout
    engine = sa.create_engine(DB)
    with engine.connect() as connection:
        assert connection.execute(sa.text("SELECT count(*) FROM binaries")).scalar() == 0
    engine.dispose()


def test_the_first_gate_on_a_machine_calibrates_it_once(project, benchlab, monkeypatch):
    monkeypatch.setattr(calibration, "DEFAULT_RUNS", 3)
    monkeypatch.setattr(calibration, "DEFAULT_PROCESSES", 2)
    setup_gate(project, benchlab, 100)
    write(project / "benchlab.toml", "")
    first = benchlab("gate", "--baseline", "1", "--db", DB)  # stored figures: the prior is needed
    assert first.exit_code in (0, 3, 4) and "first gate on this machine: measuring its run-to-run noise" in first.stderr
    second = benchlab("gate", "--baseline", "1", "--db", DB)
    assert "first gate on this machine" not in second.stderr
    assert benchlab("stats", "latest", "--db", DB).stdout.splitlines()[1].startswith("machine prior (")


# -- issue 31: the store alone is no reason to execute anything ------------------------------------

def test_a_binary_the_store_holds_with_a_matching_sha256_is_not_run_unless_this_machine_ran_it(
        project, benchlab, tmp_path):
    setup_gate(project, benchlab, 100)
    # Whoever can write the store puts their own content in with its own sha256: every
    # check against the store passes, and the gate ran it (it would leave `ran` behind).
    witness = tmp_path / "ran"
    hostile = f"#!/bin/sh\ntouch {witness}\n".encode()
    digest = hashlib.sha256(hostile).hexdigest()
    engine = sa.create_engine(DB)
    with engine.begin() as connection:
        connection.execute(sa.text("INSERT INTO binaries (sha256, bytes, content) VALUES (:d, :n, :c)"),
                           {"d": digest, "n": len(hostile), "c": hostile})
        connection.execute(sa.text("UPDATE baseline_binaries SET sha256 = :d"), {"d": digest})
    engine.dispose()
    # (--inconclusive pass: the verdict on stored figures is not what this test is about)
    refused = benchlab("gate", "--baseline", "main", "--inconclusive", "pass", "--db", DB)
    assert refused.exit_code == 0, refused.stderr
    assert not witness.exists()
    assert (f"stored figures for loop@native: the baseline's binary (sha256 {digest[:12]}...) was not run by "
            f"benchlab run on this machine (not in {trust.trust_file()}): not executed, since whoever can write the "
            "store could have put it there (give --trust-stored-binaries to run it anyway)") in refused.stderr
    assert "re-measured" not in refused.stdout


def test_a_baseline_run_elsewhere_is_judged_on_stored_figures_or_run_when_the_user_says_so(
        project, benchlab, monkeypatch, tmp_path):
    setup_gate(project, benchlab, 100)
    monkeypatch.setenv(trust.TRUST_FILE_VARIABLE, str(tmp_path / "another-machine"))  # nothing recorded here
    refused = benchlab("gate", "--baseline", "main", "--inconclusive", "pass", "--db", DB)
    assert refused.exit_code == 0 and "was not run by benchlab run on this machine" in refused.stderr
    assert "re-measured" not in refused.stdout
    trusted = benchlab("gate", "--baseline", "main", "--trust-stored-binaries", "--time-limit", "10",
                       "--inconclusive", "pass", "--db", DB)
    assert trusted.exit_code in (0, 3), trusted.stderr
    assert "re-measuring loop@native against the baseline's binaries" in trusted.stderr
    assert "error term: re-measured" in trusted.stdout


def test_a_gate_killed_outright_leaves_a_workspace_the_next_gate_removes_and_nothing_else(tmp_path):
    # issue 37: `gate` killed by -9 left its workspace (687 KB) and nothing removed it later
    import os
    import subprocess
    import sys
    from benchlab.measuring import remeasure
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)  # that process has ended: its pid runs nothing (unless reused at once)
    stale = tmp_path / f"benchlab-gate-{dead_pid}-abc123"
    (stale / "0-loop_native").mkdir(parents=True)
    (stale / "0-loop_native" / "loop").write_bytes(b"\x7fELF" + b"\0" * 1000)
    alive = tmp_path / f"benchlab-gate-{os.getppid()}-def456"  # a gate still running
    alive.mkdir()
    other = tmp_path / "benchlab-gate-x7f3kq"  # named before the pid was in the name: whose, unknown
    other.mkdir()
    mine_elsewhere = tmp_path / "elsewhere"
    mine_elsewhere.mkdir()
    link = tmp_path / f"benchlab-gate-{dead_pid}-link99"
    link.symlink_to(mine_elsewhere)  # a link is never followed nor removed
    with remeasure.workspace(str(tmp_path)) as directory:
        assert directory.name.startswith(f"benchlab-gate-{os.getpid()}-")
        assert (directory.stat().st_mode & 0o777) == 0o700
        assert not stale.exists()
        assert alive.is_dir() and other.is_dir() and link.is_symlink() and mine_elsewhere.is_dir()
    assert not directory.exists()
# -- issue 37: what runs is what was hashed ---------------------------------------------------------

def candidate_code(run_id: int) -> dict:
    engine = sa.create_engine(DB)
    with engine.connect() as connection:
        context = json.loads(connection.execute(sa.text("SELECT context FROM runs WHERE id = :i"),
                                                {"i": run_id}).scalar())
    engine.dispose()
    return context["code"]["loop@native"]


def test_a_candidate_replaced_after_the_check_is_never_executed(project, benchlab, monkeypatch, tmp_path):
    setup_gate(project, benchlab, 100)
    built = Path(candidate_code(2)["path"])
    witness = tmp_path / "ran"
    checked = remeasure.plan

    def plan_then_replace(*args, **kwargs):
        plan = checked(*args, **kwargs)
        # once the gate has checked the candidate, its file is rewritten in place: what runs
        # from now on must be what was hashed, and the script must never run
        built.write_text(f"#!/bin/sh\ntouch {witness}\n")
        return plan

    monkeypatch.setattr(remeasure, "plan", plan_then_replace)
    result = benchlab("gate", "--baseline", "main", "--time-limit", "2", "--inconclusive", "pass", "--db", DB)
    assert not witness.exists()
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "error term: re-measured" in result.stdout  # rounds ran, of the copy hashed


def test_a_stored_candidate_path_this_machine_never_ran_is_refused(project, benchlab, tmp_path):
    setup_gate(project, benchlab, 100)
    code = candidate_code(2)
    # Whoever can write the store points the candidate run at a copy of a trusted binary, one
    # they can rewrite: its sha256 is trusted, its path is not where benchlab run ran it.
    copy = tmp_path / "writable-copy"
    shutil.copy(code["path"], copy)
    engine = sa.create_engine(DB)
    with engine.begin() as connection:
        context = json.loads(connection.execute(sa.text("SELECT context FROM runs WHERE id = 2")).scalar())
        context["code"]["loop@native"]["path"] = str(copy)
        connection.execute(sa.text("UPDATE runs SET context = :c WHERE id = 2"), {"c": json.dumps(context)})
    engine.dispose()
    refused = benchlab("gate", "--baseline", "main", "--inconclusive", "pass", "--db", DB)
    assert refused.exit_code == 0, refused.stderr
    assert (f"stored figures for loop@native: the candidate's binary {copy} (sha256 {code['sha256'][:12]}...) is "
            f"not a path benchlab run on this machine ran that binary at (not in {trust.trust_file()}): not "
            "executed, since whoever can write the store could have pointed it at a file they can change (give "
            "--trust-stored-binaries to run it anyway)") in refused.stderr
    assert "re-measured" not in refused.stdout
