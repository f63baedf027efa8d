"""Two runs compared: per benchmark, the ratio B/A with an interval whose error term is
the variation between processes, and a verdict.

The unit is the process. A run of N processes gives N medians per benchmark; the two
runs' figures are the means of theirs (combine.py), and the ratio's interval is Welch's
t interval on the logarithm of the ratio, by the delta method:

    log(mean_b / mean_a) +- t(0.995; df) * sqrt(s_a^2 / (n_a mean_a^2) + s_b^2 / (n_b mean_b^2))

with df from Welch-Satterthwaite. Within-process noise is in it (each median carries
its own), and so are the CPU, layout and phase of the machine each process met, which
one process cannot see: a comparison of two single processes is the comparison whose
false alarms users of other tools complain about. When a side has one process only (a
foreign result file, `--processes 1`), its figure's own interval stands in for the
spread, and the comparison says it cannot see between-run variation; unless earlier
runs of several processes on B's machine measured the spread of one process's figure
(noise.py, pooled): that spread stands in for the one a single process cannot see.

When the store holds earlier runs of a benchmark on B's machine, the spread between
whole runs (noise.py) joins the error term: each side's figure varies by it too, so
2 s_run^2 is added under the root, its degrees of freedom pooled with the others'.

Verdicts, three and only three (issue 27): *slower* when the whole interval lies above
1 + threshold, *not slower* when the whole interval lies at or below it, *inconclusive*
when it straddles it: the evidence carries no answer, and no command reports that as
passed. The threshold is the gate's --max-regression (or `ab`'s), never below the noise
floor (default 1%: identical code at another address differs by that much); `compare`
judges at the noise floor. A row that is not slower is also called *faster* when its whole
interval lies below 1 / (1 + threshold): a note beside the verdict, not a fourth verdict.

A deterministic counter (instructions counted by callgrind: `"deterministic": true`)
is the same on every run of the same code, so its processes agree exactly, its ratio's
interval has zero width and its noise floor is 0: any difference is real, and no
difference is exactly none. Where both runs have time and instructions for a
benchmark, each changed row says why (`cause`): "code changed" when its instruction
count moved, "machine changed" when time moved beyond the noise and the instructions
did not.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable, Iterable

from benchlab import stats
from benchlab.statistics import noise
from benchlab.statistics.distributions import t_quantile
from benchlab.statistics.sequential import family_level
from benchlab.statistics.combine import figures, history_key, knows_process_spread
from benchlab.records import Record, printable

#: Below this relative change a difference is called "no change" even when significant:
#: identical code at another address or on another CPU differs by that much (issue 9).
DEFAULT_NOISE_FLOOR = 0.01

SLOWER, NOT_SLOWER, INCONCLUSIVE = "slower", "not slower", "inconclusive"
#: Every verdict a comparison can give, in the order summaries list them.
VERDICTS = (SLOWER, NOT_SLOWER, INCONCLUSIVE)
#: The note beside a "not slower" verdict whose whole interval is below 1 / (1 + threshold).
FASTER = "faster"
#: What a comparison's interval rests on.
BETWEEN_PROCESSES = "between processes"
BETWEEN_RUNS = "between processes and earlier runs of identical code"
BETWEEN_RUNS_PRIOR = "between processes and runs, from the machine prior (benchlab calibrate)"
BETWEEN_RUNS_OWN = "between processes and runs, as far as one process (no history, no machine prior)"
WITHIN_ONE_PROCESS = "within one process: cannot see between-run variation"
#: Added to the error term when each process of both runs had its own seed (own_seeds).
OWN_SEEDS = "; each process its own seed, so a figure that depends on bl_seed() has the seeds' spread in it"
EXACT = "exact: a deterministic counter"
#: Why a row changed, where instruction counts tell.
CODE_CHANGED, MACHINE_CHANGED = "code changed", "machine changed"
#: Counters that count the work the code does: when one moved, the code changed.
INSTRUCTION_COUNTERS = ("instructions",)


@dataclasses.dataclass
class Comparison:
    key: tuple          # (bench, param, counter, sweep value)
    platform: str
    unit: str
    a: float
    b: float
    ratio: float        # b / a
    low: float
    high: float
    floor: float
    scope: str
    processes: tuple[int, int]
    #: `ab` only: A's and B's medians of each round, in round order (paired), for tests of one's own.
    rounds: tuple[list[float], list[float]] | None = None
    #: Both sides are deterministic counts (callgrind): exact figures, noise floor 0.
    deterministic: bool = False
    #: CODE_CHANGED or MACHINE_CHANGED for a changed row whose instructions were compared too.
    cause: str | None = None
    #: The slowdown that counts (0.02 for 2%: the gate's --max-regression); None: the floor alone.
    threshold: float | None = None
    #: The program (binary) the row's figures come from, where known: two programs of one `ab`
    #: or gate may have benchmarks of the same name (JUnit's classname).
    program: str | None = None
    #: A deterministic count's system calls per iteration (callgrind's sysCount: B's, else A's);
    #: None where they were not counted. What `gate --judge counts` tells system-call bound rows by.
    system_calls: float | None = None
    #: `gate --judge counts`: what the row's benchmark is judged on ("counts" or "time") and why,
    #: in words; None under --judge time, where every row is judged on its own figures.
    judged_on: str | None = None
    judged_on_reason: str | None = None

    @property
    def limit(self) -> float:
        """1 + the slowdown that counts: the threshold, never below the noise floor."""
        return limit_of(self.floor, self.threshold)

    @property
    def defined(self) -> bool:
        """Whether B/A is a figure: a finite number above 0. Two figures far enough apart
        (1e-300 and 1e150 ns, both accepted) overflow it to infinity, which judged `slower`
        with an interval of [inf, inf] (issue 37); such a row has no figure and no verdict."""
        return math.isfinite(self.ratio) and self.ratio > 0

    @property
    def verdict(self) -> str:
        """SLOWER, NOT_SLOWER or INCONCLUSIVE: where the whole interval lies against the limit;
        INCONCLUSIVE for a row without a figure (`defined`): the evidence carries no answer."""
        if not self.defined:
            return INCONCLUSIVE
        return verdict_of(self.low, self.high, self.limit)

    @property
    def faster(self) -> bool:
        """Not slower, and the whole interval below 1 / limit: a speed-up beyond the threshold."""
        return self.defined and self.high < 1 / self.limit

    @property
    def changed(self) -> bool:
        """Slower or faster beyond the limit: what `compare` calls a change."""
        return self.verdict == SLOWER or self.faster

    @property
    def uninformative(self) -> bool:
        """An interval wider than the figure itself (uninformative_interval)."""
        return uninformative_interval(self.ratio, self.low, self.high)


def limit_of(floor: float, threshold: float | None) -> float:
    """1 + the slowdown that counts: `threshold` (None: none), never below the noise floor."""
    return 1 + max(floor, threshold or 0.0)


def verdict_of(low: float, high: float, limit: float) -> str:
    """The verdict of a ratio's interval [low, high] against 1 + threshold (`limit`)."""
    if low > limit:
        return SLOWER
    if high <= limit:
        return NOT_SLOWER
    return INCONCLUSIVE


