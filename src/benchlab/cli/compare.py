"""`benchlab compare A B` and `benchlab gate`: what got faster or slower, with a stated confidence.

A and B are stored runs (an id, `latest`, `-N`) or result files of any format benchlab
reads. The comparison model is benchlab.statistics.compare; this module loads the two sides, says
when their contexts differ in what matters, and prints the table.
"""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import click

from benchlab.measuring import context as run_context
from benchlab.measuring import remeasure
from benchlab.measuring.ab import check_time_limit, default_time_limit
from benchlab.measuring.judgment import INCONCLUSIVE_POLICIES, judge, no_baseline, remeasure_advice, stored_advice
from benchlab.statistics import noise
from benchlab.cli.ci import Outputs, junit_option, summary_option
from benchlab.cli.common import FiniteFloatRange, config_of, db_option, note, open_store, quiet_option, rounds_progress
from benchlab.statistics.compare import VERDICTS, Comparison, attribute_causes, compare
from benchlab.errors import ExitCode, UserError
from benchlab.output.comparisons import Answer, render
from benchlab.output.fitting import terminal_width
from benchlab.formats.importing import read_results
from benchlab.percent import Percent
from benchlab.profiling.gate import evaluate, parse_limit, parse_margin
from benchlab.output.profiles import bucket_moves, moves_text
from benchlab.output.exporters.json import document_text
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


def run_comparison(context: click.Context, a_text: str, b_text: str, db_url: str | None,
                   floor: float | None, opened=None):
    """(comparisons, side A, side B, config); `opened`: a store the caller has open already."""
    config = config_of(context)
    store = [opened] if opened is not None else []

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


