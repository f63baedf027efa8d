"""Two builds interleaved: A and B in alternating processes, paired by round.

Each round runs one process of A and one of B, in an order drawn at random for that
round (randomized multiple interleaved trials: Abedi and Brecht, ICPE 2017), so load
that comes and goes meets both, and pairs them: for every benchmark the round gives
one ratio, B's median over A's. Rounds go on until every benchmark's interval is
narrower than --precision (after MIN_ROUNDS), or --time-limit. The ratio is the
geometric mean of the rounds' ratios; its 99% interval is the t interval of their
logarithms, the error term being how much the pairs disagree: what a shared slow phase
does to both halves of a pair cancels in their ratio.

With `duet`, A and B run at the same time, one per CPU, swapping CPUs each round (Bulej
et al., "Duet benchmarking: improving measurement accuracy in the cloud", Empirical
Software Engineering 25, 2020): noise that hits the machine hits both at once.
"""
from __future__ import annotations

import dataclasses
import math
import random
import threading
import time
from typing import Callable

import numpy as np

from benchlab import stats
from benchlab.statistics import distributions
from benchlab.statistics.compare import Comparison, family_level
from benchlab.errors import UserError
from benchlab.records import Fault, Record
from benchlab.measuring.runner import Runner, Unit

#: Rounds before a precision stop: fewer give a t interval of 1 degree of freedom.
MIN_ROUNDS = 4
#: From this many rounds on, the signed-rank interval (paired_interval).
ROBUST_FROM = 10
#: The standard normal's 0.995 quantile: a two-sided 99% interval.
Z_995 = 2.5758293035489004
#: What an A/B interval rests on (compare.Comparison.scope).
PAIRED_ROUNDS = "paired rounds"


@dataclasses.dataclass
class Pair:
    """One program as built from A and from B."""
    name: str
    a: Unit
    b: Unit


@dataclasses.dataclass
class ABResult:
    comparisons: list[Comparison]
    rounds: int
    records: list[Record]
    faults: list[Fault]
    seconds: float
    #: Pairs dropped after a failed process (drop_failing): name -> why.
    failed: dict[str, str] = dataclasses.field(default_factory=dict)


