import json
import math
import re
import statistics

import pytest
from scipy import stats as scipy_stats

from conftest import write


def lind_run(project, benchlab, value_of_process: str, *extra):
    """A stored run of a lind script whose figure for Read/1 the shell expression gives; $n is
    the process's number (1, 2, ...), counted in a file."""
    write(project / "b.sh",
          f"#!/bin/sh\necho x >> {project}/count\nn=$(wc -l < {project}/count)\n"
          f"printf 'Read\\t1\\t100\\t%d\\n' $(( {value_of_process} ))\nprintf 'Write\\t1\\t100\\t500\\n'\n",
          executable=True)
    result = benchlab("run", "b.sh", "--processes", "4", *extra)
    assert result.exit_code == 0, result.stderr
    (project / "count").unlink()


def test_compare_two_stored_runs_with_the_processes_as_the_unit(project, benchlab):
    lind_run(project, benchlab, "240 + n % 2")   # 241 240 241 240
    lind_run(project, benchlab, "264 + n % 2")   # 10% slower
    result = benchlab("compare", "1", "2")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:5] == ["TEST", "PLATFORM", "A", "(run", "1)"]
    read = lines[1].split()
    assert read[:5] == ["Read/1", "native", "240.5", "264.5", "1.0998"] and read[-1] == "slower"
    write_row = lines[2].split()
    assert write_row[:5] == ["Write/1", "native", "500", "500", "1.0000"] and write_row[-2:] == ["not", "slower"]
    assert lines[3] == "2 compared: 1 slower, 1 not slower (0 faster), 0 inconclusive; geometric mean of B/A 1.0487"
    document = json.loads(benchlab("compare", "1", "2", "--format", "json").stdout)
    [read_json] = [c for c in document["comparisons"] if c["test"] == "Read"]
    # No earlier runs of identical code and no machine prior: B's own processes stand in for the
    # spread between runs (a rerun may move as far as one of them), 2 CV_b^2 beside each side's
    # CV^2 / 4 under the root of log(B/A)'s interval, the three parts' 3 degrees of freedom
    # each joined by Welch-Satterthwaite (statistics/compare.py), and no more than the 3 of B's
    # processes: B's process part and the run level are one estimate.
    assert read_json["processes"] == [4, 4] and read_json["interval"] == (
        "between processes and runs, as far as one process (no history, no machine prior)")
    cv_a, cv_b = statistics.stdev([241, 240] * 2) / 240.5, statistics.stdev([265, 264] * 2) / 264.5
    parts = [cv_a ** 2 / 4, cv_b ** 2 / 4, 2 * cv_b ** 2]
    df = min(3, int(sum(parts) ** 2 / sum(v * v / 3 for v in parts)))
    half = scipy_stats.t.ppf(0.995, df) * math.sqrt(sum(parts))
    assert read_json["ratio_ci"] == pytest.approx([264.5 / 240.5 * math.exp(-half), 264.5 / 240.5 * math.exp(half)],
                                                  rel=1e-6)


def test_gate_exits_3_on_a_regression_beyond_the_threshold_and_0_otherwise(project, benchlab):
    # Stored figures alone: no machine prior measured first (measuring/test_remeasure.py has that).
    # Nor earlier runs of identical code: a rerun may move as far as one process, so the
    # processes are 1 ns apart at 2400 ns (0.02%) for 4 of them to decide 0.8% against 2%.
    write(project / "benchlab.toml", "[gate]\ncalibrate = false\n")
    lind_run(project, benchlab, "2400 + n % 2")
    lind_run(project, benchlab, "2420 + n % 2")   # 0.8% slower: inside the default 2%, at the 2 rows' family level
    lind_run(project, benchlab, "2640 + n % 2")   # 10% slower
    passed = benchlab("gate", "--baseline", "1", "2")
    assert passed.exit_code == 0
    assert passed.stderr.endswith("gate passed: every row not slower than 2% with 99% confidence\n")
    failed = benchlab("gate", "--baseline", "1", "3")
    assert failed.exit_code == 3
    [regression] = [line for line in failed.stderr.splitlines() if line.startswith("regression: ")]
    assert regression.startswith(f"regression: Read/1 on native: {2640.5 / 2400.5:.4f}x [")
    assert regression.endswith("], more than 2% slower")
    assert failed.stderr.splitlines()[-1] == "gate failed: 1 slower beyond the threshold"
    # a benchmark's own threshold in benchlab.toml wins
    write(project / "benchlab.toml", "[gate]\ncalibrate = false\n[gate.max_regression]\nRead = 20\n")
    assert benchlab("gate", "--baseline", "1", "3").exit_code == 0


