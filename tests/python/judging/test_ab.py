"""`ab`'s flow without its command (judging/ab.py): two lind scripts measured in paired rounds,
each row judged at its own noise floor and threshold."""
import pytest

from benchlab.config import load_config
from benchlab.errors import ExitCode, UserError
from benchlab.judging import ab
from benchlab.statistics.compare import NOT_SLOWER, SLOWER
from conftest import write

#: A benchmark with its own floor (50%) and threshold (40%): what issue 39 found `ab` ignoring.
OWN = "[compare.noise_floors]\nRead = 50\n[gate.max_regression]\nRead = 40\n"


def two_benchmarks(project, name, read, write_value):
    """A lind script whose Read/1 and Write/1 figures are `read` and `write_value`, plus 0 or 1
    by turns (a count file per script)."""
    counter = project / f"{name}.count"
    return write(project / name,
                 f"#!/bin/sh\necho x >> {counter}\nn=$(wc -l < {counter})\n"
                 f"printf 'Read\\t1\\t100\\t%d\\n' $(( {read} + n % 2 ))\n"
                 f"printf 'Write\\t1\\t100\\t%d\\n' $(( {write_value} + n % 2 ))\n", executable=True)


def rows(answer):
    return {c.key[0]: c for c in answer.comparisons}


@pytest.fixture
def slower_b(project):
    """B 20% slower than A on both benchmarks."""
    two_benchmarks(project, "a.sh", 500, 500)
    two_benchmarks(project, "b.sh", 600, 600)
    return project


def test_a_benchmark_is_judged_at_its_own_floor_and_threshold_the_others_at_the_flags(slower_b):
    write(slower_b / "benchlab.toml", OWN)
    said = []
    answer = ab.judge_ab(load_config(), ab.Request(("a.sh", "b.sh"), max_regression=5, max_rounds=6, seed=1),
                         ab.Listener(note=said.append, warn=said.append))
    found = rows(answer)
    assert (found["Read"].floor, found["Read"].threshold) == (0.5, 0.4)
    assert (found["Write"].floor, found["Write"].threshold) == (0.01, 0.05)
    assert 1.19 < found["Read"].ratio < 1.21 and 1.19 < found["Write"].ratio < 1.21
    # 20% slower is within Read's own 50% floor, beyond Write's 5%
    assert (found["Read"].verdict, found["Write"].verdict) == (NOT_SLOWER, SLOWER)
    assert answer.judgment.exit_code == ExitCode.REGRESSION
    assert [line for line in answer.judgment.lines if line.startswith("regression: ")] == [
        line for line in answer.judgment.lines if line.startswith("regression: Write/1 on native: ")]
    assert answer.notes == [line for line in answer.notes if line.startswith("6 rounds of A and B in ")]
    assert said == ["1 program(s), A and B interleaved: at most 30 s of rounds (--time), the builds done before"]


def test_the_noise_floor_flag_sets_the_others_floor_and_without_max_regression_nothing_is_judged(slower_b):
    write(slower_b / "benchlab.toml", OWN)
    answer = ab.judge_ab(load_config(), ab.Request(("a.sh", "b.sh"), floor=25, max_rounds=6, seed=1))
    found = rows(answer)
    assert (found["Read"].floor, found["Read"].threshold) == (0.5, None)
    assert (found["Write"].floor, found["Write"].threshold) == (0.25, None)
    assert (found["Read"].verdict, found["Write"].verdict) == (NOT_SLOWER, NOT_SLOWER)
    assert answer.judgment is None


def test_without_benchlab_toml_every_row_is_judged_at_the_flags(slower_b):
    answer = ab.judge_ab(load_config(), ab.Request(("a.sh", "b.sh"), max_regression=30, max_rounds=6, seed=1))
    assert {(c.floor, c.threshold, c.verdict) for c in answer.comparisons} == {(0.01, 0.3, NOT_SLOWER)}
    assert answer.judgment.exit_code == ExitCode.OK


def test_a_failing_process_is_said_and_an_error(project):
    two_benchmarks(project, "a.sh", 500, 500)
    write(project / "b.sh", "#!/bin/sh\nexit 7\n", executable=True)
    said = []
    with pytest.raises(UserError) as error:
        ab.judge_ab(load_config(), ab.Request(("a.sh", "b.sh"), max_rounds=6, seed=1),
                    ab.Listener(warn=said.append))
    assert error.value.what == "a process of A or B failed"
    assert said and all(line.startswith("b.sh: ") for line in said)
