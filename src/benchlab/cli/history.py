"""`benchlab history NAME`: a benchmark's figure over its stored runs, level shifts marked.

The command reads its options, asks the history model for the series and its shifts
(statistics/series.py: which runs, on which machine, their points and intervals, the
change points and what coincides with them) and prints them (output/history.py).
"""
from __future__ import annotations

import click

from benchlab.cli.common import config_of, db_option, open_store
from benchlab.output.history import FORMATS, render
from benchlab.statistics import series as history_model


@click.command("history")
@click.argument("name")
@click.option("--platform", help="Platform of the series (default: the first platform of the latest run with NAME).")
@click.option("--counter", default="time", show_default=True, help="Counter of the series.")
@click.option("--param", help="Parameter value (needed when NAME has several).")
@click.option("--host", "host", metavar="HOST",
              help="Machine: a host name, or a fingerprint id from the note (default: the latest run's).")
@click.option("--last", type=click.IntRange(min=1, max=2**31),
              help=f"Only the latest N runs of the series (default {history_model.DEFAULT_LAST}).")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format.")
@db_option
@click.pass_context
def command(context: click.Context, name: str, platform: str | None, counter: str, param: str | None,
            host: str | None, last: int | None, output_format: str, db_url: str | None) -> int:
    """NAME's figure (the combined median and its interval) over its latest stored runs, oldest
    first, one row per run with its date, git commit and host, and the level shifts found in it
    (PELT on log values; docs/cli.md, `benchlab history`).

    A series is one machine (host name, CPU model and kernel: --host), one platform, one
    counter and one parameter value."""
    store = open_store(config_of(context), db_url)
    series = history_model.read_series(store, name, platform=platform, counter=counter, param=param, host=host,
                                       last=last or history_model.DEFAULT_LAST)
    notes = series.notes
    if series.earlier and last is None:
        notes = notes + [f"the latest {len(series.points)} runs of the series; earlier ones are not shown "
                         "(--last N shows more)"]
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(render(series, history_model.shifts(series.points), output_format), nl=False)
    return 0
