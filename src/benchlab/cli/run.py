"""`benchlab run`: build, run every target on every platform, print the table, store the run."""
from __future__ import annotations

import contextlib
import random
import signal
import sys

import click
from rich.console import Console

from benchlab import context as run_context
from benchlab import noise
from benchlab.build import Builder
from benchlab.buildable import not_built
from benchlab.cli.common import (
    FiniteFloatRange, check_outputs, config_of, db_option, format_option, open_store, out_option, write_output)
from benchlab.config import MAX_SEED, MAX_TIME_LIMIT_S, MAX_TIMEOUT_S
from benchlab.errors import ExitCode, Interrupted, StoreFailed, UserError
from benchlab.limits import limit
from benchlab.platforms import resolve_platforms
from benchlab.table import Table
from benchlab.runner import DEFAULT_PROCESSES, RunOptions, Runner, Sweep
from benchlab.session import PRESETS, PRECISION_BUDGET_S, Budget, Session, process_started, stop_note
from benchlab.targets import resolve_targets

DEFAULT_PLATFORMS = ["native"]
#: Said after a run whose figures have no identical-code history on a machine never calibrated.
NO_PRIOR_NOTE = ("note: figures with no earlier runs of identical code have intervals from this run's processes "
                 "only: this machine has no prior (benchlab calibrate measures it, in about 20 s)")


def _limit_range(low: str, high: str) -> click.IntRange:
    """An integer flag whose bounds are the header's limits (benchlab.limits)."""
    return click.IntRange(min=int(limit(low)), max=int(limit(high)))


@click.command("run")
@click.argument("targets", nargs=-1, metavar="[TARGET]...")
@click.option("--platform", "-p", "platform_names", multiple=True, metavar="NAME",
              help="Platform to run on; repeat (or NAME,NAME) for several, the first is the reference (default: run.platforms, else native).")
@format_option
@out_option
@click.option("--timeout", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIMEOUT_S), metavar="S",
              help="Seconds before a binary is killed (default: run.timeout, else 300).")
@click.option("--samples", type=_limit_range("MIN_SAMPLES", "MAX_SAMPLES"), metavar="N",
              help="Samples per benchmark in each process (--samples=N; default: as --precision needs).")
@click.option("--time-limit", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIME_LIMIT_S), metavar="S",
              help="Sampling time per benchmark in each process, once it has 10 samples (--time-limit=S).")
@click.option("--process-precision", type=FiniteFloatRange(min=0, max=limit("MAX_PRECISION_PCT")), metavar="PCT",
              help="In each process, stop a benchmark once its median's interval is within +-PCT%% (the header's --precision=PCT; 0: off).")
@click.option("--schedule", type=click.Choice(["rounds", "sequential"]),
              help="rounds: every benchmark of a program sampled in shuffled rounds (default); sequential: one after another.")
@click.option("--no-subtract", is_flag=True, help="Table figures as measured, without subtracting the empty loop's cost.")
@click.option("--processes", "-N", type=click.IntRange(min=1, max=1000), metavar="N",
              help=f"Fresh processes per binary, interleaved in shuffled rounds (default: run.processes, else {DEFAULT_PROCESSES}).")
@click.option("--time", "budget_s", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIMEOUT_S), metavar="S",
              help="Spend S seconds (the whole command) on as many rounds of processes as fit.")
@click.option("--precision", type=FiniteFloatRange(min=0, min_open=True, max=limit("MAX_PRECISION_PCT")), metavar="PCT",
              help=f"Add rounds of processes until every figure's rerun interval is within +-PCT%% (or --time, else {PRECISION_BUDGET_S:g} s, is spent).")
@click.option("--fast", is_flag=True, help=f"Rough figures quickly: {PRESETS['fast']} processes per binary.")
@click.option("--rigorous", is_flag=True, help=f"Tighter figures: {PRESETS['rigorous']} processes per binary.")
@click.option("--no-randomize-layout", is_flag=True,
              help="Give every process the same environment size and stack offset.")
@click.option("--no-spread-cpus", is_flag=True,
              help="Do not start each process of a benchlab binary on the next CPU in turn.")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), metavar="N",
              help="Seed passed to every binary (default: random, recorded).")