#: An interval whose larger side is the figure itself or more (B/A of 2 with an upper end
#: of 4 or more, or a lower end at 0) bounds nothing worth a number: outputs say
#: "uninformative" instead of [0.0000, 511079.1583] (output/figures.py, UNINFORMATIVE).
UNINFORMATIVE_HALF_WIDTH = 1.0


def uninformative_interval(figure: float, low: float, high: float) -> bool:
    if not (figure > 0) or not math.isfinite(high) or low <= 0:
        return True
    return max(high - figure, figure - low) / figure >= UNINFORMATIVE_HALF_WIDTH


def spread(record: Record) -> tuple[float, float, int]:
    """(figure, standard error of the figure, processes) of a combined record."""
    figures = record.figures
    outliers = set(figures.outlier_processes) | set(figures.preempted_processes)  # left out of the figure (combine.py)
    medians = [m for i, m in enumerate(figures.process_medians or [figures.median]) if i not in outliers]
    figure = float(figures.median)
    if len(medians) > 1:
        mean = sum(medians) / len(medians)
        sd = math.sqrt(sum((m - mean) ** 2 for m in medians) / (len(medians) - 1))
        return figure, sd / math.sqrt(len(medians)), len(medians)
    # One process: its 99% interval of the median, as a standard error.
    low, high = figures.interval or (figure, figure)
    return figure, max(high - figure, figure - low) / stats.t_quantile_99(10 ** 6), 1


