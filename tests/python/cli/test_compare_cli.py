import json

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
    assert write_row[:5] == ["Write/1", "native", "500", "500", "1.0000"] and write_row[-1] == "change"
    assert lines[3] == "2 compared: 1 slower, 0 faster, 1 no change; geometric mean of B/A 1.0487"
    document = json.loads(benchlab("compare", "1", "2", "--format", "json").stdout)
    [read_json] = [c for c in document["comparisons"] if c["test"] == "Read"]
    assert read_json["processes"] == [4, 4] and read_json["interval"] == "between processes"
    low, high = read_json["ratio_ci"]
    assert 1.05 < low < 1.0998 < high < 1.15


def test_gate_exits_3_on_a_regression_beyond_the_threshold_and_0_otherwise(project, benchlab):
    # Stored figures alone: no machine prior measured first (test_gate_remeasure.py has that).
    write(project / "benchlab.toml", "[gate]\ncalibrate = false\n")
    lind_run(project, benchlab, "240 + n % 2")
    lind_run(project, benchlab, "243 + n % 2")   # 1.2% slower: inside the default 2%
    lind_run(project, benchlab, "264 + n % 2")   # 10% slower
    passed = benchlab("gate", "--baseline", "1", "2")
    assert passed.exit_code == 0
    assert passed.stderr.endswith("gate passed: nothing slower than 2% beyond its 99% interval\n")
    failed = benchlab("gate", "--baseline", "1", "3")
    assert failed.exit_code == 3
    assert failed.stderr.splitlines()[-1].startswith("regression: Read/1 on native: 1.0998x [")
    assert failed.stderr.splitlines()[-1].endswith("], more than 2% slower")
    # a benchmark's own threshold in benchlab.toml wins
    write(project / "benchlab.toml", "[gate]\ncalibrate = false\n[gate.max_regression]\nRead = 20\n")
    assert benchlab("gate", "--baseline", "1", "3").exit_code == 0


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
