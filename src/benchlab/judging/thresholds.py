"""Which noise floor and threshold a row is judged at: one rule for every command that judges
(`compare`, `gate`, `ab`, `report`).

A row's noise floor is its benchmark's own `[compare.noise_floors]` entry of benchlab.toml,
else the command's `--noise-floor`, else benchlab.toml's `compare.noise_floor` (1% by
default); a deterministic count's is 0 (statistics/compare.py: exact figures have no noise).
A row's threshold exists only where the command judges against one (`gate`, `ab
--max-regression`, `report --max-regression`): its benchmark's own `[gate.max_regression]`,
else, for a row `gate --judge counts` judges on a counter, that counter's threshold, else
the command's `--max-regression`. A verdict is read against 1 + the larger of the two
(`Comparison.limit`).

`ab` once built one floor and one threshold for every row and judged a benchmark with its
own 50% floor and 40% threshold at 1% and 2% (issue 39): every command now asks `row`.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Mapping

from benchlab.config import Config
from benchlab.statistics.compare import DEFAULT_NOISE_FLOOR, INCONCLUSIVE, Comparison, limit_of, verdict_of


@dataclasses.dataclass(frozen=True)
class RowThresholds:
    """What one row is judged at (fractions: 0.02 for 2%)."""
    floor: float
    #: None: the command judges against no threshold, only the noise floor (`compare`).
    threshold: float | None

    @property
    def limit(self) -> float:
        """1 + the slowdown that counts, as Comparison.limit."""
        return limit_of(self.floor, self.threshold)


@dataclasses.dataclass(frozen=True)
class Thresholds:
    """A command's floors and thresholds: benchlab.toml's per benchmark, and its defaults."""
    #: --noise-floor, else compare.noise_floor.
    default_floor: float = DEFAULT_NOISE_FLOOR
    #: --max-regression; None: nothing is judged against a threshold.
    max_regression: float | None = None
    #: [compare.noise_floors]: a benchmark's own floor.
    floors: Mapping[str, float] = dataclasses.field(default_factory=dict)
    #: [gate.max_regression]: a benchmark's own threshold.
    own: Mapping[str, float] = dataclasses.field(default_factory=dict)
    #: `gate --judge counts`: a counter's threshold, for the rows judged on it.
    counters: Mapping[str, float] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, config: Config, *, floor: float | None = None, max_regression: float | None = None,
           counters: Mapping[str, float] | None = None) -> Thresholds:
        """The rule of a command given its flags in percent (`floor`: --noise-floor,
        `max_regression`: --max-regression; None where not given) and, for `--judge counts`,
        the counters' thresholds (fractions)."""
        return cls(default_floor=floor / 100 if floor is not None else config.noise_floor,
                   max_regression=max_regression / 100 if max_regression is not None else None,
                   floors=dict(config.noise_floors), own=dict(config.max_regressions), counters=dict(counters or {}))

    def row(self, bench: str, *, counter: str | None = None, deterministic: bool = False) -> RowThresholds:
        """The noise floor and threshold of a row of benchmark `bench`; `counter`: the counter a
        `--judge counts` row is judged on; `deterministic`: exact counts, whose floor is 0."""
        floor = 0.0 if deterministic else self.floors.get(bench, self.default_floor)
        if self.max_regression is None:
            return RowThresholds(floor, None)
        if bench in self.own:
            return RowThresholds(floor, self.own[bench])
        if counter is not None and counter in self.counters:
            return RowThresholds(floor, self.counters[counter])
        return RowThresholds(floor, self.max_regression)

    def floor_of(self, bench: str) -> float:
        """A time figure's noise floor (what statistics/compare.py and measuring/ab.py build rows with)."""
        return self.row(bench).floor

    def judge(self, comparisons: list[Comparison]) -> list[Comparison]:
        """Each row given its floor and threshold; the rows, for chaining."""
        for c in comparisons:
            found = self.row(c.key[0], deterministic=c.deterministic)
            c.floor, c.threshold = found.floor, found.threshold
        return comparisons

    def decider(self, settled: frozenset[str] | set[str] = frozenset()) -> Callable[[tuple, float, float], bool]:
        """Whether a re-measured figure's interval (its record key, low, high) is decided: on
        one side of its row's limit (measuring/ab.py stops measuring it then). A benchmark in
        `settled` is judged on something else (its counts, `gate --judge counts`): its time
        is decided at once."""
        def decided(key: tuple, low: float, high: float) -> bool:
            return key[0] in settled or verdict_of(low, high, self.row(key[0]).limit) != INCONCLUSIVE
        return decided
