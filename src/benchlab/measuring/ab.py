"""Two builds interleaved: A and B in alternating processes, paired by round.

Each round runs one process of A and one of B, in an order drawn at random for that
round (randomized multiple interleaved trials: Abedi and Brecht, ICPE 2017), so load
that comes and goes meets both, and pairs them: for every benchmark the round gives
one ratio, B's median over A's. The ratio and its interval come from the rounds' ratios
(statistics/paired.py), the error term being how much the pairs disagree: what a shared
slow phase does to both halves of a pair cancels in their ratio.

When to stop is the stopping rule's (statistics/sequential.py): rounds are read only at
its looks (6, 9, 14, 21, ... rounds), at a level that holds 99% over all of them. With a
threshold (`decided`: the gate, `ab --max-regression`) a figure is measured until a look
decides it or the time is out; without one, until every interval is within --precision.

With `duet`, A and B run at the same time, one per CPU, swapping CPUs each round (Bulej
et al., "Duet benchmarking: improving measurement accuracy in the cloud", Empirical
Software Engineering 25, 2020): noise that hits the machine hits both at once.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import random
import threading
import time
from typing import Any, Callable, ContextManager

import numpy as np

from benchlab.statistics import sequential
from benchlab.statistics.compare import Comparison
from benchlab.statistics.paired import paired_interval
from benchlab.errors import UserError
from benchlab.records import Fault, Record
from benchlab.measuring.runner import Runner, Unit

#: Rounds before the first look (sequential.FIRST_LOOK): fewer give a t interval of too
#: few degrees of freedom to decide anything.
MIN_ROUNDS = sequential.FIRST_LOOK
#: What an A/B interval rests on (compare.Comparison.scope).
PAIRED_ROUNDS = "paired rounds"


@dataclasses.dataclass
class Pair:
    """One program as built from A and from B."""
    name: str
    a: Unit
    b: Unit


class NoDisplay:
    """The rounds' progress of a caller that shows none (`ab`'s and the gate's silent listener)."""
    def line(self, text: str) -> None:
        pass

    def round_done(self, rounds: int) -> None:
        pass


def no_display(*_: Any) -> ContextManager[NoDisplay]:
    """A listener's default `rounds`, whatever limits it is given: shows nothing."""
    return contextlib.nullcontext(NoDisplay())


@dataclasses.dataclass
class ABResult:
    comparisons: list[Comparison]
    rounds: int
    records: list[Record]
    faults: list[Fault]
    seconds: float
    #: Pairs dropped after a failed process (drop_failing): name -> why.
    failed: dict[str, str] = dataclasses.field(default_factory=dict)


#: Each benchmark's sampling time in a process of `ab` or the gate's re-measurement (the
#: header's --time-limit; it still takes 10 samples). Short processes, many rounds: the
#: paired ratio's spread is the processes' host states, not their samples, so rounds buy
#: precision and samples do not. Measured on suites/calls A/A, 10 s each (2026-11-24, this
#: VM, Intel host): at the header's 0.01 s, 44 rounds, half-widths 6-16%; at 0.002 s, 127
#: rounds, 0.9-5%; at 0.001 s, 0.6-3.4%. `ab` at the header's default left suites/calls'
#: A/A inconclusive after 30 s in 3 of 3 pairs on a quiet machine where the gate decided
#: it in 12-14 s (bench/README.md, "Verdicts on a busy machine").
PROCESS_TIME_LIMIT_S = 0.001
#: The least time one process of a benchlab binary takes at the gate's settings: its start
#: (exec, the timer's ~2 ms setup) and, per benchmark, calibration and 10 samples of about
#: PROCESS_TIME_LIMIT_S each. A lower bound, for refusing a time limit that
#: cannot fit the rounds a verdict needs before anything runs (least_round_seconds).
LEAST_PROCESS_S = 0.005
LEAST_BENCHMARK_S = 0.002
#: The default time limit of `ab` and the gate: at least DEFAULT_TIME_LIMIT_S, and
#: TIME_PER_PAIR_S per program measured: twelve binaries cannot share 30 s the way one does.
DEFAULT_TIME_LIMIT_S = 30.0
TIME_PER_PAIR_S = 10.0


def default_time_limit(pairs: int) -> float:
    """The time `ab` and the gate may take by default for `pairs` programs."""
    return max(DEFAULT_TIME_LIMIT_S, TIME_PER_PAIR_S * pairs)


def least_round_seconds(benchmarks_per_pair: list[int]) -> float:
    """A lower bound on one round (a process of A and one of B per pair)."""
    return sum(2 * (LEAST_PROCESS_S + LEAST_BENCHMARK_S * (count + 1)) for count in benchmarks_per_pair)


def check_time_limit(time_limit: float, benchmarks_per_pair: list[int], flag: str = "--time-limit") -> None:
    """Refuse, before anything runs, a time limit under MIN_ROUNDS rounds of the least estimate."""
    least = MIN_ROUNDS * least_round_seconds(benchmarks_per_pair)
    if time_limit < least:
        raise UserError(f"{flag} {time_limit:g}: {len(benchmarks_per_pair)} program(s) need at least {least:.2g} s "
                        f"for the {MIN_ROUNDS} rounds a verdict needs",
                        f"give {flag} {max(1, math.ceil(least)):d} or more, or leave it out for the default")


