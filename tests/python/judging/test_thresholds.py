"""The one rule of a row's noise floor and threshold (judging/thresholds.py)."""
from benchlab.config import load_config
from benchlab.judging.thresholds import RowThresholds, Thresholds
from benchlab.statistics.compare import BETWEEN_PROCESSES, Comparison
from conftest import write

TOML = ("[compare]\nnoise_floor = 3\n[compare.noise_floors]\nRead = 50\nSeek = 50\n"
        "[gate.max_regression]\nRead = 40\nOpen = 10\n")


def config(project):
    write(project / "benchlab.toml", TOML)
    return load_config()


def row(bench: str, low: float, high: float, deterministic: bool = False) -> Comparison:
    return Comparison(key=(bench, None, "time", None), platform="native", unit="ns", a=1.0, b=1.0,
                      ratio=(low + high) / 2, low=low, high=high, floor=0.0, scope=BETWEEN_PROCESSES,
                      processes=(3, 3), deterministic=deterministic)


def test_a_benchmarks_own_floor_and_threshold_win_over_the_flags_and_the_files_default(project):
    rule = Thresholds.of(config(project), floor=2, max_regression=5)
    assert rule.row("Read") == RowThresholds(0.5, 0.4)
    assert rule.row("Open") == RowThresholds(0.02, 0.1)    # its own threshold, the flag's floor
    assert rule.row("Write") == RowThresholds(0.02, 0.05)  # the flags'
    assert rule.row("Read").limit == 1.5 and rule.row("Write").limit == 1.05


def test_without_flags_the_floor_is_benchlab_tomls_and_nothing_has_a_threshold(project):
    rule = Thresholds.of(config(project))
    assert rule.row("Read") == RowThresholds(0.5, None)
    assert rule.row("Write") == RowThresholds(0.03, None)  # compare.noise_floor = 3
    assert Thresholds().row("Write") == RowThresholds(0.01, None)  # no benchlab.toml: 1%


def test_counts_have_no_floor_and_a_counted_row_takes_its_counters_threshold_unless_its_own(project):
    rule = Thresholds.of(config(project), max_regression=2, counters={"instructions": 0.005})
    assert rule.row("Write", deterministic=True) == RowThresholds(0.0, 0.02)
    assert rule.row("Write", counter="instructions", deterministic=True) == RowThresholds(0.0, 0.005)
    assert rule.row("Open", counter="instructions", deterministic=True) == RowThresholds(0.0, 0.1)


def test_judge_sets_every_rows_floor_and_threshold(project):
    rows = Thresholds.of(config(project), max_regression=5).judge(
        [row("Read", 1.2, 1.3), row("Write", 1.2, 1.3), row("Write", 1.2, 1.3, deterministic=True)])
    assert [(c.floor, c.threshold, c.verdict) for c in rows] == [
        (0.5, 0.4, "not slower"), (0.03, 0.05, "slower"), (0.0, 0.05, "slower")]


def test_the_rounds_stop_rule_reads_each_row_at_its_own_limit(project):
    # The gate's re-measurement decided every row at the default floor: Seek's [1.3, 1.7]
    # was "slower" at 1.02 and measured no more, though at its own 50% floor it reaches both
    # sides of 1.5; Read's [1.3, 1.45] straddled 1.4 and was measured on, though not slower.
    decided = Thresholds.of(config(project), max_regression=2).decider()
    assert not decided(("Seek", None, "time", None), 1.3, 1.7)
    assert decided(("Read", None, "time", None), 1.3, 1.45) and decided(("Write", None, "time", None), 1.3, 1.7)
    # a benchmark judged on something else (its counts) is decided at once
    assert Thresholds.of(config(project), max_regression=2).decider({"Seek"})(("Seek", None, "time", None), 1.3, 1.7)
