"""A run's session (session.py): how many rounds of processes its budget allows, in what
order, and why it stops; tested with a runner that measures nothing and a clock we move."""
import dataclasses

import pytest

from benchlab.statistics import noise
from benchlab.errors import UserError
from benchlab.records import Record
from benchlab.measuring.session import (
    PRECISION_BUDGET_S, STOP_COUNT, STOP_FULL, STOP_PRECISION, STOP_TIME, STOP_UNREACHABLE, Budget, Outcome, Session, rounds,
    stop_note, widest_interval)


@dataclasses.dataclass
class Target:
    name: str
    kind: str = "source"


@dataclasses.dataclass
class Unit:
    target: Target


@dataclasses.dataclass
class Result:
    records: list
    faults: list = dataclasses.field(default_factory=list)
    filtered_out: int = 0
    context: dict | None = None


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeRunner:
    """Each process takes `seconds` on the clock and reads `figure(unit, process)` ns."""

    def __init__(self, clock: Clock, seconds: float, figure=lambda unit, process: 100.0):
        self.clock, self.seconds, self.figure = clock, seconds, figure
        self.ran: list[tuple[str, int | None]] = []

    def known_build_failure(self, unit) -> bool:
        return False

    def run_unit(self, unit, process):
        self.clock.now += self.seconds
        self.ran.append((unit.target.name, process))
        median = self.figure(unit, process)
        record = Record(bench=unit.target.name, param=None, samples=[median * 0.999, median, median * 1.001] * 4,
                        platform="native", binary=unit.target.name)
        record.reported["process"] = process
        return Result([record])


def session(budget: Budget, seconds: float = 1.0, figure=lambda unit, process: 100.0, units=("a", "b"), levels=None):
    clock = Clock()
    runner = FakeRunner(clock, seconds, figure)
    made = Session(runner, [Unit(Target(name)) for name in units], 7, budget, started=0.0, clock=clock)
    added = []
    outcome = made.run(on_round=added.append, on_start=lambda unit: None, on_result=lambda unit, result: None,
                       on_skip=lambda unit: None, levels=lambda: levels)
    return made, runner, outcome, added


def test_flags_that_each_decide_the_count_contradict_and_time_goes_with_precision():
    def flags(**given):
        base = dict(processes=None, seconds=None, precision=None, fast=False, rigorous=False, default=5)
        return Budget.from_flags(**{**base, **given})

    assert flags() == Budget(processes=5)
    assert flags(processes=2) == Budget(processes=2)
    assert flags(fast=True) == Budget(processes=3) and flags(rigorous=True) == Budget(processes=20)
    assert flags(seconds=7.0, precision=1.0) == Budget(seconds=7.0, precision=1.0)
    with pytest.raises(UserError, match="--fast and --rigorous are presets"):
        flags(fast=True, rigorous=True)
    with pytest.raises(UserError, match="--processes and --time each decide"):
        flags(processes=3, seconds=2.0)
    with pytest.raises(UserError, match="--rigorous and --precision each decide"):
        flags(rigorous=True, precision=1.0)


def test_rounds_run_every_unit_once_each_in_an_order_the_seed_fixes():
    units = [Unit(Target(name)) for name in "abcd"] + [Unit(Target("w", kind="workload"))]
    first = rounds(units, 3)
    taken = [next(first) for _ in range(3)]
    assert sorted(u.target.name for u, _ in taken[0]) == ["a", "b", "c", "d", "w"]
    assert all(sorted(u.target.name for u, _ in r) == ["a", "b", "c", "d"] for r in taken[1:])  # a workload once
    assert [index for _, index in taken[2]] == [2] * 4
    again = rounds(units, 3)
    assert [[u.target.name for u, _ in next(again)] for _ in range(3)] == [[u.target.name for u, _ in r] for r in taken]


def test_a_fixed_count_runs_its_rounds_and_its_plan_is_the_order_it_ran():
    made, runner, outcome, added = session(Budget(processes=3))
    assert outcome.rounds == 3 and outcome.stopped == STOP_COUNT
    assert [(u.target.name, p) for u, p in made.planned()] == runner.ran
    assert added == []  # all of it was in the plan the run began with
    assert stop_note(Budget(processes=3), outcome) is None


def test_one_process_keeps_the_plans_order_and_no_process_index():
    _, runner, outcome, _ = session(Budget(processes=1), units=("c", "a", "b"))
    assert runner.ran == [("c", None), ("a", None), ("b", None)] and outcome.rounds == 1