def t_quantile_at(df: int, ci_level: float) -> float:
    """Student's t at `ci_level` (two-sided): the header's table at 99%, else the exact CDF's."""
    return stats.t_quantile_99(df) if ci_level == stats.CI_LEVEL else t_quantile(df, ci_level)


def ratio_interval(a: Record, b: Record, level: noise.RunLevel | None = None,
                   ci_level: float = stats.CI_LEVEL) -> tuple[float, float, float, str]:
    """b/a, its interval at `ci_level` (99%), and what the interval rests on; `level` is the
    spread of whole runs on this machine, when earlier runs gave it."""
    fa, se_a, na = spread(a)
    fb, se_b, nb = spread(b)
    ratio = fb / fa
    var_a, var_b = (se_a / fa) ** 2, (se_b / fb) ** 2
    if (na > 1 and nb > 1) or knows_process_spread(level):
        # Welch-Satterthwaite degrees of freedom of the relative variances; a side whose
        # processes agree more than this machine's earlier runs' did takes their pooled
        # spread instead (noise.process_spread).
        parts = [_process_part(var_a, na, level), _process_part(var_b, nb, level)]
        scope = BETWEEN_PROCESSES
        if level is not None:
            scope = {noise.MACHINE_PRIOR: BETWEEN_RUNS_PRIOR,
                     noise.OWN_PROCESSES: BETWEEN_RUNS_OWN}.get(level.source, BETWEEN_RUNS)
        if level is not None and level.variance > 0:
            parts.append((2 * level.variance, level.df))
        total = sum(v for v, _ in parts)
        df = total ** 2 / sum(v * v / d for v, d in parts) if total else na + nb - 2
        if level is not None and level.source == noise.OWN_PROCESSES:
            df = min(df, level.df)  # B's processes gave its part and the run level both: one estimate
    else:
        total = var_a + var_b
        df = 10 ** 6  # the within-process intervals are already at 99%: normal
        scope = WITHIN_ONE_PROCESS
    half = t_quantile_at(max(1, int(df)), ci_level) * math.sqrt(total)
    return ratio, ratio * math.exp(-half), ratio * math.exp(half), scope


def _process_part(relative_variance: float, processes: int,
                  level: noise.RunLevel | None) -> tuple[float, int]:
    """One side's relative variance of its figure, and its degrees of freedom."""
    if processes == 1:
        # Its own interval saw one process only: the machine's pooled spread of one
        # process's figure (knows_process_spread), or its own where that is wider.
        return max(level.process_cv2, relative_variance), level.process_df
    sd, df = noise.process_spread(1.0, math.sqrt(relative_variance * processes), processes, level)
    return sd * sd / processes, df