def test_a_gate_whose_interval_reaches_both_sides_of_the_threshold_is_inconclusive_never_passed(project, benchlab):
    write(project / "benchlab.toml", "[gate]\ncalibrate = false\n")
    # A's processes 1 ns apart at 2400 ns: with no history and no machine prior a rerun may move
    # as far as one process, and A against itself is decided at the 1% noise floor (below).
    lind_run(project, benchlab, "2400 + n % 2")
    lind_run(project, benchlab, "2400 + (n % 2) * 240")   # processes 2640 2400 2640 2400: about 5% slower, +-60%
    undecided = benchlab("gate", "--baseline", "1", "2")
    assert undecided.exit_code == 4, undecided.stderr
    [row] = [line for line in undecided.stdout.splitlines() if line.startswith("Read/1")]
    assert row.endswith("inconclusive")
    lines = undecided.stderr.splitlines()
    assert [line for line in lines if line.startswith("inconclusive: ")][0].startswith(
        f"inconclusive: Read/1 on native: {2520 / 2400.5:.4f}x [")
    assert any(line.startswith("to decide the 1 inconclusive row(s): their stored runs have as few as 4 process(es)")
               for line in lines)
    assert lines[-1] == ("gate inconclusive: 1 row(s) undecided, nothing slower for sure; not passed "
                         "(exit 4; --inconclusive=pass accepts undecided rows)")
    document = json.loads(benchlab("gate", "--baseline", "1", "2", "--format", "json").stdout)
    assert [c["verdict"] for c in document["comparisons"]] == ["inconclusive", "not slower"]
    assert document["verdicts"] == {"slower": 0, "not slower": 1, "inconclusive": 1}
    markdown = benchlab("gate", "--baseline", "1", "2", "--format", "markdown").stdout
    # A's 2400.5 at the table's four significant digits
    assert f"| `Read/1` | native | 2400 | 2520 | {2520 / 2400.5:.4f} | [" in markdown and "| inconclusive |" in markdown
    # compare of the same runs says what would decide the row, on stderr beside its table
    compared = benchlab("compare", "1", "2")
    assert compared.exit_code == 0 and "inconclusive" in compared.stdout
    assert compared.stderr == (
        "inconclusive: 1 row(s) undecided; to decide them: their stored runs have as few as 4 process(es): rerun "
        "with more (benchlab run --time 30), or measure both builds interleaved in one job (benchlab ab A B, or "
        "benchlab ab --rev R1 --rev R2 TARGET), or save a baseline and gate against it (benchlab baseline save NAME "
        "RUN, then benchlab gate --baseline NAME), which re-measures both\n")
    assert benchlab("compare", "1", "1").stderr == ""  # nothing undecided, nothing to advise
    accepted = benchlab("gate", "--baseline", "1", "2", "--inconclusive=pass")
    assert accepted.exit_code == 0
    assert accepted.stderr.splitlines()[-1] == "gate inconclusive: 1 row(s) undecided, accepted by --inconclusive=pass"
    assert "passed" not in accepted.stderr
    bad = benchlab("gate", "--baseline", "1", "2", "--inconclusive=maybe")
    assert bad.exit_code == 2 and bad.stdout == "" and "'maybe' is not one of 'fail', 'pass'" in bad.stderr


def test_an_interval_wider_than_its_figure_prints_as_uninformative(project, benchlab):
    # One process each (a result file): 2.25x with samples from 15 to 3000, the case of issue 27.
    write(project / "a.jsonl", "".join(
        json.dumps({"type": "result", "bench": "t", "param": None, "counter": "time", "unit": "ns",
                    "samples": [100.0 + i % 3 for i in range(20)]}) + "\n" for _ in range(1)))
    write(project / "b.jsonl", json.dumps({"type": "result", "bench": "t", "param": None, "counter": "time",
                                           "unit": "ns", "samples": [15.0, 3000.0] * 4 + [225.0] * 3}) + "\n")
    result = benchlab("gate", "--baseline", "a.jsonl", "b.jsonl", "--no-remeasure")
    assert result.exit_code == 4, result.stderr
    [row] = [line for line in result.stdout.splitlines() if line.startswith("t ")]
    assert row.split()[-4:] == ["uninformative", "inconclusive", "(1", "process)"]
    assert "e+" not in result.stdout and "e+" not in result.stderr
    document = json.loads(benchlab("compare", "a.jsonl", "b.jsonl", "--format", "json").stdout)
    [c] = document["comparisons"]
    assert c["ratio_ci"][1] > 4 * c["ratio"] and c["uninformative"] and c["verdict"] == "inconclusive"