@click.command("compare", context_settings={"ignore_unknown_options": True})
@click.argument("a", metavar="A")
@click.argument("b", metavar="B", default="latest")
@click.option("--format", "output_format", type=click.Choice(["table", "markdown", "json"]), default="table",
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
    comparisons, side_a, side_b, _ = run_comparison(context, a, b, db_url, floor)
    moves = bucket_moves(side_a.profile, side_b.profile) if side_a.profile and side_b.profile else []
    text = render(comparisons, side_a.label, side_b.label, output_format, context_differences(side_a, side_b),
                  width=terminal_width(sys.stdout))
    if output_format == "json":
        click.echo(document_text({**json.loads(text), "buckets": moves}, indent=1), nl=False)
        return ExitCode.OK
    if comparisons:
        click.echo(text, nl=False)
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
@click.option("--time-limit", type=FiniteFloatRange(min=0, min_open=True, max=86400), metavar="S",
              help="Seconds the re-measurement may take at most (default: 10 s per program re-measured, at least "
                   "30); it stops earlier once every row is decided, and measures only undecided rows meanwhile.")
@click.option("--inconclusive", type=click.Choice(INCONCLUSIVE_POLICIES), default="fail", show_default=True,
              help="What a row whose interval reaches both sides of the threshold does: fail (exit 4) or pass (exit 0).")
@click.option("--format", "output_format", type=click.Choice(["table", "markdown", "json"]), default="table")
@summary_option
@junit_option
@db_option
@quiet_option
@click.pass_context
def gate_command(context: click.Context, run: str | None, baseline: str | None, bucket_limits: tuple[str, ...],
                 margin: str, inclusive: bool, max_regression: float, floor: float | None, no_remeasure: bool,
                 trust_stored: bool, time_limit: float | None, inconclusive: str,
                 output_format: str, summary_path: str | None, junit_path: str | None, db_url: str | None,
                 quiet: bool) -> int:
    """Exit 0 when every row of RUN is not slower than the baseline beyond --max-regression
    with 99% confidence, 3 when one is slower (listed), 4 when none is slower for sure but
    some row is inconclusive (listed, with what would decide it; --inconclusive=pass makes
    that 0), 5 when the baseline does not exist yet (nothing judged); 1 stays for errors, 2
    for usage. With --bucket, also 3 when a profile bucket's share misses its limit by the margin."""
    if not baseline and not bucket_limits:
        raise click.UsageError("give --baseline RUN, or --bucket \"NAME<PCT%\", or both")
    if not baseline and (summary_path or junit_path):
        raise click.UsageError("--summary and --junit report the rows judged against --baseline: give --baseline RUN")
    outputs = Outputs.checked(summary_path, junit_path) if baseline else None
    limits, margin_pp = [parse_limit(text) for text in bucket_limits], parse_margin(margin)
    bucket_failed = _bucket_gate(context, run, limits, margin_pp, inclusive, db_url) if limits else False
    if not baseline:
        return ExitCode.REGRESSION if bucket_failed else ExitCode.OK
    answer = _regression_gate(context, run or "latest", baseline, max_regression, floor, output_format, db_url,
                              remeasure_on=not no_remeasure, time_limit=time_limit, inconclusive=inconclusive,
                              trust_stored=trust_stored, quiet=quiet)
    outputs.write(answer)
    return ExitCode.REGRESSION if bucket_failed else answer.judgment.exit_code


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
                     output_format: str, db_url: str | None, remeasure_on: bool = True,
                     time_limit: float | None = None, inconclusive: str = "fail",
                     trust_stored: bool = False, quiet: bool = False) -> Answer:
    """Print the comparison of RUN with the baseline, re-measured where it can be (remeasure.py),
    on stored figures elsewhere, each row naming its method; the answer (judgment.py)."""
    config = config_of(context)
    threshold_of = lambda bench: config.max_regressions.get(bench, max_regression / 100)  # noqa: E731
    store = open_store(config, db_url) if not Path(baseline).is_file() or not Path(run).is_file() else None
    missing = _no_baseline_yet(store, baseline, run, output_format, inconclusive)
    if missing is not None:
        return missing
    notes: list[str] = []
    remeasured = None
    with remeasure.workspace() as directory:
        plan = _remeasure_plan(config, store, baseline, run, directory, trust_stored, notes) \
            if remeasure_on and store else None
        if plan is not None and plan.pairs:
            # before anything runs (a first calibration included): the limit, and what it must fit
            counts = _benchmark_counts(store, run, plan)
            time_limit = time_limit if time_limit is not None else default_time_limit(len(plan.pairs))
            check_time_limit(time_limit, counts)
        if plan is None or plan.fallbacks or not plan.pairs:
            _calibrate_first_time(config, store, run)
        comparisons, side_a, side_b, config = run_comparison(context, baseline, run, db_url, floor, store)
        if plan is not None and plan.pairs:
            remeasured = _remeasure(config, comparisons, plan, threshold_of, floor, time_limit, quiet)
            comparisons = remeasured.comparisons
    if plan is not None:
        fallbacks = [f"stored figures for {label}: {why}" for label, why in sorted(plan.fallbacks.items())]
    else:
        fallbacks = [] if remeasure_on else ["stored figures only (--no-remeasure)"]
    for line in fallbacks:
        note(line)
    notes += fallbacks
    for c in comparisons:
        c.threshold = threshold_of(c.key[0])  # a benchmark's own [gate.max_regression] wins over the flag's
    differences = context_differences(side_a, side_b)
    click.echo(render(comparisons, side_a.label, side_b.label, output_format, differences,
                      width=terminal_width(sys.stdout)), nl=False)

    def advice(undecided: list[Comparison]) -> list[str]:
        again = [c for c in undecided if c.rounds is not None]
        lines = remeasure_advice(remeasured.rounds, remeasured.seconds, time_limit) if again else []
        stored = [c for c in undecided if c.rounds is None]
        return lines + (stored_advice(stored) if stored else [])

    judgment = judge(comparisons, command="gate", inconclusive=inconclusive, advice=advice)
    for line in judgment.lines:
        click.echo(line, err=True)
    held = f"baseline {baseline!r} ({side_a.label})" if _is_baseline(store, baseline) else side_a.label
    return Answer("gate", f"{side_b.label} against {held}", side_a.label, side_b.label, comparisons, judgment,
                  inconclusive, differences, notes, remeasured.seconds if remeasured else 0.0)


def _is_baseline(store, name: str) -> bool:
    return store is not None and not Path(name).is_file() and bool(store.list_baselines(name))