@click.option("--filter", "filters", multiple=True, metavar="TEXT", help="Only benchmarks whose name contains TEXT.")
@click.option("--counters", metavar="LIST", help="Counters for benchlab binaries (--counters=LIST, e.g. time,page-faults,allocs; docs/counters.md).")
@click.option("--sweep", metavar="FLAG=V1,V2",
              help="Run each binary once per value of FLAG (threads means -t; instances=N runs N copies at once).")
@click.option("--arg", "extra_args", multiple=True, metavar="ARG", help="Extra argument for every benchmark binary.")
@db_option
@click.option("--no-store", is_flag=True, help="Do not keep this run in the database.")
@click.pass_context
def command(context: click.Context, targets: tuple[str, ...], platform_names: tuple[str, ...],
            output_format: str | None, out_path: str | None, timeout: float | None, samples: int | None,
            time_limit: float | None, process_precision: float | None, schedule: str | None, no_subtract: bool,
            processes: int | None, budget_s: float | None, precision: float | None, fast: bool, rigorous: bool,
            no_randomize_layout: bool, no_spread_cpus: bool, seed: int | None, filters: tuple[str, ...],
            counters: str | None, sweep: str | None, extra_args: tuple[str, ...], db_url: str | None,
            no_store: bool) -> int:
    """Build and run TARGETs (suite directories, C files, executables, workload names or
    file-name prefixes; default: the suites of benchlab.toml, else suites/) on each platform
    and print one table with a column per platform."""
    started = process_started()
    config = config_of(context)
    budget = Budget.from_flags(processes=processes, seconds=budget_s, precision=precision, fast=fast,
                               rigorous=rigorous, default=config.processes or DEFAULT_PROCESSES)
    parsed_sweep = Sweep.parse(sweep) if sweep else None  # instances=0 is an error before anything runs
    # --platform native,callgrind is --platform native --platform callgrind
    names = [name for given in platform_names for name in given.split(",")]
    platforms = resolve_platforms(names or config.platforms or DEFAULT_PLATFORMS, config)
    for platform in platforms:
        platform.check_available()
    resolved = resolve_targets(list(targets), config)
    check_outputs(config, output_format, out_path)  # a bad --out is an error before, not after, the run
    options = RunOptions(
        timeout=timeout or config.timeout,
        seed=seed if seed is not None else (config.seed if config.seed is not None else random.randrange(2**31)),
        samples=samples if samples is not None else config.samples,
        time_limit=time_limit if time_limit is not None else config.time_limit,
        filters=filters, counters=counters, extra_args=extra_args, sweep=parsed_sweep,
        precision=process_precision, schedule=schedule, subtract=not no_subtract,
        randomize_layout=not no_randomize_layout,
        spread_cpus=not no_spread_cpus,
    )
    stderr = Console(stderr=True, highlight=False)
    progress = _bar(stderr) if sys.stderr.isatty() else _NoBar(stderr)

    warned: set[str] = set()

    def warn(message: str) -> None:
        if message in warned:
            return  # the same binary says the same in each of its processes: once is enough
        warned.add(message)
        progress.console.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)

    builder = Builder(config)
    if parsed_sweep is not None and parsed_sweep.instances:
        launcher = builder.measure_launcher()  # the copies' start gate (instances.py)
        if isinstance(launcher, str):
            raise UserError(f"--sweep instances needs benchlab's start gate: {launcher}",
                            "install a C compiler (apt-get install build-essential)")
    runner = Runner(config, platforms, options, builder, warn)
    units = runner.plan(resolved)
    if not units:
        raise UserError("no target can run on the chosen platforms (prebuilt binaries run only on their own target)",
                        "give C sources, or a platform matching the executables")
    argv = context.obj.get("argv", ["benchlab", "run", *targets])
    _warn_ignored_for_workloads(resolved, {"--samples": samples, "--time-limit": time_limit, "--counters": counters,
                                           "--filter": filters, "--sweep": sweep, "--arg": extra_args}, warn)
    info = run_context.collect(config, platforms, options.seed, argv)
    session = Session(runner, units, options.seed, budget, started=started)
    planned = session.planned()
    info["plan"] = [unit_key(unit) for unit, _ in planned]  # a unit once per process
    storage = None if no_store else _Storage(open_store(config, db_url), warn)
    run_id = storage.begin(argv, [p.name for p in platforms], info) if storage else None

    plain = _PlainProgress(len(planned) if budget.fixed else None, stderr, enabled=not sys.stderr.isatty())
    try:
        with _sigterm_as_interrupt(), progress:
            task = progress.add_task("running", total=len(planned) if budget.fixed else None)

            def on_round(order):
                info["plan"].extend(unit_key(unit) for unit, _ in order)

            def on_start(unit):
                progress.update(task, description=unit.label)
                plain.start(unit.label)

            def on_result(unit, result):
                if result.context is not None:
                    info["binaries"][f"{unit.target.name}@{unit.platform.name}"] = result.context
                _record_code(info, runner, unit)
                if storage:
                    storage.add(result.records, result.faults, unit_key(unit))
                progress.advance(task)

            def on_skip(unit):
                if storage:
                    storage.add([], [], unit_key(unit))  # done: nothing to run
                plain.skip()
                progress.advance(task)

            outcome = session.run(on_round=on_round, on_start=on_start, on_result=on_result, on_skip=on_skip,
                                  levels=lambda: storage.run_levels(info) if storage else None)
    except KeyboardInterrupt:
        if not storage:
            raise Interrupted("interrupted: nothing stored (--no-store)") from None
        problem = storage.close(info, "interrupted", ExitCode.INTERRUPTED)
        kept = f"run {run_id} keeps the {storage.stored_records} records completed so far"
        raise Interrupted(f"interrupted: {kept}" + (f"; {problem}" if problem else "")) from None
    records, faults, filtered_out = outcome.records, outcome.faults, outcome.filtered_out
    note = stop_note(budget, outcome)
    if note:
        stderr.print(note, highlight=False, soft_wrap=True, markup=False)
    if filters and filtered_out == len(info["plan"]):
        if storage:
            storage.forget()
        shown = ", ".join(repr(f) for f in filters)
        raise UserError(f"--filter {shown} matches no benchmark in any binary",
                        "list a binary's benchmarks with its --list; a filter is a substring of NAME or NAME/PARAM=V")
    failed = any(not not_built(fault) for fault in faults)  # a platform a source cannot build is no failure
    exit_code = ExitCode.BENCHMARK_FAILURE if failed else ExitCode.OK
    status = "failed" if failed else "complete"
    # Closed before the output is written: a failure to write --out must not leave the run 'killed'.
    problem = storage.close(info, status, exit_code) if storage else None
    history = storage.run_levels(info) if storage else None
    table = Table(platforms=[p.name for p in platforms], records=records, faults=faults,
                    run={"id": run_id, "status": status, "context": info}, history=history)
    write_output(table, output_format, out_path)
    if problem:
        raise StoreFailed(f"run {run_id} is not completely stored: {problem.what}",
                          f"{problem.fix}; the results are printed above"
                          + (f" and in {out_path}" if out_path else ""))
    if storage and history is not None and _without_history(records, history) and storage.without_prior(info):
        stderr.print(NO_PRIOR_NOTE, highlight=False, soft_wrap=True, markup=False)
    if storage:
        stderr.print(f"saved as run {run_id} (benchlab show {run_id}); "
                     f"{len(builder.compiled)} compiled, {len(builder.reused)} from the build cache", highlight=False)
    return exit_code


