"""The run level: the spread of whole runs, learnt from earlier runs on the same machine."""
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from benchlab.statistics import noise
from benchlab.statistics.combine import (RERUN, RERUN_AS_FAR_AS_ONE_PROCESS, RERUN_WITH_HISTORY, RERUN_WITH_PRIOR, combine,
                                        history_key)
from benchlab.statistics.compare import BETWEEN_PROCESSES, BETWEEN_RUNS, ratio_interval
from benchlab.records import Record
from benchlab.statistics.noise import RunFigure, RunLevel, estimate, run_figure
from benchlab.stats import t_quantile_99
from benchlab.storage.store import open_store


def test_alternating_runs_give_half_the_mean_square_of_their_log_differences():
    history = [RunFigure(1.0 if j % 2 == 0 else 1.02, 0.0) for j in range(4)]
    level = estimate(history)
    assert level.variance == pytest.approx(math.log(1.02) ** 2 / 2)
    assert (level.earlier_runs, level.df) == (4, 3)


def clipped_share(df, share):
    """E[min(X, c)] / E[X] for X ~ chi-square(df) and c its 1 - share quantile, by scipy."""
    cap = scipy_stats.chi2.ppf(1 - share, df)
    return scipy_stats.chi2.cdf(cap, df + 2) + share * cap / df


def test_every_difference_counts_in_the_run_level():
    # Six runs, five differences, each 1% or so: their plain mean, halved; 5 df.
    history = [RunFigure(100.0 * math.exp(0.01 * d), 0.0) for d in (0, 1, 3, 0, 4, 2)]  # d^2: 1, 4, 9, 16, 4 (x 1e-4)
    level = estimate(history)
    assert level.variance == pytest.approx((1 + 4 + 9 + 16 + 4) / 5 * 1e-4 / 2)
    assert (level.earlier_runs, level.df) == (6, 5)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 9, 20])
def test_the_chi_square_distribution_by_hand_agrees_with_scipy(df):
    for x in (0.01, 0.5, 1.0, 3.0, 10.0, 40.0):
        assert noise.chi2_cdf(x, df) == pytest.approx(scipy_stats.chi2.cdf(x, df), abs=1e-12)
    for p in (0.5, 0.6, 0.9, 0.95, 2 / 3):
        assert noise.chi2_quantile(p, df) == pytest.approx(scipy_stats.chi2.ppf(p, df), rel=1e-9)


def test_the_estimate_is_not_below_the_truth_on_a_steady_machine():
    """Runs whose figures move by 1% (normal, on the log): over many 20-run histories each
    of the two estimates averages 1e-4; the larger of them, a little more (not less: an
    interval built on it must not be narrow on average)."""
    rng = np.random.default_rng(5)
    estimates = [estimate([RunFigure(100 * math.exp(x), 0.0) for x in rng.normal(0, 0.01, 20)]).variance
                 for _ in range(3000)]
    assert 1e-4 < np.mean(estimates) < 1.2e-4


def test_the_spread_the_processes_explain_is_not_counted_twice():
    explained = math.log(1.02) ** 2 / 2
    history = [RunFigure(1.0 if j % 2 == 0 else 1.02, explained) for j in range(4)]
    assert estimate(history).variance == pytest.approx(0.0, abs=1e-15)


def _from_differences(figures):
    return np.mean([math.log(b / a) ** 2 for a, b in zip(figures, figures[1:])]) / 2


def test_a_host_state_that_lasts_several_runs_counts_in_full():
    """Twenty runs of identical code that agree to 0.05%, with a state of the host lasting
    runs 8-12 that moved them all by -0.2% (three chains on this VM, together). Every run
    counts: clipping the largest tenth of the differences (the rule before) took exactly
    the two where the state came and went. And the runs' spread about their mean counts
    where it is larger than the differences': consecutive runs in one state differ
    little, and the differences alone understate how far the runs spread."""
    rng = np.random.default_rng(11)
    steady = [100.0 * math.exp(rng.normal(0, 0.0005)) for _ in range(20)]
    moved = [m * (0.998 if 8 <= j <= 12 else 1.0) for j, m in enumerate(steady)]
    level = estimate([RunFigure(m, 0.0) for m in moved])
    spread = np.var(np.log(moved), ddof=1)
    assert level.variance == pytest.approx(spread) and level.df == 19
    assert spread > 1.5 * _from_differences(moved)
    assert level.variance > 2 * estimate([RunFigure(m, 0.0) for m in steady]).variance


