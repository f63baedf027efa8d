"""The gate's judgment without its command (judging/gate.py): a small store of runs whose
figures are set here, judged by `judge_gate` directly. The plan, the fallbacks to stored
figures, the threshold rule, the first calibration's decision and the no-baseline answer;
the re-measurement of real binaries is tests/python/measuring/test_remeasure.py's."""
import hashlib
import json

import pytest

from benchlab.config import load_config
from benchlab.errors import ExitCode, UserError
from benchlab.judging import gate
from benchlab.measuring import calibration, trust
from benchlab.measuring import context as run_context
from benchlab.records import Record
from benchlab.statistics import noise
from benchlab.storage.store import open_store

#: Where the runs' one program lives; its sha256 is in each run's context, as `benchlab run` records it.
PROGRAM = b"#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n"


@pytest.fixture
def store(project):
    opened = open_store(f"sqlite:///{project / 'gate.db'}")
    yield opened
    opened.close()


@pytest.fixture
def config(project):
    """benchlab.toml's defaults but the first calibration, which tests of its own turn on."""
    (project / "benchlab.toml").write_text("[gate]\ncalibrate = false\n")
    return load_config()


def stored_run(store, project, medians, context=None) -> int:
    """A complete run of b.sh whose processes' Read/1 figures are `medians` (ns), and whose
    context names its binary as `benchlab run` does (path, sha256)."""
    program = project / "b.sh"
    program.write_bytes(PROGRAM)
    code = {"b.sh@native": {"path": str(program), "sha256": hashlib.sha256(PROGRAM).hexdigest(), "flags": []}}
    records = []
    for process, median in enumerate(medians):
        record = Record(bench="Read", param="1", samples=[median * 0.999, median, median * 1.001],
                        platform="native", binary="b.sh")
        record.reported["process"] = process
        records.append(record)
    return store.import_run(["benchlab", "run", "b.sh"], ["native"], {**(context or {}), "code": code}, records,
                            [], [], "complete", 0)


class Said:
    """A listener that keeps what the gate says."""

    def __init__(self):
        self.notes: list[str] = []
        self.listener = gate.Listener(note=self.notes.append)


BASE = [240.0, 241.0, 240.0, 241.0]
SLOWER = [264.0, 265.0, 264.0, 265.0]   # 10% slower: beyond 2%


def test_a_run_id_as_baseline_is_judged_on_stored_figures_and_a_slower_row_fails(store, config, project):
    stored_run(store, project, BASE)
    stored_run(store, project, SLOWER)
    said = Said()
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="1"), said.listener)
    assert answer.judgment.exit_code == ExitCode.REGRESSION == 3
    assert answer.judgment.lines[-1] == "gate failed: 1 slower beyond the threshold"
    assert answer.judgment.lines[0].startswith("regression: Read/1 on native: 1.0998x [")
    assert (answer.subject, answer.a_label, answer.b_label) == ("run 2 against run 1", "run 1", "run 2")
    [row] = answer.comparisons
    assert row.threshold == 0.02 and row.rounds is None and answer.seconds == 0.0
    assert answer.notes == said.notes == [
        "stored figures only: 1 is not a baseline (benchlab baseline save NAME RUN keeps its binaries for the gate "
        "to run again)"]


def test_a_benchmarks_own_threshold_wins_over_the_flags(store, project):
    (project / "benchlab.toml").write_text("[gate]\ncalibrate = false\n[gate.max_regression]\nRead = 20\n")
    stored_run(store, project, BASE)
    stored_run(store, project, SLOWER)
    answer = gate.judge_gate(load_config(), store, gate.Request(run="latest", baseline="1", max_regression=5.0))
    [row] = answer.comparisons
    assert row.threshold == 0.20 and row.verdict == "not slower"
    assert answer.judgment.exit_code == ExitCode.OK
    assert answer.judgment.lines == ["gate passed: every row not slower than 20% with 99% confidence"]


def test_no_remeasure_says_so_and_the_undecided_get_advice_for_stored_figures(store, config, project):
    stored_run(store, project, BASE)
    stored_run(store, project, [264.0, 240.0, 264.0, 240.0])   # about 5% slower, +-8%: across 2%
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="1", remeasure=False))
    assert answer.notes == ["stored figures only (--no-remeasure)"]
    assert answer.judgment.exit_code == ExitCode.INCONCLUSIVE == 4
    assert ("to decide the 1 inconclusive row(s): their stored runs have as few as 4 process(es): rerun with more "
            "(benchlab run --time 30), or gate against a saved baseline (benchlab baseline save NAME RUN), which "
            "re-measures both builds") in answer.judgment.lines
    passed = gate.judge_gate(config, store, gate.Request(run="2", baseline="1", remeasure=False, inconclusive="pass"))
    assert passed.judgment.exit_code == ExitCode.OK and passed.inconclusive == "pass"


