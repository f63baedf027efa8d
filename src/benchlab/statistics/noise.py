"""Between-run noise: which earlier runs measured the same code on the same machine, how
much whole runs and single processes of that code differ there, and what stands in where
no such runs exist. This module is the one history model: `run`, `show`, `stats`,
`compare`, `gate`, `history` and the report all take their machine, their window of
earlier runs and their noise estimate from here.

**The machine** (`Machine`): host name, CPU model, kernel release and architecture of the
run's context. A VM's host may change under the same name, and syscall costs move with
the kernel, so all of them.

**The code** (`code_id`): the content of what ran, per (binary, platform): for a source
benchlab built, its build-cache key (source, headers, compiler and flags); for a prebuilt
executable, the sha256 of the file; with the platform's launch template and version, the
flags that change what a figure means (`--arg`, `--no-subtract`), and the measurement
settings given (`--samples`, `--time-limit`, `--precision`, `--schedule`, `--counters`):
a short run of 10 samples in 0.2 s reads 2-3x high under load where a default one does
not, so it is no history of a default run. A run records it in its context (`code`). The error term of a comparison is the variation between processes
and runs of the *same* code: a series of runs whose code changed contributes nothing, so
a 3% change of the user's own code is never counted as machine noise.

**The window**: the latest `MAX_EARLIER_RUNS` complete runs before this one on the same
machine that ran the same code in several processes (a run of one process cannot tell
its processes' spread), and that were as busy as this one (`busy`: a run beside other
jobs is no quiet run's history, so one loaded afternoon does not widen every later
interval of that code). Fewer than `MIN_EARLIER_RUNS` such runs: no identical-code
history, and the machine prior stands in (below).

**The estimate** (Kalibera and Jones, "Rigorous benchmarking in reasonable time", ISMM
2013, add a level for every source of variation that repetitions at a lower level cannot
see; here that level is the run). On log figures, so it reads as a relative spread: with
run means m_j of N_j processes and p_j the variance of log m_j that the processes alone
explain (their CV squared over N_j), the difference of consecutive runs
d_j = log m_{j+1} - log m_j has

    E[d_j^2] = 2 s_run^2 + p_j + p_{j+1}

so s_run^2 = (mean_j d_j^2 - mean_j(p_j + p_{j+1})) / 2 (von Neumann's mean square
successive difference). The same s_run^2 is also the variance of the log m_j about
their mean less mean_j p_j. Both, over **every run**, and the larger counts:
- the history is identical code, so a large difference is the machine's, not a change
  of the code: clipping the largest tenth of the differences (the rule before issue 20)
  took exactly those where a host state came and went, and the chains' intervals held
  the next of 41 `--time 7` runs 31 of 37 times, replayed (36 with every difference);
- the host's states last seconds to minutes, so consecutive runs often share one and
  their differences understate how far runs spread: on a store where the host changed
  state for a minute or two at a time, the differences alone held the next run 34-35
  times in 37 on getpid, clock_gettime and the copy loop, the spread about the mean 37
  (bench/README.md, "Time budget"; bench/runlevel_replay.py);
- a drift of the machine within the window counts in the spread about the mean and not
  in the differences: the larger is the honest one either way.
(The median of the differences, used before that, ignored a chain's +0.6 to +1.2%
runs, 3 of 40 on this VM.) Its degrees of freedom are the runs less one.

The same runs give the spread of one process's figure: each run's CV^2 of its process
medians, pooled **robustly**: their mean with the largest tenth counted as the next
largest (winsorized), scaled back for what that clipping takes from chi-square(k)/k's
mean (k the runs' typical N - 1), so that one run holding one
outlier process (a process of 10 samples whose interval was [1099, 316536]) does not
widen every later interval, as the plain mean of CV^2 did. Its degrees of freedom are
the runs' sum of N_j - 1 times the share of runs left unclipped. The rerun interval
uses the larger of this run's process spread and the pooled one: 5 processes that land
in one host state agree by chance.

**The prior** (`benchlab calibrate`): where a figure has no identical-code history, the
machine's own A/A of benchlab's reference kernels, one figure per kind of kernel
(loop-bound, latency-bound, syscall), measured as separate runs and stored per machine.
A figure takes the kind whose process spread is the smallest that covers the spread its
processes show in this run and its few earlier runs of identical code (prior_level,
_kind_spread); a figure of one process, the widest kind's:
on a machine whose host switches state, that is the honest width for code never measured
twice (docs/noise.md).
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import statistics
from pathlib import Path
from typing import Any, Iterable

from benchlab.statistics.distributions import invert_increasing

#: Earlier runs needed before their spread is used (two consecutive differences).
MIN_EARLIER_RUNS = 3
#: Earlier runs used at most: the machine of months ago says little about today's.
MAX_EARLIER_RUNS = 20
#: The share of the largest runs' CV^2 that count only as much as the next largest (the
#: pooled process spread): one odd run in ten.
WINSORIZED_SHARE = 0.1
#: A process whose median is this many pooled process standard deviations from the run's
#: median process is an outlier: marked `!`, left out of the figure and its spread.
OUTLIER_SDS = 5.0

#: Where a figure's between-run noise came from (summary "noise_source").
IDENTICAL_CODE = "identical code"
MACHINE_PRIOR = "machine prior"
#: ... neither: the run's own processes stand in (own_level).
OWN_PROCESSES = "own processes"
#: describe()'s words for OWN_PROCESSES: `stats` names its spread one process's, not runs'.
OWN_PROCESSES_WORDS = ("no identical-code history and no machine prior: a rerun may move as far as one of its "
                       "processes (benchlab calibrate measures the machine)")
#: The kinds of kernel `benchlab calibrate` measures, with its reference benchmark for each.
KINDS = {"loop-bound": "memcpy64", "latency-bound": "chain100", "syscall": "getpid"}


# -- the machine -------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Machine:
    """The machine a run measured on: runs of one machine form one history."""

    host: str | None
    cpu: str | None
    kernel: str | None
    arch: str | None = None

    @classmethod
    def of(cls, context: dict[str, Any] | None, host: str | None = None) -> "Machine":
        """From a run's context (`host`: the run row's, for a context that names none)."""
        context = context or {}
        return cls(context.get("host") or host, context.get("cpu"), context.get("kernel"), context.get("arch"))

    @classmethod
    def of_run(cls, run: dict[str, Any]) -> "Machine":
        return cls.of(run.get("context"), run.get("host"))

    @property
    def id(self) -> str:
        """A short stable id, for --host when one host name has several machines."""
        parts = (self.host, self.cpu, self.kernel) + ((self.arch,) if self.arch else ())
        return hashlib.sha256("\0".join(part or "" for part in parts).encode()).hexdigest()[:8]

    def label(self) -> str:
        return f"{self.host or '?'} ({self.cpu or 'CPU unknown'}, kernel {self.kernel or 'unknown'})"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "host": self.host, "cpu": self.cpu, "kernel": self.kernel, "arch": self.arch}


# -- the code ----------------------------------------------------------------------------------

def code_label(binary: str, platform: str) -> str:
    """The key of a binary on a platform in a run's context `code`."""
    return f"{binary}@{platform}"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def code_id(binary_id: str, platform: dict[str, Any], flags: dict[str, Any]) -> str:
    """The identity of what a unit ran: the binary's identity (build key or file hash), the
    platform's launch template and version, and the flags that change a figure's meaning."""
    text = json.dumps({"binary": binary_id, "platform": platform, "flags": flags}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def codes_of(context: dict[str, Any] | None) -> dict[str, str]:
    """{code_label: code id} of a run's context (empty for a run from before code identity,
    or an import: such runs are nobody's identical-code history)."""
    code = (context or {}).get("code")
    if not isinstance(code, dict):
        return {}
    return {label: entry["id"] for label, entry in code.items() if isinstance(entry, dict) and entry.get("id")}


# -- the window --------------------------------------------------------------------------------

def several_processes(context: dict[str, Any] | None) -> bool:
    """Whether a run ran a binary in 2 or more processes (its plan lists a unit once per
    process). Only such runs tell the spread between processes and runs."""
    plan = (context or {}).get("plan")
    if not isinstance(plan, list):
        return True  # no plan (an imported run): its records tell, run_figure decides
    units = [json.dumps(unit, sort_keys=True) for unit in plan]
    return len(set(units)) < len(units)


def can_be_history(context: dict[str, Any] | None) -> bool:
    """A complete run's context that can be another run's history: not a profile's run
    (it has no figures), and several processes."""
    return "profile" not in (context or {}) and several_processes(context)


def busy(context: dict[str, Any] | None) -> bool:
    """Whether a run started on a machine that other jobs kept busy: a 1-minute load average
    above its CPUs (context `load`, measuring/context.py). Such a run's figures carry the
    CPU time other jobs took (2-3x high beside busy loops on this project's 2-core VM), so
    its spread is not that of a quiet run: busy and quiet runs are each other's history
    only within their own kind (same_code_window). A run from before the load was recorded
    counts as quiet."""
    return over_cpus(((context or {}).get("load") or {}).get("start")) is True


def over_cpus(reading: dict[str, Any] | None) -> bool | None:
    """Whether one load reading of a run ({average, cpus}, measuring/context.py: at its start or
    end) says the machine was busy: its 1-minute load average above its CPUs. None for a
    reading not taken (a platform without a load average, a run from before it was recorded)."""
    average, cpus = (reading.get("average"), reading.get("cpus")) if isinstance(reading, dict) else (None, None)
    if isinstance(average, bool) or not isinstance(average, (int, float)) or not isinstance(cpus, int) or cpus <= 0:
        return None
    return average > cpus


def same_code_window(earlier: Iterable[tuple[int, dict[str, Any] | None]],
                     context: dict[str, Any] | None) -> dict[str, list[int]]:
    """For each binary of `context`'s code, the ids of the latest MAX_EARLIER_RUNS runs of
    `earlier` (complete runs before it, newest first) on the same machine that ran the same
    code in several processes, as busy as it (busy): {code_label: run ids, oldest first}.
    Stops reading `earlier` once every binary has a full window."""
    machine, wanted, loaded = Machine.of(context), codes_of(context), busy(context)
    found: dict[str, list[int]] = {label: [] for label in wanted}
    if not wanted:
        return {}
    for run_id, other in earlier:
        if Machine.of(other) != machine or not can_be_history(other) or busy(other) != loaded:
            continue
        theirs = codes_of(other)
        for label, code in wanted.items():
            if theirs.get(label) == code and len(found[label]) < MAX_EARLIER_RUNS:
                found[label].append(run_id)
        if all(len(ids) >= MAX_EARLIER_RUNS for ids in found.values()):
            break
    return {label: sorted(ids) for label, ids in found.items() if ids}


# -- the estimate ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class RunFigure:
    """One earlier run's figure of a benchmark: the mean of its process medians, and
    the relative variance of that mean which its processes explain (CV^2 / N)."""
    mean: float
    process_variance: float
    processes: int = 0    # N; 0 when unknown (then it adds nothing to the pooled spread)


@dataclasses.dataclass(frozen=True)
class RunLevel:
    """The estimated spread of whole runs beyond their processes' own."""
    variance: float       # of the log figure: (relative standard deviation)^2
    earlier_runs: int     # how many runs it was estimated from
    df: int               # its degrees of freedom: the consecutive differences
    process_cv2: float = 0.0  # one process's figure, pooled over those runs: CV^2 (0: unknown)
    process_df: int = 0       # its degrees of freedom
    source: str = IDENTICAL_CODE  # or MACHINE_PRIOR (then `earlier_runs` are calibration runs)
    kind: str | None = None       # the prior's kind of kernel

    @property
    def relative_sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def process_sd(self) -> float:
        """One process's relative standard deviation (0: unknown)."""
        return math.sqrt(self.process_cv2)


def run_figure(process_medians: Iterable[float]) -> RunFigure | None:
    """An earlier run's figure from its process medians; None when it cannot tell its
    processes' share of the spread (one process) or has no positive figure. All of them:
    left out by a rule of one run's own (mad_outliers), a host's second state would vanish
    from the history whenever one process of 5 met it (tests/python/statistics/test_noise.py: next-run
    coverage 98% -> 87% on a machine with 30% of processes in a 30% slower state). The
    pooled spread's median and the run level's median keep odd runs from counting."""
    medians = [m for m in process_medians if m is not None and math.isfinite(m)]
    count = len(medians)
    if count < 2:
        return None
    mean = sum(medians) / count
    if mean <= 0:
        return None
    variance = sum((m - mean) ** 2 for m in medians) / (count - 1)
    return RunFigure(mean=mean, process_variance=variance / (mean * mean) / count, processes=count)


def chi2_ratio_99(df: int) -> float:
    """The 99th percentile of chi-square(df) / df (Wilson-Hilferty): how far a sample
    variance of df degrees of freedom can exceed the variance by chance, 1 time in 100."""
    df = max(1, df)
    return (1 - 2 / (9 * df) + 2.3263478740408408 * math.sqrt(2 / (9 * df))) ** 3


def estimate(history: list[RunFigure], *, robust: bool = True) -> RunLevel | None:
    """The run level from earlier runs, oldest first; None with fewer than MIN_EARLIER_RUNS.
    The larger of the two estimates of the module's docstring, from every run (it says
    why); `robust` is for the pooled process spread: False for a calibration's A/A,
    whose every run is the machine's."""
    history = history[-MAX_EARLIER_RUNS:]
    if len(history) < MIN_EARLIER_RUNS:
        return None
    pairs = list(zip(history, history[1:]))
    squares = [math.log(b.mean / a.mean) ** 2 for a, b in pairs]
    from_differences = (sum(squares) - sum(a.process_variance + b.process_variance for a, b in pairs)) / len(pairs) / 2
    logs = [math.log(f.mean) for f in history]
    from_spread = statistics.variance(logs) - sum(f.process_variance for f in history) / len(history)
    process_cv2, process_df = pooled_process_spread(history, robust=robust)
    return RunLevel(variance=max(0.0, from_differences, from_spread), earlier_runs=len(history),
                    df=len(history) - 1, process_cv2=process_cv2, process_df=process_df)


def pooled_process_spread(history: list[RunFigure], *, robust: bool = True) -> tuple[float, int]:
    """One process's CV^2 pooled over runs (the module's docstring: from 3 runs on, their
    winsorized mean), and its degrees of freedom; (0, 0) when no run had 2 processes."""
    runs = [f for f in history if f.processes > 1]
    if not runs:
        return 0.0, 0
    cv2s = [f.process_variance * f.processes for f in runs]
    df = sum(f.processes - 1 for f in runs)
    clipped = math.ceil(WINSORIZED_SHARE * len(runs)) if robust and len(runs) >= MIN_EARLIER_RUNS else 0
    typical_df = int(statistics.median(f.processes - 1 for f in runs))
    return winsorized_mean(cv2s, clipped, df=typical_df), max(1, df * (len(runs) - clipped) // len(runs))


def winsorized_mean(values: list[float], clipped: int, *, df: int) -> float:
    """The mean of `values`, each a variance estimate distributed as sigma^2 chi-square(df)/df,
    with its `clipped` largest counted as the next largest, scaled so that its expectation
    is sigma^2 again. For chi-square(k) clipped at c, E[min(X, c)] = k P(chi-square(k+2) < c)
    + c P(X > c) (x f_k(x) = k f_{k+2}(x)); c is taken at the quantile 1 - clipped/n."""
    if clipped <= 0 or len(values) <= clipped:
        return sum(values) / len(values)
    ordered = sorted(values)
    cap = ordered[-clipped - 1]
    mean = sum(min(v, cap) for v in ordered) / len(ordered)
    return mean / _winsorized_share_of_mean(df, clipped / len(values))


@functools.lru_cache(maxsize=None)
def _winsorized_share_of_mean(df: int, share: float) -> float:
    """E[min(X, c)] / E[X] for X ~ chi-square(df), c its 1 - share quantile."""
    df = max(1, df)
    cap = chi2_quantile(1 - share, df)
    return chi2_cdf(cap, df + 2) + share * cap / df


def chi2_cdf(x: float, df: int) -> float:
    """P(chi-square(df) <= x): the regularized lower incomplete gamma P(df/2, x/2) by its
    series, which converges for every x (here x is below 100). By hand, with the math
    module: scipy.stats takes half a second to import, and `run` uses this every time."""
    if x <= 0:
        return 0.0
    s, half = df / 2, x / 2
    term = total = 1 / s
    n = 0
    while term > total * 1e-15 and n < 10000:
        n += 1
        term *= half / (s + n)
        total += term
    return min(1.0, total * math.exp(s * math.log(half) - half - math.lgamma(s)))


def chi2_quantile(p: float, df: int) -> float:
    """The p quantile of chi-square(df), by bisection on chi2_cdf."""
    return invert_increasing(lambda x: chi2_cdf(x, df), p, max(1.0, df) * 10 + 100, steps=100)


def process_spread(figure: float, between_sd: float, processes: int,
                   level: RunLevel | None) -> tuple[float, int]:
    """The standard deviation of one process's figure to build the interval on, and its
    degrees of freedom: this run's, or the machine's pooled one when that is larger."""
    if level is not None and level.process_df > 0 and figure > 0:
        pooled = level.process_sd * abs(figure)
        if pooled > between_sd:
            return pooled, level.process_df
    return between_sd, processes - 1


def rerun_half_width(figure: float, between_sd: float, processes: int,
                     level: RunLevel | None, t_quantile) -> tuple[float, int]:
    """The half-width of the interval that covers a rerun's figure, and its degrees of
    freedom. Our mean and a rerun's each vary by s^2/N between processes and by s_run^2
    between runs: their difference by 2 (s^2/N + s_run^2), the two estimates' degrees of
    freedom pooled by Welch-Satterthwaite (rounded down)."""
    sd, process_df = process_spread(figure, between_sd, processes, level)
    process_part = 2 * sd ** 2 / processes
    if level is None or level.variance == 0 or figure == 0:
        return t_quantile(process_df) * math.sqrt(process_part), process_df
    run_part = 2 * level.variance * figure * figure
    denominator = process_part ** 2 / process_df + run_part ** 2 / level.df
    df = max(1, int((process_part + run_part) ** 2 / denominator)) if denominator > 0 else process_df
    if level.source == OWN_PROCESSES:  # both parts from one run's processes: one estimate, not two
        df = min(df, level.df, process_df)
    return t_quantile(df) * math.sqrt(process_part + run_part), df


#: The normal distribution's sd over its median absolute deviation.
MAD_TO_SD = 1.4826


def mad_outliers(medians: list[float]) -> list[int]:
    """Processes more than OUTLIER_SDS robust standard deviations (1.4826 x the median
    absolute deviation) from the middle process, with 4 or more processes and fewer than
    half of them outliers. Used where a figure has no identical-code history, to choose
    its prior's kind from the processes that agree (_kind_spread): one process of a chain at
    +7% made a chain take a copy loop's prior (+-32%)."""
    if len(medians) < 4:
        return []
    middle = statistics.median(medians)
    scale = MAD_TO_SD * statistics.median(abs(m - middle) for m in medians)
    found = [i for i, m in enumerate(medians) if abs(m - middle) > OUTLIER_SDS * scale and m != middle]
    return found if 2 * len(found) < len(medians) else []


def outlier_processes(medians: list[float], level: RunLevel | None) -> list[int]:
    """The indices of processes whose median lies more than OUTLIER_SDS of the machine's
    pooled process spread from the middle process's; none without that spread (a run
    alone cannot tell an outlier from a second host state), with fewer than 4 processes,
    or when they would be half of them."""
    if level is None or level.process_df <= 0 or level.process_cv2 <= 0 or len(medians) < 4:
        return []
    middle = statistics.median(medians)
    limit = OUTLIER_SDS * level.process_sd * abs(middle)
    found = [i for i, m in enumerate(medians) if abs(m - middle) > limit]
    return found if 2 * len(found) < len(medians) else []


# -- the prior ---------------------------------------------------------------------------------

#: A prior's figures: the spreads must be finite and >= 0, the counts whole and >= 0.
_PRIOR_SPREADS = ("variance", "process_cv2")
_PRIOR_COUNTS = ("df", "process_df", "runs")


def prior_problem(row: dict[str, Any]) -> str | None:
    """Why a stored prior row cannot be used (a NaN, infinite or negative spread, a count
    that is not a whole number: a store written by hand or by another program), or None."""
    for key in _PRIOR_SPREADS:
        value = row.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            return f"its {key} is {value!r}, not a finite number >= 0"
    for key in _PRIOR_COUNTS:
        value = row.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return f"its {key} is {value!r}, not a whole number >= 0"
    return None


def prior_level(priors: list[dict[str, Any]], process_cv: float | None = None, processes: int = 2) -> RunLevel | None:
    """The machine prior for a figure (None without a calibration), from the stored rows of
    `benchlab calibrate` (Store.machine_priors): the narrowest kind of kernel whose process
    spread is consistent with `process_cv`, the spread this run's `processes` of the figure
    show (at 99%: their sample CV could be that much larger by chance); the widest kind
    where none is, or the run had one process. A chain whose
    processes agree to 0.05% is not held to a copy loop's 20%, and a figure whose processes
    disagree by 10% is not given a chain's 0.2%."""
    if not priors:
        return None
    by_width = sorted(priors, key=lambda r: (r["process_cv2"], r["variance"]))
    fitting = [r for r in by_width if process_cv is not None
               and process_cv <= math.sqrt(r["process_cv2"] * chi2_ratio_99(processes - 1))]
    row = fitting[0] if fitting else max(priors, key=lambda r: r["variance"] + r["process_cv2"])
    # A run's figure may move as far as one process's: the processes of a run can share the
    # host's state of those seconds, and the calibration's A/A cannot tell how often a new
    # program's runs do (a chain's runs moved +0.5% together where the A/A's level read 0;
    # fresh stores held 87-92% of the other runs' figures before this rule).
    variance = max(row["variance"], row["process_cv2"])
    return RunLevel(variance=variance, earlier_runs=row["runs"], df=max(1, row["df"]),
                    process_cv2=row["process_cv2"], process_df=max(1, row["process_df"]),
                    source=MACHINE_PRIOR, kind=row["kind"])


def describe(level: RunLevel | None) -> str:
    """What a figure's between-run noise rests on, in words (stats, compare, gate)."""
    if level is None:
        return "no identical-code history and no machine prior: this run's processes only (benchlab calibrate)"
    if level.source == MACHINE_PRIOR:
        return f"machine prior ({level.kind}, benchlab calibrate: {level.earlier_runs} runs)"
    if level.source == OWN_PROCESSES:
        return OWN_PROCESSES_WORDS
    return f"{level.earlier_runs} earlier runs of identical code on this machine"


# -- the levels of a stored run ----------------------------------------------------------------

def run_levels(store, run_id: int, context: dict[str, Any] | None) -> dict[tuple, RunLevel]:
    """The between-run noise of every figure of run `run_id` (not yet stored figures too:
    `context` is the run's): from the identical-code window where it has MIN_EARLIER_RUNS
    runs, else the machine prior: {(key, platform, binary): RunLevel}. A figure with
    neither is absent."""
    window = same_code_window(store.earlier_runs(run_id), context)
    in_window = {(label, run) for label, ids in window.items() for run in ids}
    medians: dict[tuple, dict[int, list[float]]] = {}
    for row in store.medians_of_runs(sorted({run for _, run in in_window} | {run_id})):
        if row["run_id"] != run_id and (code_label(row["binary"], row["platform"]), row["run_id"]) not in in_window:
            continue
        sweep = row["sweep"]["value"] if isinstance(row["sweep"], dict) else None
        key = ((row["bench"], row["param"], row["counter"], sweep), row["platform"], row["binary"])
        medians.setdefault(key, {}).setdefault(row["run_id"], []).append(row["median"])
    levels = {}
    for key, by_run in medians.items():
        earlier = [by_run[run] for run in sorted(by_run) if run != run_id]
        level = estimate([f for f in map(run_figure, earlier) if f is not None])
        if level is not None:
            levels[key] = level
    priors = store.machine_priors(Machine.of(context))
    for key, by_run in medians.items():
        if key not in levels and key[0][2] == "time" and run_id in by_run:
            level = prior_level(priors, *_kind_spread(by_run)) if priors else own_level(by_run[run_id])
            if level is not None:
                levels[key] = level
    return levels


def own_level(medians: list[float]) -> RunLevel | None:
    """The run level of a figure with no identical-code history and no machine prior, from
    its process `medians` in this run: a rerun's figure may move as far as one process's
    (the rule prior_level applies to the prior). Without it a first run's interval was its
    processes' standard error alone, and a `--time 7` run is 60 or more processes that all
    met the seconds of one run: fresh stores held the next run's figure 77 times in 84
    over their first three runs (issue 40; bench/fresh_store.py, bench/README.md *Fresh
    stores*). None for one process: it has no spread to go by, and keeps its own interval.

    This run's processes only, not those of its one or two earlier runs of identical code:
    `compare` of two such runs (a setting in the environment changed between them) would
    count their difference as noise. Its process spread stays unknown (process_cv2 0):
    pooled from the run itself it would mark the run's own second host state as outliers,
    which a run alone cannot tell."""
    cv, count = _kind_spread({0: medians})
    if cv is None:
        return None
    return RunLevel(variance=cv * cv, earlier_runs=0, df=max(1, count - 1), source=OWN_PROCESSES)


def _kind_spread(by_run: dict[int, list[float]]) -> tuple[float | None, int]:
    """The spread that chooses a figure's prior kind (prior_level): the CV of its process
    medians (None for one process), and how many processes that is, over this run and the
    few earlier runs of identical code (too few for a run level of their own). Each run's
    odd processes are left out by that run's own rule (mad_outliers): pooled, a whole run
    in the other host state would count as outliers. Together, because the processes of
    one run can all meet one of the host's states: a copy loop's processes agreed as
    closely as a chain's in a 7 s run that met only the fast state, took its prior (+-2.3%),
    and the next run read 13% higher (bench/README.md, "Time budget"); its two runs before
    had spread over both states."""
    kept = []
    for run in sorted(by_run):
        outliers = set(mad_outliers(by_run[run]))
        kept += [m for i, m in enumerate(by_run[run]) if i not in outliers]
    mean = sum(kept) / len(kept) if kept else 0.0
    if len(kept) < 2 or mean <= 0:
        return None, len(kept)
    return statistics.stdev(kept) / mean, len(kept)
