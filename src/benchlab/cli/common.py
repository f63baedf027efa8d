"""Pieces shared by the subcommands: config, database, output, the click options more than
one command takes. A command module imports this module and the entry point
(cli/__init__.py), never another command module: what two commands share that is not
click's lives below cli/ (output/ci.py, measuring/calibration.py, judging/sides.py)."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchlab.formats import registry as formats
from benchlab.config import Config, load_config
from benchlab.errors import ExitCode, UserError
from benchlab.output.exporters import EXPORTERS, FORMAT_BY_SUFFIX
from benchlab.output.fitting import terminal_width
from benchlab.paths import check_output_file, check_path_length, shown_path, write_regular_file

if TYPE_CHECKING:
    from benchlab.storage.store import Store

#: The format for people, which fits the terminal's width.
TABLE = "table"


class FormatChoice(click.Choice):
    """--format: the names of one use of benchlab.formats.registry (formats.SHOW, EXPORT, IMPORT).
    An alias, an earlier spelling (`csv`), is taken as the name it spells."""

    def __init__(self, use: str):
        super().__init__(formats.names(use))
        self.use = use

    def convert(self, value, param, ctx):
        return super().convert(formats.aliases(self.use).get(value, value), param, ctx)


def format_help(text: str, use: str) -> str:
    """An option's help with its formats' aliases: 'Output format (default: table; csv is table-csv).'"""
    aliases = formats.alias_text(use)
    return f"{text[:-2]}; {aliases})." if aliases and text.endswith(").") else text


db_option = click.option("--db", "db_url", metavar="URL",
                         help="Database URL (default: $BENCHLAB_DB, else run.db, else sqlite:///.benchlab/results.db).")
format_option = click.option("--format", "output_format", type=FormatChoice(formats.SHOW),
                             help=format_help("Output format (default: table, or guessed from --out's suffix).",
                                              formats.SHOW))
out_option = click.option("--out", "out_path", type=click.Path(dir_okay=False),
                          help="Also write the results to FILE (format from --format or the suffix).")

#: -q/--quiet of every command that shows progress or notes while it works (run, ab, gate,
#: calibrate): only the result (the table, the verdict) and errors.
quiet_option = click.option("--quiet", "-q", is_flag=True,
                            help="No progress and no notes on stderr: only the results and errors.")


#: --summary and --junit of `gate` and `ab`: the files output/ci.py checks and writes.
summary_option = click.option(
    "--summary", "summary_path", metavar="FILE",
    help="Also write the answer as Markdown to FILE, for a pull-request comment: what it says, the table, "
         "what decided it. (It is also appended to $GITHUB_STEP_SUMMARY when that is set.)")
junit_option = click.option(
    "--junit", "junit_path", metavar="FILE",
    help="Also write the verdicts as JUnit XML to FILE, a test case per row: slower fails, inconclusive "
         "fails (or is skipped with --inconclusive=pass).")


#: The old spelling of `gate`'s and `ab`'s --time (seconds of rounds), taken with a note: it
#: read as `run --time-limit`, the seconds of one benchmark's samples in a process.
OLD_ROUNDS_TIME = "--time-limit"


def rounds_time_option(help_text: str, maximum: float):
    """`--time S` of a command that measures in rounds until decided (`gate`, `ab`): its value
    reaches the command as `time_limit`. The old spelling --time-limit still works, hidden,
    with a note on stderr; both at once is a usage error."""
    kind = FiniteFloatRange(min=0, min_open=True, max=maximum)

    def new(context: click.Context, _param, value):
        old = context.meta.get(OLD_ROUNDS_TIME)
        if value is not None and old is not None:
            raise click.UsageError(f"give --time alone: {OLD_ROUNDS_TIME} is its old spelling")
        return value if value is not None else old

    def old_spelling(context: click.Context, _param, value):
        if value is None:
            return
        if context.params.get("time_limit") is not None:
            raise click.UsageError(f"give --time alone: {OLD_ROUNDS_TIME} is its old spelling")
        click.echo(f"note: {OLD_ROUNDS_TIME} is the old spelling of `{context.info_name} --time S` (seconds of "
                   f"rounds); write --time (`run {OLD_ROUNDS_TIME}` is a sample's seconds)", err=True)
        context.meta[OLD_ROUNDS_TIME] = value

    def decorate(function):
        function = click.option(OLD_ROUNDS_TIME, "old_time_limit", type=kind, metavar="S", hidden=True,
                                expose_value=False, callback=old_spelling)(function)
        return click.option("--time", "time_limit", type=kind, metavar="S", help=help_text, callback=new)(function)
    return decorate


def note(line: str) -> None:
    """A line of the command's own on stderr: what it does, what it found on the way. The
    running command's --quiet (click's current context) silences it; errors and verdicts do
    not pass here, they always print."""
    context = click.get_current_context(silent=True)
    if context is None or not context.params.get("quiet"):
        click.echo(line, err=True)


class FiniteFloatRange(click.FloatRange):
    """click's FloatRange for finite numbers only: nan compares false with both bounds and
    would pass, and inf deserves its own word."""

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


def kept(context: click.Context, what: str) -> None:
    """What the command has stored so far, said if Ctrl-C or SIGTERM ends it from now on
    (cli/__init__.py: KEPT_BEFORE is what each says before)."""
    context.obj["kept"] = what


def config_of(context: click.Context) -> Config:
    path = context.obj.get("config_path") if context.obj else None
    if path is not None:
        check_path_length("--config", path)
    return load_config(path)


def open_store(config: Config, db_url: str | None) -> "Store":
    """The store of --db, $BENCHLAB_DB, run.db or the project's .benchlab/results.db
    (storage/store.py's open_store: an SQLite file at the head revision without SQLAlchemy).
    Imported here: a command that stores nothing (--no-store, --help) imports no storage."""
    from benchlab.storage.store import database_url, open_store as opened
    return opened(database_url(db_url, config.db, config.state_dir))


def output_formats(output_format: str | None, out_path: str | None) -> tuple[str, str | None]:
    """(what to print on stdout, what to write to --out)."""
    if out_path is None:
        return output_format or TABLE, None
    file_format = output_format or FORMAT_BY_SUFFIX.get(Path(out_path).suffix.lower())
    if file_format is None:
        raise UserError(f"cannot tell the format of --out {shown_path(out_path)} from its suffix",
                        f"add --format {formats.choices_text(formats.SHOW)}, "
                        f"or name the file {formats.suffixes_text(formats.SHOW)}")
    return TABLE, file_format


def check_out(output_format: str | None, out_path: str | None) -> None:
    """`--out` of `run` and `show`, and the format it gets, checked before anything is done."""
    if out_path is not None:
        check_output_file("--out", out_path, "results.json")
    output_formats(output_format, out_path)


def check_outputs(config: Config, output_format: str | None, out_path: str | None) -> None:
    """Everything a run writes, checked before it starts: --out and the state directory."""
    check_out(output_format, out_path)
    try:
        (config.state_dir / "scratch").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {config.state_dir / 'scratch'}: {exc.strerror}",
                        "builds and scratch directories live in .benchlab/ of the project: make it writable") from None


def write_output(report, output_format: str | None, out_path: str | None) -> None:
    stdout_format, file_format = output_formats(output_format, out_path)
    click.echo(stdout_text(report, stdout_format), nl=False)
    if out_path is not None:
        write_regular_file("--out", Path(out_path), EXPORTERS[file_format](report))


def stdout_text(report, stdout_format: str) -> str:
    """`report` as stdout shows it: the table within the terminal's width (output/fitting.py),
    every other format whole (they are data, as --out's file is)."""
    if stdout_format == TABLE:
        from benchlab.output.exporters.table import render
        return render(report, width=terminal_width(sys.stdout))
    return EXPORTERS[stdout_format](report)


def step_lines(line: str) -> None:
    """A line per step of a long job (a calibration's runs) where stderr is a log, as a
    note; nothing on a terminal."""
    if not sys.stderr.isatty():
        note(line)


def print_run(store, run_id: int, output_format: str | None, out_path: str | None) -> int:
    """Print stored run `run_id` as `show` does (also `baseline show`); its exit status."""
    from benchlab.output.table import Table  # here: only the commands that print a stored run need it
    check_out(output_format, out_path)  # before the run is read: a bad --out is not worth the wait
    run, records, faults = store.load_run(run_id)
    if not records and output_format in (None, *formats.PROFILE_FORMATS) and out_path is None:
        profile = store.load_profile(run_id)
        if profile:  # a run of `benchlab profile`: its buckets are what it has to show
            from benchlab.output.profiles import profile_json, profile_table
            info = (run["context"] or {}).get("profile") or {}
            click.echo(profile_json(info, profile, None) if output_format == "json" else
                       profile_table(info, profile, None, terminal_width(sys.stdout)), nl=False)
            return ExitCode.OK
    table = Table(platforms=list(run["platforms"] or []), records=records, faults=faults,
                    run={"id": run["id"], "status": run["status"], "started_at": run["started_at"],
                         "context": run["context"], "missing": run["missing"]},
                    history=store.run_levels(run_id, run["context"]))
    write_output(table, output_format, out_path)
    # A run that ended part-way is not a complete result: say so in the exit status too.
    partial = run["status"] in ("killed", "interrupted") or (run["missing"] and run["status"] != "running")
    return ExitCode.BENCHMARK_FAILURE if partial else ExitCode.OK


def rounds_progress(time_limit: float, max_rounds: int | None, quiet: bool):
    """The progress display of `ab` and the gate's re-measurement on stderr (output/progress.py):
    rounds until decided, `time_limit` seconds at most (the time left is "at most")."""
    import time

    from rich.console import Console

    from benchlab.cli import unfiltered
    from benchlab.output.progress import Progress, TimeBudget
    # Its bar's codes reach the terminal; its lines are escaped where they are built.
    return Progress(Console(file=unfiltered(sys.stderr), highlight=False), quiet=quiet,
                    estimate=TimeBudget(time_limit, time.monotonic(), rounds=max_rounds))
