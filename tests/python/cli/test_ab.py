import json
import subprocess
from xml.etree import ElementTree

import pytest

from conftest import write


def lind(project, name, value):
    """A lind script whose Read/1 figure is `value` plus 0 or 1 by turns (a count file per script)."""
    return write(project / name,
                 f"#!/bin/sh\necho x >> {project}/{name}.count\nn=$(wc -l < {project}/{name}.count)\n"
                 f"printf 'Read\\t1\\t100\\t%d\\n' $(( {value} + n % 2 ))\n", executable=True)


def test_ab_pairs_processes_by_round_and_gates(project, benchlab):
    lind(project, "a.sh", 240)
    lind(project, "b.sh", 264)  # 10% slower
    result = benchlab("ab", "a.sh", "b.sh", "--seed", "3", "--max-rounds", "6", "--max-regression", "5")
    assert result.exit_code == 3, result.stderr
    row = result.stdout.splitlines()[1].split()
    assert row[:2] == ["Read/1", "native"] and row[-1] == "slower"
    assert 1.095 < float(row[4]) < 1.105
    # each side ran once per round; the ratios agree to 0.1%, so the first look (6 rounds) decided it
    assert len((project / "a.sh.count").read_text().split()) == 6 == len((project / "b.sh.count").read_text().split())
    assert "6 rounds of A and B in" in result.stderr and "seed 3" in result.stderr
    assert any(line.startswith("regression: Read/1 on native: 1.0") for line in result.stderr.splitlines())
    assert result.stderr.splitlines()[-1] == "ab failed: 1 slower beyond the threshold"


def test_ab_of_the_same_program_is_not_slower_and_exit_0(project, benchlab):
    lind(project, "a.sh", 240)
    lind(project, "b.sh", 240)
    result = benchlab("ab", "a.sh", "b.sh", "--max-rounds", "8", "--max-regression", "1")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].split()[-2:] == ["not", "slower"]
    assert result.stderr.splitlines()[-1] == "ab passed: every row not slower than 1% with 99% confidence"


def test_ab_that_cannot_decide_in_its_rounds_exits_4_and_says_what_would_decide(project, benchlab):
    # B's processes read 10% apart by turns around 2% slower: 4 rounds cannot tell 2% from 1%
    lind(project, "a.sh", 240)
    write(project / "b.sh", f"#!/bin/sh\necho x >> {project}/b.count\nn=$(wc -l < {project}/b.count)\n"
                            "printf 'Read\\t1\\t100\\t%d\\n' $(( 233 + (n % 2) * 24 ))\n", executable=True)
    result = benchlab("ab", "a.sh", "b.sh", "--max-rounds", "4", "--max-regression", "1", "--seed", "1")
    assert result.exit_code == 4, result.stdout + result.stderr
    assert result.stdout.splitlines()[1].split()[-1] == "inconclusive"
    lines = result.stderr.splitlines()
    assert any(line.startswith("inconclusive: Read/1 on native: ") and line.endswith("reaches both sides of 1.01")
               for line in lines)
    assert any(line.startswith("to decide the 1 inconclusive row(s): ") for line in lines)
    assert lines[-1].startswith("ab inconclusive: 1 row(s) undecided, nothing slower for sure; not passed (exit 4")
    accepted = benchlab("ab", "a.sh", "b.sh", "--max-rounds", "4", "--max-regression", "1", "--inconclusive", "pass")
    assert accepted.exit_code == 0 and accepted.stderr.splitlines()[-1].endswith("accepted by --inconclusive=pass")
    # without --max-regression, ab measures and says its verdicts, and judges nothing
    measured = benchlab("ab", "a.sh", "b.sh", "--max-rounds", "4", "--summary", "ab.md")
    assert measured.exit_code == 0 and measured.stdout.splitlines()[1].split()[-1] == "inconclusive"
    summary = (project / "ab.md").read_text().splitlines()
    assert summary[:3] == ["### benchlab ab measured 1 row(s), judged none (no --max-regression)", "",
                           "B: b.sh against A: a.sh, 1 program(s)"]


