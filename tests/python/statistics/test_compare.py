import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from benchlab.statistics.compare import (BETWEEN_PROCESSES, BETWEEN_RUNS, INCONCLUSIVE, NOT_SLOWER, SLOWER,
                                         WITHIN_ONE_PROCESS, Comparison, compare, geometric_mean, ratio_interval,
                                         uninformative_interval, verdict_of)
from benchlab.statistics import noise
from benchlab.statistics.combine import combine, history_key
from benchlab.records import Record


def run(medians, *, bench="b", spread=0.001):
    """A run of len(medians) processes, each with samples around its median."""
    records = []
    for process, m in enumerate(medians):
        record = Record(bench=bench, param=None, samples=[m * (1 - spread), m, m * (1 + spread)] * 4,
                        platform="native", binary="x")
        record.reported["process"] = process
        records.append(record)
    return records


def test_the_ratio_interval_is_welch_on_the_log_of_the_ratio_of_process_means():
    a, b = [100.0, 101.0, 99.0, 100.5, 99.5], [103.0, 104.5, 102.0, 103.5, 102.5]
    [ca], [cb] = combine(run(a)), combine(run(b))
    ratio, low, high, scope = ratio_interval(ca, cb)
    assert ratio == pytest.approx(np.mean(b) / np.mean(a))
    var_a = (np.std(a, ddof=1) / np.mean(a)) ** 2 / 5
    var_b = (np.std(b, ddof=1) / np.mean(b)) ** 2 / 5
    df = (var_a + var_b) ** 2 / (var_a ** 2 / 4 + var_b ** 2 / 4)
    half = scipy_stats.t.ppf(0.995, int(df)) * math.sqrt(var_a + var_b)
    assert (low, high) == pytest.approx((ratio * math.exp(-half), ratio * math.exp(half)), rel=1e-6)
    assert scope == BETWEEN_PROCESSES


def test_a_family_of_rows_is_judged_at_the_level_that_holds_for_all_of_them():
    # 10 rows judged at once (the gate): each interval at 1 - 0.01/10 = 99.9%, scipy's t at the same df
    a, b = [100.0, 101.0, 99.0, 100.5, 99.5], [103.0, 104.5, 102.0, 103.5, 102.5]
    runs_a = [r for n in range(10) for r in run(a, bench=f"b{n}")]
    runs_b = [r for n in range(10) for r in run(b, bench=f"b{n}")]
    alone, together = compare(runs_a, runs_b)[0], compare(runs_a, runs_b, family=True)[0]
    var_a = (np.std(a, ddof=1) / np.mean(a)) ** 2 / 5
    var_b = (np.std(b, ddof=1) / np.mean(b)) ** 2 / 5
    df = int((var_a + var_b) ** 2 / (var_a ** 2 / 4 + var_b ** 2 / 4))
    widened = scipy_stats.t.ppf(1 - 0.001 / 2, df) / scipy_stats.t.ppf(0.995, df)
    assert math.log(together.high / together.ratio) == pytest.approx(
        widened * math.log(alone.high / alone.ratio), rel=1e-6)
    # one row is its own family: 99%
    one = compare(run(a), run(b), family=True)[0]
    assert (one.low, one.high) == pytest.approx((alone.low, alone.high), rel=1e-12)


