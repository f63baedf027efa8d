"""The `benchlab` command. This module is its table of contents: the subcommands,
and the one place where a user error becomes `error: <what> (<how to fix>)` and an
exit code (see benchlab.errors.ExitCode and docs/cli.md).
"""
from __future__ import annotations

import importlib
import os
import sys

import click

from benchlab import __version__
from benchlab.errors import ExitCode, Interrupted, UserError
from benchlab.records import printable

#: Set to 1 to get Python tracebacks for user errors too.
DEBUG_VARIABLE = "BENCHLAB_DEBUG"

#: A group given no subcommand (click >= 8.2 raises this usage error, carrying the help).
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


#: The subcommands, in the order `benchlab --help` lists them: name -> (module, attribute,
#: the line the help lists it with). A subcommand's module is imported only when that
#: subcommand runs: `benchlab run` need not pay for the HTML report's, the profiler's or
#: ab's imports, and `benchlab --help` lists them all from this table without importing one
#: (together they import numpy, SQLAlchemy and rich: half a second).
SUBCOMMANDS = {
    "run": ("run", "command", "Build and run benchmarks on platforms; print the table; store the run."),
    "runs": ("runs", "command", "List stored runs, newest first."),
    "show": ("show", "command", "Print a stored run again."),
    "stats": ("stats", "command",
              "What each figure of a stored run rests on: its processes, samples and interval."),
    "compare": ("compare", "compare_command", "What got faster or slower between two runs, with 99% intervals."),
    "gate": ("compare", "gate_command",
             "Exit 3 when something got slower beyond a threshold, or a profile bucket is past its limit."),
    "ab": ("ab", "command", "Two builds interleaved, paired by round: the mode to trust on noisy machines."),
    "calibrate": ("calibrate", "command",
                  "Measure this machine's run-to-run noise (the prior for code with no history)."),
    "import": ("import_", "command", "Store a results file (Google Benchmark, hyperfine, pyperf, Lind, CSB, B63, "
                                     "benchlab jsonl or csv) as a run."),
    "export": ("export", "command", "Write a stored run as jsonl, csv, Google Benchmark JSON or Lind JSON."),
    "baseline": ("baseline", "command", "Name stored runs: save, list, show, delete."),
    "profile": ("profile", "command", "Where a benchmark or a command spends its time, in named buckets."),
    "history": ("history", "command", "A benchmark over stored runs, level shifts marked."),
    "report": ("report", "command", "Write stored runs as an HTML page with charts."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use (click's documented
    pattern: list_commands and get_command instead of add_command), and listed by the
    help from SUBCOMMANDS."""

    def list_commands(self, context: click.Context) -> list[str]:
        return list(SUBCOMMANDS)

    def get_command(self, context: click.Context, name: str) -> click.Command | None:
        if name not in SUBCOMMANDS:
            return None
        module, attribute, _ = SUBCOMMANDS[name]
        return getattr(importlib.import_module(f"benchlab.cli.{module}"), attribute)

    def format_commands(self, context: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own would import every subcommand's module to ask for its short help.
        with formatter.section("Commands"):
            formatter.write_dl([(name, short_help) for name, (_, _, short_help) in SUBCOMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="benchlab")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), envvar="BENCHLAB_CONFIG",
              help="benchlab.toml to use (default: the nearest one from the current directory up).")
@click.pass_context
def cli(context: click.Context, config_path: str | None) -> None:
    """Build, run and compare benchmarks of small costs across platforms."""
    context.ensure_object(dict)["config_path"] = config_path


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the command, turn user errors into one line and an exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        _check_arguments(args)
        result = cli.main(args=args, prog_name="benchlab", standalone_mode=False, obj={"argv": ["benchlab", *args]})
    except UserError as error:
        if os.environ.get(DEBUG_VARIABLE):
            raise
        click.echo(f"error: {printable(error)}", err=True)  # a name in it cannot drive the terminal
        return ExitCode.USAGE_ERROR
    except _NO_ARGS_IS_HELP as error:
        # `benchlab` or `benchlab baseline` alone: the help is the answer, not an error to quote.
        click.echo(error.format_message(), err=True)
        return ExitCode.USAGE_ERROR
    except click.UsageError as error:
        command = error.ctx.command_path if error.ctx else "benchlab"
        click.echo(f"error: {error.format_message()} (see '{command} --help')", err=True)
        return ExitCode.USAGE_ERROR
    except click.ClickException as error:
        click.echo(f"error: {error.format_message()}", err=True)
        return ExitCode.USAGE_ERROR
    except Interrupted as interrupted:
        click.echo(str(interrupted), err=True)
        return ExitCode.INTERRUPTED
    except (KeyboardInterrupt, click.Abort):
        click.echo("interrupted", err=True)
        return ExitCode.INTERRUPTED
    return int(result or 0)


def _check_arguments(args: list[str]) -> None:
    # A real command line cannot hold a NUL byte, but a caller of main() can pass one, and
    # no benchmark binary could receive it.
    for index, arg in enumerate(args, start=1):
        if "\0" in arg:
            raise UserError(f"argument {index} ({arg!r}) contains a NUL character", "remove it")


def entry_point() -> None:
    sys.exit(main())