def test_where_runs_alternate_the_differences_count():
    """Runs alternating 100 / 102 (each run in the other state): the differences are
    2% every time, larger than the spread about the mean says; they count."""
    figures = [100.0 if j % 2 == 0 else 102.0 for j in range(20)]
    level = estimate([RunFigure(m, 0.0) for m in figures])
    assert level.variance == pytest.approx(math.log(1.02) ** 2 / 2)
    assert level.variance > 1.5 * np.var(np.log(figures), ddof=1)


def test_too_few_earlier_runs_give_no_level_and_old_runs_drop_out():
    assert estimate([RunFigure(1.0, 0.0), RunFigure(2.0, 0.0)]) is None
    old_jump = [RunFigure(1.0, 0.0), RunFigure(3.0, 0.0)]
    steady = [RunFigure(3.0, 0.0)] * noise.MAX_EARLIER_RUNS
    assert estimate(old_jump + steady).variance == 0.0


def test_an_earlier_run_figure_is_the_mean_of_its_processes_and_their_relative_variance_over_n():
    figure = run_figure([99.0, 101.0, 100.0, 100.0])
    assert figure.mean == 100.0
    assert figure.process_variance == pytest.approx((2 / 3) / 100 ** 2 / 4)
    assert run_figure([100.0]) is None and run_figure([0.0, 0.0]) is None


def test_without_a_level_the_half_width_is_the_two_level_one():
    half, df = noise.rerun_half_width(100.0, 1.0, 5, None, t_quantile_99)
    assert df == 4
    assert half == pytest.approx(scipy_stats.t.ppf(0.995, 4) * 1.0 * math.sqrt(2 / 5), rel=1e-4)


def test_the_run_level_adds_its_variance_with_pooled_degrees_of_freedom():
    level = RunLevel(variance=0.01 ** 2, earlier_runs=11, df=10)
    half, df = noise.rerun_half_width(100.0, 1.0, 5, level, t_quantile_99)
    process_part, run_part = 2 * 1.0 / 5, 2 * 1.0  # (1 ns)^2 * 2/5, and 2 * (1% of 100)^2
    expected_df = int((process_part + run_part) ** 2 / (process_part ** 2 / 4 + run_part ** 2 / 10))
    assert df == expected_df == 13
    assert half == pytest.approx(scipy_stats.t.ppf(0.995, 13) * math.sqrt(process_part + run_part), rel=1e-4)


def test_the_pooled_process_spread_is_the_winsorized_mean_of_the_runs_cv2():
    # Runs of 5 processes with CV 1% and 3%, and of 3 processes with CV 2%: of 3 runs the
    # largest CV^2 counts as the next, scaled for chi-square(4) (the typical N - 1) clipped
    # at its 2/3 quantile; the summed df (10) times the 2 runs of 3 left whole.
    history = [RunFigure(100.0, 0.01 ** 2 / 5, 5), RunFigure(100.0, 0.03 ** 2 / 5, 5), RunFigure(100.0, 0.02 ** 2 / 3, 3)]
    level = estimate(history)
    assert level.process_cv2 == pytest.approx((1e-4 + 4e-4 + 4e-4) / 3 / clipped_share(4, 1 / 3))
    assert level.process_df == 10 * 2 // 3
    assert run_figure([99.0, 101.0, 100.0]).processes == 3


def test_a_state_the_machine_returns_to_counts_in_the_pooled_spread():
    """17 runs whose processes agree to 0.1% and 3 where some processes read +1% (a chain's
    runs on this VM, 3 in 40): a state met in a tenth of runs or more is the machine's, and
    widens the spread as the plain mean does; the median ignored it."""
    rng = np.random.default_rng(7)
    runs = [list(100 * np.exp(rng.normal(0, 0.001, 5))) for _ in range(17)]
    for at in (4, 9, 15):
        runs.insert(at, [100.0, 100.1, 101.2, 100.0, 101.0])
    cv2s = [np.var(r, ddof=1) / np.mean(r) ** 2 for r in runs]
    level = estimate([run_figure(r) for r in runs])
    assert level.process_sd > 0.5 * math.sqrt(np.mean(cv2s))
    assert level.process_sd > 2.5 * math.sqrt(np.median(cv2s))


