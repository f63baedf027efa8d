"""A benchmark's cost less its base's (the header's BL_DIFFERENCE), paired round by round.

libloong reports a syscall's own cost by subtracting the median of an empty VM call from
the syscall's median. Two medians subtracted carry each one's noise and a slow phase of
the machine that hit one of them only. The header samples the benchmark and its base in
the same rounds, and its record carries the base's sample of each round
(`base_samples`); the figure here is the median of the per-round differences, each side
less its share of the same round's empty loop (as the header reports them), and its 99%
interval is the median's interval over those differences (stats.median_ci), so a slow
phase that slows both cancels, as it does in a ratio.

Across processes the figure is the mean of the processes' differences and the interval
covers a rerun of as many processes (noise.rerun_half_width, without a run level: no
earlier runs are kept for a difference), the same rule as a benchmark's own figure.
"""
from __future__ import annotations

import dataclasses
import statistics
from typing import Any, Sequence

from benchlab.records import Record, finite_number
from benchlab import stats
from benchlab.statistics import noise

#: Where a combined record keeps its processes' difference (combine.combine_processes).
COMBINED_KEY = "difference_figure"


@dataclasses.dataclass(frozen=True)
class Difference:
    base: str          #: the base's name as the binary printed it (its instance: args/n=1)
    value: float       #: ns per iteration, this benchmark less its base
    low: float
    high: float
    processes: int
    scope: str         #: what the interval covers: stats.WITHIN_RUN or a rerun of as many processes

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> "Difference | None":
        """The figure `as_dict` wrote; None unless every field has its type (a store holds what an
        import gave it: a string there broke `show` of that run for good, issue 37)."""
        if not isinstance(data, dict):
            return None
        figures = [data.get(key) for key in ("value", "low", "high")]
        processes = data.get("processes")
        if (not all(finite_number(value) for value in figures) or not isinstance(data.get("base"), str)
                or not data["base"] or not isinstance(data.get("scope"), str)
                or isinstance(processes, bool) or not isinstance(processes, int) or processes < 1):
            return None
        return cls(base=data["base"], value=float(figures[0]), low=float(figures[1]), high=float(figures[2]),
                   processes=processes, scope=data["scope"])


def base_samples(record: Record) -> list[float] | None:
    """The record's base samples, if they pair with its samples: one finite number each
    round (an imported record could hold nulls, which made a `nan ns` figure, or text)."""
    values = record.reported.get("base_samples")
    if (not isinstance(values, list) or not values or len(values) != len(record.samples)
            or not all(finite_number(value) for value in values)):
        return None
    return [float(value) for value in values]


def per_round(samples: Sequence[float], base_samples: Sequence[float],
              overhead_samples: Sequence[float] | None) -> list[float]:
    """Each round's difference; with the empty loop's samples, each side less its share
    of that round's empty loop (stats.loop_share of its own median, as the header takes it)."""
    x, b = [float(v) for v in samples], [float(v) for v in base_samples]
    if len(x) != len(b):
        raise ValueError(f"{len(x)} samples but {len(b)} base samples: one each round")
    if overhead_samples is None:
        return [v - w for v, w in zip(x, b)]
    loop = [float(v) for v in overhead_samples]
    loop_median = stats.quantile(sorted(loop), 0.5)
    own = stats.loop_share(stats.quantile(sorted(x), 0.5), loop_median)
    base = stats.loop_share(stats.quantile(sorted(b), 0.5), loop_median)
    return [(v - own * e) - (w - base * e) for v, w, e in zip(x, b, loop)]


def of_process(record: Record) -> Difference | None:
    """One process's difference to its base, from its samples; None without a base."""
    paired = base_samples(record)
    base = record.reported.get("difference_to")
    if not isinstance(base, str) or not base or paired is None:
        return None
    differences = per_round(record.samples, paired, record.overhead_samples)
    low, high = stats.median_ci(differences)
    return Difference(base=base, value=stats.quantile(sorted(differences), 0.5), low=low, high=high,
                      processes=1, scope=stats.WITHIN_RUN)


def of_processes(records: list[Record]) -> Difference | None:
    """The difference of several processes of one benchmark: their mean, and the interval a
    rerun of as many processes lands in; one process's as it is."""
    figures = [d for d in (of_process(r) for r in records) if d is not None]
    if len(figures) <= 1:
        return figures[0] if figures else None
    values = [d.value for d in figures]
    mean = statistics.fmean(values)
    half, _ = noise.rerun_half_width(mean, statistics.stdev(values), len(values), None, stats.t_quantile_99)
    return Difference(base=figures[0].base, value=mean, low=mean - half, high=mean + half,
                      processes=len(values), scope="a rerun of as many processes")


def of_record(record: Record) -> Difference | None:
    """A record's difference to its base: the combined one a record of several processes
    keeps, else its own process's."""
    if COMBINED_KEY in record.reported:
        return Difference.from_dict(record.reported[COMBINED_KEY])
    return of_process(record)
