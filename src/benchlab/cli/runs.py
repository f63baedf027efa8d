"""`benchlab runs`: the stored runs, newest first."""
from __future__ import annotations

import sys

import click
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchlab.cli import unfiltered
from benchlab.cli.common import config_of, db_option, open_store
from benchlab.records import printable


@click.command("runs")
@db_option
# The upper bound keeps the number within SQLite's 64-bit integers (a LIMIT beyond them is an error there).
@click.option("--limit", type=click.IntRange(min=1, max=2**62), default=20, show_default=True,
              help="How many runs to list.")
@click.pass_context
def command(context: click.Context, db_url: str | None, limit: int) -> int:
    """List stored runs, newest first."""
    store = open_store(config_of(context), db_url)
    table = Table("ID", "DATE", "STATUS", "PLATFORMS", "RECORDS", "FAILURES", "COMMIT", "COMMAND",
                  box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for run in store.list_runs(limit):
        git = (run.get("context") or {}).get("git") or {}
        commit = (git.get("commit") or "")[:10] + ("+" if git.get("dirty") else "")
        values = [str(run["id"]), run["started_at"], run["status"], ",".join(run["platforms"] or []),
                  str(run["records"]), str(run["faults"]), commit, " ".join(run["argv"] or [])]
        # Text, not markup: a command line's "[bold]" is shown as typed, its controls escaped.
        table.add_row(*(Text(printable(value)) for value in values))
    # Its own codes (a bold head on a terminal) bypass TerminalSafe: its cells are escaped above.
    Console(file=unfiltered(sys.stdout), highlight=False, width=200 if not sys.stdout.isatty() else None).print(table)
    return 0
