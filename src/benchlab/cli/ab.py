"""`benchlab ab A B`: two builds in alternating processes, paired by round.

A and B are two executables or two C sources, or, with `--rev R1 --rev R2`, two git
revisions of one or more TARGETs. The flow is judging/ab.py's (the pairs, the rounds, each
row judged at its own floor and threshold); this module reads the flags, prints the table
and the judgment, writes the CI outputs (output/ci.py) and exits with the answer.
"""
from __future__ import annotations

import sys

import click

from benchlab.config import MAX_SEED
from benchlab.cli.common import (FiniteFloatRange, config_of, junit_option, note, quiet_option, rounds_progress,
                                 rounds_time_option, summary_option)
from benchlab.errors import ExitCode, UserError
from benchlab.formats.registry import COMPARISON_FORMATS
from benchlab.judging import ab
from benchlab.judging.judgment import INCONCLUSIVE_POLICIES
from benchlab.output.ci import Outputs
from benchlab.output.comparisons import answer_text
from benchlab.output.fitting import terminal_width
from benchlab.percent import Percent


@click.command("ab")
@click.argument("programs", nargs=-1, metavar="A B | --rev R1 --rev R2 TARGET...")
@click.option("--rev", "revs", multiple=True, metavar="REV",
              help="A git revision; give two, and one or more TARGETs (suite directories or files).")
@click.option("--platform", "platform_name", default="native", metavar="NAME", help="Where to run (default native).")
@click.option("--precision", type=FiniteFloatRange(min=0.01, max=100), default=1.0, metavar="PCT",
              help="Without --max-regression: stop once every ratio's 99% interval is within +-PCT% (default 1). "
                   "With it, a row is measured until it is decided or the time is out.")
@rounds_time_option("Stop after S seconds of rounds in any case (default: 10 s per program, at least 30; builds "
                    "come before, not counted). (--time-limit, its old spelling, still works.)", maximum=1e6)
@click.option("--max-rounds", type=click.IntRange(min=2, max=100000), default=1000, metavar="N")
@click.option("--duet", is_flag=True, help="Run A and B at the same time, one per CPU, swapping CPUs each round.")
@click.option("--max-regression", type=Percent(), metavar="PCT",
              help="Judge B against A: exit 3 when a row is slower by more than PCT% with 99% confidence, 4 when "
                   "one is undecided (see --inconclusive); rows decided early are measured no more.")
@click.option("--inconclusive", type=click.Choice(INCONCLUSIVE_POLICIES), default="fail", show_default=True,
              help="With --max-regression: what an undecided row does, fail (exit 4) or pass (exit 0).")
@click.option("--noise-floor", "floor", type=Percent(), metavar="PCT",
              help="Slowdowns below PCT% are 'not slower' (default: compare.noise_floor, 1).")
@click.option("--format", "output_format", type=click.Choice(COMPARISON_FORMATS), default=COMPARISON_FORMATS[0])
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), metavar="N", help="Seed of the round order.")
@click.option("--arg", "extra_args", multiple=True, metavar="ARG", help="Extra argument for every benchmark binary.")
@summary_option
@junit_option
@quiet_option
@click.pass_context
def command(context: click.Context, programs: tuple[str, ...], revs: tuple[str, ...], platform_name: str,
            precision: float, time_limit: float | None, max_rounds: int, duet: bool, max_regression: float | None,
            inconclusive: str, floor: float | None, output_format: str, seed: int | None,
            extra_args: tuple[str, ...], summary_path: str | None, junit_path: str | None, quiet: bool) -> int:
    """Run A and B in alternating processes, in a random order each round, and report per
    benchmark the ratio B/A with a 99% interval from the paired rounds, and a verdict:
    slower, not slower, or inconclusive."""
    if junit_path and max_regression is None:
        raise UserError("--junit needs --max-regression: JUnit records passes and failures, and without a threshold "
                        "ab judges nothing", "give --max-regression PCT, e.g. --max-regression 2%")
    outputs = Outputs.checked(summary_path, junit_path)
    request = ab.Request(programs, revs, platform_name, precision, time_limit, max_rounds, duet, max_regression,
                         inconclusive, floor, seed, extra_args)
    listener = ab.Listener(note=note, warn=lambda line: click.echo(line, err=True),
                           rounds=lambda limit, rounds: rounds_progress(limit, rounds, quiet))
    answer = ab.judge_ab(config_of(context), request, listener)
    click.echo(answer_text(answer, output_format, width=terminal_width(sys.stdout)), nl=False)
    for line in answer.notes:
        note(line)
    for line in answer.judgment.lines if answer.judgment is not None else []:
        click.echo(line, err=True)
    outputs.write(answer)
    return answer.judgment.exit_code if answer.judgment is not None else ExitCode.OK