def test_a_baseline_without_kept_binaries_falls_back_to_stored_figures_per_unit(store, config, project):
    base = stored_run(store, project, BASE)
    store.save_baseline("main", base)   # no binaries kept
    stored_run(store, project, BASE)
    said = Said()
    answer = gate.judge_gate(config, store, gate.Request(run="latest", baseline="main"), said.listener)
    assert answer.subject == "run 2 against baseline 'main' (run 1)"
    assert answer.notes == said.notes == [
        "stored figures for b.sh@native: the baseline keeps no binaries: saved before baselines kept them, or "
        "deleted from the store since; save the baseline again from a run whose binaries exist (benchlab baseline "
        "save NAME RUN)"]
    assert [row.rounds for row in answer.comparisons] == [None]


def test_a_kept_binary_deleted_from_the_store_is_not_said_to_predate_kept_binaries(store, config, project):
    # issue 37: the baseline keeps c.sh's binary; b.sh's was deleted from the store
    base = stored_run(store, project, BASE)
    context = store.run_row(base)["context"]
    context["code"]["c.sh@native"] = {**context["code"]["b.sh@native"], "path": str(project / "c.sh")}
    store.update_context(base, context)
    store.save_baseline("main", base, kept=[{"binary": "c.sh", "platform": "native", "file_name": "c.sh",
                                             "content": PROGRAM}])
    stored_run(store, project, BASE)
    answer = gate.judge_gate(config, store, gate.Request(run="latest", baseline="main"))
    assert answer.notes == [
        "stored figures for b.sh@native: the baseline keeps 1 other binaries but none of it: its binary was gone or "
        "rebuilt when the baseline was saved, or was deleted from the store since; save the baseline again from a "
        "run whose binaries exist (benchlab baseline save NAME RUN)",
        "stored figures for c.sh@native: the candidate run does not name its binary"]


def test_an_undecided_workload_is_advised_more_runs_not_a_saved_baseline_it_has(store, config, project):
    # issue 37: the workload gate advised "gate against a saved baseline" to a user doing that
    def workload_run(scale):
        code = {"tiny@native": {"id": "w" * 64, "flavor": "workload"}}
        records = [Record(bench="tiny", param=None, counter="wall", unit="s", samples=[scale * f for f in (1, 1.6, 0.5)],
                          iterations=1, platform="native", binary="tiny", format="workload",
                          reported={"runs": 3, "warmups": 1})]
        return store.import_run(["benchlab", "run", "tiny"], ["native"], {"code": code}, records, [], [], "complete", 0)
    store.save_baseline("main", workload_run(1.0))
    workload_run(1.05)
    answer = gate.judge_gate(config, store, gate.Request(run="latest", baseline="main"))
    assert answer.notes == ["stored figures for tiny@native: a workload is timed as a whole command: its figures "
                            "are compared as stored"]
    assert answer.judgment.exit_code == ExitCode.INCONCLUSIVE
    advice = [line for line in answer.judgment.lines if line.startswith("to decide")]
    assert advice == ["to decide the 1 inconclusive row(s): workload(s) tiny (3 runs) are timed over their own runs "
                      "and not re-measured by the gate: give them more runs (workloads.tiny.runs in benchlab.toml), "
                      "run both sides again, and save the baseline again from the new run"]


def test_a_kept_binary_this_machine_never_ran_is_not_executed(store, config, project, monkeypatch):
    monkeypatch.setenv(trust.TRUST_FILE_VARIABLE, str(project / "nothing-recorded"))
    base = stored_run(store, project, BASE)
    store.save_baseline("main", base, kept=[{"binary": "b.sh", "platform": "native", "file_name": "b.sh",
                                             "content": PROGRAM}])
    stored_run(store, project, BASE)
    answer = gate.judge_gate(config, store, gate.Request(run="latest", baseline="main"))
    digest = hashlib.sha256(PROGRAM).hexdigest()
    [note] = answer.notes
    assert note.startswith(f"stored figures for b.sh@native: the baseline's binary (sha256 {digest[:12]}...) was "
                           "not run by benchlab run on this machine")
    assert answer.seconds == 0.0 and [row.rounds for row in answer.comparisons] == [None]