def _without_history(records, history: dict) -> bool:
    """Whether a timing figure has neither identical-code history nor a machine prior."""
    from benchlab.combine import history_key

    return any(r.counter == "time" and r.median and history_key(r) not in history for r in records)


def _record_code(info: dict, runner: Runner, unit) -> None:
    """What the unit ran, once per unit, in the context's `code`: the identity that picks
    the earlier runs of identical code whose spread is this run's noise (noise.py)."""
    label = noise.code_label(unit.target.name, unit.platform.name)
    code = info.setdefault("code", {})
    if label not in code:
        identity = runner.code_identity(unit, info["platforms"].get(unit.platform.name, {}))
        if identity is not None:
            code[label] = identity


def unit_key(unit) -> dict:
    """A unit as the store records it: what `benchlab show` compares with the plan."""
    return {"binary": unit.target.name, "platform": unit.platform.name, "sweep": unit.sweep_value}


class _Storage:
    """The run in the database: each unit is committed as it finishes. A unit that cannot be
    (a full disk) is kept in memory and tried again at the end, and the run goes on: its
    measurements are printed either way, and the run is closed, never left 'running'."""

    def __init__(self, store, warn):
        self.store = store
        self.warn = warn
        self.run_id = None
        self.pending: list[tuple] = []
        self.stored_records = 0

    def begin(self, argv, platforms, info) -> int:
        self.run_id = self.store.begin_run(argv, platforms, info)
        return self.run_id

    def add(self, records, faults, key) -> None:
        try:
            self.store.add_unit(self.run_id, records, faults, key)
            self.stored_records += len(records)
        except StoreFailed as failure:
            if not self.pending:
                self.warn(f"{failure.what}; the run goes on and keeps its results in memory")
            self.pending.append((records, faults, key))
            self.store.reclaim()  # the failed write's space, for the units still to come

    def close(self, info, status, exit_code) -> StoreFailed | None:
        """Store what could not be stored yet, then the context and the final status; the last failure, if any."""
        problem = None
        if self.pending:
            self.store.reclaim()
        for unit in list(self.pending):
            try:
                self.store.add_unit(self.run_id, *unit)
                self.pending.remove(unit)
                self.stored_records += len(unit[0])
            except StoreFailed as failure:
                problem = failure
        if self.pending and status != "interrupted":
            # Measured but not all stored: not a complete run in the database (show names what is missing).
            status, exit_code = "failed", ExitCode.USAGE_ERROR
        for step in (lambda: self.store.finish_run(self.run_id, status, exit_code),
                     lambda: self.store.update_context(self.run_id, info)):
            try:
                step()
            except StoreFailed as failure:
                problem = failure
                self.store.reclaim()  # a full disk: free what the failed writes took, and try once more
                try:
                    step()
                except StoreFailed:
                    pass
        return problem

    def run_levels(self, info) -> dict | None:
        """Earlier runs' spread for this run's intervals (noise.py); none if unreadable:
        a rerun interval from the processes alone is still a result worth printing."""
        try:
            return self.store.run_levels(self.run_id, info)
        except UserError as failure:
            self.warn(f"{failure.what}; the intervals use this run's processes only")
            return None

    def without_prior(self, info) -> bool:
        """Whether the machine has no prior (benchlab calibrate) in the store."""
        try:
            return not self.store.machine_priors(noise.Machine.of(info))
        except UserError:
            return False

    def forget(self) -> None:
        try:
            self.store.delete_run(self.run_id)
        except StoreFailed:
            pass  # an empty run left behind: harmless, and the user error says what happened