def test_one_outlier_process_does_not_widen_the_pooled_spread():
    """19 runs whose 5 processes agree to 0.3%, and one run where one process read +21% (as
    chain K=100 did on this VM): the mean of CV^2 (the old rule) was 3.3 times the typical
    run's figure; the winsorized mean stays near it."""
    rng = np.random.default_rng(3)
    runs = [list(100 * np.exp(rng.normal(0, 0.003, 5))) for _ in range(19)]
    runs.insert(10, [100.0, 100.2, 99.8, 121.0, 100.1])
    level = estimate([run_figure(r) for r in runs])
    assert 0.002 < level.process_sd < 0.0045
    mean_rule = np.mean([np.var(r, ddof=1) / np.mean(r) ** 2 for r in runs])
    assert math.sqrt(mean_rule) > 3 * level.process_sd


def test_the_interval_rests_on_the_larger_of_this_runs_and_the_pooled_process_spread():
    level = RunLevel(variance=0.0, earlier_runs=20, df=19, process_cv2=0.02 ** 2, process_df=80)
    # This run's 5 processes agree to 0.1 ns on 100 ns; the machine's earlier processes differ by 2%.
    assert noise.process_spread(100.0, 0.1, 5, level) == (pytest.approx(2.0), 80)
    half, df = noise.rerun_half_width(100.0, 0.1, 5, level, t_quantile_99)
    assert df == 80 and half == pytest.approx(scipy_stats.t.ppf(0.995, 80) * 2.0 * math.sqrt(2 / 5), rel=1e-4)
    # Processes that disagree more than the history's keep their own spread and degrees of freedom.
    assert noise.process_spread(100.0, 5.0, 5, level) == (5.0, 4)
    # No pooled figure (older stores, one-process runs): this run's alone.
    assert noise.process_spread(100.0, 0.1, 5, RunLevel(0.0, 20, 19)) == (0.1, 4)


def test_processes_that_agree_by_luck_do_not_narrow_the_interval_below_the_machines():
    """A machine whose vCPUs are in a slow state (+30%) for 30% of processes, as getpid was
    on this VM: a run whose 5 processes all land in one state has a tiny spread. Built on
    its own spread the interval covered the next run 89% of the time; on the larger of it
    and the pooled spread of the 20 runs before, 99.5%."""
    rng = np.random.default_rng(11)
    figures = []
    for _ in range(400):
        states = np.where(rng.random(5) < 0.3, 1.3, 1.0)
        figures.append(list(100 * states * np.exp(rng.normal(0, 0.003, 5))))
    covered_pooled, covered_own = 0, 0
    trials = range(20, len(figures) - 1)
    for j in trials:
        level = estimate([run_figure(m) for m in figures[j - 20:j]])
        own = RunLevel(level.variance, level.earlier_runs, level.df)
        figure, sd, rerun = np.mean(figures[j]), np.std(figures[j], ddof=1), np.mean(figures[j + 1])
        covered_pooled += abs(rerun - figure) <= noise.rerun_half_width(figure, sd, 5, level, t_quantile_99)[0]
        covered_own += abs(rerun - figure) <= noise.rerun_half_width(figure, sd, 5, own, t_quantile_99)[0]
    assert covered_pooled / len(trials) >= 0.98
    assert covered_own / len(trials) <= 0.92


def _process_records(medians, *, run=0):
    records = []
    for process, median in enumerate(medians):
        record = Record(bench="b", param=None, samples=[median * 0.999, median, median * 1.001],
                        platform="native", binary="x")
        record.reported["process"] = process
        records.append(record)
    return records


