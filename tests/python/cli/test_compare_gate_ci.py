"""What `gate` gives a CI job (output/ci.py): the answer as Markdown for a comment (--summary) and
the job's summary ($GITHUB_STEP_SUMMARY), JUnit XML (--junit), and exit 5 when the baseline
does not exist yet. Stored figures of lind scripts whose figures are set by hand: every
verdict here is the same on any machine, however busy."""
import json

import pytest

from benchlab.output.ci import STEP_SUMMARY
from benchlab.output.comparisons import markdown_text
from conftest import write
from junit_schema import read_junit, verdicts


def lind_run(project, benchlab, read: str, write_figure: int = 500):
    """A stored run of 4 processes whose Read/1 figure the shell expression gives ($n: the
    process, 1, 2, ...), and Write/1 `write_figure`."""
    write(project / "b.sh",
          f"#!/bin/sh\necho x >> {project}/count\nn=$(wc -l < {project}/count)\n"
          f"printf 'Read\\t1\\t100\\t%d\\n' $(( {read} ))\nprintf 'Write\\t1\\t100\\t{write_figure}\\n'\n",
          executable=True)
    result = benchlab("run", "b.sh", "--processes", "4")
    assert result.exit_code == 0, result.stderr
    (project / "count").unlink()


@pytest.fixture
def runs(project, benchlab, monkeypatch):
    """Run 1: the baseline; 2: Read/1 about 5% slower +-8% (inconclusive at 2%); 3: Read/1 10% slower."""
    monkeypatch.delenv(STEP_SUMMARY, raising=False)
    write(project / "benchlab.toml", "[gate]\ncalibrate = false\n")
    lind_run(project, benchlab, "240 + n % 2")
    lind_run(project, benchlab, "240 + (n % 2) * 24")
    lind_run(project, benchlab, "264 + n % 2")


def test_the_first_gate_of_an_empty_store_exits_5_and_says_how_to_save_a_baseline(project, benchlab, monkeypatch):
    monkeypatch.delenv(STEP_SUMMARY, raising=False)
    lind_run(project, benchlab, "240")
    db = f"sqlite:///{project / '.benchlab' / 'results.db'}"
    result = benchlab("gate", "--baseline", "main", "--junit", "junit.xml", "--summary", "comment.md")
    assert (result.exit_code, result.stdout) == (5, "")
    assert result.stderr == (f"no baseline 'main' yet in {db}: nothing to judge run 1 against\n"
                             "save one (on your main branch): benchlab baseline save main 1\n"
                             "gate not judged: no baseline 'main' yet (exit 5)\n")
    assert (project / "comment.md").read_text() == (
        "### benchlab gate not judged: no baseline 'main' yet (exit 5)\n\n"
        "run 1 against baseline 'main', which does not exist yet\n\n"
        f"- no baseline 'main' yet in {markdown_text(db)}: nothing to judge run 1 against\n"
        "- save one (on your main branch): benchlab baseline save main 1\n")
    root = read_junit(project / "junit.xml")
    assert verdicts(root) == {"baseline": "skipped:no baseline"}
    document = json.loads(benchlab("gate", "--baseline", "main", "--format", "json").stdout)
    assert document["no_baseline"] is True and document["comparisons"] == []
    # Another baseline's name in the store: the note asks whether the name is right.
    assert benchlab("baseline", "save", "nightly").exit_code == 0
    other = benchlab("gate", "--baseline", "mian")
    assert other.exit_code == 5
    assert "the store has baseline(s) 'nightly': is 'mian' the name you meant?" in other.stderr
    # A run id that is not there stays a usage error: nothing could ever be saved under a number.
    missing = benchlab("gate", "--baseline", "7")
    assert missing.exit_code == 2 and missing.stderr.startswith("error: no run with id 7 in ")


def test_the_first_gate_of_a_store_with_no_run_at_all_is_exit_5_too(project, benchlab, monkeypatch):
    # A CI job's first gate expects 5 however its store came to be empty (the run stored nothing).
    monkeypatch.delenv(STEP_SUMMARY, raising=False)
    db = f"sqlite:///{project / '.benchlab' / 'results.db'}"
    result = benchlab("gate", "--baseline", "main", "--summary", "comment.md")
    assert (result.exit_code, result.stdout) == (5, "")
    assert result.stderr == (f"no baseline 'main' and no run yet in {db}: nothing to judge\n"
                             "store a run first (benchlab run TARGET), then save it (on your main branch): benchlab "
                             "baseline save main latest\n"
                             "gate not judged: no baseline 'main' yet (exit 5)\n")
    assert (project / "comment.md").read_text().startswith(
        "### benchlab gate not judged: no baseline 'main' yet (exit 5)\n\n"
        "no run against baseline 'main', which does not exist yet\n")
    # a baseline that exists and a run that does not: still a usage error
    lind_run(project, benchlab, "240")
    assert benchlab("baseline", "save", "main").exit_code == 0
    missing = benchlab("gate", "--baseline", "main", "7")
    assert missing.exit_code == 2 and missing.stderr.startswith("error: no run with id 7 in ")


