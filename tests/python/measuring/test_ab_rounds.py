"""benchlab.measuring.ab's rounds with a stand-in runner: the early stop the gate asks for
(`decided`), a decided pair no longer run, a failing pair dropped (remeasure.py)."""
import itertools
import random
from types import SimpleNamespace

from benchlab.judging.thresholds import Thresholds
from benchlab.measuring.ab import MIN_ROUNDS, ABRun, Pair
from benchlab.statistics.sequential import LOOKS, Rule
from benchlab.records import Fault, Record
from benchlab.measuring.runner import UnitResult


def unit(name: str, flavor: str = "benchlab") -> SimpleNamespace:
    """What ABRun reads of a unit: its target's flavor; the stand-in runner keys on the name."""
    return SimpleNamespace(name=name, target=SimpleNamespace(flavor=flavor))


def pair(name: str, a: str, b: str) -> Pair:
    return Pair(name, unit(a), unit(b))


class StandIn:
    """Runs nothing: each unit's process reports, per benchmark, `figures[name]` (+-0.1% by
    round parity), or `figures[name][bench]` for several; a unit named in `failing` fails.
    Honours --filter as the header does (a substring of the benchmark's name). Counts the
    processes of each unit and keeps the filters each was given."""

    def __init__(self, figures: dict, failing: tuple[str, ...] = (), spread: float = 0.001):
        self.figures, self.failing = figures, failing
        self.ran: dict[str, int] = {}
        self.filters: dict[str, list] = {}
        self.turn = itertools.count()
        #: +-spread by round parity when small; drawn uniformly from a seeded generator when
        #: wide, so that a figure on its threshold stays undecided for many rounds.
        self.spread, self.rng = spread, random.Random(3)

    def run_unit(self, unit, process=None, cpu=None, filters=None):
        name = unit.name
        self.ran[name] = self.ran.get(name, 0) + 1
        self.filters.setdefault(name, []).append(filters)
        if name in self.failing:
            return UnitResult(unit, faults=[Fault(name, "native", "exit status 127")])
        parity = next(self.turn) % 2
        wobble = (1 + self.spread if parity else 1 - self.spread) if self.spread <= 0.001 else \
            1 + self.rng.uniform(-self.spread, self.spread)
        figures = self.figures[name] if isinstance(self.figures[name], dict) else {"b": self.figures[name]}
        return UnitResult(unit, records=[
            Record(bench=bench, param=None, samples=[value * wobble] * 9, platform="native", binary=name)
            for bench, value in figures.items() if filters is None or any(f in bench for f in filters)])


def run(runner, pairs, threshold=0.02, limit=60.0, clock=None):
    return ABRun(runner, pairs, seed=1, precision=0.0, time_limit=limit, max_rounds=200, duet=False, floor_of=lambda _: 0.01,
                 decided=Thresholds(max_regression=threshold).decider(), drop_failing=True,
                 **({"clock": clock} if clock else {})).run()


def test_rounds_stop_once_every_figure_is_on_one_side_of_its_threshold():
    # 10% slower and unchanged: both decided after the first MIN_ROUNDS rounds.
    runner = StandIn({"a1": 100.0, "b1": 110.0, "a2": 50.0, "b2": 50.0})
    result = run(runner, [pair("one", "a1", "b1"), pair("two", "a2", "b2")])
    assert result.rounds == MIN_ROUNDS
    assert sorted(round(c.ratio, 2) for c in result.comparisons) == [1.0, 1.1]


def test_a_decided_pair_stops_while_an_undecided_one_goes_on():
    # "two" sits on the threshold (2% slower, +-2% a round, against 2%): never decided, so it runs to
    # max_rounds, while "one" (10% slower) stops at the first look that decides it.
    runner = StandIn({"a1": 100.0, "b1": 110.0, "a2": 100.0, "b2": 102.0}, spread=0.02)
    result = run(runner, [pair("one", "a1", "b1"), pair("two", "a2", "b2")])
    assert runner.ran["a1"] in LOOKS and runner.ran["a2"] == result.rounds == 200


def test_a_pair_that_fails_is_dropped_with_its_reason_and_the_others_go_on():
    runner = StandIn({"a1": 100.0, "b1": 110.0, "a2": 50.0, "b2": 50.0}, failing=("b2",))
    result = run(runner, [pair("one", "a1", "b1"), pair("two", "a2", "b2")])
    assert result.failed == {"two": "B: exit status 127"}
    assert runner.ran["b2"] == 1 and [c.key[0] for c in result.comparisons] == ["b"]