def test_with_no_history_and_no_prior_a_rerun_may_move_as_far_as_one_process():
    """own_level: one run's processes give the run level their own CV^2 (a rerun's figure may
    move as far as one process's), an odd process left out by the run's own rule; one
    process alone gives none."""
    medians = [100.0, 101.0, 99.0, 100.5, 99.5]
    own = noise.own_level(medians)
    cv = np.std(medians, ddof=1) / 100.0
    assert (own.source, own.earlier_runs, own.df) == (noise.OWN_PROCESSES, 0, 4)
    assert own.variance == pytest.approx(cv ** 2)
    assert own.process_cv2 == 0 and own.process_df == 0  # no outliers judged by the run itself
    assert noise.own_level(medians + [150.0]).variance == pytest.approx(cv ** 2)  # 150: mad_outliers
    assert noise.own_level([100.0]) is None
    # The interval of 5 processes then holds their standard error and one process's spread again,
    # at the degrees of freedom of the one estimate both rest on.
    [combined] = combine(_process_records(medians), {history_key(_process_records([1])[0]): own})
    sd = np.std(medians, ddof=1)
    low, high = combined.summary["median_ci"]
    assert (high - low) / 2 == pytest.approx(scipy_stats.t.ppf(0.995, 4) * math.sqrt(2 * sd ** 2 / 5 + 2 * sd ** 2), rel=1e-3)
    assert combined.summary["ci_scope"] == RERUN_AS_FAR_AS_ONE_PROCESS
    assert "no machine prior" in combined.summary["noise_source"]


def test_with_no_history_the_runs_before_do_not_count_as_noise(db_url):
    """Two runs of one binary whose environment made it 20 times slower: the second run's
    interval is its own processes', not the difference between the two (compare judges it)."""
    store = open_store(db_url)
    here = {"host": "box", "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64", "code": CODE_A}
    _store_run(store, here, [100.0, 100.1, 99.9])
    second = _store_run(store, here, [2000.0, 2002.0, 1998.0])
    [(_, own)] = store.run_levels(second, here).items()
    assert own.source == noise.OWN_PROCESSES and own.variance == pytest.approx((2.0 / 2000.0) ** 2)
    store.close()


def test_reruns_are_covered_only_when_the_run_level_is_in_the_interval():
    """Simulated machine whose state moves whole runs by 2% (sd) while the 5 processes of
    a run differ by 0.3%: an interval from the processes alone misses most reruns; with
    the level learnt from the 20 runs before, a rerun lands inside ~99% of the time."""
    rng = np.random.default_rng(5)
    figures = []
    for _ in range(320):
        run_state = 100 * math.exp(rng.normal(0, 0.02))
        figures.append(list(run_state * np.exp(rng.normal(0, 0.003, 5))))
    covered_with, covered_without = 0, 0
    trials = range(20, len(figures) - 1)
    for j in trials:
        level = estimate([run_figure(m) for m in figures[j - 20:j]])
        key = history_key(_process_records(figures[j])[0])
        [with_level] = combine(_process_records(figures[j]), {key: level})
        [alone] = combine(_process_records(figures[j]))
        rerun = np.mean(figures[j + 1])
        covered_with += with_level.summary["median_ci"][0] <= rerun <= with_level.summary["median_ci"][1]
        covered_without += alone.summary["median_ci"][0] <= rerun <= alone.summary["median_ci"][1]
        assert with_level.summary["ci_scope"] == RERUN_WITH_HISTORY and alone.summary["ci_scope"] == RERUN
    assert covered_with / len(trials) >= 0.97
    assert covered_without / len(trials) <= 0.5


def test_compare_adds_the_run_level_to_its_error_term():
    [a] = combine(_process_records([100.0, 100.2, 99.8, 100.1, 99.9]))
    [b] = combine(_process_records([103.0, 103.2, 102.8, 103.1, 102.9]))
    _, low, high, scope = ratio_interval(a, b)
    assert scope == BETWEEN_PROCESSES and low > 1.02  # 3% slower, processes agree: significant
    _, low, high, scope = ratio_interval(a, b, RunLevel(variance=0.02 ** 2, earlier_runs=10, df=9))
    assert scope == BETWEEN_RUNS and low < 1 < high  # runs differ by 2% sd: 3% is within their noise


CODE_A = {"x@native": {"id": "a" * 64}}
CODE_B = {"x@native": {"id": "b" * 64}}


def _store_run(store, host_context, medians_by_process, status="complete"):
    run_id = store.begin_run(["benchlab", "run"], ["native"], host_context)
    store.add_unit(run_id, _process_records(medians_by_process), [])
    store.finish_run(run_id, status, 0)
    return run_id


