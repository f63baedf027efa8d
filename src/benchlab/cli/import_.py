"""`benchlab import FILE`: store another tool's results (or an exported run) as a new run.

All or nothing: the whole file is read and checked first (benchlab.formats.importing), and only
then is the run written, all of it in one transaction (Store.import_run). A file that
does not read, a database that does not take it, or a process killed midway leaves no
run behind.
"""
from __future__ import annotations

import click

from benchlab.formats import registry as formats
from benchlab import signals
from benchlab.cli.common import FormatChoice, config_of, db_option, kept, open_store
from benchlab.errors import ExitCode, UserError
from benchlab.records import NOT_BUILT
from benchlab.formats.importing import (DEFAULT_MAX_BYTES, DEFAULT_MAX_RECORDS, DEFAULT_PLATFORM, MAX_BYTES_VARIABLE,
                                        MAX_RECORDS_VARIABLE, max_bytes, max_records, read_results)


@click.command("import")
@click.argument("path", metavar="FILE")
@click.option("--format", "file_format", type=FormatChoice(formats.IMPORT),
              help="The file's format (default: detected from its content).")
@click.option("--platform", metavar="NAME",
              help=f"Platform of results whose file names none (default: {DEFAULT_PLATFORM}).")
@click.option("--again", is_flag=True,
              help="Store FILE even if a file with the same content was imported before.")
@click.option("--max-size", "max_size", metavar="SIZE",
              help=f"Refuse a file larger than SIZE, or a gzip file expanding to more: bytes, or with K, M, G "
                   f"(default: ${MAX_BYTES_VARIABLE}, else {DEFAULT_MAX_BYTES // 2**20}M).")
@click.option("--max-records", "most_records", metavar="N",
              help=f"Refuse a file of more than N results, each held in memory, about 1.7 KB apiece "
                   f"(default: ${MAX_RECORDS_VARIABLE}, else {DEFAULT_MAX_RECORDS}).")
@db_option
@click.pass_context
def command(context: click.Context, path: str, file_format: str | None, platform: str | None,
            again: bool, max_size: str | None, most_records: str | None, db_url: str | None) -> int:
    """Store the results in FILE as a new run, with what the file says of its context.

    Nothing is stored unless every line (or entry) of FILE reads. A file imported before
    (the same content) is refused unless --again: one result stored twice would read, in
    a history, as two runs that agree exactly."""
    imported = read_results(path, file_format, platform, max_bytes(max_size), max_records(most_records))
    store = open_store(config_of(context), db_url)
    earlier = None if again else store.imported_as(imported.context["imported"]["sha256"])
    if earlier is not None:
        raise UserError(f"{path} was already imported as run {earlier} (the same content, sha256)",
                        f"see it with: benchlab show {earlier}; to store it again anyway, add --again")
    argv = context.obj.get("argv", ["benchlab", "import", path])
    # A platform a source cannot build (a `-` cell) is no failure, as `benchlab run` judged it.
    failed = [fault for fault in imported.faults if fault.kind != NOT_BUILT]
    status, code = ("failed", ExitCode.BENCHMARK_FAILURE) if failed else ("complete", ExitCode.OK)
    # One transaction: the run, every record, fault and finished unit, its status, or nothing at all.
    run_id = store.import_run(argv, imported.platforms, imported.context, imported.records, imported.faults,
                              imported.units, status, code)
    kept(context, f"{path} is imported whole as run {run_id} (benchlab show {run_id})")
    signals.pause_at("imported")
    for fault in failed:
        click.echo(f"warning: {path}: {fault.reason} (a failure the file reports, stored with the run)", err=True)
    benchmarks = len({(r.bench, r.param) for r in imported.records})
    failures = f", {len(failed)} failed" if failed else ""
    click.echo(f"imported {path} ({imported.format}): {len(imported.records)} records of {benchmarks} "
               f"benchmarks on {', '.join(imported.platforms)}{failures}; saved as run {run_id} (benchlab show {run_id})")
    return ExitCode.OK
