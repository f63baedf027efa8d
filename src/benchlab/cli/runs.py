"""`benchlab runs`: the stored runs, newest first."""
from __future__ import annotations

import sys

import click

from benchlab.cli.common import config_of, db_option, open_store
from benchlab.output.fitting import CUT, Column, Narrower, fit, short_date, terminal_width
from benchlab.records import printable

HEADINGS = ("ID", "DATE", "STATUS", "PLATFORMS", "RECORDS", "FAILURES", "COMMIT", "COMMAND")


@click.command("runs")
@db_option
# The upper bound keeps the number within SQLite's 64-bit integers (a LIMIT beyond them is an error there).
@click.option("--limit", type=click.IntRange(min=1, max=2**62), default=20, show_default=True,
              help="How many runs to list.")
@click.pass_context
def command(context: click.Context, db_url: str | None, limit: int) -> int:
    """List stored runs, newest first."""
    store = open_store(config_of(context), db_url)
    rows = []
    for run in store.list_runs(limit):
        git = (run.get("context") or {}).get("git") or {}
        commit = (git.get("commit") or "")[:10] + ("+" if git.get("dirty") else "")
        values = [str(run["id"]), run["started_at"], run["status"], ",".join(run["platforms"] or []),
                  str(run["records"]), str(run["faults"]), commit, " ".join(run["argv"] or [])]
        # Escaped: a command line's controls cannot drive the terminal.
        rows.append([printable(value or "") for value in values])
    click.echo("\n".join(runs_table(rows, terminal_width(sys.stdout))))
    return 0


def runs_table(rows: list[list[str]], width: int | None) -> list[str]:
    """The runs within `width` (output/fitting.py): RECORDS goes first, the date loses its year
    and seconds, FAILURES goes (STATUS says failed), the command is cut, then COMMIT and PLATFORMS
    go; ID, DATE, STATUS and the command stay."""
    columns = [Column(head, [row[index] for row in rows], right=head in ("ID", "RECORDS", "FAILURES"),
                      cut=head == "COMMAND") for index, head in enumerate(HEADINGS)]
    short_dates = Column("DATE", [short_date(row[1]) for row in rows])
    steps = [Narrower("RECORDS hidden", {4: None}), Narrower("dates without year and seconds", {1: short_dates}),
             Narrower("FAILURES hidden", {5: None}), CUT, Narrower("COMMIT hidden", {6: None}),
             Narrower("PLATFORMS hidden", {3: None})]
    fitted = fit(columns, steps, width)
    return [*fitted.lines(), *fitted.note_lines("widen the terminal")]

