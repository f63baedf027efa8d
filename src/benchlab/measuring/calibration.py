"""The machine prior: an A/A of benchlab's reference kernels as separate runs (noise.py,
"The prior"; `benchlab calibrate`).

One run is PROCESSES fresh processes of the reference binary (reference_kernels.c),
interleaved as `benchlab run` interleaves them (each on the next CPU in turn, its own
layout); RUNS such runs make the history from which the spread between whole runs and
between single processes of identical code is estimated, per kind of kernel. A
calibration has no code change in it, so the run level is the mean of the squared
consecutive differences (all of them count, as degrees of freedom too): the median
rule of noise.estimate is for histories that may hold a change of the code.

`calibrate_and_store` is the whole of `benchlab calibrate` but its table (cli/calibrate.py),
and the gate's first calibration on a machine (judging/gate.py).
"""
from __future__ import annotations

import dataclasses
import math
import os
import time
from pathlib import Path
from typing import Callable

from benchlab.statistics import noise
from benchlab.measuring.build import BuildFailed, Builder
from benchlab.config import Config, draw_seed
from benchlab.errors import UserError
from benchlab.measuring import context as run_context
from benchlab.measuring.platforms import resolve_platforms
from benchlab.measuring.runner import RunOptions, Runner, Unit
from benchlab.measuring.targets import Target

REFERENCE_SOURCE = Path(__file__).with_name("reference_kernels.c")
#: Runs of a calibration, and processes per run (docs/noise.md has the figures behind them).
DEFAULT_RUNS = 10
DEFAULT_PROCESSES = 5
#: Seconds a calibration's runs are spread over at least: the host's states last seconds,
#: and 10 runs back to back took 4 s here, all in one state: their run level (0.06% for
#: the chain) missed the +0.5% of a run in the other state, and the first runs of a new
#: program in a fresh store held each other's figures 87% of the time (bench/README.md).
DEFAULT_SPAN_S = 20.0
#: A 1-minute load average above this share of the CPUs is a loaded machine: the prior
#: then holds the load's noise too, and calibrate says so.
LOADED_SHARE = 0.5


@dataclasses.dataclass
class KindFigure:
    """What a calibration measured of one kind of kernel."""
    kind: str
    kernel: str
    figure: float             # the mean of its run figures, ns
    level: noise.RunLevel


@dataclasses.dataclass
class Calibration:
    machine: noise.Machine
    kinds: list[KindFigure]
    runs: int
    processes: int
    load: float
    seconds: float

    def rows(self) -> list[dict]:
        """machine_priors rows (Store.save_machine_priors)."""
        return [dict(kind=k.kind, variance=k.level.variance, df=k.level.df, process_cv2=k.level.process_cv2,
                     process_df=k.level.process_df, runs=k.level.earlier_runs, load=self.load) for k in self.kinds]


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def loaded(load: float) -> bool:
    return load > LOADED_SHARE * (os.cpu_count() or 1)


def calibrate_and_store(config: Config, store, *, runs: int | None = None, processes: int | None = None,
                        span: float | None = None, seed: int | None = None,
                        note: Callable[[str], None] = lambda _: None,
                        progress: Callable[[str], None] = lambda _: None) -> Calibration:
    """Calibrate this machine and store its priors (Store.save_machine_priors). `note` says
    what it does, and warns when the machine is loaded; `progress` gets a line per run."""
    runs, processes = runs or DEFAULT_RUNS, processes or DEFAULT_PROCESSES
    context = run_context.machine()
    load = load_average()
    if loaded(load):
        note(f"warning: the machine is loaded (1-minute load average {load:.2f} on {os.cpu_count() or 1} CPUs): "
             "the prior will hold that load's noise too; calibrate again when it is idle")
    note(f"calibrating {noise.Machine.of(context).label()}: {runs} runs of {processes} processes of "
         "benchlab's reference kernels")
    result = calibrate(config, context, runs=runs, processes=processes, span=span, seed=seed,
                       progress=progress, warn=lambda m: note(f"warning: {m}"))
    store.save_machine_priors(result.machine, result.rows())
    return result


def calibrate(config: Config, context: dict, *, runs: int = DEFAULT_RUNS, processes: int = DEFAULT_PROCESSES,
              span: float | None = None, seed: int | None = None, progress: Callable[[str], None] = lambda _: None,
              warn: Callable[[str], None] = lambda _: None, clock: Callable[[], float] = time.monotonic,
              sleep: Callable[[float], None] = time.sleep) -> Calibration:
    """Run the A/A, its runs spread over `span` seconds at least (DEFAULT_SPAN_S), and
    estimate each kind's run level and process spread. `clock` and `sleep` time the spread
    (tests give their own)."""
    span = DEFAULT_SPAN_S if span is None else span
    started, load = clock(), load_average()
    [platform] = resolve_platforms(["native"], config)
    seed = seed if seed is not None else draw_seed()
    runner = Runner(config, [platform], RunOptions(timeout=config.timeout, seed=seed),
                    Builder(config), warn)
    unit = Unit(Target(name="benchlab-reference", kind="source", path=REFERENCE_SOURCE), platform)
    built = runner.executable(unit)
    if isinstance(built, BuildFailed):
        raise UserError(f"benchlab's reference kernels do not compile: {(built.stderr.strip().splitlines() or ['?'])[-1]}",
                        "check build.cc and build.cflags in benchlab.toml")
    medians: dict[str, list[list[float]]] = {kernel: [] for kernel in noise.KINDS.values()}
    for run in range(runs):
        # a run every span/runs seconds: they meet the host's states
        _wait_for(started + span * run / runs, clock, sleep)
        progress(f"calibration run {run + 1}/{runs}")
        by_kernel: dict[str, list[float]] = {kernel: [] for kernel in medians}
        for process in range(processes):
            result = runner.run_unit(unit, process)
            if result.faults:
                raise UserError(f"benchlab's reference kernels failed: {result.faults[0].reason}",
                                "run benchlab calibrate again; if it fails again, report it")
            for record in result.records:
                if record.bench in by_kernel and record.median is not None:
                    by_kernel[record.bench].append(record.median)
        for kernel, values in by_kernel.items():
            medians[kernel].append(values)
    kinds = [KindFigure(kind, kernel, _mean([sum(v) / len(v) for v in medians[kernel] if v]),
                        aa_level(medians[kernel])) for kind, kernel in noise.KINDS.items()]
    return Calibration(noise.Machine.of(context), kinds, runs, processes, load, clock() - started)


def aa_level(runs: list[list[float]]) -> noise.RunLevel:
    """The run level and pooled process spread of an A/A's runs (their process medians):
    the plain means over every consecutive difference and every run's CV^2: an A/A holds
    no change of code, and a state its runs meet once in ten is the machine's."""
    history = [f for f in (noise.run_figure(values) for values in runs) if f is not None]
    level = noise.estimate(history, robust=False)
    if level is None:
        raise UserError("the calibration has too few runs with figures to estimate the machine's noise",
                        f"give --runs {noise.MIN_EARLIER_RUNS} or more")
    return dataclasses.replace(level, source=noise.MACHINE_PRIOR)


def _wait_for(moment: float, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
    pause = moment - clock()
    if pause > 0:
        sleep(pause)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan
