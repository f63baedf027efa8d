"""`benchlab run`: build, run every target on every platform, print the table, store the run."""
from __future__ import annotations

import dataclasses
import sys
from typing import Any

import click
from rich.console import Console

from benchlab.cli import unfiltered
from benchlab.measuring import context as run_context
from benchlab.measuring.build import Builder
from benchlab.cli.common import (
    FiniteFloatRange, check_outputs, config_of, db_option, format_option, open_store, out_option, quiet_option,
    write_output)
from benchlab import runflags
from benchlab.config import MAX_TIMEOUT_S, draw_seed
from benchlab.errors import ExitCode, StoreFailed, UserError
from benchlab.limits import limit
from benchlab.runflags import RUN_FLAGS, RunFlag
from benchlab.statistics.contention import busy_note, short_samples_note
from benchlab.measuring.platforms import resolve_platforms
from benchlab.output.progress import PlannedWork, Progress, TimeBudget
from benchlab.output.table import Table
from benchlab.records import NOT_BUILT
from benchlab.measuring.runner import DEFAULT_PROCESSES, RunOptions, Runner, Sweep
from benchlab.measuring.recording import Recorder, RunStorage
from benchlab.measuring.session import PRESETS, PRECISION_BUDGET_S, Budget, Session, process_started, stop_note
from benchlab.measuring.targets import descriptions, resolve_targets

DEFAULT_PLATFORMS = ["native"]
#: Said after a run whose figures have no identical-code history on a machine never calibrated.
NO_PRIOR_NOTE = ("note: figures with no earlier runs of identical code have no measured spread between runs, and "
                 "this machine has no prior: their intervals let a rerun move as far as one process (benchlab "
                 "calibrate measures the machine, in about 20 s)")


def _run_flag_option(flag: RunFlag):
    """The click option of a row of runflags.RUN_FLAGS: its value reaches the command under the
    option's own name (`process_precision`) as RunOptions holds it (--no-subtract gives False)."""
    if flag.kind == runflags.OFF:
        return click.option(flag.option, flag.param, flag_value=False, default=None, help=flag.help)
    if flag.kind == runflags.TEXTS:
        return click.option(flag.option, flag.param, multiple=True, metavar=flag.metavar, help=flag.help)
    kind = {runflags.WHOLE: lambda: click.IntRange(min=int(flag.minimum), max=int(flag.maximum)),
            runflags.NUMBER: lambda: FiniteFloatRange(min=flag.minimum, min_open=flag.above, max=flag.maximum),
            runflags.CHOICE: lambda: click.Choice(flag.choices)}.get(flag.kind, lambda: None)()
    return click.option(flag.option, flag.param, type=kind, metavar=flag.metavar, help=flag.help)


def run_flag_options(function):
    """Every row of runflags.RUN_FLAGS as an option, in the table's order."""
    for flag in reversed(RUN_FLAGS):
        function = _run_flag_option(flag)(function)
    return function


@click.command("run")
@click.argument("targets", nargs=-1, metavar="[TARGET]...")
@click.option("--platform", "-p", "platform_names", multiple=True, metavar="NAME",
              help="Platform to run on; repeat (or NAME,NAME) for several, the first is the reference (default: run.platforms, else native).")
@format_option
@out_option
@click.option("--timeout", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIMEOUT_S), metavar="S",
              help="Seconds before a binary is killed (default: run.timeout, else 300).")
@run_flag_options
@click.option("--processes", "-N", type=click.IntRange(min=1, max=1000), metavar="N",
              help=f"Fresh processes per binary, interleaved in shuffled rounds (default: run.processes, else {DEFAULT_PROCESSES}).")
@click.option("--time", "budget_s", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIMEOUT_S), metavar="S",
              help="Spend S seconds (the whole command but its builds) on as many rounds of processes as fit.")
@click.option("--precision", type=FiniteFloatRange(min=0, min_open=True, max=limit("MAX_PRECISION_PCT")), metavar="PCT",
              help=f"Add rounds of processes until every figure's rerun interval is within +-PCT% (or --time, else {PRECISION_BUDGET_S:g} s, is spent).")
@click.option("--fast", is_flag=True, help=f"Rough figures quickly: {PRESETS['fast']} processes per binary.")
@click.option("--rigorous", is_flag=True, help=f"Tighter figures: {PRESETS['rigorous']} processes per binary.")
@click.option("--no-randomize-layout", is_flag=True,
              help="Give every process the same environment size and stack offset.")
