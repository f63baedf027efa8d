"""`benchlab show RUN`: print a stored run again, in any output format."""
from __future__ import annotations

import click

from benchlab.cli.common import config_of, db_option, format_option, open_store, out_option, print_run


# ignore_unknown_options: so that `show -1` is the latest run, not an unknown option "-1".
@click.command("show", context_settings={"ignore_unknown_options": True})
@click.argument("run_id", metavar="RUN", default="latest")
@db_option
@format_option
@out_option
@click.pass_context
def command(context: click.Context, run_id: str, db_url: str | None, output_format: str | None,
            out_path: str | None) -> int:
    """Print stored run RUN (an id from `benchlab runs`, 'latest', -N for the N-th latest, or a baseline's name).

    Exits 1 when the run ended part-way (killed or interrupted); the output names the missing units."""
    store = open_store(config_of(context), db_url)
    return print_run(store, store.resolve_run_id(run_id), output_format, out_path)
