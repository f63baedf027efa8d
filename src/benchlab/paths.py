"""Paths a user gives (--out, --config, ...), checked before anything runs.

A result that cannot be written should say so before the run, not after it: each check
names the option, the path (escaped and cut, see shown_path) and what to do instead.
Used by the subcommands and by the HTML report alike, so it lives outside the CLI.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from benchlab.errors import UserError
from benchlab.records import printable

#: The longest file name (one component of a path) Linux file systems take, in bytes (NAME_MAX).
NAME_MAX = 255
#: The longest path the kernel takes, in bytes, its terminating NUL included (PATH_MAX).
PATH_MAX = 4096
#: A path shown in an error is cut to this many characters.
MAX_SHOWN_PATH = 60
#: What `--out -` means: standard output (`export` only: see check_output_file).
STDOUT = "-"


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
