"""One `benchlab run`'s measuring, out of the command: rounds of fresh processes, each
round one process of every unit in a shuffled order, as many rounds as the run's
`Budget` allows. The command (cli/run.py) gives it callbacks for progress and storage
and keeps only the outline: flags, plan, output (pyperf's `Manager` and hyperfine's
`Scheduler` own their loops the same way).

**The budget** says how many rounds run:
- a fixed count: `--processes N`, the presets `--fast` (3) and `--rigorous` (20), or the
  default (5);
- `--time S`: as many rounds as fit in S seconds of the command's wall time, counted
  from the process's start (`process_started`) but for the builds (`Session.build`: a
  first build of many sources would leave time for one process of each): another round
  starts while the time so far plus the mean round's fits in S; the table and the
  storage after the last round add a fraction of a second. A budget shorter
  than one round runs one, and says so;
- `--precision PCT`: rounds until every timing figure's rerun interval (the one the
  table prints) is within +-PCT%, judged from 3 processes on, or until the budget is
  spent (`--time`, else 60 s), or at once when the spread between earlier runs of the
  same code alone is wider than PCT (more processes cannot narrow that part). The run
  says which stopped it.
Rounds, not processes of one unit at a time: each round meets the host's state of its
seconds, so a longer budget is more rounds of every unit, never more of one.
"""
from __future__ import annotations

import dataclasses
import math
import os
import random
import time
from typing import Callable, Iterator

from benchlab.errors import UserError

#: The presets (pyperf's names): processes per unit. --fast about halves a default run's
#: time; --rigorous spends 4 times its processes.
PRESETS = {"fast": 3, "rigorous": 20}
#: Seconds a --precision run may take when --time does not bound it.
PRECISION_BUDGET_S = 60.0
#: Rounds before a run-level --precision is judged: 2 processes barely tell their spread.
PRECISION_FROM_ROUNDS = 3
#: Rounds at most: --processes' own upper bound.
MAX_ROUNDS = 1000

STOP_COUNT, STOP_TIME, STOP_PRECISION, STOP_UNREACHABLE = "processes", "time", "precision", "unreachable"
#: The run's results filled what a run may hold (limits.MAX_RUN_RESULT_BYTES): the runner's `full`.
STOP_FULL = "full"


#: A process older than this when the command starts was not started for it (a test, a
#: script calling benchlab.cli.main): its budget counts from the command instead.
MAX_START_UP_S = 5.0


def process_started(clock: Callable[[], float] = time.monotonic,
                    age: Callable[[], float | None] = lambda: process_age()) -> float:
    """When this command started, on `clock`'s scale: the process's start (`age` seconds
    ago), so that a budget counts Python's start-up and imports too (about half a second);
    now, where the age is unknown or the process is older than MAX_START_UP_S (benchlab
    called from a long-lived script: the budget is the command's, not the process's)."""
    seconds = age()
    return clock() - seconds if seconds is not None and 0.0 <= seconds <= MAX_START_UP_S else clock()


