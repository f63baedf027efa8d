"""`benchlab run`: build, run every target on every platform, print the table, store the run."""
from __future__ import annotations

import contextlib
import random
import signal
import sys

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from benchlab import context as run_context
from benchlab.build import Builder
from benchlab.cli.common import (
    FiniteFloatRange, config_of, db_option, format_option, open_store, out_option, output_formats, write_output)
from benchlab.config import MAX_SEED, MAX_TIME_LIMIT_S, MAX_TIMEOUT_S
from benchlab.errors import ExitCode, Interrupted, UserError
from benchlab.platforms import resolve_platforms
from benchlab.report import Report
from benchlab.runner import RunOptions, Runner, Sweep
from benchlab.targets import resolve_targets

DEFAULT_PLATFORMS = ["native"]


@click.command("run", short_help="Build and run benchmarks on platforms; print the table; store the run.")
@click.argument("targets", nargs=-1, metavar="[TARGET]...")
@click.option("--platform", "-p", "platform_names", multiple=True, metavar="NAME",
              help="Platform to run on; repeat for several, the first is the reference (default: run.platforms, else native).")
@format_option
@out_option
@click.option("--timeout", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIMEOUT_S), metavar="S",
              help="Seconds before a binary is killed (default: run.timeout, else 300).")
@click.option("--samples", type=click.IntRange(min=1), metavar="N", help="Samples per benchmark (--samples=N).")
@click.option("--time-limit", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIME_LIMIT_S), metavar="S",
              help="Time limit per benchmark (--time-limit=S).")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), metavar="N",
              help="Seed passed to every binary (default: random, recorded).")
@click.option("--filter", "filters", multiple=True, metavar="TEXT", help="Only benchmarks whose name contains TEXT.")
@click.option("--counters", metavar="LIST", help="Counters for benchlab binaries (--counters=LIST, e.g. time,page-faults,allocs; docs/counters.md).")
@click.option("--sweep", metavar="FLAG=V1,V2", help="Run each binary once per value of FLAG (threads means -t).")
@click.option("--arg", "extra_args", multiple=True, metavar="ARG", help="Extra argument for every benchmark binary.")
@db_option
@click.option("--no-store", is_flag=True, help="Do not keep this run in the database.")
@click.pass_context
def command(context: click.Context, targets: tuple[str, ...], platform_names: tuple[str, ...],
            output_format: str | None, out_path: str | None, timeout: float | None, samples: int | None,
            time_limit: float | None, seed: int | None, filters: tuple[str, ...], counters: str | None,
            sweep: str | None,
            extra_args: tuple[str, ...], db_url: str | None, no_store: bool) -> int:
    """Build and run TARGETs (suite directories, C files, executables, workload names or
    file-name prefixes; default: the suites of benchlab.toml, else suites/) on each platform
    and print one table with a column per platform."""
    config = config_of(context)
    platforms = resolve_platforms(list(platform_names) or config.platforms or DEFAULT_PLATFORMS, config)
    for platform in platforms:
        platform.check_available()
    resolved = resolve_targets(list(targets), config)
    output_formats(output_format, out_path)  # a bad --out is an error before, not after, the run
    options = RunOptions(
        timeout=timeout or config.timeout,
        seed=seed if seed is not None else (config.seed if config.seed is not None else random.randrange(2**31)),
        samples=samples if samples is not None else config.samples,
        time_limit=time_limit if time_limit is not None else config.time_limit,
        filters=filters, counters=counters, extra_args=extra_args, sweep=Sweep.parse(sweep) if sweep else None,
    )
    stderr = Console(stderr=True, highlight=False)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=stderr, transient=True, disable=not sys.stderr.isatty())

    def warn(message: str) -> None:
        progress.console.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)

    builder = Builder(config)
    runner = Runner(config, platforms, options, builder, warn)
    units = runner.plan(resolved)
    if not units:
        raise UserError("no target can run on the chosen platforms (prebuilt binaries run only on their own target)",
                        "give C sources, or a platform matching the executables")
    argv = context.obj.get("argv", ["benchlab", "run", *targets])
    info = run_context.collect(config, platforms, options.seed, argv)
    store = None if no_store else open_store(config, db_url)
    run_id = store.begin_run(argv, [p.name for p in platforms], info) if store else None

    records, faults = [], []
    try:
        with _sigterm_as_interrupt(), progress:
            task = progress.add_task("running", total=len(units))
            for unit in units:
                progress.update(task, description=unit.label)
                result = runner.run_unit(unit)
                records.extend(result.records)
                faults.extend(result.faults)
                if result.context is not None:
                    info["binaries"][f"{unit.target.name}@{unit.platform.name}"] = result.context
                if store:
                    store.add_unit(run_id, result.records, result.faults)
                progress.advance(task)
    except KeyboardInterrupt:
        if not store:
            raise Interrupted("interrupted: nothing stored (--no-store)") from None
        store.update_context(run_id, info)
        store.finish_run(run_id, "interrupted", ExitCode.INTERRUPTED)
        raise Interrupted(f"interrupted: run {run_id} keeps the {len(records)} records completed so far") from None
    exit_code = ExitCode.BENCHMARK_FAILURE if faults else ExitCode.OK
    report = Report(platforms=[p.name for p in platforms], records=records, faults=faults,
                    run={"id": run_id, "status": "failed" if faults else "complete", "context": info})
    write_output(report, output_format, out_path)
    if store:
        store.update_context(run_id, info)
        store.finish_run(run_id, "failed" if faults else "complete", exit_code)
        stderr.print(f"saved as run {run_id} (benchlab show {run_id}); "
                     f"{len(builder.compiled)} compiled, {len(builder.reused)} from the build cache", highlight=False)
    return exit_code


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
