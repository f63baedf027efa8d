"""Pieces shared by the subcommands: config, database, output."""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchlab.config import Config, load_config
from benchlab.errors import UserError
from benchlab.exporters import EXPORTERS, FORMAT_BY_SUFFIX

if TYPE_CHECKING:
    from benchlab.store import Store

db_option = click.option("--db", "db_url", metavar="URL",
                         help="Database URL (default: $BENCHLAB_DB, else run.db, else sqlite:///.benchlab/results.db).")
format_option = click.option("--format", "output_format", type=click.Choice(list(EXPORTERS)),
                             help="Output format (default: table, or guessed from --out's suffix).")
out_option = click.option("--out", "out_path", type=click.Path(dir_okay=False),
                          help="Also write the results to FILE (format from --format or the suffix).")


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


def config_of(context: click.Context) -> Config:
    return load_config(context.obj.get("config_path") if context.obj else None)


def open_store(config: Config, db_url: str | None) -> "Store":
    # Imported here: SQLAlchemy takes a third of a second to import, which a command that
    # stores nothing (--no-store, --help) should not pay.
    from benchlab.store import Store, database_url
    return Store(database_url(db_url, config.db, config.state_dir))


def output_formats(output_format: str | None, out_path: str | None) -> tuple[str, str | None]:
    """(what to print on stdout, what to write to --out)."""
    if out_path is None:
        return output_format or "table", None
    file_format = output_format or FORMAT_BY_SUFFIX.get(Path(out_path).suffix.lower())
    if file_format is None:
        raise UserError(f"cannot tell the format of --out {out_path} from its suffix",
                        "add --format json|csv|markdown|table, or name the file .json, .csv or .md")
    return "table", file_format


def check_outputs(config: Config, output_format: str | None, out_path: str | None) -> None:
    """Everything a run writes, checked before it starts: --out and the state directory."""
    output_formats(output_format, out_path)
    if out_path is not None:
        path = Path(out_path)
        parent = path.parent
        if path.is_dir():
            raise UserError(f"--out {out_path} is a directory", "give a file name, e.g. --out results.json")
        if not parent.is_dir():
            raise UserError(f"--out {out_path}: the directory {parent} does not exist", "create it first, or give another path")
        if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise UserError(f"--out {out_path} is not writable", "give a path you can write")
    try:
        (config.state_dir / "scratch").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {config.state_dir / 'scratch'}: {exc.strerror}",
                        "builds and scratch directories live in .benchlab/ of the project: make it writable") from None


def write_output(report, output_format: str | None, out_path: str | None) -> None:
    stdout_format, file_format = output_formats(output_format, out_path)
    click.echo(EXPORTERS[stdout_format](report), nl=False)
    if out_path is not None:
        try:
            Path(out_path).write_text(EXPORTERS[file_format](report))
        except OSError as exc:
            raise UserError(f"cannot write --out {out_path}: {exc.strerror}", "give a writable path") from None