def test_a_decided_row_is_measured_no_more_while_its_binary_runs_the_undecided_ones():
    # One binary, two benchmarks: "fast_change" is 10% slower (decided at a look),
    # "on_edge" sits on the threshold (never decided). From then on the binary's processes
    # run only "on_edge" (--filter), so "fast_change" keeps the rounds of its look.
    runner = StandIn({"a": {"fast_change": 100.0, "on_edge": 100.0}, "b": {"fast_change": 110.0, "on_edge": 102.0}},
                     spread=0.02)
    result = run(runner, [pair("suite", "a", "b")])
    rounds = {c.key[0]: len(c.rounds[0]) for c in result.comparisons}
    decided_at = rounds["fast_change"]
    assert decided_at in LOOKS and rounds["on_edge"] == result.rounds == 200
    assert runner.filters["a"][:decided_at] == [None] * decided_at
    assert set(runner.filters["a"][decided_at:]) == {("on_edge",)}


def test_a_foreign_binary_is_run_whole():
    runner = StandIn({"a": {"fast_change": 100.0, "on_edge": 100.0}, "b": {"fast_change": 110.0, "on_edge": 102.0}},
                     spread=0.02)
    result = ABRun(runner, [Pair("suite", unit("a", "gbench"), unit("b", "gbench"))], seed=1, precision=0.0,
                   time_limit=60, max_rounds=20, duet=False, floor_of=lambda _: 0.01, decided=Thresholds(max_regression=0.02).decider()).run()
    assert set(runner.filters["a"]) == {None} and result.rounds > MIN_ROUNDS


def test_the_time_limit_is_read_from_the_injected_clock():
    # Each reading of the clock moves it 1 s: the rounds stop once 10 s have passed,
    # whatever the real time.
    ticks = itertools.count()
    runner = StandIn({"a2": 100.0, "b2": 102.0}, spread=0.02)
    result = ABRun(runner, [pair("two", "a2", "b2")], seed=1, precision=0.0, time_limit=10, max_rounds=200,
                   duet=False, floor_of=lambda _: 0.01, clock=lambda: float(next(ticks))).run()
    assert result.rounds == 10 and result.seconds == 11.0


def test_a_time_limit_too_short_for_the_rounds_a_verdict_needs_is_refused_before_anything_runs():
    import pytest
    from benchlab.errors import UserError
    from benchlab.measuring.ab import LEAST_BENCHMARK_S, LEAST_PROCESS_S, check_time_limit, least_round_seconds
    assert least_round_seconds([10, 0]) == pytest.approx(2 * (LEAST_PROCESS_S + 11 * LEAST_BENCHMARK_S)
                                                         + 2 * (LEAST_PROCESS_S + LEAST_BENCHMARK_S))
    needed = MIN_ROUNDS * least_round_seconds([10] * 12)
    check_time_limit(needed, [10] * 12)
    with pytest.raises(UserError) as refused:
        check_time_limit(needed * 0.9, [10] * 12)
    assert refused.value.what.startswith(f"--time-limit {needed * 0.9:g}: 12 program(s) need at least")
    assert "give --time-limit 4 or more" in refused.value.fix  # 6 rounds of 12 programs: 3.9 s


def test_the_default_time_limit_grows_with_the_programs_measured():
    from benchlab.measuring.ab import default_time_limit
    assert (default_time_limit(1), default_time_limit(3), default_time_limit(12)) == (30.0, 30.0, 120.0)


def test_the_intervals_of_many_rows_hold_together():
    # Ten figures of one binary judged at once: each row's share of the 1% is 0.1%, held over
    # all the looks that 30 rounds allow (6, 9, 14, 21, 31), so that all ten hold together
    # at 99%: identical code is flagged in 1 judgment in 100, not 10.
    from benchlab.statistics.paired import paired_interval
    from benchlab.statistics.sequential import family_level, look_levels
    figures = {f"row{k}": 100.0 for k in range(10)}
    runner = StandIn({"a": figures, "b": figures}, spread=0.02)
    result = ABRun(runner, [pair("suite", "a", "b")], seed=1, precision=0.0, time_limit=60, max_rounds=30,
                   duet=False, floor_of=lambda _: 0.01).run()
    assert family_level(10) == 0.999 and family_level(1) == 0.99
    level = look_levels(10, looks=(6, 9, 14, 21, 31))[-1]  # the last look: max_rounds (30) takes the place of 31
    assert Rule(10, 30).level_at(30) == level and 0.999 < level < 1 - 0.001 / 5  # tighter than one look, looser than Bonferroni
    for c in result.comparisons:
        ratios = [b / a for a, b in zip(*c.rounds)]
        assert (c.ratio, c.low, c.high) == paired_interval(ratios, level)
        assert c.low < paired_interval(ratios)[1] and c.high > paired_interval(ratios)[2]
        assert c.scope == "paired rounds; 99% for all 10 rows together over every look"