def test_ab_of_two_git_revisions_builds_each_in_a_worktree(project, benchlab):
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    lind(project, "suite/read.sh", 100)
    subprocess.run([*git, "add", "suite"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    lind(project, "suite/read.sh", 150)
    subprocess.run([*git, "commit", "-qam", "slower"], check=True)
    result = benchlab("ab", "--rev", "HEAD~1", "--rev", "HEAD", "suite", "--max-rounds", "4")
    assert result.exit_code == 0, result.stderr
    row = result.stdout.splitlines()[1].split()
    assert row[0] == "Read/1" and 1.45 < float(row[4]) < 1.55 and row[-1] == "slower"
    assert subprocess.run([*git, "worktree", "list"], capture_output=True, text=True).stdout.count("\n") == 1


def test_ab_of_several_targets_at_two_revisions_measures_every_program_in_the_same_rounds(project, benchlab,
                                                                                          monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(project / "step.md"))
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    lind(project, "calls/read.sh", 100)
    lind(project, "sys/open.sh", 200)
    lind(project, "sys/gone.sh", 300)
    subprocess.run([*git, "add", "calls", "sys"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    lind(project, "calls/read.sh", 150)  # 50% slower
    (project / "sys" / "gone.sh").unlink()
    lind(project, "sys/new.sh", 10)
    subprocess.run([*git, "add", "-A", "calls", "sys"], check=True)
    subprocess.run([*git, "commit", "-qm", "second"], check=True)
    result = benchlab("ab", "--rev", "HEAD~1", "--rev", "HEAD", "calls", "sys", "--max-rounds", "4",
                      "--max-regression", "5", "--junit", "ab.xml", "--summary", "ab.md")
    assert result.exit_code == 3, result.stderr
    assert "1 program(s)" not in result.stderr and "2 program(s), A and B interleaved" in result.stderr
    assert "warning: only HEAD~1 has gone.sh: left out" in result.stderr
    assert "warning: only HEAD has new.sh: left out" in result.stderr
    # two programs give a row of the same name: each named with its program
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[1:3]}
    assert set(rows) == {"read.sh:", "open.sh:"}
    assert rows["read.sh:"][1] == "Read/1" and rows["read.sh:"][-1] == "slower"
    assert 1.45 < float(rows["read.sh:"][5]) < 1.55 and rows["open.sh:"][-2:] == ["not", "slower"]
    # each program is its test cases' class: two rows of one name stay apart
    cases = {(case.get("classname"), case.get("name")): case for case in ElementTree.parse(project / "ab.xml").iter("testcase")}
    assert set(cases) == {("read.sh", "Read/1 on native"), ("open.sh", "Read/1 on native")}
    assert cases[("read.sh", "Read/1 on native")].find("failure").get("type") == "slower"
    assert list(cases[("open.sh", "Read/1 on native")]) == []
    summary = (project / "ab.md").read_text()
    # a revision's ~ escaped: GitHub would read ~...~ as strikethrough
    assert summary.startswith("### benchlab ab failed: 1 slower beyond the threshold\n\nB: HEAD against A: HEAD\\~1, "
                              "2 program(s)\n\n| TEST | PLATFORM | A (A: HEAD\\~1) | B (B: HEAD) | B/A |")
    assert "- `4 rounds of A and B in " in summary
    assert (project / "step.md").read_text() == summary + "\n"  # GitHub's job summary, appended to


def test_ab_usage_errors(project, benchlab):
    lind(project, "a.sh", 240)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    cases = {
        ("ab", "a.sh"): "error: ab needs two programs A and B (write: benchlab ab a.c b.c, or --rev R1 --rev R2 TARGET)\n",
        ("ab", "--rev", "nope", "--rev", "HEAD", "a.sh"):
            f"error: --rev nope: no such git revision in {project} (give a branch, tag or commit: --rev main)\n",
        ("ab", "--rev", "x", "a.sh"):
            "error: --rev needs two revisions and one or more TARGETs (write: benchlab ab --rev main --rev HEAD "
            "suites/calls)\n",
        ("ab", "--rev", "x", "--rev", "y", "a.sh", "/"):
            f"error: --rev: / is outside the project {project} (give a suite directory or file of the project, whose "
            "revisions --rev checks out)\n",
        ("ab", "a.sh", "a.sh", "--junit", "ab.xml"):
            "error: --junit needs --max-regression: JUnit records passes and failures, and without a threshold ab "
            "judges nothing (give --max-regression PCT, e.g. --max-regression 2%)\n",
        ("ab", "a.sh", "a.sh", "--summary", "missing/ab.md"):
            "error: --summary missing/ab.md: the directory missing does not exist (create it first, or give another "
            "path)\n",
        ("ab", "a.sh", "a.sh", "--time", "0.01"):
            "error: --time 0.01: 1 program(s) need at least 0.084 s for the 6 rounds a verdict needs "
            "(give --time 1 or more, or leave it out for the default)\n",
        ("ab", "a.sh", "a.sh", "--time-limit", "0.01"):  # the old spelling: said, then taken as --time
            "note: --time-limit is the old spelling of `ab --time S` (seconds of rounds); write --time "
            "(`run --time-limit` is a sample's seconds)\n"
            "error: --time 0.01: 1 program(s) need at least 0.084 s for the 6 rounds a verdict needs "
            "(give --time 1 or more, or leave it out for the default)\n",
        ("ab", "a.sh", "a.sh", "--max-regression", "2", "--inconclusive", "maybe"):
            "error: Invalid value for '--inconclusive': 'maybe' is not one of 'fail', 'pass'. (see 'benchlab ab --help')\n",
    }
    for args, message in cases.items():
        result = benchlab(*args)
        assert (result.exit_code, result.stderr) == (2, message), args
    assert not (project / "a.sh.count").exists()  # refused before anything ran


def test_duet_runs_a_and_b_at_once_on_two_cpus(project, benchlab):
    # Each script records the CPU it ran on; in a duet round A and B are on different ones.
    for name, value in (("a.sh", 240), ("b.sh", 250)):
        write(project / name, f"#!/bin/sh\ntaskset -pc $$ | sed 's/.*: //' >> {project}/{name}.cpus\n"
                              f"printf 'Read\\t1\\t100\\t{value}\\n'\n", executable=True)
    result = benchlab("ab", "a.sh", "b.sh", "--duet", "--max-rounds", "4")
    assert result.exit_code == 0, result.stderr
    a_cpus = (project / "a.sh.cpus").read_text().split()
    b_cpus = (project / "b.sh.cpus").read_text().split()
    assert a_cpus == ["0", "1", "0", "1"] and b_cpus == ["1", "0", "1", "0"]  # swapped each round
    assert "4 rounds of A and B at once (duet)" in result.stderr


def test_ab_json_has_each_rounds_medians_paired(project, benchlab):
    # The per-round medians let a user apply a test of their own (bench/regressions.py applies
    # Google Benchmark's Mann-Whitney U test to them).
    lind(project, "a.sh", 240)
    lind(project, "b.sh", 264)
    result = benchlab("ab", "a.sh", "b.sh", "--max-rounds", "4", "--format", "json")
    assert result.exit_code == 0, result.stderr
    [comparison] = json.loads(result.stdout)["comparisons"]
    assert comparison["processes"] == [4, 4]
    assert comparison["rounds"] == {"a": [241, 240, 241, 240], "b": [265, 264, 265, 264]}


def test_ab_runs_short_processes_unless_the_user_sets_the_time_limit(project, benchlab):
    # A script that names benchlab's flags speaks them (targets.py): it records its arguments.
    for name in ("a.sh", "b.sh"):
        write(project / name, f"#!/bin/sh\n# benchlab --time-limit\necho \"$@\" >> {project}/{name}.args\n"
                              "printf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    assert benchlab("ab", "a.sh", "b.sh", "--max-rounds", "4").exit_code == 0
    lines = (project / "a.sh.args").read_text().splitlines()
    assert len(lines) == 4 and all("--time-limit=0.001" in line.split() for line in lines)
    assert benchlab("ab", "a.sh", "b.sh", "--max-rounds", "4", "--arg=--time-limit=0.05").exit_code == 0
    own = (project / "b.sh.args").read_text().splitlines()[4:]
    assert len(own) == 4 and all([a for a in line.split() if a.startswith("--time-limit")] == ["--time-limit=0.05"]
                                 for line in own)


def test_ab_judges_a_benchmark_at_its_own_floor_and_threshold_as_compare_and_the_gate_do(project, benchlab):
    # issue 39: compare and gate judged Read at its own 50%, ab at 1% and 2%
    write(project / "benchlab.toml", "[compare.noise_floors]\nRead = 50\n[gate.max_regression]\nRead = 40\n")
    for name, value in (("a.sh", 240), ("b.sh", 288)):  # B 20% slower
        write(project / name, f"#!/bin/sh\nprintf 'Read\\t1\\t100\\t{value}\\n'\nprintf 'Write\\t1\\t100\\t{value}\\n'\n",
              executable=True)
    result = benchlab("ab", "a.sh", "b.sh", "--max-rounds", "6", "--max-regression", "2", "--format", "json")
    assert result.exit_code == 3, result.stderr
    rows = {row["test"]: row for row in json.loads(result.stdout)["comparisons"]}
    # json's threshold is the slowdown that counts: the larger of floor and threshold
    assert (rows["Read"]["noise_floor"], rows["Read"]["verdict"]) == (0.5, "not slower")
    assert (rows["Write"]["noise_floor"], rows["Write"]["verdict"]) == (0.01, "slower")
    assert (rows["Read"]["threshold"], rows["Write"]["threshold"]) == (pytest.approx(0.5), pytest.approx(0.02))
    assert [line for line in result.stderr.splitlines() if line.startswith("regression: ")] == [
        line for line in result.stderr.splitlines() if line.startswith("regression: Write/1 on native: ")]