def test_the_store_learns_the_level_from_complete_earlier_runs_on_the_same_machine(db_url):
    store = open_store(db_url)
    here = {"host": "box", "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64", "code": CODE_A}
    elsewhere = {**here, "cpu": "CPU Y"}
    levels = [100.0, 102.0, 100.0, 102.0, 100.0]
    for level in levels:
        _store_run(store, here, [level * 0.999, level * 1.001])
        _store_run(store, elsewhere, [level * 2, level * 3])              # another machine: ignored
    _store_run(store, here, [500.0, 510.0], status="failed")              # not a complete run: ignored
    current = _store_run(store, here, [101.0, 101.5])
    found = store.run_levels(current, here)
    [(key, level)] = found.items()
    assert key == (("b", None, "time", None), "native", "x")
    expected = estimate([run_figure([m * 0.999, m * 1.001]) for m in levels])
    assert level.earlier_runs == 5 and level.variance == pytest.approx(expected.variance)
    assert level.variance > 0
    # The first runs have too few before them: their own processes stand in (own_level).
    first_ids = [r["id"] for r in store.list_runs()][::-1]
    [(_, second)] = store.run_levels(first_ids[2], here).items()
    assert second.source == noise.OWN_PROCESSES
    store.close()


def test_runs_of_one_process_do_not_push_the_history_out_of_the_window(db_url):
    # 5 runs of 2 processes, then 250 of one process (more than the window of 20 runs, and
    # than two pages of the store's look back): the history is still those 5 runs (a
    # one-process run cannot tell its spread, run_figure).
    store = open_store(db_url)
    here = {"host": "box", "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64", "code": CODE_A}
    unit = {"binary": "x", "platform": "native", "sweep": None}
    several, one = {**here, "plan": [unit, unit]}, {**here, "plan": [unit]}
    for level in [100.0, 102.0, 100.0, 102.0, 100.0]:
        _store_run(store, several, [level * 0.999, level * 1.001])
    for _ in range(250):  # more than two pages of the store's look back (Store._HISTORY_PAGE)
        _store_run(store, one, [101.0])
    current = _store_run(store, one, [101.0])
    [(_, level)] = store.run_levels(current, one).items()
    assert level.earlier_runs == 5 and level.process_df == 4  # 5 runs x 1, the largest of 5 clipped
    store.close()


def test_only_runs_of_identical_code_are_the_noise_and_the_prior_stands_in_for_none(db_url):
    """Runs alternating unchanged / 3% slower code (as a user's edits do): the old rule
    counted the 3% as between-run noise (+-30% intervals); only identical code counts now.
    A figure whose code has no history takes the machine prior, or nothing."""
    store = open_store(db_url)
    here = {"host": "box", "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64"}
    for j in range(12):
        code, level = (CODE_A, 100.0) if j % 2 == 0 else (CODE_B, 103.0)
        _store_run(store, {**here, "code": code}, [level * 0.999, level * 1.001, level])
    current = _store_run(store, {**here, "code": CODE_A}, [100.0, 100.1, 99.9])
    [(_, level)] = store.run_levels(current, {**here, "code": CODE_A}).items()
    assert level.earlier_runs == 6 and level.source == noise.IDENTICAL_CODE
    assert level.variance == 0  # the six runs of code A are at one level
    # New code: no identical-code history, and no prior yet.
    new_code = {"x@native": {"id": "c" * 64}}
    fresh = _store_run(store, {**here, "code": new_code}, [101.0, 101.1, 100.9])
    [(_, own)] = store.run_levels(fresh, {**here, "code": new_code}).items()
    assert (own.source, own.earlier_runs, own.df) == (noise.OWN_PROCESSES, 0, 2)
    assert own.variance == pytest.approx((0.1 / 101.0) ** 2)  # as far as one of its processes
    store.save_machine_priors(noise.Machine.of(here), [
        dict(kind="latency-bound", variance=0.003 ** 2, df=4, process_cv2=0.001 ** 2, process_df=10, runs=6, load=0.1),
        dict(kind="syscall", variance=0.05 ** 2, df=4, process_cv2=0.02 ** 2, process_df=10, runs=6, load=0.1)])
    # Its processes agree to 0.1%: the narrowest kind whose process spread covers that.
    [(_, prior)] = store.run_levels(fresh, {**here, "code": new_code}).items()
    assert (prior.source, prior.kind, prior.variance) == (noise.MACHINE_PRIOR, "latency-bound", 0.003 ** 2)
    spread = _store_run(store, {**here, "code": new_code}, [100.0, 101.5, 98.5])  # 1.5%: the syscall kind's
    assert store.run_levels(spread, {**here, "code": new_code})[history_key(_process_records([1])[0])].kind == "syscall"
    wider = _store_run(store, {**here, "code": new_code}, [100.0, 110.0, 90.0])  # wider than any: the widest
    assert store.run_levels(wider, {**here, "code": new_code})[history_key(_process_records([1])[0])].kind == "syscall"
    [combined] = combine(_process_records([101.0, 101.1, 100.9]), {history_key(_process_records([1])[0]): prior})
    assert combined.summary["ci_scope"] == RERUN_WITH_PRIOR
    store.close()