def process_age() -> float | None:
    """Seconds since this process started, on Linux: /proc/self/stat's start time (clock
    ticks since boot) against the boot clock now; None elsewhere."""
    try:
        with open("/proc/self/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
        since_boot = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime
        return time.clock_gettime(time.CLOCK_BOOTTIME) - since_boot
    except (OSError, ValueError, IndexError, AttributeError):
        return None


@dataclasses.dataclass(frozen=True)
class Budget:
    """How many rounds a run makes: `processes` of them, or as many as `seconds` and
    `precision` (percent) allow."""

    processes: int | None = None
    seconds: float | None = None
    precision: float | None = None

    @classmethod
    def from_flags(cls, *, processes: int | None, seconds: float | None, precision: float | None,
                   fast: bool, rigorous: bool, default: int) -> "Budget":
        """The budget of `run`'s flags; a UserError naming the flags that contradict."""
        if fast and rigorous:
            raise UserError("--fast and --rigorous are presets of how many processes run: give one of them")
        preset = "--fast" if fast else "--rigorous" if rigorous else None
        timed = [flag for flag, value in (("--time", seconds), ("--precision", precision)) if value is not None]
        deciders = [flag for flag in (("--processes" if processes is not None else None), preset) if flag] + timed
        if len(deciders) > 1 and not (deciders == ["--time", "--precision"]):
            raise UserError(f"{' and '.join(deciders)} each decide how many processes run: give one of them",
                            "--time S and --precision PCT go together: rounds until PCT or S seconds")
        if timed:
            return cls(seconds=seconds, precision=precision)
        if preset:
            return cls(processes=PRESETS[preset.lstrip("-")])
        return cls(processes=processes or default)

    @property
    def fixed(self) -> bool:
        return self.processes is not None

    @property
    def limit_s(self) -> float | None:
        """The wall time the rounds may take; None for a fixed count."""
        return None if self.fixed else (self.seconds if self.seconds is not None else PRECISION_BUDGET_S)

    def stop(self, rounds: int, elapsed: float, round_seconds: list[float], widest: "Widest | None") -> str | None:
        """Why no further round starts after `rounds` (STOP_*), or None to run another.
        `widest`: the timing figure whose rerun interval is widest so far."""
        if self.fixed:
            return STOP_COUNT if rounds >= self.processes else None
        if self.precision is not None and rounds >= PRECISION_FROM_ROUNDS and widest is not None:
            if widest.half <= self.precision / 100:
                return STOP_PRECISION
            if widest.floor > self.precision / 100:
                return STOP_UNREACHABLE
        mean_round = sum(round_seconds) / len(round_seconds) if round_seconds else 0.0
        if rounds >= MAX_ROUNDS or elapsed + mean_round > self.limit_s:
            return STOP_TIME
        return None


def rounds(units: list, seed: int) -> Iterator[list[tuple]]:
    """The rounds of a run, without end: round i runs every unit once as its i-th process,
    in an order shuffled by `seed`; a workload only in the first (it times its own runs)."""
    rng = random.Random(seed)
    index = 0
    while True:
        round_units = [u for u in units if index == 0 or u.target.kind != "workload"]
        rng.shuffle(round_units)
        yield [(unit, index) for unit in round_units]
        index += 1


@dataclasses.dataclass
class Outcome:
    """What a session measured, and why it stopped."""

    records: list = dataclasses.field(default_factory=list)
    faults: list = dataclasses.field(default_factory=list)
    filtered_out: int = 0
    rounds: int = 0
    elapsed: float = 0.0
    stopped: str | None = None
    #: The figure with the widest rerun interval when the session stopped (with --precision).
    widest: "Widest | None" = None
    #: Seconds of builds before the first process, outside `elapsed` and the budget.
    built: float = 0.0


class Session:
    """The rounds of one run (see the module's docstring). Callbacks:
    `on_round(order)` as a round is planned (the run's context lists it), `on_start(unit)`
    as a process starts, `on_result(unit, result)` as it finishes, `on_skip(unit)` for a
    unit whose build already failed; `levels()` the earlier runs' noise for the rerun
    intervals --precision judges (noise.run_levels)."""

    def __init__(self, runner, units: list, seed: int, budget: Budget, *, started: float,
                 clock: Callable[[], float] = time.monotonic):
        self.runner, self.budget, self.units = runner, budget, units
        self.started, self.clock = started, clock
        #: Seconds the builds took (`build`), which the budget does not count.
        self.build_seconds = 0.0
        self._more_rounds = rounds(units, seed)
        #: The rounds known before the first process starts (a fixed count's all, else the
        #: first), generated once: the plan stored with the run is the order that runs.
        if self._single:
            self.plan = [[(unit, 0) for unit in units]]  # one process: the plan's order, nothing to balance
        else:
            self.plan = [next(self._more_rounds) for _ in range(budget.processes if budget.fixed else 1)]

    def build(self) -> None:
        """Every unit built before the first process: the budget's time counts from after
        the builds, as if the command had started then."""
        began = self.clock()
        self.runner.build_all(self.units)
        self.build_seconds = self.clock() - began
        self.started += self.build_seconds

    @property
    def _single(self) -> bool:
        return self.budget.fixed and self.budget.processes == 1

    def planned(self) -> list[tuple]:
        """The processes known before the first starts, in the order they will run."""
        return [process for order in self.plan for process in order]

    def _next_round(self, index: int) -> list[tuple] | None:
        if index < len(self.plan):
            return self.plan[index]
        return None if self.budget.fixed else next(self._more_rounds)

    def run(self, *, on_round, on_start, on_result, on_skip, levels: Callable[[], dict | None]) -> Outcome:
        outcome, round_seconds = Outcome(built=self.build_seconds), []
        while True:
            order = self._next_round(outcome.rounds)
            if order is None:
                break
            if outcome.rounds >= len(self.plan):
                on_round(order)  # the rounds of the plan the run began with are in its context already
            began = self.clock()
            for unit, process in order:
                if self.runner.known_build_failure(unit):
                    on_skip(unit)
                    continue
                on_start(unit)
                result = self.runner.run_unit(unit, None if self._single else process)
                outcome.records.extend(result.records)
                outcome.faults.extend(result.faults)
                outcome.filtered_out += result.filtered_out
                on_result(unit, result)
                if getattr(self.runner, "full", False):  # that process's fault says so
                    outcome.rounds += 1
                    outcome.elapsed = self.clock() - self.started
                    outcome.stopped = STOP_FULL
                    return outcome
            round_seconds.append(self.clock() - began)
            outcome.rounds += 1
            outcome.elapsed = self.clock() - self.started
            judged = self.budget.precision is not None and outcome.rounds >= PRECISION_FROM_ROUNDS
            outcome.widest = widest_interval(outcome.records, levels()) if judged else None
            outcome.stopped = self.budget.stop(outcome.rounds, outcome.elapsed, round_seconds, outcome.widest)
            if outcome.stopped:
                break
        return outcome


@dataclasses.dataclass(frozen=True)
class Widest:
    """A figure's rerun interval, relative to the figure: its half-width, and the part no
    number of processes narrows (the spread between earlier runs of the same code, or, where
    none were measured, one process's spread standing in for it: `own`)."""
    name: str
    half: float
    floor: float
    own: bool = False


def widest_interval(records: list, levels: dict | None) -> Widest | None:
    """The timing figure whose rerun interval (combine: the one the table prints) is widest
    relative to its figure; None without such figures."""
    from benchlab.statistics import noise
    from benchlab.statistics.combine import combine, history_key

    widest = None
    for figure in combine(records, levels or {}):
        interval = figure.figures.interval if figure.counter == "time" else None
        if not interval or not figure.median or figure.median <= 0:
            continue
        half = (interval[1] - interval[0]) / 2 / figure.median
        level = (levels or {}).get(history_key(figure))
        own = level is not None and level.source == noise.OWN_PROCESSES
        floor = 0.0 if level is None else _floor_quantile(level, own) * math.sqrt(2 * level.variance)
        name = figure.bench + (f"/{figure.param}" if figure.param is not None else "") + f" on {figure.platform}"
        if widest is None or half > widest.half:
            widest = Widest(name, half, floor, own)
    return widest


def _floor_quantile(level, own: bool) -> float:
    """The quantile the floor of a figure's interval is read at: the run level's own t, or,
    for one process's spread standing in (noise.own_level), the normal's: its degrees of
    freedom are the processes', which grow as more run (at 3 processes 1% apart, t(2) put
    the floor at +-14% and a --precision 5 run gave up where 30 processes reach +-3.3%)."""
    from benchlab.stats import t_quantile_99

    return t_quantile_99(10 ** 6) if own else t_quantile_99(level.df)


def stop_note(budget: Budget, outcome: Outcome) -> str | None:
    """The line saying what stopped a budgeted run, or a run whose results filled the memory
    a run may hold; None for a fixed count that ran to its end."""
    if outcome.stopped == STOP_FULL:
        return (f"stopped in process {outcome.rounds} of each binary: the run's results reached what a run "
                "may hold in memory (its fault says more); what was measured so far is kept")
    if budget.fixed:
        return None
    spent = f"{outcome.rounds} process{'es' if outcome.rounds != 1 else ''} of each binary in {outcome.elapsed:.1f} s"
    if outcome.built >= 0.1:
        spent += f" (the builds before them, {outcome.built:.1f} s, not counted)"
    widest = (f" (widest: {outcome.widest.name}, +-{100 * outcome.widest.half:.2g}%)"
              if outcome.widest else "")
    if outcome.stopped == STOP_PRECISION:
        return f"{spent}: every figure's rerun interval is within +-{budget.precision:g}%{widest}"
    if outcome.stopped == STOP_UNREACHABLE and outcome.widest.own:
        return (f"{spent}: stopped short of +-{budget.precision:g}%: with no earlier runs of the same code and no "
                f"machine prior, a rerun may move as far as one process, which keeps {outcome.widest.name}'s rerun "
                f"interval at +-{100 * outcome.widest.floor:.2g}% or more whatever the processes (benchlab calibrate "
                "measures the machine's spread between runs)")
    if outcome.stopped == STOP_UNREACHABLE:
        return (f"{spent}: stopped short of +-{budget.precision:g}%: the spread between earlier runs of the same "
                f"code keeps {outcome.widest.name}'s rerun interval at +-{100 * outcome.widest.floor:.2g}% or more, "
                "which more processes cannot narrow (benchlab stats shows it)")
    if outcome.rounds == 1 and outcome.elapsed > budget.limit_s:
        return (f"{spent}: the budget of {budget.limit_s:g} s is shorter than one process of each binary; "
                "ran one (give a longer --time for a spread between processes)")
    if budget.precision is not None:
        return f"{spent}: the budget of {budget.limit_s:g} s is spent before +-{budget.precision:g}%{widest}"
    return f"{spent}: the --time budget of {budget.limit_s:g} s is spent"
