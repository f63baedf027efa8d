"""`benchlab report [RUN]... --out DIR`: stored runs as an HTML page with charts, opened from disk.

The page and its making are benchlab.output.htmlreport; this module checks the command line,
opens the store and prints where the page is.
"""
from __future__ import annotations

from pathlib import Path

import click

from benchlab.cli.common import config_of, db_option, open_store
from benchlab.judging.thresholds import Thresholds
from benchlab.output.htmlreport import DEFAULT_HISTORY_RUNS, build, check_out
from benchlab.percent import Percent


# ignore_unknown_options: so that `report -2` is the run before the latest, not an unknown option.
@click.command("report", context_settings={"ignore_unknown_options": True})
@click.argument("run_ids", metavar="[RUN]...", nargs=-1)
@click.option("--baseline", metavar="NAME", help="Show each RUN's change against this baseline (or any run).")
@click.option("--out", "out_dir", metavar="DIR", required=True, type=click.Path(),
              help="Directory to write (new, empty, or an earlier report's): DIR/index.html and its scripts.")
@click.option("--max-regression", type=Percent(), default=None, metavar="PCT",
              help="Judge the verdicts at this slowdown, as benchlab gate does (default: at the noise floor, as "
                   "compare does).")
@click.option("--history", "history_limit", type=click.IntRange(min=1, max=10_000), default=DEFAULT_HISTORY_RUNS,
              show_default=True, metavar="N", help="Trend lines over at most the last N runs of the same machine.")
@db_option
@click.pass_context
def command(context: click.Context, run_ids: tuple[str, ...], baseline: str | None, out_dir: str,
            max_regression: float | None, history_limit: int, db_url: str | None) -> int:
    """Write RUNs (as `show` takes them: an id, 'latest', -N, or a baseline's name; by
    default the latest run with measurements) as DIR/index.html: a summary of what changed
    (the verdicts against --baseline, or the first RUN, or the previous run), level shifts,
    profile moves and failures, linked to a page per section: every benchmark's samples per
    process, platform ratios, changes, trends over stored runs with change points, scaling
    sweeps, workloads and profile buckets. Needs no server or network."""
    out = Path(out_dir)
    check_out(out)  # before anything is read: a bad --out is the first thing to hear about
    config = config_of(context)
    store = open_store(config, db_url)
    try:
        # As the gate: a benchmark's own floor and threshold of benchlab.toml win over the flag.
        index = build(store, list(run_ids), baseline, out, history_limit=history_limit,
                      thresholds=Thresholds.of(config, max_regression=max_regression))
    finally:
        store.close()
    click.echo(str(index))
    return 0
