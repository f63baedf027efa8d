"""`benchlab compare A B` and `benchlab gate`: what got faster or slower, with a stated confidence.

A and B are stored runs (an id, `latest`, -N) or result files of any format benchlab
reads. The sides are loaded and compared by judging/sides.py, the gate judged by
judging/gate.py; this module reads the flags, prints the table (output/comparisons.py),
writes the CI outputs (output/ci.py) and exits with the answer.
"""
from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click

from benchlab.cli.common import (config_of, db_option, junit_option, note, open_store, quiet_option,
                                 rounds_progress, rounds_time_option, step_lines, summary_option)
from benchlab import deterministic
from benchlab.errors import ExitCode, UserError
from benchlab.formats.registry import COMPARISON_FORMATS
from benchlab.output.exporters.json import document_text
from benchlab.judging import gate
from benchlab.judging.judgment import INCONCLUSIVE_POLICIES, compare_advice
from benchlab.statistics.basis import COUNTS, JUDGES, TIME
from benchlab.judging.sides import compare_sides, context_differences
from benchlab.judging.thresholds import Thresholds
from benchlab.statistics.compare import INCONCLUSIVE
from benchlab.output.ci import Outputs
from benchlab.output.comparisons import answer_text, render
from benchlab.output.fitting import terminal_width
from benchlab.percent import Percent
from benchlab.profiling.gate import evaluate, parse_limit, parse_margin
from benchlab.output.profiles import bucket_moves, moves_text


@click.command("compare", context_settings={"ignore_unknown_options": True})
@click.argument("a", metavar="A")
@click.argument("b", metavar="B", default="latest")
@click.option("--format", "output_format", type=click.Choice(COMPARISON_FORMATS), default=COMPARISON_FORMATS[0],
              help="table (default), markdown for a pull request, or json.")
@click.option("--noise-floor", "floor", type=Percent(), metavar="PCT",
              help="A slowdown smaller than PCT (1% or 1) is 'not slower' even when significant (default 1%, or "
                   "compare.noise_floor).")
@db_option
@click.pass_context
def compare_command(context: click.Context, a: str, b: str, output_format: str, floor: float | None,
                    db_url: str | None) -> int:
    """Compare B with A (runs as `show` takes them, or result files): per benchmark both
    figures, the ratio B/A with a 99% interval whose error term is the variation between
    processes, and a verdict at the noise floor: slower, not slower (faster where the whole
    interval is below), or inconclusive."""
    config = config_of(context)
    opened = functools.cache(lambda: open_store(config, db_url))  # once, and only for a stored run
    comparisons, side_a, side_b = compare_sides(a, b, opened, Thresholds.of(config, floor=floor))
    moves = bucket_moves(side_a.profile, side_b.profile) if side_a.profile and side_b.profile else []
    text = render(comparisons, side_a.label, side_b.label, output_format, context_differences(side_a, side_b),
                  width=terminal_width(sys.stdout))
    if output_format == "json":
        click.echo(document_text({**json.loads(text), "buckets": moves}, indent=1), nl=False)
        return ExitCode.OK
    if comparisons:
        click.echo(text, nl=False)
    undecided = [c for c in comparisons if c.verdict == INCONCLUSIVE]
    for line in compare_advice(undecided) if undecided else []:
        click.echo(line, err=True)
    if moves:
        click.echo(moves_text(moves, side_a.label, side_b.label, markdown=output_format == "markdown"), nl=False)
    return ExitCode.OK


@click.command("gate", context_settings={"ignore_unknown_options": True})
@click.argument("run", metavar="[RUN]", required=False)
@click.option("--baseline", "baseline", metavar="RUN",
              help="What RUN is held against: a baseline's name, a run, or a result file.")
@click.option("--bucket", "bucket_limits", multiple=True, metavar="NAME<PCT%",
              help="A profile bucket's share must be under (NAME<PCT%) or over (NAME>PCT%) PCT% by --margin "
                   "(repeatable; reads RUN, else the latest run with a profile).")
@click.option("--margin", default="0pp", metavar="PP",
              help="Percentage points a --bucket share must clear its limit by (default 0pp: just under it).")
@click.option("--inclusive", is_flag=True, help="--bucket reads inclusive shares instead of self.")
@click.option("--max-regression", type=Percent(), default="2%", metavar="PCT",
              help="Fail when a benchmark is slower by more than PCT (2% or 2: two percent; default 2%) with 99% confidence.")
@click.option("--noise-floor", "floor", type=Percent(), metavar="PCT", help="As for compare.")
@click.option("--no-remeasure", is_flag=True,
              help="Judge on stored figures alone; by default the baseline's kept binaries and RUN's are run again, "
                   "interleaved, where they can be.")
@click.option("--trust-stored-binaries", "trust_stored", is_flag=True,
              help="Re-measure with kept binaries this machine's `benchlab run` never ran (by default they are "
                   "judged on stored figures: whoever can write the store chooses what they are).")
@rounds_time_option("Seconds the re-measurement's rounds may take at most (default: 10 s per program re-measured, "
                    "at least 30); it stops earlier once every row is decided, and measures only undecided rows "
                    "meanwhile. (--time-limit, its old spelling, still works.)", maximum=86400)
@click.option("--inconclusive", type=click.Choice(INCONCLUSIVE_POLICIES), default="fail", show_default=True,
              help="What a row whose interval reaches both sides of the threshold does: fail (exit 4) or pass (exit 0).")