def test_runs_on_a_busy_machine_are_history_only_of_busy_runs(db_url):
    """Six quiet runs of one code at one level, then three beside busy loops (load 10 on 2
    CPUs) at 2-3x: a quiet run after them keeps the quiet runs' level (0); a busy run takes
    the busy runs' spread, not the quiet runs'."""
    store = open_store(db_url)
    here = {"host": "box", "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64", "code": CODE_A}
    quiet = {"load": {"start": {"average": 0.4, "cpus": 2}}}
    loaded = {"load": {"start": {"average": 10.0, "cpus": 2}}}
    assert not noise.busy(quiet) and noise.busy(loaded) and not noise.busy({}) and not noise.busy({"load": None})
    for _ in range(6):
        _store_run(store, {**here, **quiet}, [100.0 * 0.999, 100.0 * 1.001, 100.0])
    for level in (200.0, 300.0, 250.0):
        _store_run(store, {**here, **loaded}, [level * 0.999, level * 1.001, level])
    now_quiet = _store_run(store, {**here, **quiet}, [100.0, 100.1, 99.9])
    [(_, level)] = store.run_levels(now_quiet, {**here, **quiet}).items()
    assert level.earlier_runs == 6 and level.variance == 0
    now_busy = _store_run(store, {**here, **loaded}, [260.0, 261.0, 259.0])
    [(_, level)] = store.run_levels(now_busy, {**here, **loaded}).items()
    assert level.earlier_runs == 3 and level.relative_sd > 0.15
    store.close()


def test_a_run_in_one_host_state_takes_the_prior_its_earlier_runs_of_identical_code_show(db_url):
    """The processes of a 7 s run can all meet one of the host's two states and agree as
    closely as a chain's: alone, that chose the chain's prior for a copy loop whose next
    run read 13% higher. With one or two earlier runs of the same code (too few for a run level), the
    kind is chosen over their processes too: spread over both states there, or each run in
    its own state, the copy loop gets the wide kind; a chain that agrees everywhere keeps
    the narrow one. Each case on a machine of its own (a host name each)."""
    store = open_store(db_url)
    key = history_key(_process_records([1])[0])
    one_state = [0.502, 0.5021, 0.5019, 0.5022, 0.502, 0.5018]

    def kind(host: str, earlier: list[list[float]], medians: list[float], code=CODE_A) -> str:
        here = {"host": host, "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64", "code": code}
        store.save_machine_priors(noise.Machine.of(here), [
            dict(kind="latency-bound", variance=0.001 ** 2, df=9, process_cv2=0.002 ** 2, process_df=40, runs=10,
                 load=0),
            dict(kind="loop-bound", variance=0.1 ** 2, df=9, process_cv2=0.25 ** 2, process_df=40, runs=10, load=0)])
        for values in earlier:
            _store_run(store, here, values)
        return store.run_levels(_store_run(store, here, medians), here)[key].kind

    assert kind("alone", [], one_state) == "latency-bound"  # what a run alone can tell
    assert kind("after-both-states", [[0.50, 0.80, 0.52, 0.81, 0.50, 0.79]], one_state) == "loop-bound"
    assert kind("after-the-other-state", [[x * 1.6 for x in one_state]], one_state) == "loop-bound"
    assert kind("two-earlier", [one_state, [x * 1.6 for x in one_state]], one_state) == "loop-bound"
    chain = [115.0, 115.1, 114.9, 115.05]
    assert kind("chain", [chain, chain[::-1]], [115.02, 114.97, 115.03, 115.0], CODE_B) == "latency-bound"
    # An odd process in an earlier run is that run's outlier, not the spread.
    assert kind("odd", [[115.0, 115.1, 114.9, 115.05, 123.0]], chain) == "latency-bound"
    store.close()