def test_a_time_budget_runs_the_rounds_that_fit_and_says_the_budget_was_spent():
    # Processes of 1 s, 2 units: rounds of 2 s. In 7 s: 3 rounds (6 s; a fourth would end at 8 s).
    budget = Budget(seconds=7.0)
    _, runner, outcome, added = session(budget)
    assert outcome.rounds == 3 and outcome.stopped == STOP_TIME and outcome.elapsed == 6.0
    assert len(runner.ran) == 6 and len(added) == 2  # rounds 2 and 3 were added to the plan as they started
    assert stop_note(budget, outcome) == "3 processes of each binary in 6.0 s: the --time budget of 7 s is spent"


class BuildingRunner(FakeRunner):
    """A runner whose units each take `build` seconds to build the first time they are
    needed: in build_all, or else in their first process (as measuring/runner.py does)."""

    def __init__(self, clock: Clock, seconds: float, build: float):
        super().__init__(clock, seconds)
        self.build, self.built = build, set()

    def build_all(self, units):
        for unit in units:
            self._built(unit)

    def _built(self, unit):
        if unit.target.name not in self.built:
            self.built.add(unit.target.name)
            self.clock.now += self.build

    def run_unit(self, unit, process):
        self._built(unit)
        return super().run_unit(unit, process)


@pytest.mark.parametrize("build_first, rounds", [(True, 3), (False, 1)])
def test_the_builds_are_outside_the_time_budget(build_first, rounds):
    # Two units of 20 s builds (a first build, nothing cached) and 1 s processes, 7 s of budget:
    # built first, 3 rounds of processes fit as without builds; built in the first round, one.
    clock = Clock()
    runner = BuildingRunner(clock, seconds=1.0, build=20.0)
    made = Session(runner, [Unit(Target("a")), Unit(Target("b"))], 7, Budget(seconds=7.0), started=0.0, clock=clock)
    if build_first:
        made.build()
    outcome = made.run(on_round=lambda order: None, on_start=lambda unit: None, on_result=lambda unit, result: None,
                       on_skip=lambda unit: None, levels=lambda: None)
    assert outcome.rounds == rounds and outcome.stopped == STOP_TIME
    if build_first:
        assert (made.build_seconds, outcome.elapsed) == (40.0, 6.0)
        assert stop_note(Budget(seconds=7.0), outcome) == (
            "3 processes of each binary in 6.0 s (the builds before them, 40.0 s, not counted): the --time budget "
            "of 7 s is spent")


def test_a_budget_shorter_than_one_round_runs_one_and_says_so():
    budget = Budget(seconds=0.5)
    _, runner, outcome, _ = session(budget)
    assert outcome.rounds == 1 and len(runner.ran) == 2
    assert stop_note(budget, outcome) == (
        "1 process of each binary in 2.0 s: the budget of 0.5 s is shorter than one process of each binary; "
        "ran one (give a longer --time for a spread between processes)")


def test_precision_stops_once_every_rerun_interval_is_narrow_enough():
    # Processes alternate 100 and 101 ns: the interval of their mean narrows as rounds add up.
    figure = lambda unit, process: 100.0 + (process % 2)  # noqa: E731
    budget = Budget(precision=0.5)
    _, _, outcome, _ = session(budget, figure=figure)
    assert outcome.stopped == STOP_PRECISION and outcome.rounds > 3
    assert outcome.widest.half <= 0.005
    # One round fewer was not enough: the rule stopped at the first round that was.
    _, _, shorter, _ = session(Budget(processes=outcome.rounds - 1), figure=figure)
    assert widest_interval(shorter.records, None).half > 0.005
    note = stop_note(budget, outcome)
    assert note.startswith(f"{outcome.rounds} processes of each binary in ") and "within +-0.5% (widest: " in note


def test_precision_out_of_reach_of_more_processes_stops_at_once_and_says_why():
    # Earlier runs of this code differ by 1% between runs: no count of processes narrows a
    # rerun interval below that, so +-0.5% stops after the first judged round.
    level = noise.RunLevel(variance=0.01 ** 2, earlier_runs=20, df=19)
    levels = {(("a", None, "time", None), "native", "a"): level}
    budget = Budget(precision=0.5)
    _, _, outcome, _ = session(budget, units=("a",), levels=levels)
    assert outcome.stopped == STOP_UNREACHABLE and outcome.rounds == 3
    assert outcome.widest.floor == pytest.approx(2.861 * 0.01 * 2 ** 0.5, rel=1e-3)  # t(0.995; 19) sqrt(2) s_run
    assert "stopped short of +-0.5%" in stop_note(budget, outcome) and "+-4%" in stop_note(budget, outcome)