@click.option("--judge", type=click.Choice(JUDGES), default=TIME, show_default=True,
              help="What a benchmark is judged on: time, or (counts) callgrind's exact counts where both runs have "
                   "them, time only where they cannot judge it (not counted, system-call bound; docs/ci.md).")
@click.option("--counter-threshold", "counter_thresholds", multiple=True, metavar="COUNTER=PCT",
              callback=lambda _ctx, _param, values: _counter_thresholds(values),
              help="With --judge counts: a counter's threshold, e.g. instructions=1 (repeatable; default "
                   "instructions and estimated-cycles at --max-regression, or [gate.counter_thresholds]).")
@click.option("--format", "output_format", type=click.Choice(COMPARISON_FORMATS), default=COMPARISON_FORMATS[0])
@summary_option
@junit_option
@db_option
@quiet_option
@click.pass_context
def gate_command(context: click.Context, run: str | None, baseline: str | None, bucket_limits: tuple[str, ...],
                 margin: str, inclusive: bool, max_regression: float, floor: float | None, no_remeasure: bool,
                 trust_stored: bool, time_limit: float | None, inconclusive: str, judge: str,
                 counter_thresholds: dict[str, float], output_format: str, summary_path: str | None, junit_path: str | None, db_url: str | None,
                 quiet: bool) -> int:
    """Exit 0 when every row of RUN is not slower than the baseline beyond --max-regression
    with 99% confidence, 3 when one is slower (listed), 4 when none is slower for sure but
    some row is inconclusive (listed, with what would decide it; --inconclusive=pass makes
    that 0), 5 when the baseline does not exist yet (nothing judged); 1 stays for errors, 2
    for usage. With --bucket, also 3 when a profile bucket's share misses its limit by the margin."""
    if not baseline and not bucket_limits:
        raise click.UsageError("give --baseline RUN, or --bucket \"NAME<PCT%\", or both")
    if counter_thresholds and judge != COUNTS:
        raise click.UsageError("--counter-threshold sets what --judge counts judges counts at: add --judge counts")
    if not baseline and judge == COUNTS:
        raise click.UsageError("--judge counts judges the rows held against --baseline: give --baseline RUN")
    if not baseline and (summary_path or junit_path):
        raise click.UsageError("--summary and --junit report the rows judged against --baseline: give --baseline RUN")
    outputs = Outputs.checked(summary_path, junit_path) if baseline else None
    limits, margin_pp = [parse_limit(text) for text in bucket_limits], parse_margin(margin)
    bucket_failed = _bucket_gate(context, run, limits, margin_pp, inclusive, db_url) if limits else False
    if not baseline:
        return ExitCode.REGRESSION if bucket_failed else ExitCode.OK
    request = gate.Request(run or "latest", baseline, max_regression, floor, not no_remeasure, time_limit,
                           inconclusive, trust_stored, judge, counter_thresholds)
    answer = _regression_gate(config_of(context), request, db_url, output_format, quiet)
    outputs.write(answer)
    return ExitCode.REGRESSION if bucket_failed else answer.judgment.exit_code


def _counter_thresholds(values: tuple[str, ...]) -> dict[str, float]:
    """--counter-threshold's COUNTER=PCT values, percent by counter (the last of a counter wins)."""
    try:
        return dict(deterministic.threshold(value) for value in values)
    except deterministic.CounterError as error:
        raise click.BadParameter(f"{error.what}; {error.fix}") from None


def _regression_gate(config, request: gate.Request, db_url: str | None, output_format: str, quiet: bool):
    """The answer of judging/gate.py, printed: the table on stdout, the judgment's lines on
    stderr (always: --quiet silences the notes on the way only)."""
    sides_stored = not (Path(request.baseline).is_file() and Path(request.run).is_file())
    store = open_store(config, db_url) if sides_stored else None
    listener = gate.Listener(note=note, step=step_lines, rounds=lambda limit: rounds_progress(limit, None, quiet))
    answer = gate.judge_gate(config, store, request, listener)
    click.echo(answer_text(answer, output_format, width=terminal_width(sys.stdout)), nl=False)
    for line in answer.judgment.lines:
        click.echo(line, err=True)
    return answer


def _bucket_gate(context: click.Context, run: str | None, limits, margin_pp: float, inclusive: bool,
                 db_url: str | None) -> bool:
    """Print a verdict per bucket limit and platform; True when one failed."""
    store = open_store(config_of(context), db_url)
    if run is None:
        run_id = store.latest_profiled_run()
        if run_id is None:
            raise UserError(f"no run in {store.url} has a profile", "take one first: benchlab profile TARGET --buckets FILE")
    else:
        run_id = store.resolve_run_id(run)
    rows = store.load_profile(run_id)
    if not rows:
        raise UserError(f"run {run_id} has no profile", "give a run stored by benchlab profile (or leave out RUN "
                                                          "for the latest one)")
    kind = "inclusive" if inclusive else "self"
    verdicts = evaluate(limits, margin_pp, rows, kind, run_id)
    unit = ((store.load_run(run_id)[0].get("context") or {}).get("profile") or {}).get("unit", "samples")
    click.echo(f"profile of run {run_id}:")
    for verdict in verdicts:
        click.echo("  " + verdict.describe(kind, unit))
    failed = [verdict for verdict in verdicts if not verdict.passed]
    for verdict in failed:
        click.echo(f"bucket gate failed: {verdict.describe(kind, unit)}", err=True)
    if not failed:
        click.echo(f"bucket gate passed: {', '.join(str(limit) for limit in limits)} with {margin_pp:g} pp margin "
                   f"(run {run_id})", err=True)
    return bool(failed)