def test_a_baseline_that_does_not_exist_yet_is_answered_with_exit_5_and_nothing_judged(store, config, project):
    stored_run(store, project, BASE)
    answer = gate.judge_gate(config, store, gate.Request(run="latest", baseline="main"))
    assert answer.no_baseline and answer.judgment.exit_code == ExitCode.NO_BASELINE == 5
    assert (answer.a_label, answer.b_label, answer.comparisons) == ("main", "run 1", [])
    assert answer.subject == "run 1 against baseline 'main', which does not exist yet"
    assert answer.judgment.lines[-1] == "gate not judged: no baseline 'main' yet (exit 5)"
    # A run id that is not there is a usage error, not a baseline to save.
    with pytest.raises(UserError, match="no run with id 7"):
        gate.judge_gate(config, store, gate.Request(run="latest", baseline="7"))


def test_the_first_gate_on_this_machine_calibrates_it_and_later_ones_do_not(store, project, monkeypatch):
    calibrated = []

    def calibrate_and_store(config, store, **said):
        calibrated.append(store)
        store.save_machine_priors(here, [dict(kind=kind, variance=1e-4, df=9, process_cv2=1e-5, process_df=40,
                                              runs=10, load=0.0) for kind in ("loop-bound",)])

    monkeypatch.setattr(calibration, "calibrate_and_store", calibrate_and_store)
    here_context = run_context.machine()
    here = noise.Machine.of(here_context)
    stored_run(store, project, BASE, here_context)
    stored_run(store, project, BASE, here_context)
    said = Said()
    config = load_config()   # [gate] calibrate: true, the default
    gate.judge_gate(config, store, gate.Request(run="2", baseline="1"), said.listener)
    assert calibrated == [store]
    assert "first gate on this machine: measuring its run-to-run noise (benchlab calibrate)" in said.notes
    gate.judge_gate(config, store, gate.Request(run="2", baseline="1"))
    assert calibrated == [store]   # the prior is stored now


def test_stored_figures_of_a_saved_baseline_get_advice_that_names_what_would_re_measure_them(store, config, project):
    # The user gates against a saved baseline already: "gate against a saved baseline" is no advice.
    stored_run(store, project, BASE)
    stored_run(store, project, [264.0, 240.0, 264.0, 240.0])   # about 5% slower, +-8%: across 2%
    store.save_baseline("main", 1)
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="main", remeasure=False))
    assert answer.judgment.exit_code == ExitCode.INCONCLUSIVE
    [advice] = [line for line in answer.judgment.lines if line.startswith("to decide")]
    assert advice == ("to decide the 1 inconclusive row(s): their stored runs have as few as 4 process(es): rerun "
                      "with more (benchlab run --time 30), or leave out --no-remeasure: the gate then runs both builds "
                      "again, interleaved, until they are decided")
    # re-measuring planned, a unit left on stored figures (here: no binary kept with the baseline)
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="main"))
    assert any(note.startswith("stored figures for b.sh@native: ") for note in answer.notes)
    [advice] = [line for line in answer.judgment.lines if line.startswith("to decide")]
    assert advice.endswith("or let the gate run both builds again: the 'stored figures for' lines say what kept it "
                           "from doing so and what would let it")
    assert "saved baseline" not in advice


def test_a_candidate_from_another_machine_calibrates_nothing(store, project, monkeypatch):
    monkeypatch.setattr(calibration, "calibrate_and_store", lambda *args, **kwargs: pytest.fail("calibrated"))
    elsewhere = {"host": "another-box", "cpu": "CPU Y", "kernel": "6.1", "arch": "x86_64"}
    stored_run(store, project, BASE, elsewhere)
    stored_run(store, project, SLOWER, elsewhere)
    answer = gate.judge_gate(load_config(), store, gate.Request(run="2", baseline="1"))
    assert answer.judgment.exit_code == ExitCode.REGRESSION


def test_two_result_files_need_no_store_and_are_judged_on_their_figures(project, config):
    for name, samples in (("a.jsonl", [100.0, 100.5, 99.5] * 5), ("b.jsonl", [150.0, 150.5, 149.5] * 5)):
        (project / name).write_text(json.dumps({"type": "result", "bench": "t", "param": None, "counter": "time",
                                                "unit": "ns", "samples": samples}) + "\n")
    answer = gate.judge_gate(config, None, gate.Request(run="b.jsonl", baseline="a.jsonl"))
    assert answer.subject == "b.jsonl against a.jsonl" and answer.notes == []
    [row] = answer.comparisons
    assert row.verdict == "slower" and row.ratio == pytest.approx(1.5, rel=0.01)
    assert answer.judgment.exit_code == ExitCode.REGRESSION