class SlowPhases(StandIn):
    """A's processes of rounds 2 and 5 met a host state three times slower, B's never did
    (the gate of issue 29 that printed 9561 / 11920 beside a B/A of 0.9653)."""

    def run_unit(self, unit, process=None, cpu=None, filters=None):
        result = super().run_unit(unit, process, cpu, filters)
        if unit.name == "a" and process in (2, 5):
            result.records = [Record(bench=r.bench, param=None, samples=[3 * s for s in r.samples],
                                     platform=r.platform, binary=r.binary) for r in result.records]
        return result


def test_the_a_and_b_columns_divide_to_the_paired_ratio():
    from benchlab.output.comparisons import render
    runner = SlowPhases({"a": 100.0, "b": 97.0})
    result = ABRun(runner, [pair("p", "a", "b")], seed=1, precision=0.0, time_limit=60, max_rounds=12,
                   duet=False, floor_of=lambda _: 0.01).run()
    [c] = result.comparisons
    a_rounds, b_rounds = c.rounds
    assert max(a_rounds) > 250 and sum(a_rounds) / len(a_rounds) > 130  # the slow rounds are in A's mean
    assert abs(c.a - 100.0) < 0.2 and c.b == c.a * c.ratio and c.program == "p"
    # as the markdown table prints them: the columns divide to B/A at its four decimals
    [line] = [line for line in render(result.comparisons, "A", "B", "markdown").splitlines() if line.startswith("| `b` ")]
    a_text, b_text, ratio_text = line.split(" | ")[2:5]
    assert abs(float(b_text) / float(a_text) - float(ratio_text)) < 0.0006


def test_with_a_threshold_precision_does_not_stop_an_undecided_row():
    # 2% slower against a 2% threshold, +-0.1% a round: within --precision 1% after 4 rounds,
    # but straddling the threshold; with a threshold, rounds go on to max_rounds (the time is
    # out), where before they stopped at the precision (issue 36: exit 4 after 4 s of 30 s).
    runner = StandIn({"a": 100.0, "b": 102.0})
    result = ABRun(runner, [pair("p", "a", "b")], seed=1, precision=0.01, time_limit=60, max_rounds=40,
                   duet=False, floor_of=lambda _: 0.01, decided=Thresholds(max_regression=0.02).decider()).run()
    assert result.rounds == 40
    # Without a threshold the same rounds stop at the first look within the precision (5%).
    runner = StandIn({"a": 100.0, "b": 102.0})
    result = ABRun(runner, [pair("p", "a", "b")], seed=1, precision=0.05, time_limit=60, max_rounds=40,
                   duet=False, floor_of=lambda _: 0.01).run()
    assert result.rounds == LOOKS[0]


def test_decisions_are_taken_only_at_looks_and_a_decided_row_keeps_its_interval():
    # 3% slower, +-2% a round: decided at a look, never between; the rounds it got after its
    # look (its binary ran on for the undecided row) are not read.
    runner = StandIn({"a": {"fast_change": 100.0, "on_edge": 100.0}, "b": {"fast_change": 110.0, "on_edge": 102.0}},
                     spread=0.02)
    result = ABRun(runner, [Pair("suite", unit("a", "gbench"), unit("b", "gbench"))], seed=1, precision=0.0,
                   time_limit=60, max_rounds=50, duet=False, floor_of=lambda _: 0.01, decided=Thresholds(max_regression=0.02).decider()).run()
    by_name = {c.key[0]: c for c in result.comparisons}
    decided_at = len(by_name["fast_change"].rounds[0])
    assert decided_at in LOOKS and result.rounds == 50 and len(by_name["on_edge"].rounds[0]) == 50
    assert runner.ran["a"] == 50  # a foreign binary runs whole: fast_change got 50 rounds, read up to its look