@click.option("--no-spread-cpus", is_flag=True,
              help="Do not start each process of a benchlab binary on the next CPU in turn.")
@click.option("--sweep", metavar="FLAG=V1,V2",
              help="Run each binary once per value of FLAG (threads means -t; instances=N runs N copies at once).")
@click.option("--arg", "extra_args", multiple=True, metavar="ARG", help="Extra argument for every benchmark binary.")
@db_option
@click.option("--no-store", is_flag=True, help="Do not keep this run in the database.")
@quiet_option
@click.pass_context
def command(context: click.Context, **given) -> int:
    """Build and run TARGETs (suite directories, C files, executables, workload names or
    file-name prefixes; default: the suites of benchlab.toml, else suites/) on each platform
    and print one table with a column per platform."""
    started = process_started()
    config, flags = config_of(context), Flags.of(given)
    budget = Budget.from_flags(processes=flags.processes, seconds=flags.budget_s, precision=flags.precision,
                               fast=flags.fast, rigorous=flags.rigorous, default=config.processes or DEFAULT_PROCESSES)
    options = _run_options(flags, config)  # a bad --sweep is an error before anything runs
    platforms = _platforms(flags.platform_names, config)
    resolved = resolve_targets(list(flags.targets), config)
    check_outputs(config, flags.output_format, flags.out_path)  # a bad --out is an error before, not after, the run
    # Its bar's codes reach the terminal; its lines are escaped where they are built.
    progress = Progress(Console(file=unfiltered(sys.stderr), highlight=False), quiet=flags.quiet)
    builder = Builder(config)
    runner, units = _plan(config, platforms, options, builder, resolved, progress.warn)
    _warn_ignored_for_workloads(resolved, flags.benchmark_flags(), progress.warn)
    argv = context.obj.get("argv", ["benchlab", "run", *flags.targets])
    info = run_context.collect(config, platforms, options.seed, argv)
    if described := descriptions(resolved):
        info["descriptions"] = described  # shown under the table, by `show` too
    session = Session(runner, units, options.seed, budget, started=started)
    session.build()  # before the budget's time: --time S is S seconds of processes (session.py)
    storage = None if flags.no_store else RunStorage(open_store(config, flags.db_url), progress.warn)
    progress.total, progress.estimate = _estimate(session, budget, started)
    columns = [p.name for p in platforms]  # the platforms, as the table and the store name them
    with progress:
        outcome = Recorder(runner, info, storage, progress).run(session, argv, columns)
    progress.note(stop_note(budget, outcome))
    progress.note(busy_note(outcome.records))
    progress.note(short_samples_note(outcome.records))
    if options.filters and outcome.filtered_out == len(info["plan"]):
        raise _no_match(options.filters, storage)
    failed = any(fault.kind != NOT_BUILT for fault in outcome.faults)  # a platform a source cannot build is no failure
    exit_code, status = (ExitCode.BENCHMARK_FAILURE, "failed") if failed else (ExitCode.OK, "complete")
    # Closed before the output is written: a failure to write --out must not leave the run 'killed'.
    problem = storage.close(info, status, exit_code) if storage else None
    history = storage.run_levels(info) if storage else None
    run_id = storage.run_id if storage else None
    write_output(Table(platforms=columns, records=outcome.records, faults=outcome.faults,
                       run={"id": run_id, "status": status, "context": info}, history=history),
                 flags.output_format, flags.out_path)
    if problem:
        raise StoreFailed(f"run {run_id} is not completely stored: {problem.what}",
                          f"{problem.fix}; the results are printed above" + (f" and in {flags.out_path}" if flags.out_path else ""))
    if storage:
        if history is not None and _without_history(outcome.records, history) and storage.without_prior(info):
            progress.note(NO_PRIOR_NOTE)
        progress.note(f"saved as run {run_id} (benchlab show {run_id}); "
                      f"{len(builder.compiled)} compiled, {len(builder.reused)} from the build cache")
    return exit_code


