"""`benchlab show RUN`: print a stored run again, in any output format."""
from __future__ import annotations

import click

from benchlab.cli.common import check_out, config_of, db_option, format_option, open_reader, out_option, write_output
from benchlab.errors import ExitCode
from benchlab.output.table import Table


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
    store = open_reader(config_of(context), db_url)
    return print_run(store, store.resolve_run_id(run_id), output_format, out_path)


def print_run(store, run_id: int, output_format: str | None, out_path: str | None) -> int:
    """Print stored run `run_id` as `show` does (also `baseline show`); its exit status."""
    check_out(output_format, out_path)  # before the run is read: a bad --out is not worth the wait
    run, records, faults = store.load_run(run_id)
    if not records and output_format in (None, "table", "json") and out_path is None:
        profile = store.load_profile(run_id)
        if profile:  # a run of `benchlab profile`: its buckets are what it has to show
            from benchlab.output.profiles import profile_json, profile_table
            render = profile_json if output_format == "json" else profile_table
            click.echo(render((run["context"] or {}).get("profile") or {}, profile, None), nl=False)
            return ExitCode.OK
    table = Table(platforms=list(run["platforms"] or []), records=records, faults=faults,
                    run={"id": run["id"], "status": run["status"], "started_at": run["started_at"],
                         "context": run["context"], "missing": run["missing"]},
                    history=store.run_levels(run_id, run["context"]))
    write_output(table, output_format, out_path)
    # A run that ended part-way is not a complete result: say so in the exit status too.
    partial = run["status"] in ("killed", "interrupted") or (run["missing"] and run["status"] != "running")
    return ExitCode.BENCHMARK_FAILURE if partial else ExitCode.OK
