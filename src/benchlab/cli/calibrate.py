"""`benchlab calibrate`: measure this machine's between-run noise (the prior for code with
no identical-code history: noise.py, calibration.py) and store it."""
from __future__ import annotations

import click

from benchlab.config import MAX_SEED
from benchlab.measuring import calibration
from benchlab.statistics import noise
from benchlab.cli.common import FiniteFloatRange, config_of, db_option, kept, note, open_store, quiet_option, step_lines
from benchlab.output.figures import percent_text


@click.command("calibrate")
@click.option("--runs", type=click.IntRange(min=noise.MIN_EARLIER_RUNS, max=noise.MAX_EARLIER_RUNS), metavar="N",
              help=f"Separate runs of the reference kernels (default {calibration.DEFAULT_RUNS}).")
@click.option("--processes", "-N", type=click.IntRange(min=2, max=100), metavar="N",
              help=f"Processes per run (default {calibration.DEFAULT_PROCESSES}).")
@click.option("--span", type=FiniteFloatRange(min=0, max=3600), metavar="S",
              help=f"Seconds to spread the runs over at least (default {calibration.DEFAULT_SPAN_S:g}): the host's "
                   "states last seconds.")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), metavar="N", help="Seed of the layouts.")
@db_option
@quiet_option
@click.pass_context
def command(context: click.Context, runs: int | None, processes: int | None, span: float | None, seed: int | None,
            db_url: str | None, quiet: bool) -> int:
    """Run benchlab's reference kernels (a loop-bound copy, a latency-bound chain, a system
    call) as an A/A of RUNS separate runs and store, per kind, how much whole runs and single
    processes differ on this machine. `run`, `show`, `compare` and `gate` use it for figures
    that have no earlier runs of identical code; `gate` calibrates on its own the first time
    it meets a machine."""
    config = config_of(context)
    store = open_store(config, db_url)  # a bad --db is an error before, not after, the runs
    result = calibration.calibrate_and_store(config, store, runs=runs, processes=processes, span=span, seed=seed,
                                             note=note, progress=step_lines)
    kept(context, "the calibration is stored")
    click.echo(summary(result))
    return 0


def summary(result: calibration.Calibration) -> str:
    lines = [f"{'KIND':<14} {'KERNEL':<9} {'FIGURE':>10}  {'BETWEEN RUNS':>12}  {'ONE PROCESS':>11}  DF (RUNS, PROCESSES)"]
    for k in result.kinds:
        lines.append(f"{k.kind:<14} {k.kernel:<9} {k.figure:>8.4g}ns  {percent_text(k.level.relative_sd):>12}  "
                     f"{percent_text(k.level.process_sd):>11}  {k.level.df}, {k.level.process_df}")
    lines.append(f"machine {result.machine.id} = {result.machine.label()}; {result.runs} runs of {result.processes} "
                 f"processes in {result.seconds:.1f} s, load average {result.load:.2f}; stored as its prior")
    return "\n".join(lines) + "\n"