def paired_interval(ratios: list[float], level: float = stats.CI_LEVEL) -> tuple[float, float, float]:
    """The rounds' ratio and its 99% interval, on their logarithms: from ROBUST_FROM rounds
    on, the Hodges-Lehmann estimate (the median of the Walsh averages) and the Wilcoxon
    signed-rank interval; before that, their mean and the t interval.

    Why not the mean and t from the start: on a VM whose host switches state within
    seconds, a round whose two processes met different states reads +-30% where the others
    agree to 1-2%. Those rounds come in both directions (the order of A and B is drawn
    each round), so the logs stay symmetric about the true ratio, which is all the signed-
    rank interval assumes; but they make the sd, and so the t interval, several times
    wider than the rounds that agree (tests/python/cli/test_ab.py: a contaminated A/A, 30% of
    rounds +-30%: the t interval +-4.5% wide, the signed-rank one +-0.8%, both covering 1
    at least 99% of the time)."""
    logs = [math.log(r) for r in ratios]
    if len(logs) < 2:
        return math.exp(logs[0]) if logs else 1.0, 0.0, math.inf
    if len(logs) >= ROBUST_FROM:
        z = Z_995 if level == stats.CI_LEVEL else distributions.normal_quantile_two_sided(level)
        centre, low, high = signed_rank_interval(logs, z)
        return math.exp(centre), math.exp(low), math.exp(high)
    mean = sum(logs) / len(logs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    t = stats.t_quantile_99(len(logs) - 1) if level == stats.CI_LEVEL else distributions.t_quantile(len(logs) - 1, level)
    half = t * sd / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def signed_rank_interval(values: list[float], z: float = Z_995) -> tuple[float, float, float]:
    """The Hodges-Lehmann estimate of the centre of a symmetric distribution and its
    interval by Wilcoxon's signed-rank statistic (normal approximation: n >= ROBUST_FROM;
    `z` the normal quantile of its level, 99% by default): the k-th smallest and largest
    of the n(n+1)/2 Walsh averages (x_i + x_j) / 2, i <= j."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    i, j = np.triu_indices(n)
    walsh = np.sort((x[i] + x[j]) / 2)
    m = len(walsh)
    k = int(math.floor(m / 2 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24)))
    k = min(max(k, 0), (m - 1) // 2)
    return float(np.median(walsh)), float(walsh[k]), float(walsh[m - 1 - k])


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
                 max_rounds: int, duet: bool, floor: float, progress: Callable[[str], None] = lambda _: None,
                 decided: Callable[[tuple, float, float], bool] | None = None, drop_failing: bool = False,
                 clock: Callable[[], float] = time.monotonic, on_round: Callable[[int], None] = lambda _: None):
        self.runner, self.pairs = runner, pairs
        #: Stop once every figure's interval (key, low, high) is decided, after MIN_ROUNDS: the
        #: gate's early stop at the precision its threshold needs (remeasure.py). A decided
        #: figure is measured no more: its binary's later processes run only the undecided
        #: benchmarks (--filter), so the rounds go where the answer is missing.
        self.decided = decided
        self.clock = clock
        #: per (pair name, record key, platform): what --filter selects that figure by
        self.filters: dict[tuple, str] = {}
        #: A pair whose process fails is not run again, its reason kept (the gate falls back).
        self.drop_failing = drop_failing
        self.failed: dict[str, str] = {}
        self.rng = random.Random(seed)
        self.precision, self.time_limit, self.max_rounds = precision, time_limit, max_rounds
        self.duet, self.floor, self.progress = duet, floor, progress
        #: Told the rounds so far after each round (a progress bar's step); `progress` gets a line every 10.
        self.on_round = on_round
        #: per (pair name, record key, platform): the ratio of each round
        self.ratios: dict[tuple, list[float]] = {}
        self.units: dict[tuple, str] = {}
        self.figures: dict[tuple, tuple[list[float], list[float]]] = {}  # A's and B's medians
        self.records: list[Record] = []
        self.faults: list[Fault] = []

    def run(self) -> ABResult:
        started = self.clock()
        rounds = 0
        while rounds < self.max_rounds:
            running = [pair for pair in self.pairs if pair.name not in self.failed and not self._pair_decided(pair, rounds)]
            if not running:
                break
            for pair in running:
                self._round(pair, rounds)
            rounds += 1
            self.on_round(rounds)
            if rounds % 10 == 0:
                self.progress(f"round {rounds}: the widest interval is +-{self._widest():.2%}")
            if rounds >= MIN_ROUNDS and (self._widest() <= self.precision or self._all_decided()):
                break
            if self.clock() - started >= self.time_limit:
                break
        return ABResult(self._comparisons(), rounds, self.records, self.faults, self.clock() - started,
                        dict(self.failed))

    def _undecided_filters(self, pair: Pair, rounds: int) -> tuple[str, ...] | None:
        """--filter values selecting the pair's undecided figures (None: run every benchmark):
        only for benchlab binaries, after MIN_ROUNDS, and when some of its figures are decided."""
        if self.decided is None or rounds < MIN_ROUNDS or pair.a.target.flavor != "benchlab":
            return None
        mine = {key: ratios for key, ratios in self.ratios.items() if key[0] == pair.name}
        open_keys = [key for key, ratios in mine.items()
                     if not self.decided(key[1], *paired_interval(ratios, self.level)[1:])]
        if len(open_keys) == len(mine) or any(key not in self.filters for key in open_keys):
            return None
        return tuple(sorted({self.filters[key] for key in open_keys}))

    def _round(self, pair: Pair, index: int) -> None:
        sides = [("a", pair.a), ("b", pair.b)]
        self.rng.shuffle(sides)
        filters = self._undecided_filters(pair, index)
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

    def _pair_decided(self, pair: Pair, rounds: int) -> bool:
        """Whether every figure of `pair` is decided (after MIN_ROUNDS): its processes need not
        run again while the others' go on, so the undecided get the rounds."""
        mine = [(key, ratios) for key, ratios in self.ratios.items() if key[0] == pair.name]
        return (self.decided is not None and rounds >= MIN_ROUNDS and bool(mine)
                and all(self.decided(key[1], *paired_interval(ratios, self.level)[1:]) for key, ratios in mine))

    def _all_decided(self) -> bool:
        if self.decided is None or not self.ratios:
            return False
        return all(self.decided(key[1], *paired_interval(ratios, self.level)[1:])
                   for key, ratios in self.ratios.items())

    @property
    def level(self) -> float:
        """Each figure's interval level: 99% for all of them together (family_level)."""
        return family_level(len(self.ratios))

    def _widest(self) -> float:
        widths = []
        for ratios in self.ratios.values():
            ratio, low, high = paired_interval(ratios, self.level)
            widths.append(max(high / ratio - 1, 1 - low / ratio))
        return max(widths) if widths else math.inf

    def _comparisons(self) -> list[Comparison]:
        result = []
        for (name, key, platform), ratios in self.ratios.items():
            ratio, low, high = paired_interval(ratios, self.level)
            a_medians, b_medians = self.figures[(name, key, platform)]
            a_figure, b_figure = paired_figures(a_medians, ratio)
            result.append(Comparison(key=key, platform=platform, unit=self.units[(name, key, platform)],
                                     a=a_figure, b=b_figure, program=name,
                                     ratio=ratio, low=low, high=high, floor=self.floor,
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
    """What an interval of paired rounds rests on, and that it holds together with the others'."""
    return method if rows <= 1 else f"{method}; 99% for all {rows} rows together"


def filter_text(record: Record) -> str:
    """What the header's --filter (a substring of `name` or `name/param_name=value`) selects
    this record's benchmark by."""
    if record.param is None or record.param_name is None:
        return record.bench
    return f"{record.bench}/{record.param_name}={record.param}"


def _has_figure(record: Record) -> bool:
    """A figure a ratio can be taken of: measured, and not indistinguishable from zero."""
    return record.supported and bool(record.median) and not record.figures.zero