def test_one_process_standing_in_for_the_run_level_is_out_of_reach_only_at_any_count():
    # No earlier runs and no prior: one process's spread stands in (noise.own_level), its
    # degrees of freedom the processes', which grow as more run. Its floor is read at the
    # normal's quantile: 1% is +-3.6%, within +-5%, so the run goes on (at t(2) it was +-14%
    # and the run gave up at round 3); 3% is +-11% whatever the count: said so at once.
    key = (("a", None, "time", None), "native", "a")
    budget = Budget(precision=5, seconds=4.0)
    one_percent = {key: noise.RunLevel(variance=0.01 ** 2, earlier_runs=0, df=2, source=noise.OWN_PROCESSES)}
    _, _, outcome, _ = session(budget, units=("a",), levels=one_percent)
    assert outcome.stopped == STOP_TIME and outcome.rounds > 3
    assert outcome.widest.own and outcome.widest.floor == pytest.approx(2.5758 * 0.01 * 2 ** 0.5, rel=1e-3)
    three_percent = {key: noise.RunLevel(variance=0.03 ** 2, earlier_runs=0, df=2, source=noise.OWN_PROCESSES)}
    _, _, outcome, _ = session(budget, units=("a",), levels=three_percent)
    assert outcome.stopped == STOP_UNREACHABLE and outcome.rounds == 3
    note = stop_note(budget, outcome)
    assert "no earlier runs of the same code and no machine prior" in note and "+-11% or more" in note
    assert "earlier runs of the same code keeps" not in note


def test_precision_alone_is_bounded_by_its_default_budget():
    budget = Budget(precision=0.0001)
    _, _, outcome, _ = session(budget, seconds=5.0, figure=lambda unit, process: 100.0 + 3 * (process % 2))
    assert outcome.stopped == STOP_TIME and outcome.elapsed <= PRECISION_BUDGET_S
    assert "the budget of 60 s is spent before +-0.0001%" in stop_note(budget, outcome)


def test_the_outcome_holds_every_record_in_the_order_measured():
    _, runner, outcome, _ = session(Budget(processes=2))
    assert [(r.bench, r.reported["process"]) for r in outcome.records] == runner.ran
    assert isinstance(outcome, Outcome) and outcome.filtered_out == 0


def test_a_budget_counts_from_the_process_start_not_from_the_command():
    from benchlab.measuring.session import MAX_START_UP_S, process_age, process_started
    # A process that started 0.3 s before asking: its start lies that far back.
    assert process_started(clock=lambda: 100.0, age=lambda: 0.3) == pytest.approx(99.7)
    # One that has lived longer (benchlab called from a script) counts from the call: a budget
    # is the command's, not the process's; so does one whose age is unknown (not Linux).
    assert process_started(clock=lambda: 100.0, age=lambda: MAX_START_UP_S + 0.5) == 100.0
    assert process_started(clock=lambda: 100.0, age=lambda: None) == 100.0
    # This process's age, read from /proc, is a real age: it started before this line ran.
    assert process_age() is not None and process_age() > 0




def test_a_run_whose_results_fill_what_a_run_may_hold_starts_no_further_process():
    clock = Clock()

    class FillingRunner(FakeRunner):
        full = False

        def run_unit(self, unit, process):
            self.full = len(self.ran) == 2  # the third process's results reach the limit
            return super().run_unit(unit, process)

    runner = FillingRunner(clock, 1.0)
    made = Session(runner, [Unit(Target(name)) for name in ("a", "b")], 7, Budget(processes=5), started=0.0, clock=clock)
    outcome = made.run(on_round=lambda order: None, on_start=lambda unit: None, on_result=lambda unit, result: None,
                       on_skip=lambda unit: None, levels=lambda: None)
    assert len(runner.ran) == 3 and len(outcome.records) == 3
    assert outcome.stopped == STOP_FULL and outcome.rounds == 2
    assert stop_note(Budget(processes=5), outcome) == (
        "stopped in process 2 of each binary: the run's results reached what a run may hold in memory "
        "(its fault says more); what was measured so far is kept")
