"""The answer of gate and ab (judgment.py): slower fails, inconclusive is never a pass."""
import pytest

from benchlab.errors import ExitCode
from benchlab.judging import judgment
from benchlab.judging.judgment import judge, remeasure_advice, stored_advice
from benchlab.statistics.compare import BETWEEN_PROCESSES, Comparison


def row(bench: str, low: float, high: float, threshold: float = 0.02, processes=(5, 5)) -> Comparison:
    ratio = (low * high) ** 0.5
    return Comparison(key=(bench, None, "time", None), platform="native", unit="ns", a=100.0, b=100.0 * ratio,
                      ratio=ratio, low=low, high=high, floor=0.01, scope=BETWEEN_PROCESSES, processes=processes,
                      threshold=threshold)


def no_advice(undecided):
    return ["more time"]


def test_every_row_not_slower_passes():
    answer = judge([row("a", 0.98, 1.01), row("b", 0.5, 1.02)], command="gate", inconclusive="fail", advice=no_advice)
    assert answer.exit_code == ExitCode.OK and answer.lines == [
        "gate passed: every row not slower than 2% with 99% confidence"]


def test_an_undecided_row_is_exit_4_named_with_what_would_decide_it():
    answer = judge([row("a", 0.98, 1.01), row("b", 0.99, 1.05)], command="gate", inconclusive="fail",
                   advice=no_advice)
    assert answer.exit_code == ExitCode.INCONCLUSIVE == 4
    assert [c.key[0] for c in answer.undecided] == ["b"]
    assert answer.lines[0].startswith("inconclusive: b on native: 1.0196x [0.9900, 1.0500] reaches both sides of 1.02")
    assert answer.lines[1] == "to decide the 1 inconclusive row(s): more time"
    assert answer.lines[-1].startswith("gate inconclusive: 1 row(s) undecided, nothing slower for sure; not passed")


def test_inconclusive_pass_is_exit_0_and_never_says_passed():
    answer = judge([row("b", 0.99, 1.05)], command="ab", inconclusive="pass", advice=no_advice)
    assert answer.exit_code == ExitCode.OK
    assert answer.lines[-1] == "ab inconclusive: 1 row(s) undecided, accepted by --inconclusive=pass"
    assert not any("passed" in line for line in answer.lines)


def test_slower_wins_over_inconclusive_and_names_both():
    answer = judge([row("a", 1.03, 1.05), row("b", 0.99, 1.05)], command="gate", inconclusive="pass", advice=no_advice)
    assert answer.exit_code == ExitCode.REGRESSION
    assert answer.lines[0] == "regression: a on native: 1.0400x [1.0300, 1.0500], more than 2% slower"
    assert answer.lines[-1] == "gate failed: 1 slower beyond the threshold, 1 inconclusive"


def test_an_uninformative_interval_is_named_so_not_printed():
    answer = judge([row("a", 1e-6, 511079.0)], command="gate", inconclusive="fail", advice=no_advice)
    assert answer.exit_code == ExitCode.INCONCLUSIVE
    assert "an uninformative interval" in answer.lines[0] and "511079" not in answer.lines[0]


def test_advice_names_the_time_limit_reached_and_a_busy_machine(monkeypatch):
    monkeypatch.setattr(judgment.os, "getloadavg", lambda: (10.3, 9.0, 8.0))
    monkeypatch.setattr(judgment.os, "sched_getaffinity", lambda pid: {0, 1})
    advice = remeasure_advice(rounds=2, seconds=30.4, time_limit=30)
    assert advice == ["2 paired rounds fitted in 30 s: give more time (--time 60)",
                      "the machine is busy (load average 10.3 on 2 CPUs): run where fewer jobs share the CPUs"]
    monkeypatch.setattr(judgment.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    assert remeasure_advice(rounds=40, seconds=8.0, time_limit=30) == [
        "the rows' paired rounds disagree: more rounds (--time 60) narrow them"]


def test_stored_advice_names_the_fewest_processes():
    [text] = stored_advice([row("a", 0.9, 1.1, processes=(5, 1)), row("b", 0.9, 1.1, processes=(3, 3))])
    assert text.startswith("their stored runs have as few as 1 process(es): rerun with more")


@pytest.mark.parametrize("policy", ["fail", "pass"])
def test_the_policy_does_not_change_a_clear_answer(policy):
    assert judge([row("a", 1.1, 1.2)], command="gate", inconclusive=policy, advice=no_advice).exit_code == 3
    assert judge([row("a", 0.9, 1.0)], command="gate", inconclusive=policy, advice=no_advice).exit_code == 0