def _no_baseline_yet(store, baseline: str, run: str, output_format: str, inconclusive: str) -> Answer | None:
    """The answer when BASELINE names no baseline, run or file yet, but could name a baseline
    (a CI store's first job): exit 5, said, and nothing judged. None when it names something;
    a missing run id stays a usage error."""
    from benchlab.storage.store import check_baseline_name  # here: SQLAlchemy (see open_store)
    if store is None or Path(baseline).is_file():
        return None
    try:
        store.resolve_run_id(baseline)
        return None
    except UserError as missing:
        try:
            check_baseline_name(baseline)
        except UserError:
            raise missing from None  # a number, latest, -N: a run that is not there (exit 2)
    candidate = None if Path(run).is_file() else store.resolve_run_id(run)
    others = [row["name"] for row in store.list_baselines()]
    judgment = no_baseline(baseline, candidate, store.url, others)
    b_label = run if candidate is None else f"run {candidate}"
    if output_format == "json":
        click.echo(document_text({"a": baseline, "b": b_label, "no_baseline": True, "comparisons": [],
                                  "verdicts": {verdict: 0 for verdict in VERDICTS}}, indent=1), nl=False)
    for line in judgment.lines:
        click.echo(line, err=True)
    return Answer("gate", f"{b_label} against baseline {baseline!r}, which does not exist yet", baseline, b_label,
                  [], judgment, inconclusive)


@dataclasses.dataclass
class Remeasured:
    """The stored comparisons with the re-measured rows in place, and what the rounds took."""
    comparisons: list[Comparison]
    rounds: int
    seconds: float


def _remeasure_plan(config, store, baseline: str, run: str, directory: Path,
                    trust_stored: bool, notes: list[str]) -> remeasure.Plan | None:
    """What can be run again; None when BASELINE names no baseline (a run id, a result file):
    then only stored figures exist, and the note says so (printed, and added to `notes`)."""
    def say(line: str) -> None:
        note(line)
        notes.append(line)
    if not _is_baseline(store, baseline):
        say(f"stored figures only: {baseline} is not a baseline (benchlab baseline save NAME RUN keeps "
             "its binaries for the gate to run again)")
        return None
    if Path(run).is_file():
        say(f"stored figures only: {run} is a result file (a stored run of `benchlab run` records "
             "the binaries the gate runs again)")
        return None
    base_context = store.run_row(store.baseline(baseline)["run_id"]).get("context")
    candidate_context = store.run_row(store.resolve_run_id(run)).get("context")
    return remeasure.plan(config, store.baseline_binaries(baseline), base_context, candidate_context, directory,
                          trust_stored=trust_stored)


def _remeasure(config, comparisons: list[Comparison], plan: remeasure.Plan, threshold_of, floor: float | None,
               time_limit: float, quiet: bool = False) -> Remeasured:
    """The stored comparisons with every row the pairs measure replaced by its re-measured one."""
    default_floor = floor / 100 if floor is not None else config.noise_floor
    labels = ", ".join(pair.name for pair in plan.pairs)
    note(f"re-measuring {labels} against the baseline's binaries: at most {time_limit:g} s "
         f"(--time-limit), less once every row is decided")
    with rounds_progress(time_limit, None, quiet) as progress:
        measured, failed, rounds, seconds = remeasure.run(config, plan.pairs, threshold_of=threshold_of,
                                                          floor=default_floor, time_limit=time_limit,
                                                          progress=progress.line, on_round=progress.round_done)
    plan.fallbacks.update(failed)
    for c in measured:
        c.floor = config.noise_floors.get(c.key[0], default_floor)
    attribute_causes(measured)
    again = {(c.key, c.platform) for c in measured}
    return Remeasured(measured + [c for c in comparisons if (c.key, c.platform) not in again], rounds, seconds)


def _benchmark_counts(store, run: str, plan: remeasure.Plan) -> list[int]:
    """How many time figures the candidate run has of each pair's binary (binary@platform):
    what a process of it measures, for the least time a round takes (ab.least_round_seconds)."""
    _, records, _ = store.load_run(store.resolve_run_id(run))
    figures: dict[str, set] = {}
    for record in records:
        if record.counter == "time":
            figures.setdefault(noise.code_label(record.binary, record.platform), set()).add(record.key)
    return [len(figures.get(pair.name, ())) for pair in plan.pairs]


def _calibrate_first_time(config, store, run: str) -> None:
    """`benchlab calibrate`, once, the first time the gate judges stored figures of this machine's
    runs: the prior that figures with no identical-code history rest on (noise.py)."""
    if store is None or not config.gate_calibrates or Path(run).is_file():
        return
    here = noise.Machine.of(run_context.machine())
    candidate = store.run_row(store.resolve_run_id(run))
    if noise.Machine.of(candidate.get("context"), candidate.get("host")) != here or store.machine_priors(here):
        return
    note("first gate on this machine: measuring its run-to-run noise (benchlab calibrate)")
    from benchlab.cli.calibrate import run_and_store
    run_and_store(config, store)