class ABRun:
    def __init__(self, runner: Runner, pairs: list[Pair], *, seed: int, precision: float, time_limit: float,
                 max_rounds: int, duet: bool, floor_of: Callable[[str], float], progress: Callable[[str], None] = lambda _: None,
                 decided: Callable[[tuple, float, float], bool] | None = None, drop_failing: bool = False,
                 clock: Callable[[], float] = time.monotonic, on_round: Callable[[int], None] = lambda _: None):
        self.runner, self.pairs = runner, pairs
        #: Whether a figure's interval (key, low, high) is decided: the gate's and `ab
        #: --max-regression`'s verdict against its row's limit (judging/thresholds.py). A decided
        #: figure is measured no more: its binary's later processes run only the undecided
        #: benchmarks (--filter), so the rounds go where the answer is missing. Without it,
        #: rounds stop once every interval is within `precision`.
        self.decided = decided
        self.clock = clock
        #: per (pair name, record key, platform): what --filter selects that figure by
        self.filters: dict[tuple, str] = {}
        #: A pair whose process fails is not run again, its reason kept (the gate falls back).
        self.drop_failing = drop_failing
        self.failed: dict[str, str] = {}
        self.rng = random.Random(seed)
        self.precision, self.time_limit, self.max_rounds = precision, time_limit, max_rounds
        #: A benchmark's noise floor by its name (judging/thresholds.py), for the rows' Comparisons.
        self.floor_of = floor_of
        self.duet, self.progress = duet, progress
        #: Told the rounds so far after each round (a progress bar's step); `progress` gets a line every 10.
        self.on_round = on_round
        #: per (pair name, record key, platform): the ratio of each round
        self.ratios: dict[tuple, list[float]] = {}
        self.units: dict[tuple, str] = {}
        self.figures: dict[tuple, tuple[list[float], list[float]]] = {}  # A's and B's medians
        #: per figure decided at a look: the rounds its verdict rests on and the look's level.
        #: A verdict once reached is final: rounds a figure gets after it (its benchmark ran
        #: for another one's sake) are not read.
        self.closed: dict[tuple, tuple[int, float]] = {}
        self.rule: sequential.Rule | None = None
        #: The rounds of the latest look: the open figures are read at its level.
        self.last_look = 0
        self.records: list[Record] = []
        self.faults: list[Fault] = []

    def run(self) -> ABResult:
        started = self.clock()
        rounds = 0
        while rounds < self.max_rounds:
            running = [pair for pair in self.pairs if pair.name not in self.failed and not self._pair_decided(pair)]
            if not running:
                break
            for pair in running:
                self._round(pair, rounds)
            rounds += 1
            self.on_round(rounds)
            if rounds % 10 == 0:
                self.progress(f"round {rounds}: the widest interval is +-{self._widest():.2%}")
            out_of_time = self.clock() - started >= self.time_limit
            if self.ratios and (self._stopping_rule().is_look(rounds) or out_of_time or rounds >= self.max_rounds):
                if self._look(rounds) or self._stopping_rule().ended(rounds):
                    break
            if out_of_time:
                break
        return ABResult(self._comparisons(), rounds, self.records, self.faults, self.clock() - started,
                        dict(self.failed))

    def _stopping_rule(self) -> sequential.Rule:
        """The looks and their level, fixed at the first look (the rows are known by then):
        as many looks as the most rounds that could fit --max-rounds and the time limit."""
        if self.rule is None:
            fastest = least_round_seconds([0] * len(self.pairs))
            most = min(self.max_rounds, math.ceil(self.time_limit / fastest))
            self.rule = sequential.Rule(len(self.ratios), most)
        return self.rule

    def _look(self, rounds: int) -> bool:
        """Read every open figure's interval at the look's level, close the decided ones;
        whether the rounds may stop: every figure decided, or (without a threshold) every
        interval within --precision."""
        self.last_look = rounds
        if self.decided is None:
            return self._widest() <= self.precision
        level = self._stopping_rule().level_at(rounds)
        for key, ratios in self.ratios.items():
            if key not in self.closed and self.decided(key[1], *paired_interval(ratios, level)[1:]):
                self.closed[key] = (len(ratios), level)
        return len(self.closed) == len(self.ratios)

    def _undecided_filters(self, pair: Pair) -> tuple[str, ...] | None:
        """--filter values selecting the pair's undecided figures (None: run every benchmark):
        only for benchlab binaries, and when some of its figures are decided."""
        if self.decided is None or pair.a.target.flavor != "benchlab":
            return None
        mine = [key for key in self.ratios if key[0] == pair.name]
        open_keys = [key for key in mine if key not in self.closed]
        if len(open_keys) == len(mine) or any(key not in self.filters for key in open_keys):
            return None
        return tuple(sorted({self.filters[key] for key in open_keys}))

    def _round(self, pair: Pair, index: int) -> None:
        sides = [("a", pair.a), ("b", pair.b)]
        self.rng.shuffle(sides)
        filters = self._undecided_filters(pair)
        if self.duet:
            cpu = {"a": index % 2, "b": 1 - index % 2}  # A and B swap CPUs each round
            results = {}
            threads = [threading.Thread(target=lambda s=s, u=u: results.__setitem__(s, self.runner.run_unit(u, index, cpu[s])))
                       for s, u in sides]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        else:
            results = {side: self.runner.run_unit(unit, index, filters=filters) for side, unit in sides}
        for side in ("a", "b"):
            for record in results[side].records:
                record.reported["ab_side"] = side
            self.records.extend(results[side].records)
            self.faults.extend(results[side].faults)
            if self.drop_failing and results[side].faults:
                self.failed.setdefault(pair.name, f"{side.upper()}: {results[side].faults[0].reason}")
        if pair.name in self.failed:
            self.ratios = {key: value for key, value in self.ratios.items() if key[0] != pair.name}
            return
        a_figures = {(r.key, r.platform): r for r in results["a"].records if _has_figure(r)}
        for record in results["b"].records:
            a = a_figures.get((record.key, record.platform))
            if a is None or not _has_figure(record):
                continue
            key = (pair.name, record.key, record.platform)
            self.ratios.setdefault(key, []).append(record.median / a.median)
            self.units[key] = record.unit
            self.filters[key] = filter_text(record)
            a_medians, b_medians = self.figures.setdefault(key, ([], []))
            a_medians.append(a.median)
            b_medians.append(record.median)

    def _pair_decided(self, pair: Pair) -> bool:
        """Whether every figure of `pair` is decided: its processes need not run again while
        the others' go on, so the undecided get the rounds."""
        mine = [key for key in self.ratios if key[0] == pair.name]
        return bool(mine) and all(key in self.closed for key in mine)

    def _read(self, key: tuple) -> tuple[list[float], float]:
        """The rounds a figure's interval rests on and its level: those of its decision, if
        it was decided; else all of them, at the latest look's level (99% for all figures
        together, over all the rule's looks: sequential.py)."""
        if key in self.closed:
            rounds, level = self.closed[key]
            return self.ratios[key][:rounds], level
        return self.ratios[key], self._stopping_rule().level_at(self.last_look)

    def _widest(self) -> float:
        widths = []
        for key in self.ratios:
            ratio, low, high = paired_interval(*self._read(key))
            widths.append(max(high / ratio - 1, 1 - low / ratio))
        return max(widths) if widths else math.inf

    def _comparisons(self) -> list[Comparison]:
        result = []
        for name, key, platform in self.ratios:
            ratios, level = self._read((name, key, platform))
            ratio, low, high = paired_interval(ratios, level)
            a_medians, b_medians = (side[:len(ratios)] for side in self.figures[(name, key, platform)])
            a_figure, b_figure = paired_figures(a_medians, ratio)
            result.append(Comparison(key=key, platform=platform, unit=self.units[(name, key, platform)],
                                     a=a_figure, b=b_figure, program=name,
                                     ratio=ratio, low=low, high=high, floor=self.floor_of(key[0]),
                                     scope=paired_scope(PAIRED_ROUNDS, len(self.ratios)),
                                     processes=(len(ratios), len(ratios)),
                                     rounds=(list(a_medians), list(b_medians))))
        return result