def test_three_verdicts_against_the_threshold_never_below_the_noise_floor():
    base = run([100.0, 100.2, 99.8, 100.1, 99.9])
    [same] = compare(base, run([100.1, 99.9, 100.0, 100.2, 99.8]))
    assert same.verdict == NOT_SLOWER and same.low <= 1 <= same.high and not same.faster
    [slow] = compare(base, run([105.0, 105.2, 104.8, 105.1, 104.9]))
    assert slow.verdict == SLOWER and 1.04 < slow.low < slow.high < 1.06
    slow.threshold = 0.06  # the gate's --max-regression 6%: the whole interval is below 1.06
    assert slow.verdict == NOT_SLOWER and not slow.faster
    [fast] = compare(base, run([95.0, 95.2, 94.8, 95.1, 94.9]))
    assert fast.verdict == NOT_SLOWER and fast.faster and fast.changed
    # 0.5% slower, known precisely: significant, but inside the 1% floor
    [tiny] = compare(base, run([100.5, 100.6, 100.4, 100.55, 100.45]))
    assert tiny.low > 1 and tiny.verdict == NOT_SLOWER and not tiny.changed
    tiny.threshold = 0.0  # a threshold under the floor does not lower it
    assert tiny.limit == 1.01 and tiny.verdict == NOT_SLOWER
    [tiny_own_floor] = compare(base, run([100.5, 100.6, 100.4, 100.55, 100.45]), floor_of={"b": 0.001}.get)
    assert tiny_own_floor.verdict == SLOWER
    # Processes that spread by 3%: the interval of a 2% change reaches both sides of 1.01
    [spread] = compare(base, run([98.0, 106.0, 100.0, 104.0, 102.0]))
    assert spread.low < 1.01 < spread.high and spread.verdict == INCONCLUSIVE and not spread.faster


def test_verdict_of_is_where_the_whole_interval_lies():
    assert verdict_of(1.021, 1.5, 1.02) == SLOWER
    assert verdict_of(1.02, 1.5, 1.02) == INCONCLUSIVE   # touching the limit is not above it
    assert verdict_of(0.5, 1.02, 1.02) == NOT_SLOWER      # at or below the limit
    assert verdict_of(0.5, 1.0201, 1.02) == INCONCLUSIVE
    # The gate's case of issue 27: a 2x slowdown whose interval bounded nothing passed
    assert verdict_of(0.1608, 26.4217, 1.02) == INCONCLUSIVE


def test_an_interval_wider_than_its_figure_is_uninformative():
    assert uninformative_interval(2.25, 1e-9, 511079.1583)
    assert uninformative_interval(2.0614, 0.1608, 26.4217)
    assert uninformative_interval(1.0, 0.5, 2.0)          # +100%: from the figure to twice it
    assert not uninformative_interval(1.0, 0.6, 1.99)
    assert not uninformative_interval(1.0, 0.99, 1.01)
    assert uninformative_interval(1.0, 0.9, math.inf)
    c = Comparison(key=("b", None, "time", None), platform="native", unit="ns", a=1.0, b=2.25, ratio=2.25,
                   low=1e-9, high=511079.1583, floor=0.01, scope=BETWEEN_PROCESSES, processes=(1, 1))
    assert c.uninformative and c.verdict == INCONCLUSIVE


def test_single_processes_are_compared_but_say_what_they_cannot_see():
    a = [Record(bench="b", param=None, samples=[100.0, 100.1, 99.9] * 4, platform="native", binary="x")]
    b = [Record(bench="b", param=None, samples=[110.0, 110.1, 109.9] * 4, platform="native", binary="x")]
    [c] = compare(a, b)
    assert c.scope == WITHIN_ONE_PROCESS and c.verdict == SLOWER and c.processes == (1, 1)