def compare(records_a: Iterable[Record], records_b: Iterable[Record], *,
            floor_of: Callable[[str], float] = lambda _: DEFAULT_NOISE_FLOOR,
            levels: dict[tuple, noise.RunLevel] | None = None, family: bool = False,
            shown_levels: tuple[dict | None, dict | None] = (None, None)) -> list[Comparison]:
    """Every (benchmark, param, counter, sweep value, platform) both runs measured, in A's order.

    `floor_of` gives a benchmark's noise floor by its name (judging/thresholds.py: its own in
    benchlab.toml, else the command's); `levels` the
    spread between runs on B's machine (Store.run_levels), by B's figure. `family`: the
    intervals hold together at 99% (sequential.family_level), for a judgment of every row at
    once (the gate): stored figures are one look of the stopping rule (sequential.py), so
    the rows' share of the 1% is all there is to it; else each holds at 99% on its own
    (`compare`, a row read by itself).
    `shown_levels`: each stored run's own levels (A's, B's), with which `show` combines its
    figures: an outlier process they tell is left out here too, so that both commands print
    one figure for one run (they printed 276 and 292.9 ns, issue 37).
    """
    levels = levels or {}
    b_by_key = {(r.key, r.platform): r for r in _as_shown(list(records_b), shown_levels[1]) if _measured(r)}
    pairs = []
    for a in _as_shown(list(records_a), shown_levels[0]):
        b = b_by_key.get((a.key, a.platform))
        if b is not None and _measured(a) and a.unit == b.unit:
            pairs.append((a, b))
    ci_level = family_level(len(pairs)) if family else stats.CI_LEVEL
    result = []
    for a, b in pairs:
        deterministic = _deterministic(a) and _deterministic(b)
        # A count that is the same on every run of the same code has no spread between runs:
        # the differences between its earlier runs are changes of the code.
        ratio, low, high, scope = ratio_interval(a, b, None if deterministic else levels.get(history_key(b)),
                                                 ci_level)
        if deterministic and low == high:
            scope = EXACT
        elif own_seeds(a) and own_seeds(b):
            scope += OWN_SEEDS
        result.append(Comparison(
            key=a.key, platform=a.platform, unit=a.unit, a=a.median, b=b.median, program=b.binary,
            ratio=ratio, low=low, high=high,
            floor=0.0 if deterministic else floor_of(a.bench), scope=scope,
            processes=(a.figures.processes, b.figures.processes), deterministic=deterministic,
            system_calls=_system_calls(b) if _system_calls(b) is not None else _system_calls(a)))
    attribute_causes(result)
    return result


def own_seeds(record: Record) -> bool:
    """Whether a combined figure's processes each ran with a seed of their own (runner.py,
    process_seed): then its spread, and so the interval, includes what the seed does."""
    seeds = {entry.get("seed") for entry in record.reported.get("processes", [])}
    return len(seeds - {None}) > 1


def _as_shown(records: list[Record], levels: dict | None) -> list[Record]:
    """The figures `show` prints of a run: its processes combined with the run's levels,
    which leave an outlier process out of the figure (noise.outlier_processes). One process
    keeps its own interval: ratio_interval adds the levels' spread to it, once."""
    plain = figures(records)
    if not levels:
        return plain
    return [shown if shown.figures.processes > 1 else alone for shown, alone in zip(figures(records, levels), plain)]


def attribute_causes(comparisons: list[Comparison]) -> None:
    """Set `cause` on every changed row of a benchmark whose instruction count was compared
    too (on any platform: callgrind counts what native times): "code changed" when the
    instructions moved, "machine changed" when time moved and the instructions did not."""
    counts: dict[tuple, list[Comparison]] = {}
    for c in comparisons:
        bench, param, counter, sweep = c.key
        if counter in INSTRUCTION_COUNTERS:
            counts.setdefault((bench, param, sweep), []).append(c)
    for c in comparisons:
        bench, param, counter, sweep = c.key
        if not c.changed or (bench, param, sweep) not in counts:
            continue
        if counter in INSTRUCTION_COUNTERS:
            c.cause = CODE_CHANGED
        elif counter == "time":
            moved = any(i.changed for i in counts[(bench, param, sweep)])
            c.cause = CODE_CHANGED if moved else MACHINE_CHANGED


def row_name(key: tuple) -> str:
    """A comparison's row as `compare` prints it: bench/param [counter] @sweep."""
    bench, param, counter, sweep = key[:4]
    name = printable(bench) if param is None else f"{printable(bench)}/{param}"
    if counter != "time":
        name += f" [{counter}]"
    if sweep is not None:
        name += f" @{sweep}"
    return name


def geometric_mean(comparisons: list[Comparison]) -> float | None:
    ratios = [c.ratio for c in comparisons if c.defined]
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None


def _deterministic(record: Record) -> bool:
    return record.reported.get("deterministic") is True


def _system_calls(record: Record) -> float | None:
    calls = record.reported.get("system_calls")
    return float(calls) if isinstance(calls, (int, float)) and not isinstance(calls, bool) else None


def _measured(record: Record) -> bool:
    return record.supported and bool(record.median) and record.median > 0