def paired_figures(a_medians: list[float], ratio: float) -> tuple[float, float]:
    """The A and B columns of a paired row: A's median round, and B as A times the rounds'
    ratio, so that the columns divide to the B/A beside them.

    The ratio is the paired estimate (paired_interval), robust to rounds that met different
    host states; the sides' own means are not: one A process that met a slow state raises A's
    mean and leaves B's alone, and a gate once showed 9561 / 11920 = 0.80 beside a B/A of
    0.9653 (issue 29). B's own median round would not divide to the ratio either (the median
    of ratios is not the ratio of medians); the ratio is what the verdict rests on, so the
    columns follow it. The rounds themselves stay in `Comparison.rounds` (json)."""
    a_figure = float(np.median(a_medians))
    return a_figure, a_figure * ratio


def paired_scope(method: str, rows: int) -> str:
    """What an interval of paired rounds rests on, and that it holds with the others' over
    every look the stopping rule took (sequential.py)."""
    together = "" if rows <= 1 else f" for all {rows} rows together"
    return f"{method}; 99%{together} over every look"


def filter_text(record: Record) -> str:
    """What the header's --filter (a substring of `name` or `name/param_name=value`) selects
    this record's benchmark by."""
    if record.param is None or record.param_name is None:
        return record.bench
    return f"{record.bench}/{record.param_name}={record.param}"


def _has_figure(record: Record) -> bool:
    """A figure a ratio can be taken of: measured, and not indistinguishable from zero."""
    return record.supported and bool(record.median) and not record.figures.zero
