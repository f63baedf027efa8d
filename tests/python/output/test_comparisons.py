"""The gate's answer as stdout and a CI job show it (output/comparisons.py), from an Answer
built here: no command, no store."""
import dataclasses
import json

from benchlab.errors import ExitCode
from benchlab.output.comparisons import answer_text, render, summary_markdown
from benchlab.statistics.answer import Answer, Judgment, row_answer
from benchlab.statistics.compare import BETWEEN_PROCESSES, Comparison


def slower_row() -> Comparison:
    return Comparison(key=("Read", "1", "time", None), platform="native", unit="ns", a=240.5, b=264.5,
                      ratio=1.0998, low=1.09, high=1.11, floor=0.01, scope=BETWEEN_PROCESSES, processes=(4, 4),
                      threshold=0.02, program="b.sh")


def test_a_judged_answer_prints_its_comparison():
    row = slower_row()
    judgment = Judgment([row], [], ExitCode.REGRESSION, ["regression: Read/1 on native: ...",
                                                         "gate failed: 1 slower beyond the threshold"])
    answer = Answer("gate", "run 2 against run 1", "run 1", "run 2", [row], judgment, differences=["cpu: X -> Y"])
    for output_format in ("table", "markdown", "json"):
        assert answer_text(answer, output_format) == render([row], "run 1", "run 2", output_format, ["cpu: X -> Y"])
    markdown = summary_markdown(answer).splitlines()
    assert markdown[:3] == ["### benchlab gate failed: 1 slower beyond the threshold", "", "run 2 against run 1"]
    assert markdown[-1] == "- regression: `Read/1 on native`: 1.0998x [1.0900, 1.1100], more than 2% slower"


def test_a_baseline_that_does_not_exist_yet_prints_nothing_but_a_json_document_saying_so():
    judgment = Judgment([], [], ExitCode.NO_BASELINE, ["no baseline 'main' yet", "gate not judged (exit 5)"])
    answer = Answer("gate", "run 1 against baseline 'main', which does not exist yet", "main", "run 1", [], judgment)
    assert answer.no_baseline and answer_text(answer, "table") == answer_text(answer, "markdown") == ""
    assert json.loads(answer_text(answer, "json")) == {
        "a": "main", "b": "run 1", "no_baseline": True, "comparisons": [],
        "verdicts": {"slower": 0, "not slower": 0, "inconclusive": 0}}


def test_uninformative_is_said_of_an_interval_that_decides_nothing_and_a_wide_one_that_decides_shows_its_bounds():
    # B/A of 6 in [1.5, 12]: as wide as the figure, yet wholly above 1.02: slower, and its
    # lower end shows it; [0.001, 500] reaches both sides: inconclusive, and "uninformative".
    wide_slower = dataclasses.replace(slower_row(), ratio=6.0, low=1.5, high=12.0)
    wide_undecided = dataclasses.replace(slower_row(), key=("Write", "1", "time", None), ratio=2.0, low=0.001,
                                         high=500.0)
    assert wide_slower.uninformative and wide_undecided.uninformative
    lines = render([wide_slower, wide_undecided], "run 1", "run 2", "table").splitlines()
    assert lines[1].split()[-3:] == ["[1.5000,", "12.0000]", "slower"]
    assert lines[2].split()[-2:] == ["uninformative", "inconclusive"]
    assert row_answer(wide_slower) == "6.0000x [1.5000, 12.0000], more than 2% slower"
    assert row_answer(wide_undecided) == "2.0000x an uninformative interval reaches both sides of 1.02"
