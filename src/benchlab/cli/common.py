"""Pieces shared by the subcommands: config, database, output."""
from __future__ import annotations

import math
import os
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchlab import formats
from benchlab.config import Config, load_config
from benchlab.errors import UserError
from benchlab.exporters import EXPORTERS, FORMAT_BY_SUFFIX
from benchlab.records import printable

if TYPE_CHECKING:
    from benchlab.store import Store
    from benchlab.store_read import StoreReader

class FormatChoice(click.Choice):
    """--format: the names of one use of benchlab.formats (formats.SHOW, EXPORT, IMPORT).
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


#: The longest file name (one component of a path) Linux file systems take, in bytes (NAME_MAX).
NAME_MAX = 255
#: The longest path the kernel takes, in bytes, its terminating NUL included (PATH_MAX).
PATH_MAX = 4096
#: A path shown in an error is cut to this many characters.
MAX_SHOWN_PATH = 60
#: What `--out -` means: standard output (`export` only: see check_output_file).
STDOUT = "-"


def config_of(context: click.Context) -> Config:
    path = context.obj.get("config_path") if context.obj else None
    if path is not None:
        check_path_length("--config", path)
    return load_config(path)


def shown_path(path: str | os.PathLike) -> str:
    """A path as an error shows it: escaped, and cut when long (a 300-byte name is noise)."""
    text = printable(os.fspath(path))
    return text if len(text) <= MAX_SHOWN_PATH else text[:MAX_SHOWN_PATH - 3] + "..."


def check_path_length(option: str, path: str | os.PathLike) -> None:
    """One error for a path the kernel would refuse as too long (ENAMETOOLONG), before
    anything runs: a file name over NAME_MAX bytes, or a whole path over PATH_MAX."""
    raw = os.fsencode(path)
    if len(raw) >= PATH_MAX:
        raise UserError(f"{option} {shown_path(path)}: the path is {len(raw)} bytes long, over the system's limit of "
                        f"{PATH_MAX - 1}", "give a shorter path")
    for part in Path(os.fsdecode(raw)).parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX:
            raise UserError(f"{option} {shown_path(path)}: the name {shown_path(part)} is {size} bytes long, over the "
                            f"file system's limit of {NAME_MAX}", "give a shorter file name")


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def check_output_file(option: str, out_path: str, example: str, allow_stdout: bool = False) -> None:
    """--out FILE: a regular file, new or existing, in a directory that exists; or `-` for
    stdout where `allow_stdout`. Never a device, FIFO, socket or directory: writing a result
    there would block (a FIFO), vanish (/dev/null) or, by the rename that writes a file
    whole, replace the node itself with a regular file."""
    if allow_stdout and out_path == STDOUT:
        return
    check_path_length(option, out_path)
    path = Path(out_path)
    try:
        mode = path.stat().st_mode  # through a symbolic link: what would be written is its target
    except (FileNotFoundError, NotADirectoryError):
        mode = None  # a new file; or a parent that is not a directory, said below
    except OSError as exc:
        raise UserError(f"{option} {shown_path(out_path)}: {exc.strerror}", "give another path") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise UserError(f"{option} {shown_path(out_path)} is a directory", f"give a file name, e.g. {option} {example}")
    if mode is not None and not stat.S_ISREG(mode):
        stdout = "--out - for stdout, or " if allow_stdout else ""
        raise UserError(f"{option} {shown_path(out_path)} is {_kind(mode)}: results are written only to regular files",
                        f"give {stdout}a file name, e.g. {option} {example}")
    parent = path.parent
    if not parent.exists():
        raise UserError(f"{option} {shown_path(out_path)}: the directory {shown_path(parent)} does not exist",
                        "create it first, or give another path")
    if not parent.is_dir():
        raise UserError(f"{option} {shown_path(out_path)}: {shown_path(parent)} is not a directory",
                        "give another path")
    # Probed by creating (and removing) a temporary file where the output will go: os.access
    # says yes to root everywhere, even where the kernel says no (/sys, a read-only mount).
    try:
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as exc:
        raise UserError(f"{option} {shown_path(out_path)} is not writable ({exc.strerror})",
                        "give a path you can write") from None
    if mode is not None and not os.access(path, os.W_OK):
        raise UserError(f"{option} {shown_path(out_path)} is not writable", "give a path you can write")


def write_regular_file(option: str, path: Path, text: str) -> None:
    """Write `text` to `path`, checked again at the write: a device or FIFO put there since
    the check is refused, not written to."""
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise UserError(f"{option} {shown_path(path)} is {_kind(mode)}: results are written only to regular files",
                        "give a file name")
    try:
        path.write_text(text)
    except OSError as exc:
        raise UserError(f"cannot write {option} {shown_path(path)}: {exc.strerror}", "give a writable path") from None


def open_store(config: Config, db_url: str | None) -> "Store":
    # Imported here: SQLAlchemy takes a third of a second to import, which a command that
    # stores nothing (--no-store, --help) should not pay.
    from benchlab.store import Store, database_url
    return Store(database_url(db_url, config.db, config.state_dir))


def open_reader(config: Config, db_url: str | None) -> "StoreReader":
    """A store to read runs from (`show`, `stats`, `export`): an SQLite file at the head
    revision is read without SQLAlchemy (store_read.py); anything else opens as a Store."""
    from benchlab.store_read import database_url, open_reader as sqlite_reader
    url = database_url(db_url, config.db, config.state_dir)
    reader = sqlite_reader(url)
    if reader is not None:
        return reader
    from benchlab.store import Store  # here: SQLAlchemy (see open_store)
    return Store(url)


def output_formats(output_format: str | None, out_path: str | None) -> tuple[str, str | None]:
    """(what to print on stdout, what to write to --out)."""
    if out_path is None:
        return output_format or "table", None
    file_format = output_format or FORMAT_BY_SUFFIX.get(Path(out_path).suffix.lower())
    if file_format is None:
        raise UserError(f"cannot tell the format of --out {shown_path(out_path)} from its suffix",
                        f"add --format {formats.choices_text(formats.SHOW)}, "
                        f"or name the file {formats.suffixes_text(formats.SHOW)}")
    return "table", file_format


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
    click.echo(EXPORTERS[stdout_format](report), nl=False)
    if out_path is not None:
        write_regular_file("--out", Path(out_path), EXPORTERS[file_format](report))