@dataclasses.dataclass
class Flags:
    """The command's flags, as click parses them: one field per option above, and the values of
    runflags.RUN_FLAGS' options (None: not given) by their RunOptions field."""

    targets: tuple[str, ...]
    platform_names: tuple[str, ...]
    output_format: str | None
    out_path: str | None
    timeout: float | None
    processes: int | None
    budget_s: float | None
    precision: float | None
    fast: bool
    rigorous: bool
    no_randomize_layout: bool
    no_spread_cpus: bool
    sweep: str | None
    extra_args: tuple[str, ...]
    db_url: str | None
    no_store: bool
    quiet: bool
    binary: dict[str, Any]

    @classmethod
    def of(cls, given: dict[str, Any]) -> "Flags":
        binary = {flag.field: given.pop(flag.param) for flag in RUN_FLAGS}
        return cls(**given, binary={field: None if value == () else value for field, value in binary.items()})

    def benchmark_flags(self) -> dict:
        """Flags that only benchmark binaries take (a workload is timed from outside)."""
        return {**{flag.option: self.binary[flag.field] for flag in RUN_FLAGS},
                "--sweep": self.sweep, "--arg": self.extra_args}


def _run_options(flags: Flags, config) -> RunOptions:
    """What every process of the run is given: the flags, else benchlab.toml, else defaults."""
    binary = runflags.resolved(flags.binary, config.run_flags)
    if binary["seed"] is None:  # recorded, so the run can be repeated
        binary["seed"] = draw_seed()
    return RunOptions(
        timeout=flags.timeout or config.timeout, extra_args=flags.extra_args,
        sweep=Sweep.parse(flags.sweep) if flags.sweep else None,
        randomize_layout=not flags.no_randomize_layout, spread_cpus=not flags.no_spread_cpus, **binary,
    )


def _platforms(platform_names: tuple[str, ...], config) -> list:
    """The platforms to run on, each checked to be installed; --platform a,b is --platform a --platform b."""
    names = [name for given in platform_names for name in given.split(",")]
    platforms = resolve_platforms(names or config.platforms or DEFAULT_PLATFORMS, config)
    for platform in platforms:
        platform.check_available()
    return platforms


def _plan(config, platforms, options: RunOptions, builder: Builder, resolved, warn) -> tuple[Runner, list]:
    """The runner and the units it will run (a binary on a platform at a swept value)."""
    if options.sweep is not None and options.sweep.instances:
        launcher = builder.measure_launcher()  # the copies' start gate (instances.py)
        if isinstance(launcher, str):
            raise UserError(f"--sweep instances needs benchlab's start gate: {launcher}",
                            "install a C compiler (apt-get install build-essential)")
    runner = Runner(config, platforms, options, builder, warn)
    units = runner.plan(resolved)
    if not units:
        raise UserError("no target can run on the chosen platforms (prebuilt binaries run only on their own target)",
                        "give C sources, or a platform matching the executables")
    return runner, units


def _no_match(filters: tuple[str, ...], storage: RunStorage | None) -> UserError:
    if storage:
        storage.forget()
    shown = ", ".join(repr(f) for f in filters)
    return UserError(f"--filter {shown} matches no benchmark in any binary",
                     "list a binary's benchmarks with its --list; a filter is a substring of NAME or NAME/PARAM=V")


def _without_history(records, history: dict) -> bool:
    """Whether a timing figure has neither identical-code history nor a machine prior (its
    own processes stand in, noise.own_level, or nothing does)."""
    from benchlab.statistics.combine import history_key
    from benchlab.statistics.noise import OWN_PROCESSES

    def without(record) -> bool:
        level = history.get(history_key(record))
        return level is None or level.source == OWN_PROCESSES

    return any(r.counter == "time" and r.median and without(r) for r in records)


def _estimate(session: Session, budget: Budget, started: float) -> tuple[int | None, PlannedWork | TimeBudget]:
    """The processes planned (None: as many as the budget allows) and what the time left is
    estimated from: the planned processes at their programs' pace, or the time budget."""
    if budget.fixed:
        labels = [unit.label for unit, _ in session.planned()]
        return len(labels), PlannedWork(labels)
    return None, TimeBudget(budget.limit_s, started)


def _warn_ignored_for_workloads(targets, flags: dict, warn) -> None:
    """--samples, --counters and the rest are flags of benchmark binaries: say so when a workload gets none."""
    workloads = [t.name for t in targets if t.kind == "workload"]
    ignored = [flag for flag, value in flags.items() if value]
    if workloads and ignored:
        verb = "does" if len(ignored) == 1 else "do"
        warn(f"{', '.join(ignored)} {verb} not apply to workloads ({', '.join(workloads)}): a workload is timed "
             f"from outside over its runs (set workloads.NAME.runs and warmups in benchlab.toml)")