def test_an_outlier_process_is_marked_and_left_out_of_the_figure():
    level = RunLevel(variance=0.0, earlier_runs=10, df=9, process_cv2=0.003 ** 2, process_df=20)
    medians = [100.0, 100.2, 99.8, 121.0, 100.1]
    assert noise.outlier_processes(medians, level) == [3]
    assert noise.outlier_processes(medians, None) == []  # alone, a run cannot tell an outlier from a state
    assert noise.outlier_processes([100.0, 100.0, 130.0, 130.0], level) == []  # two states, not outliers
    [figure] = combine(_process_records(medians), {history_key(_process_records([1])[0]): level})
    assert figure.summary["outlier_processes"] == [3] and figure.summary["disagree"]
    assert figure.median == pytest.approx(np.mean([100.0, 100.2, 99.8, 100.1]))
    assert figure.summary["processes"] == 4


def test_one_odd_process_does_not_give_a_new_programs_figure_the_widest_prior(db_url):
    """A chain's run where 4 processes agree to 0.05% and one read +7% (seen on this VM):
    the prior's kind is chosen by the four (latency-bound), not by a CV the odd one sets
    (which chose the copy loop's 25%: +-32%); the odd process is then marked and left out."""
    store = open_store(db_url)
    here = {"host": "box", "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64", "code": CODE_A}
    store.save_machine_priors(noise.Machine.of(here), [
        dict(kind="latency-bound", variance=0.0007 ** 2, df=9, process_cv2=0.0022 ** 2, process_df=20, runs=10, load=0),
        dict(kind="loop-bound", variance=0.13 ** 2, df=9, process_cv2=0.25 ** 2, process_df=20, runs=10, load=0)])
    medians = [114.30, 114.25, 114.33, 114.28, 122.3]
    run_id = _store_run(store, here, medians)
    [(key, level)] = store.run_levels(run_id, here).items()
    assert level.kind == "latency-bound"
    [figure] = combine(_process_records(medians), {key: level})
    assert figure.summary["outlier_processes"] == [4]
    assert figure.median == pytest.approx(np.mean(medians[:4]))
    low, high = figure.summary["median_ci"]
    assert (high - low) / 2 / figure.median < 0.02  # the copy loop's prior gave +-32%
    store.close()


def test_a_stored_prior_that_is_not_finite_or_is_negative_is_ignored_with_one_warning(tmp_path, capsys):
    """Issue 31: an infinite or NaN prior gave tracebacks in run/show/stats/compare/gate, or `+-nan`."""
    import sqlite3
    url = f"sqlite:///{tmp_path / 'priors.db'}"
    store = open_store(url)
    here = {"host": "box", "cpu": "CPU X", "kernel": "6.1", "arch": "x86_64"}
    kinds = ["latency-bound", "loop-bound", "syscall", "spare"]
    store.save_machine_priors(noise.Machine.of(here), [
        dict(kind=kind, variance=0.003 ** 2, df=4, process_cv2=0.001 ** 2, process_df=10, runs=6, load=0.1)
        for kind in kinds])
    with sqlite3.connect(tmp_path / "priors.db") as db:  # as another program could write it
        db.execute("UPDATE machine_priors SET variance = 9e999 WHERE kind = 'latency-bound'")
        db.execute("UPDATE machine_priors SET process_cv2 = -0.5 WHERE kind = 'loop-bound'")
        db.execute("UPDATE machine_priors SET df = 'x' WHERE kind = 'syscall'")
    capsys.readouterr()
    assert [row["kind"] for row in store.machine_priors(noise.Machine.of(here))] == ["spare"]
    assert [row["kind"] for row in store.machine_priors(noise.Machine.of(here))] == ["spare"]
    warned = capsys.readouterr().err.splitlines()
    assert warned == [f"warning: the machine prior {kind!r} stored in {url} is ignored: {why} "
                      "(run benchlab calibrate to measure it again)"
                      for kind, why in (("latency-bound", "its variance is inf, not a finite number >= 0"),
                                        ("loop-bound", "its process_cv2 is -0.5, not a finite number >= 0"),
                                        ("syscall", "its df is 'x', not a whole number >= 0"))]
    store.close()