def _bar(stderr: Console):
    """rich's progress bar, for a terminal. Imported here: 12 ms of start-up that a run
    whose stderr is a pipe or a file (_PlainProgress prints lines there) does not need."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=stderr, transient=True)


class _NoBar:
    """The bar's interface, doing nothing: stderr is not a terminal."""

    def __init__(self, console: Console):
        self.console = console

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def add_task(self, description: str, total: int | None) -> int:
        return 0

    def update(self, task: int, description: str) -> None:
        pass

    def advance(self, task: int) -> None:
        pass


class _PlainProgress:
    """Progress as lines on stderr when it is not a terminal (a pipe, a CI log), where rich's
    bar is off: one line as each unit starts, so a long run is never silent."""

    def __init__(self, total: int | None, console: Console, enabled: bool):
        self.total = total
        self.console = console
        self.enabled = enabled
        self.done = 0

    def skip(self) -> None:
        self.done += 1

    def start(self, label: str) -> None:
        self.done += 1
        if self.enabled:
            counted = f"{self.done}/{self.total}" if self.total is not None else f"{self.done}"  # a budget: open-ended
            self.console.print(f"[{counted}] {label}", markup=False, highlight=False, soft_wrap=True)


def _warn_ignored_for_workloads(targets, flags: dict, warn) -> None:
    """--samples, --counters and the rest are flags of benchmark binaries: say so when a workload gets none."""
    workloads = [t.name for t in targets if t.kind == "workload"]
    ignored = [flag for flag, value in flags.items() if value]
    if workloads and ignored:
        verb = "does" if len(ignored) == 1 else "do"
        warn(f"{', '.join(ignored)} {verb} not apply to workloads ({', '.join(workloads)}): a workload is timed "
             f"from outside over its runs (set workloads.NAME.runs and warmups in benchlab.toml)")


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """Treat SIGTERM (a CI job cancelled) like Ctrl-C, so the run is closed cleanly."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