def test_a_ratio_that_is_no_finite_number_is_no_figure_and_inconclusive_everywhere(project, benchlab):
    # issue 37: 1e150 / 1e-300 overflows; the table said `inf uninformative slower`, the gate
    # `infx an uninformative interval` and exit 3
    def result(name, value):
        write(project / name, json.dumps({"type": "result", "bench": "t", "param": None, "counter": "time",
                                          "unit": "ns", "samples": [value] * 12}) + "\n")
    result("a.jsonl", 1e-300)
    result("b.jsonl", 1e150)
    compared = benchlab("compare", "a.jsonl", "b.jsonl")
    assert compared.exit_code == 0, compared.stderr
    assert compared.stdout.splitlines()[1].split() == ["t", "native", "1e-300", "1e+150", "-", "-", "inconclusive",
                                                       "(1", "process)"]
    assert not re.search(r"\binf", compared.stdout) and "slower (1" not in compared.stdout
    assert compared.stdout.splitlines()[2].endswith("1 inconclusive; geometric mean of B/A -")
    gate = benchlab("gate", "--baseline", "a.jsonl", "b.jsonl", "--no-remeasure")
    assert gate.exit_code == 4, gate.stderr
    assert "inconclusive: t on native: no ratio: B/A (1e+150 / 1e-300) is not a finite number, so nothing is " \
           "judged" in gate.stderr.splitlines()
    assert not re.search(r"\binf", gate.stdout + gate.stderr)
    [c] = json.loads(benchlab("compare", "a.jsonl", "b.jsonl", "--format", "json").stdout)["comparisons"]
    assert (c["ratio"], c["verdict"], c["faster"]) == (None, "inconclusive", False)


def test_a_result_file_of_one_process_is_compared_and_says_so(project, benchlab):
    write(project / "a.lind", "Read\t1\t100\t240\n")
    write(project / "b.lind", "Read\t1\t100\t480\n")
    result = benchlab("compare", "a.lind", "b.lind")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].split()[-5:] == ["[2.0000,", "2.0000]", "slower", "(1", "process)"]
    assert "cannot see what changes between runs" in result.stdout


def test_bad_comparisons_are_one_line_and_exit_2(project, benchlab):
    write(project / "a.lind", "Read\t1\t100\t240\n")
    write(project / "b.lind", "Other\t1\t100\t240\n")
    write(project / "junk.txt", "nothing here\n")
    cases = {
        ("compare", "a.lind", "b.lind"):
            "error: a.lind and b.lind have no benchmark in common (compare runs of the same programs "
            "(benchlab show RUN lists what a run has))\n",
        ("compare", "junk.txt", "a.lind"):
            "error: junk.txt: no format benchlab imports starts like this: 'nothing here' (give a stored run "
            "(an id, latest, -N) or a result file of a format benchlab import reads)\n",
        ("gate", "--baseline", "a.lind", "--max-regression", "-1"):
            "error: Invalid value for '--max-regression': --max-regression '-1' is not a percentage from 0 to 100; "
            "write e.g. --max-regression 2% (see 'benchlab gate --help')\n",
        ("gate", "--baseline", "a.lind", "--max-regression", "0.02"):
            "error: Invalid value for '--max-regression': --max-regression '0.02' is ambiguous: a fraction (2%) or "
            "0.02%?; write --max-regression 2% for the fraction, or --max-regression 0.02% for 0.02 percent "
            "(see 'benchlab gate --help')\n",
        ("compare", "a.lind", "a.lind", "--noise-floor", "abc"):
            "error: Invalid value for '--noise-floor': --noise-floor 'abc' is not a percentage; write e.g. "
            "--noise-floor 2% (see 'benchlab compare --help')\n",
    }
    for args, message in cases.items():
        result = benchlab(*args)
        assert (result.exit_code, result.stderr) == (2, message), args


def test_show_and_compare_print_one_figure_for_a_run_with_an_outlier_process(project, benchlab):
    # issue 37: show left the outlier process out (the machine's prior tells it), compare did
    # not: 276 against 292.9 ns for one run. Four processes agree, the fifth reads +7%.
    from benchlab.records import Record
    from benchlab.statistics import noise
    from benchlab.storage.store import open_store
    (project / ".benchlab").mkdir()
    store = open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}")
    here = {"host": "box", "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64", "code": {"x@native": {"id": "a" * 64}}}
    store.save_machine_priors(noise.Machine.of(here), [
        dict(kind="latency-bound", variance=0.0007 ** 2, df=9, process_cv2=0.0022 ** 2, process_df=20, runs=10, load=0),
        dict(kind="loop-bound", variance=0.13 ** 2, df=9, process_cv2=0.25 ** 2, process_df=20, runs=10, load=0)])
    medians = [114.30, 114.25, 114.33, 114.28, 122.3]
    run_id = store.begin_run(["benchlab", "run"], ["native"], here)
    records = []
    for process, median in enumerate(medians):
        records.append(Record(bench="b", param=None, samples=[median * 0.999, median, median * 1.001],
                              platform="native", binary="x", reported={"process": process}))
    store.add_unit(run_id, records, [])
    store.finish_run(run_id, "complete", 0)
    [shown] = json.loads(benchlab("show", "1", "--format", "json").stdout)["rows"]
    figure = shown["cells"]["native"]["median"]
    assert figure == sum(medians[:4]) / 4  # the outlier left out
    [compared] = json.loads(benchlab("compare", "1", "1", "--format", "json").stdout)["comparisons"]
    assert compared["a"] == compared["b"] == figure