def test_junit_has_a_case_per_row_slower_fails_and_inconclusive_follows_the_policy(project, benchlab, runs):
    slower = benchlab("gate", "--baseline", "1", "3", "--junit", "slower.xml")
    assert slower.exit_code == 3
    root = read_junit(project / "slower.xml")
    assert verdicts(root) == {"Read/1 on native": "failure:slower", "Write/1 on native": "passed"}
    [suite] = root.iter("testsuite")
    assert suite.get("name") == "benchlab gate: run 3 against run 1"
    [failure] = root.iter("failure")
    assert failure.get("message").startswith("1.0998x [") and failure.get("message").endswith("], more than 2% slower")
    assert {case.get("classname") for case in root.iter("testcase")} == {"b.sh"}
    properties = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert properties == {"answer": "gate failed: 1 slower beyond the threshold", "inconclusive": "fail",
                          "thresholds": "2%"}
    assert suite.find("system-out").text.startswith("TEST     PLATFORM  A (run 1)  B (run 3)  B/A")
    undecided = benchlab("gate", "--baseline", "1", "2", "--junit", "undecided.xml")
    assert undecided.exit_code == 4
    assert verdicts(read_junit(project / "undecided.xml"))["Read/1 on native"] == "failure:inconclusive"
    accepted = benchlab("gate", "--baseline", "1", "2", "--junit", "accepted.xml", "--inconclusive", "pass")
    assert accepted.exit_code == 0
    [skipped] = read_junit(project / "accepted.xml").iter("skipped")
    assert skipped.get("type") == "inconclusive" and skipped.get("message").endswith(
        "reaches both sides of 1.02 (accepted by --inconclusive=pass)")


def test_the_summary_goes_to_the_file_and_is_appended_to_the_step_summary(project, benchlab, runs, monkeypatch):
    step = project / "step-summary.md"
    step.write_text("earlier step's part\n")
    monkeypatch.setenv(STEP_SUMMARY, str(step))
    result = benchlab("gate", "--baseline", "1", "3", "--summary", "comment.md")
    assert result.exit_code == 3
    comment = (project / "comment.md").read_text()
    lines = comment.splitlines()
    assert lines[:6] == ["### benchlab gate failed: 1 slower beyond the threshold", "", "run 3 against run 1", "",
                         "| TEST | PLATFORM | A (run 1) | B (run 3) | B/A | 99% interval | VERDICT |",
                         "|---|---|---|---|---|---|---|"]
    assert lines[6].startswith("| `Read/1` | native | 240.5 | 264.5 | 1.0998 | [") and lines[6].endswith(" | slower |")
    assert lines[8] == ""
    assert "- 2 compared: 1 slower, 1 not slower (0 faster), 0 inconclusive; geometric mean of B/A 1.0487" in lines
    # what decided it, then how the rows were measured
    assert lines[-2].startswith("- regression: `Read/1 on native`: 1.0998x [")
    assert lines[-1] == ("- `stored figures only: 1 is not a baseline (benchlab baseline save NAME RUN keeps its "
                         "binaries for the gate to run again)`")  # a note names programs and paths: code, as names are
    assert step.read_text() == "earlier step's part\n" + comment + "\n"
    # the Markdown table of stdout is the same table
    markdown = benchlab("gate", "--baseline", "1", "3", "--format", "markdown").stdout
    assert markdown.splitlines()[:3] == lines[4:7]


def test_ci_outputs_are_checked_before_anything_runs(project, benchlab, runs, monkeypatch):
    monkeypatch.setenv(STEP_SUMMARY, "gone/summary.md")
    result = benchlab("gate", "--baseline", "1", "3")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("error: $GITHUB_STEP_SUMMARY gone/summary.md: the directory gone does not exist "
                             "(create it first, or give another path)\n")
    monkeypatch.delenv(STEP_SUMMARY)
    no_baseline = benchlab("gate", "--bucket", "dispatch<50%", "--junit", "j.xml")
    assert no_baseline.exit_code == 2 and "--summary and --junit report the rows judged against --baseline" in \
        no_baseline.stderr
    directory = benchlab("gate", "--baseline", "1", "3", "--junit", ".")
    assert directory.exit_code == 2 and directory.stderr == "error: --junit . is a directory (give a file name, " \
                                                            "e.g. --junit junit.xml)\n"
