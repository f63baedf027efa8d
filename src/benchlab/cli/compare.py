"""`benchlab compare A B` and `benchlab gate`: what got faster or slower, with a stated confidence.

A and B are stored runs (an id, `latest`, `-N`) or result files of any format benchlab
reads. The comparison model is benchlab.compare; this module loads the two sides, says
when their contexts differ in what matters, and prints the table.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from benchlab.cli.common import config_of, db_option, open_store
from benchlab.compare import (
    CODE_CHANGED, MACHINE_CHANGED, NO_CHANGE, SLOWER, WITHIN_ONE_PROCESS, Comparison, compare, geometric_mean,
    row_name)
from benchlab.errors import ExitCode, UserError
from benchlab.importing import read_results
from benchlab.percent import Percent
from benchlab.profiling.gate import evaluate, parse_limit, parse_margin
from benchlab.profiling.render import bucket_moves, moves_text
from benchlab.records import Record

#: Context fields whose difference can explain a difference in figures.
CONTEXT_FIELDS = ("cpu", "kernel", "arch", "compilers", "cflags", "platforms")


class Side:
    """One side of a comparison: its name, records and context."""

    def __init__(self, label: str, records: list[Record], context: dict[str, Any], levels: dict | None = None,
                 profile: list[dict[str, Any]] | None = None):
        self.label, self.records, self.context = label, records, context
        #: The spread between whole runs before this one on its machine (noise.run_levels).
        self.levels = levels or {}
        #: The run's profile buckets (benchlab profile), [] when it has none.
        self.profile: list[dict[str, Any]] = profile or []


def load_side(text: str, store_opener) -> Side:
    """A result file (any format `benchlab import` reads) when `text` names one, else a stored run."""
    path = Path(text)
    if path.is_file():
        try:
            imported = read_results(text)
        except UserError as error:
            raise UserError(error.what, "give a stored run (an id, latest, -N) or a result file of a format "
                                        "benchlab import reads") from None
        return Side(text, imported.records, imported.context or {})
    store = store_opener()
    run, records, _ = store.load_run(store.resolve_run_id(text))
    context = run.get("context") or {}
    return Side(f"run {run['id']}", records, context, store.run_levels(run["id"], context),
                store.load_profile(run["id"]))


def context_differences(a: Side, b: Side) -> list[str]:
    lines = []
    for field in CONTEXT_FIELDS:
        if field in a.context and field in b.context and a.context[field] != b.context[field]:
            lines.append(f"{field}: {_short(a.context[field])} -> {_short(b.context[field])}")
    return lines


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _name(c: Comparison) -> str:
    return row_name(c.key)


def render(comparisons: list[Comparison], a: Side, b: Side, output_format: str) -> str:
    differences = context_differences(a, b)
    slower = [c for c in comparisons if c.verdict == SLOWER]
    faster = [c for c in comparisons if c.verdict not in (SLOWER, NO_CHANGE)]
    gmean = geometric_mean(comparisons)
    summary = (f"{len(comparisons)} compared: {len(slower)} slower, {len(faster)} faster, "
               f"{len(comparisons) - len(slower) - len(faster)} no change; geometric mean of B/A "
               + (f"{gmean:.4f}" if gmean else "-"))
    if output_format == "json":
        return json.dumps({
            "a": a.label, "b": b.label, "context_differences": differences, "geometric_mean": gmean,
            "comparisons": [{"test": c.key[0], "param": c.key[1], "counter": c.key[2], "sweep": c.key[3],
                             "platform": c.platform, "unit": c.unit, "a": c.a, "b": c.b, "ratio": c.ratio,
                             "ratio_ci": [c.low, c.high], "verdict": c.verdict, "noise_floor": c.floor,
                             "interval": c.scope, "processes": list(c.processes), "deterministic": c.deterministic,
                             "cause": c.cause,
                             **({"rounds": {"a": c.rounds[0], "b": c.rounds[1]}} if c.rounds is not None else {})}
                            for c in comparisons]}, indent=1) + "\n"
    rows = [(_name(c), c.platform, f"{c.a:.4g}", f"{c.b:.4g}", f"{c.ratio:.4f}", f"[{c.low:.4f}, {c.high:.4f}]",
             c.verdict + (" (1 process)" if c.scope == WITHIN_ONE_PROCESS else "")
             + (f": {c.cause}" if c.cause else "")) for c in comparisons]
    heads = ("TEST", "PLATFORM", f"A ({a.label})", f"B ({b.label})", "B/A", "99% interval", "VERDICT")
    lines = []
    if differences:
        lines.append("the two runs differ in: " + "; ".join(differences))
    if output_format == "markdown":
        lines += ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(heads)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip())
        lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
    lines.append(summary)
    if any(c.scope == WITHIN_ONE_PROCESS for c in comparisons):
        lines.append("(1 process): a side has one process per benchmark; its interval cannot see what changes "
                     "between runs (CPU, layout, the machine's phase): rerun with benchlab run --processes N")
    if any(c.cause for c in comparisons):
        lines.append(f"{CODE_CHANGED}: the benchmark's instruction count moved too; {MACHINE_CHANGED}: its time "
                     "moved beyond the noise while its instruction count did not")
    return "\n".join(lines) + "\n"


def run_comparison(context: click.Context, a_text: str, b_text: str, db_url: str | None,
                   floor: float | None):
    """(comparisons, side A, side B, config)."""
    config = config_of(context)
    store = []

    def opener():
        if not store:
            store.append(open_store(config, db_url))
        return store[0]

    a, b = load_side(a_text, opener), load_side(b_text, opener)
    comparisons = compare(a.records, b.records, floors=config.noise_floors,
                          default_floor=(floor / 100) if floor is not None else config.noise_floor,
                          levels=b.levels or a.levels)
    if not comparisons and not (a.profile and b.profile):
        raise UserError(f"{a.label} and {b.label} have no benchmark in common",
                        "compare runs of the same programs (benchlab show RUN lists what a run has)")
    return comparisons, a, b, config


@click.command("compare", context_settings={"ignore_unknown_options": True},
               short_help="What got faster or slower between two runs, with 99% intervals.")
@click.argument("a", metavar="A")
@click.argument("b", metavar="B", default="latest")
@click.option("--format", "output_format", type=click.Choice(["table", "markdown", "json"]), default="table",
              help="table (default), markdown for a pull request, or json.")
@click.option("--noise-floor", "floor", type=Percent(), metavar="PCT",
              help="A change smaller than PCT (1% or 1) is 'no change' even when significant (default 1%, or compare.noise_floor).")
@db_option
@click.pass_context
def compare_command(context: click.Context, a: str, b: str, output_format: str, floor: float | None,
                    db_url: str | None) -> int:
    """Compare B with A (runs as `show` takes them, or result files): per benchmark both
    figures, the ratio B/A with a 99% interval whose error term is the variation between
    processes, and a verdict: faster, slower, or no change."""
    comparisons, side_a, side_b, _ = run_comparison(context, a, b, db_url, floor)
    moves = bucket_moves(side_a.profile, side_b.profile) if side_a.profile and side_b.profile else []
    if output_format == "json":
        document = json.loads(render(comparisons, side_a, side_b, output_format))
        click.echo(json.dumps({**document, "buckets": moves}, indent=1))
        return ExitCode.OK
    if comparisons:
        click.echo(render(comparisons, side_a, side_b, output_format), nl=False)
    if moves:
        click.echo(moves_text(moves, side_a.label, side_b.label, markdown=output_format == "markdown"), nl=False)
    return ExitCode.OK


@click.command("gate", context_settings={"ignore_unknown_options": True},
               short_help="Exit 3 when something got slower beyond a threshold, or a profile bucket is past its limit.")
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
@click.option("--format", "output_format", type=click.Choice(["table", "markdown", "json"]), default="table")
@db_option
@click.pass_context
def gate_command(context: click.Context, run: str | None, baseline: str | None, bucket_limits: tuple[str, ...],
                 margin: str, inclusive: bool, max_regression: float, floor: float | None,
                 output_format: str, db_url: str | None) -> int:
    """Exit 0 when nothing in RUN is slower than the baseline beyond --max-regression
    with confidence, 3 when something is (listed); 1 stays for errors, 2 for usage.
    With --bucket, also 3 when a profile bucket's share misses its limit by the margin."""
    if not baseline and not bucket_limits:
        raise click.UsageError("give --baseline RUN, or --bucket \"NAME<PCT%\", or both")
    limits, margin_pp = [parse_limit(text) for text in bucket_limits], parse_margin(margin)
    bucket_failed = _bucket_gate(context, run, limits, margin_pp, inclusive, db_url) if limits else False
    if not baseline:
        return ExitCode.REGRESSION if bucket_failed else ExitCode.OK
    regressed = _regression_gate(context, run or "latest", baseline, max_regression, floor, output_format, db_url)
    return ExitCode.REGRESSION if bucket_failed or regressed else ExitCode.OK


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


def _regression_gate(context: click.Context, run: str, baseline: str, max_regression: float, floor: float | None,
                     output_format: str, db_url: str | None) -> bool:
    comparisons, side_a, side_b, config = run_comparison(context, baseline, run, db_url, floor)
    click.echo(render(comparisons, side_a, side_b, output_format), nl=False)
    # A benchmark's own threshold ([gate.max_regression] in benchlab.toml) wins over the flag's.
    offenders = [c for c in comparisons
                 if c.slower_beyond(config.max_regressions.get(c.key[0], max_regression / 100))]
    if not offenders:
        click.echo(f"gate passed: nothing slower than {max_regression:g}% beyond its 99% interval", err=True)
        return False
    for c in offenders:
        threshold = 100 * config.max_regressions.get(c.key[0], max_regression / 100)
        click.echo(f"regression: {_name(c)} on {c.platform}: {c.ratio:.4f}x [{c.low:.4f}, {c.high:.4f}], "
                   f"more than {threshold:g}% slower" + (f" ({c.cause})" if c.cause else ""), err=True)
    return True