def test_single_processes_take_the_machines_pooled_process_spread_when_earlier_runs_measured_it():
    # Each process 0.1% around its own median: alone, 100 against 102 is "slower". The
    # machine's earlier runs of 5 processes spread by 1% between processes: then a 2%
    # difference between two single processes is within what a rerun shows.
    def one(median):
        return [Record(bench="b", param=None, samples=[median * 0.999, median, median * 1.001] * 4,
                       platform="native", binary="x")]
    earlier = [noise.run_figure([100.0, 101.0, 99.0, 100.5, 99.5]) for _ in range(6)]
    level = noise.estimate(earlier)
    assert level.process_df == 20 and level.variance == 0  # no spread between whole runs here (df: 5 of 6 runs x 4)
    [alone] = compare(one(100.0), one(102.0))
    assert alone.scope == WITHIN_ONE_PROCESS and alone.verdict == SLOWER
    [pooled] = compare(one(100.0), one(102.0), levels={history_key(one(102.0)[0]): level})
    assert pooled.scope == BETWEEN_RUNS and pooled.verdict == INCONCLUSIVE and pooled.low < 1
    # By hand: each side varies by the pooled CV^2 of one process's figure (the runs' CV^2,
    # the largest of 6 clipped at the next: all equal here, then scaled for chi-square(4)
    # clipped at its 5/6 quantile), df 20 each.
    cap = scipy_stats.chi2.ppf(5 / 6, 4)
    cv2 = np.var([100.0, 101.0, 99.0, 100.5, 99.5], ddof=1) / 100.0 ** 2 / (scipy_stats.chi2.cdf(cap, 6) + cap / 6 / 4)
    half = scipy_stats.t.ppf(0.995, int((2 * cv2) ** 2 / (2 * cv2 ** 2 / 20))) * math.sqrt(2 * cv2)
    assert (pooled.low, pooled.high) == pytest.approx((1.02 * math.exp(-half), 1.02 * math.exp(half)), rel=1e-9)


def test_only_benchmarks_both_runs_measured_are_compared_and_the_geometric_mean_is_of_their_ratios():
    a = run([100.0, 100.1, 99.9], bench="one") + run([10.0, 10.01, 9.99], bench="two")
    b = run([110.0, 110.1, 109.9], bench="one") + run([5.0, 5.01, 4.99], bench="three")
    comparisons = compare(a, b)
    assert [c.key[0] for c in comparisons] == ["one"]
    assert geometric_mean(comparisons) == pytest.approx(1.1, rel=1e-3)
    assert geometric_mean([]) is None


def test_a_a_runs_of_a_two_level_process_raise_about_one_alarm_in_a_hundred():
    """Simulated: each process has its own level (sd 1%) and samples (sd 2%); two runs of
    5 processes from the same distribution, 1000 times. Without a noise floor the 99%
    interval excludes 1 about 1% of the time; a 5% slowdown (7 standard errors of the
    difference) is seen nearly always, a 2% one (3) about half the time."""
    rng = np.random.default_rng(5)

    def one_run(factor):
        return [100 * factor * (1 + rng.normal(0, 0.01)) for _ in range(5)]

    def alarm(c):
        return c.verdict == SLOWER or c.faster  # at threshold 0, an interval that excludes 1

    alarms = sum(alarm(compare(run(one_run(1.0)), run(one_run(1.0)), floor_of=lambda _: 0)[0]) for _ in range(1000))
    seen = sum(compare(run(one_run(1.0)), run(one_run(1.05)), floor_of=lambda _: 0)[0].verdict == SLOWER
               for _ in range(200))
    half = sum(compare(run(one_run(1.0)), run(one_run(1.02)), floor_of=lambda _: 0)[0].verdict == SLOWER
               for _ in range(200))
    assert alarms <= 25  # 1% expected; Welch's df is approximate
    assert seen >= 190 and 40 <= half <= 160


def test_the_error_term_says_when_each_process_had_its_own_seed():
    # Processes of benchlab run each get a seed of their own (runner.process_seed): a figure
    # whose work depends on bl_seed() then varies between them, and its interval covers it.
    from benchlab.statistics.compare import OWN_SEEDS, compare

    def run(median, seeds):
        return [Record(bench="mix", param=None, samples=[median * (1 + 0.001 * k) for k in range(-5, 6)],
                       iterations=100, platform="native", binary="b",
                       reported={"process": i, **({"seed": seed} if seed is not None else {})})
                for i, seed in enumerate(seeds)]
    [seeded] = compare(run(100, [11, 12, 13]), run(101, [21, 22, 23]))
    assert seeded.scope == BETWEEN_PROCESSES + OWN_SEEDS
    [one_seed] = compare(run(100, [None, None, None]), run(101, [None, None, None]))
    assert one_seed.scope == BETWEEN_PROCESSES
