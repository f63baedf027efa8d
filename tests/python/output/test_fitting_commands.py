"""The commands on a narrow terminal (COLUMNS) and with --quiet: no line longer than the
width; nothing on stderr but errors and verdicts."""
import pytest
from rich.cells import cell_len

from conftest import FAST, SMALL_BENCH, write

DB = "sqlite:///terminal.db"
#: A benchmark name long enough to need cutting at 60 columns.
LONG_NAME = "copy_with_a_name_long_enough_to_be_cut"


def widest(text: str) -> int:
    return max(cell_len(line) for line in text.splitlines())


@pytest.fixture
def stored(project, benchlab):
    """Two runs of a small program stored, the second with a long benchmark name."""
    write(project / "suite" / "small.c", SMALL_BENCH)
    assert benchlab("run", "suite", *FAST, "-N", "2", "--db", DB).exit_code == 0
    write(project / "suite" / "small.c", SMALL_BENCH.replace("BL_BENCH_ARGS(copy", f"BL_BENCH_ARGS({LONG_NAME}"))
    assert benchlab("run", "suite", *FAST, "-N", "2", "--db", DB).exit_code == 0
    return project


def test_show_runs_stats_and_compare_fit_columns(stored, benchlab, monkeypatch):
    for width in (60, 80, 120):
        monkeypatch.setenv("COLUMNS", str(width))
        for args in (["show", "2"], ["runs"], ["stats", "2"], ["compare", "1", "2"]):
            result = benchlab(*args, "--db", DB)
            assert result.exit_code == 0, result.stderr
            assert widest(result.stdout) <= width, (args, result.stdout)


def test_without_columns_a_pipe_gets_the_whole_table(stored, benchlab):
    whole = benchlab("show", "2", "--db", DB).stdout
    assert whole.splitlines()[0].split()[-1] == "ITERATIONS" and "(at " not in whole
    runs = benchlab("runs", "--db", DB).stdout
    assert runs.splitlines()[0].split() == ["ID", "DATE", "STATUS", "PLATFORMS", "RECORDS", "FAILURES", "COMMIT",
                                            "COMMAND"]


def test_a_narrow_show_names_what_it_left_out(stored, benchlab, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = benchlab("show", "2", "--db", DB).stdout
    assert widest(narrow) <= 40
    assert narrow.splitlines()[0].split() == ["TEST", "PARAM", "native", "(ns)"]
    assert any(line.startswith("copy_with_a_name") and "… " in line for line in narrow.splitlines())
    assert "ITERATIONS hidden" in narrow and "TEST cut" in narrow


def test_run_quiet_prints_the_table_alone_and_errors_still(project, benchlab):
    write(project / "suite" / "small.c", SMALL_BENCH)
    loud = benchlab("run", "suite", *FAST, "--db", DB)
    assert loud.stderr.startswith("[1/5] small on native\n") and "saved as run 1" in loud.stderr
    quiet = benchlab("run", "suite", *FAST, "--db", DB, "--quiet")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert quiet.stdout.splitlines()[0].split() == ["TEST", "PARAM", "native", "(ns)", "ITERATIONS"]
    assert benchlab("runs", "--db", DB).stdout.count("complete") == 2  # stored as ever
    failed = benchlab("run", "suite", *FAST, "--db", DB, "-q", "--filter", "no_such_benchmark")
    assert failed.exit_code == 2
    assert failed.stderr.startswith("error: --filter 'no_such_benchmark' matches no benchmark in any binary")


def lind(project, name, value):
    return write(project / name, f"#!/bin/sh\nprintf 'Read\\t1\\t100\\t{value}\\n'\n", executable=True)


def test_ab_quiet_prints_the_table_and_the_verdict_alone(project, benchlab):
    lind(project, "a.sh", 240)
    lind(project, "b.sh", 264)
    loud = benchlab("ab", "a.sh", "b.sh", "--seed", "3", "--max-rounds", "6", "--max-regression", "5")
    assert loud.stderr.startswith("1 program(s), A and B interleaved: at most 30 s of rounds (--time), the builds done before\n")
    quiet = benchlab("ab", "a.sh", "b.sh", "--seed", "3", "--max-rounds", "6", "--max-regression", "5", "-q")
    assert quiet.exit_code == 3
    assert quiet.stdout == loud.stdout
    verdict = [line for line in loud.stderr.splitlines() if line.startswith(("regression: ", "ab failed: "))]
    assert quiet.stderr.splitlines() == verdict and len(verdict) == 2


def test_gate_quiet_leaves_out_its_notes_and_keeps_its_verdict(project, benchlab):
    lind(project, "suite.sh", 240)
    assert benchlab("run", "suite.sh", "--db", DB, "-q").exit_code == 0
    loud = benchlab("gate", "--baseline", "1", "--no-remeasure", "--db", DB)
    assert "stored figures only (--no-remeasure)" in loud.stderr
    quiet = benchlab("gate", "--baseline", "1", "--no-remeasure", "--db", DB, "--quiet")
    assert quiet.stdout == loud.stdout
    assert quiet.stderr.splitlines() == [line for line in loud.stderr.splitlines()
                                         if line.startswith(("gate ", "regression: ", "inconclusive: ", "to decide"))]
    assert "stored figures" not in quiet.stderr and quiet.exit_code == loud.exit_code
