"""`benchlab export RUN`: a stored run with every sample, in a format other tools (or a git
repository of results) keep: benchlab jsonl, CSV, Google Benchmark JSON, the Lind runner's JSON;
or its figures and their intervals, for github-action-benchmark's charts.

Everything is checked before anything is written (the run exists, the output can be
written, the run fits the format), and files are written whole: to a temporary name
beside them, then renamed, so a reader never sees half a file.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import click

from benchlab.formats import registry as formats
from benchlab.cli.common import FormatChoice, config_of, db_option, format_help, open_store
from benchlab.cli import write_data
from benchlab.errors import ExitCode, UserError
from benchlab.output.exporters import RUN_FORMAT_BY_SUFFIX, RUN_FORMATS
from benchlab.paths import STDOUT, check_output_file, check_path_length, shown_path
from benchlab.records import Record, printable, printable_text
from benchlab.output.table import Table

#: What --dir writes in the dated folder, each file in the format named.
DIR_FILES = {"data/results.csv": "export-csv", "data/results.jsonl": "jsonl"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


# ignore_unknown_options: so that `export -2` is the run before the latest, not an unknown option.
@click.command("export", context_settings={"ignore_unknown_options": True})
@click.argument("run_id", metavar="RUN", default="latest")
@click.option("--format", "export_format", type=FormatChoice(formats.EXPORT),
              help=format_help(f"Format to write (default: from --out's suffix {formats.suffixes_text(formats.EXPORT)}, "
                               "else jsonl).", formats.EXPORT))
@click.option("--out", "out_path", metavar="FILE",
              help="Write to FILE (a regular file; - is stdout) instead of stdout.")
@click.option("--dir", "dir_path", metavar="DIR",
              help="Write DIR/<date>-run<ID>/ with data/results.csv, data/results.jsonl and a README.txt.")
@click.option("--platform", metavar="NAME", help="Only the results of this platform.")
@db_option
@click.pass_context
def command(context: click.Context, run_id: str, export_format: str | None, out_path: str | None,
            dir_path: str | None, platform: str | None, db_url: str | None) -> int:
    """Write stored run RUN (an id from `benchlab runs`, 'latest', or -N for the N-th latest)
    with every sample: to stdout, to --out FILE, or as a dated folder under --dir DIR."""
    if dir_path is not None and (out_path is not None or export_format is not None):
        raise UserError("--dir writes a folder of csv and jsonl files; --out and --format do not apply to it",
                        "give either --dir DIR, or --format and --out")
    if out_path is not None:
        check_output_file("--out", out_path, "run.jsonl", allow_stdout=True)
    export_format = export_format or _format_of(out_path)
    if dir_path is not None:
        check_path_length("--dir", dir_path)
        _check_directory(Path(dir_path), "--dir")
    store = open_store(config_of(context), db_url)
    run, records, faults = store.load_run(store.resolve_run_id(run_id))
    # The run's levels, as `show` combines it: a figure's interval is the same rerun range in both.
    table = _report(run, records, faults, platform, store.run_levels(run["id"], run["context"]))
    if dir_path is None:
        text = RUN_FORMATS[export_format](table)
        if out_path in (None, STDOUT):
            write_data(text)
        else:
            _write(Path(out_path), text, "--out")
            click.echo(f"wrote run {run['id']} to {printable(out_path)} ({export_format}, "
                       f"{len(table.records)} records)",
                       err=True)
    else:
        folder = _write_folder(Path(dir_path), table)
        click.echo(f"wrote run {run['id']} to {printable(os.fspath(folder))}/ ({', '.join(DIR_FILES)}, README.txt)",
                   err=True)
    if run["status"] in ("killed", "interrupted", "running") or run["missing"]:
        click.echo(f"warning: run {run['id']} is {run['status']} and not every unit finished: "
                   "the export holds what it stored", err=True)
    return ExitCode.OK


#: Characters of a file's name kept in the temporary name it is written under (NAME_MAX is in bytes).
TEMPORARY_NAME_CHARS = 48


def _format_of(out_path: str | None) -> str:
    if out_path in (None, STDOUT):
        return "jsonl"
    suffix = Path(out_path).suffix.lower()
    if suffix not in RUN_FORMAT_BY_SUFFIX:
        raise UserError(f"cannot tell the format of --out {shown_path(out_path)} from its suffix",
                        f"add --format {formats.choices_text(formats.EXPORT)}, "
                        f"or name the file {formats.suffixes_text(formats.EXPORT)}")
    return RUN_FORMAT_BY_SUFFIX[suffix]


# Writability is probed by creating (and removing) a temporary file or directory where the
# output will go: os.access says yes to root everywhere, even where the kernel says no
# (/sys, a read-only mount), and the output is written beside its final name anyway.

def _check_directory(directory: Path, option: str) -> None:
    """A directory that exists and can be written, or can be created (its nearest existing parent can)."""
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UserError(f"{option} {shown_path(directory)}: {shown_path(existing)} is not a directory",
                        "give a directory")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".benchlab-probe-", dir=existing))
    except OSError as exc:
        raise UserError(f"{option} {shown_path(directory)} is not writable ({exc.strerror})",
                        "give a directory you can write") from None


def _report(run: dict, records: list[Record], faults: list, platform: str | None, history: dict) -> Table:
    platforms = list(run["platforms"] or [])
    if platform is not None:
        present = list(dict.fromkeys([*platforms, *(r.platform for r in records)]))
        if platform not in present:
            raise UserError(f"run {run['id']} has no results on platform {platform!r}",
                            f"give one of: {', '.join(present) or '(none)'}")
        platforms = [platform]
        records = [r for r in records if r.platform == platform]
        faults = [f for f in faults if f.platform == platform]
    return Table(platforms=platforms, records=records, faults=faults, run=run, history=history)


def _umask() -> int:
    mask = os.umask(0)  # the only way to read it is to set it
    os.umask(mask)
    return mask


def _write(path: Path, text: str, option: str) -> None:
    """The whole file or nothing: written beside `path`, then renamed over it; never over
    a device or FIFO (the rename would replace /dev/null itself with a regular file)."""
    check_output_file(option, str(path), path.name)
    # the temporary name is cut: a 255-byte name and its affixes would be over the limit
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name[:TEMPORARY_NAME_CHARS]}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp's 0600 is for the temporary name only
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise UserError(f"cannot write {option} {shown_path(path)}: {exc.strerror}", "give a writable path") from None


def _folder_name(run: dict) -> str:
    """<YYYY-MM-DD>-run<ID>: the date the results were measured (an imported file's own date
    when it gives one), so that a repository of baselines lists them in order."""
    date = (run.get("context") or {}).get("date")
    if not isinstance(date, str) or not _DATE.match(date):
        date = run.get("started_at") or ""
    return f"{date[:10]}-run{run['id']}"


def _write_folder(directory: Path, table: Table) -> Path:
    run = table.run
    folder = directory / _folder_name(run)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"--dir {shown_path(directory)}: {shown_path(folder)} exists and is not a directory",
                        "move it, or give another --dir")
    texts = {name: RUN_FORMATS[fmt](table) for name, fmt in DIR_FILES.items()}  # every check before any write
    texts["README.txt"] = _readme(table, directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create --dir {shown_path(directory)}: {exc.strerror}",
                        "give a directory you can write") from None
    if not folder.exists():
        # A new folder appears whole: built under a temporary name, then renamed.
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name[:TEMPORARY_NAME_CHARS]}.", dir=directory))
        try:
            staging.chmod(0o777 & ~_umask())  # mkdtemp's 0700 is for the temporary name only
            for name, text in texts.items():
                (staging / name).parent.mkdir(parents=True, exist_ok=True)
                (staging / name).write_text(text)
            staging.rename(folder)
        except OSError as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise UserError(f"cannot write --dir {shown_path(directory)}: {exc.strerror}",
                            "give a directory you can write") from None
        return folder
    for name, text in texts.items():  # exported before: each file replaced whole
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        _write(folder / name, text, "--dir")
    return folder


def _readme(table: Table, directory: Path) -> str:
    run = table.run
    context = run.get("context") or {}
    git = context.get("git") or {}
    commit = (git.get("commit") or "unknown") + (" (uncommitted changes)" if git.get("dirty") else "")
    imported = context.get("imported")
    lines = [
        f"benchlab run {run['id']}, written by `benchlab export {run['id']} --dir {printable(os.fspath(directory))}`.",
        "",
        f"date:       {context.get('date') or run.get('started_at')}",
        f"status:     {run.get('status')}",
        f"host:       {context.get('host') or run.get('host') or 'unknown'}",
        f"cpu:        {context.get('cpu') or 'unknown'}",
        f"commit:     {commit}",
        f"platforms:  {', '.join(table.platforms)}",
        f"command:    {' '.join(run.get('argv') or [])}",
    ]
    if isinstance(imported, dict):
        lines.append(f"imported:   {imported.get('path')} ({imported.get('format')}, sha256 {imported.get('sha256')})")
    lines += [
        f"records:    {len(table.records)}, failures: {len(table.faults)}",
        "",
        "data/results.csv    one line per sample: name,param,counter,iterations,value (value/iterations is",
        "                    the sample),unit,platform,binary,process,sweep,overhead (docs/formats.md, Export)",
        "data/results.jsonl  a context record, then every record with all its samples (docs/formats.md, Export);",
        "                    `benchlab import data/results.jsonl` stores the run again",
    ]
    return printable_text("\n".join(lines) + "\n")  # host, cpu, names: from files anyone may have written
