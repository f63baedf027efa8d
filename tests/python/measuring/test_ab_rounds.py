"""benchlab.measuring.ab's rounds with a stand-in runner: the early stop the gate asks for
(`decided`), a decided pair no longer run, a failing pair dropped (remeasure.py)."""
import itertools

from benchlab.measuring.ab import MIN_ROUNDS, ABRun, Pair
from benchlab.records import Fault, Record
from benchlab.measuring.remeasure import decider
from benchlab.measuring.runner import UnitResult


class StandIn:
    """Runs nothing: each unit's process reports `figures[name]` (+-0.1% by round parity);
    a unit named in `failing` fails. Counts the processes of each unit."""

    def __init__(self, figures: dict[str, float], failing: tuple[str, ...] = ()):
        self.figures, self.failing = figures, failing
        self.ran: dict[str, int] = {}
        self.turn = itertools.count()

    def run_unit(self, unit, process=None, cpu=None):
        name = unit
        self.ran[name] = self.ran.get(name, 0) + 1
        if name in self.failing:
            return UnitResult(unit, faults=[Fault(name, "native", "exit status 127")])
        wobble = 1.001 if next(self.turn) % 2 else 0.999
        value = self.figures[name] * wobble
        return UnitResult(unit, records=[Record(bench="b", param=None, samples=[value] * 9, platform="native",
                                                binary=name)])


def run(runner, pairs, threshold=0.02, limit=60.0):
    return ABRun(runner, pairs, seed=1, precision=0.0, time_limit=limit, max_rounds=200, duet=False, floor=0.01,
                 decided=decider(lambda bench: threshold), drop_failing=True).run()


def test_rounds_stop_once_every_figure_is_on_one_side_of_its_threshold():
    # 10% slower and unchanged: both decided after the first MIN_ROUNDS rounds.
    runner = StandIn({"a1": 100.0, "b1": 110.0, "a2": 50.0, "b2": 50.0})
    result = run(runner, [Pair("one", "a1", "b1"), Pair("two", "a2", "b2")])
    assert result.rounds == MIN_ROUNDS
    assert sorted(round(c.ratio, 2) for c in result.comparisons) == [1.0, 1.1]


def test_a_decided_pair_stops_while_an_undecided_one_goes_on():
    # "two" sits on the threshold (2% slower against 2%): never decided, so it runs to
    # max_rounds, while "one" (10% slower) stops after MIN_ROUNDS.
    runner = StandIn({"a1": 100.0, "b1": 110.0, "a2": 100.0, "b2": 102.0})
    result = run(runner, [Pair("one", "a1", "b1"), Pair("two", "a2", "b2")])
    assert result.rounds == 200
    assert runner.ran["a1"] == MIN_ROUNDS and runner.ran["a2"] == 200


def test_a_pair_that_fails_is_dropped_with_its_reason_and_the_others_go_on():
    runner = StandIn({"a1": 100.0, "b1": 110.0, "a2": 50.0, "b2": 50.0}, failing=("b2",))
    result = run(runner, [Pair("one", "a1", "b1"), Pair("two", "a2", "b2")])
    assert result.failed == {"two": "B: exit status 127"}
    assert runner.ran["b2"] == 1 and [c.key[0] for c in result.comparisons] == ["b"]


def test_the_signed_rank_interval_by_hand():
    import math
    from benchlab.measuring.ab import signed_rank_interval
    values = [0.3, -0.1, 0.2, 0.0, 0.5, -0.4, 0.1, 0.25, -0.05, 0.15, 0.35, -0.2]
    walsh = sorted((values[i] + values[j]) / 2 for i in range(12) for j in range(i, 12))
    k = math.floor(len(walsh) / 2 - 2.5758293035489004 * math.sqrt(12 * 13 * 25 / 24))
    centre, low, high = signed_rank_interval(values)
    assert (low, high) == (walsh[k], walsh[-1 - k]) and k == 6  # the exact table says 7: a little conservative
    assert centre == (walsh[38] + walsh[39]) / 2  # 78 averages: the middle two


def test_rounds_that_met_different_host_states_do_not_set_the_width():
    """A/A rounds: 70% agree to 1.5%, 30% met different host states and read +-30% (either
    way). The signed-rank interval holds 1 at least 98% of the time (99% nominal) and is a
    fraction of the t interval's width, which the contaminated rounds set."""
    import numpy as np
    from benchlab.statistics import stats
    from benchlab.measuring.ab import paired_interval
    rng = np.random.default_rng(17)
    covered, robust_widths, t_widths = 0, [], []
    trials = 400
    for _ in range(trials):
        n = 60
        logs = np.where(rng.random(n) < 0.3, rng.choice([-0.3, 0.3], n) + rng.normal(0, 0.05, n), rng.normal(0, 0.015, n))
        ratio, low, high = paired_interval(list(np.exp(logs)))
        covered += low <= 1 <= high
        robust_widths.append(np.log(high / low) / 2)
        t_widths.append(stats.t_quantile_99(n - 1) * np.std(logs, ddof=1) / np.sqrt(n))
    assert covered / trials >= 0.98
    assert np.median(robust_widths) < 0.4 * np.median(t_widths)
