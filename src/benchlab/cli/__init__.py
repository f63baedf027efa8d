"""The `benchlab` command. This module is its table of contents: the subcommands,
and the one place where a user error becomes `error: <what> (<how to fix>)` and an
exit code (see benchlab.errors.ExitCode and docs/cli.md).
"""
from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
from typing import Iterator, TextIO

import click

from benchlab import __version__, signals
from benchlab.errors import ExitCode, Interrupted, UserError
from benchlab.records import printable, printable_text

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


def _print_include_dir(context: click.Context, _option: click.Parameter, given: bool) -> None:
    # For a user's own build: cc -I"$(benchlab --include-dir)" (docs/cli.md, "Installing").
    if given:
        from benchlab.bundled import INCLUDE_DIR
        click.echo(INCLUDE_DIR)
        context.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="benchlab")
@click.option("--include-dir", is_flag=True, expose_value=False, is_eager=True, callback=_print_include_dir,
              help="Print the directory of the benchlab.h this benchlab was installed with (for -I) and exit.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), envvar="BENCHLAB_CONFIG",
              help="benchlab.toml to use (default: the nearest one from the current directory up).")
@click.pass_context
def cli(context: click.Context, config_path: str | None) -> None:
    """Build, run and compare benchmarks of small costs across platforms."""
    context.ensure_object(dict)["config_path"] = config_path
    signals.pause_at("command")  # the tests' signals: the subcommand is imported, not yet run


class TerminalSafe(io.TextIOBase):
    """stdout or stderr as the command writes to it: every character that is not printable
    (ESC, C1 controls, bidi overrides such as U+202E) escaped, lines and tabs kept
    (records.printable_text). Names come from binaries, imported files and stores that
    anyone may have written; this is the one place all of them pass on the way to the
    terminal, whichever command prints them (stats, history, compare, gate, ...).
    rich's own terminal codes (the progress bar, a table's bold head) bypass it through
    `unfiltered`, and what they print is escaped where it is built."""

    def __init__(self, stream: TextIO):
        self.unfiltered = stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # as a text stream does: click tells text streams by this
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.unfiltered.write(printable_text(text))
        return len(text)

    def flush(self) -> None:
        self.unfiltered.flush()

    def isatty(self) -> bool:
        return self.unfiltered.isatty()

    def fileno(self) -> int:
        return self.unfiltered.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.unfiltered, "encoding", "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.unfiltered, "errors", None)


def unfiltered(stream: TextIO) -> TextIO:
    """The stream under TerminalSafe, for rich, whose own codes must reach the terminal."""
    return getattr(stream, "unfiltered", stream)


def write_data(text: str) -> None:
    """An export on stdout: exact into a file or a pipe, where its names are data to read
    back (`benchlab import`); escaped as all else on a terminal."""
    stream = sys.stdout if sys.stdout.isatty() else unfiltered(sys.stdout)
    stream.write(text)
    stream.flush()


@contextlib.contextmanager
def terminal_safe() -> Iterator[None]:
    """sys.stdout and sys.stderr behind TerminalSafe while a command runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalSafe(sys.stdout), TerminalSafe(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the command, turn user errors into one line and an exit code."""
    with terminal_safe():
        return _main(argv)


#: What a command interrupted (Ctrl-C, SIGTERM) before it said otherwise (common.kept) has
#: kept: each write is one transaction, or a file or folder that appears whole.
KEPT_BEFORE = {
    "run": "nothing stored (the run had not begun)",
    "import": "nothing imported (an import is stored whole or not at all)",
    "baseline": "no baseline saved or deleted (each is stored whole or not at all)",
    "report": "no report written (a report appears whole or not at all; one written before is kept)",
    "export": "nothing written (an export appears whole or not at all)",
    "calibrate": "no calibration stored (it is stored whole at the end)",
    "gate": "nothing judged (the store gains at most a first calibration of this machine, whole)",
    "ab": "nothing to keep (ab stores nothing)",
    "profile": "no profile stored",
}


def _interrupted(obj: dict, args: list[str]) -> str:
    """What an interrupted command says it kept."""
    if obj.get("kept"):
        return f"interrupted: {obj['kept']}"
    name = next((arg for arg in args if arg in SUBCOMMANDS), None)
    return f"interrupted: {KEPT_BEFORE.get(name, 'nothing changed (it only reads)')}"


def _main(argv: list[str] | None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    obj = {"argv": ["benchlab", *args]}
    signals.forget()
    try:
        _check_arguments(args)
        result = cli.main(args=args, prog_name="benchlab", standalone_mode=False, obj=obj)
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
        return signals.exit_status()
    except (KeyboardInterrupt, click.Abort):
        click.echo(_interrupted(obj, args), err=True)
        return signals.exit_status()
    return int(result or 0)


def _check_arguments(args: list[str]) -> None:
    # A real command line cannot hold a NUL byte, but a caller of main() can pass one, and
    # no benchmark binary could receive it.
    for index, arg in enumerate(args, start=1):
        if "\0" in arg:
            raise UserError(f"argument {index} ({arg!r}) contains a NUL character", "remove it")


def entry_point() -> None:
    sys.exit(main())
