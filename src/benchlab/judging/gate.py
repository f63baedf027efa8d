"""`benchlab gate --baseline`'s judgment, out of the command: a candidate run held against a
baseline, re-measured where it can be, on stored figures elsewhere, and answered. The
command (cli/compare.py) keeps the flags and the output and gives a `Listener` for what it
says on the way (pyperf's `compare_to` hands its comparison to `_compare` the same way, and
`benchlab run` its rounds to session.py).

The steps, in order:
1. **No baseline yet**: a name that could be a baseline's but names nothing (the first job
   of a CI store) is answered at once, exit 5, nothing judged (`no_baseline_yet`).
2. **The plan** (remeasure.py): the units whose baseline binaries are kept, trusted and
   runnable here are paired with the candidate's; every other unit falls back to its stored
   figures, with the reason. A run id or a result file has stored figures only.
3. **The time limit**, checked before anything runs: the least time the pairs' rounds take.
4. **The first calibration** on a machine, where stored figures are judged: the prior their
   intervals rest on without identical-code history (calibration.py, noise.py).
5. **The comparison** of the stored figures (sides.py), then the **re-measurement** of the
   pairs in interleaved rounds until every row is decided or the time is up; its rows
   replace the stored ones.
6. **The threshold rule** (thresholds.py, as every command's): a benchmark's own
   `[gate.max_regression]` and `[compare.noise_floors]` win over the flags. Under `--judge
   counts` (statistics/basis.py) a benchmark both runs counted under callgrind is judged on its
   counts, each at its counter's threshold (its own still wins), and only the benchmarks judged
   on time are re-measured (step 5): counts are exact as stored.
7. **The judgment** (judgment.py): slower fails (3), inconclusive is never a pass (4),
   with what would decide the undecided rows.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable, ContextManager

from benchlab.config import Config
from benchlab.errors import UserError
from benchlab.measuring import calibration, remeasure
from benchlab.measuring import context as run_context
from benchlab.measuring.ab import check_time_limit, default_time_limit, no_display
from benchlab.judging.judgment import SAVE_A_BASELINE, judge, no_baseline, remeasure_advice, stored_advice
from benchlab.judging.sides import compare_sides, context_differences
from benchlab.judging.thresholds import Thresholds
from benchlab.deterministic import JUDGED_BY_DEFAULT
from benchlab.statistics import basis, noise
from benchlab.statistics.answer import Answer
from benchlab.statistics.compare import Comparison, attribute_causes


@dataclasses.dataclass(frozen=True)
class Request:
    """What the gate is asked: the command's flags."""
    #: The candidate: a stored run (an id, latest, -N) or a result file.
    run: str
    #: What it is held against: a baseline's name, a run, or a result file.
    baseline: str
    #: --max-regression, percent; a benchmark's own [gate.max_regression] wins.
    max_regression: float = 2.0
    #: --noise-floor, percent; None: benchlab.toml's.
    floor: float | None = None
    #: False: --no-remeasure, stored figures only.
    remeasure: bool = True
    #: --time of the re-measurement's rounds, seconds; None: default_time_limit of its programs.
    time_limit: float | None = None
    #: --inconclusive: "fail" or "pass".
    inconclusive: str = "fail"
    #: --trust-stored-binaries.
    trust_stored: bool = False
    #: --judge: "time" (every row on its own figures) or "counts" (statistics/basis.py).
    judge: str = basis.TIME
    #: --counter-threshold, percent per counter; over benchlab.toml's [gate.counter_thresholds].
    counter_thresholds: dict[str, float] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Listener:
    """What the gate says while it works: each a callback the command gives; by default silent."""
    #: A line of what it does or found (the command's notes, which --quiet silences).
    note: Callable[[str], None] = lambda _: None
    #: A line per run of a first calibration.
    step: Callable[[str], None] = lambda _: None
    #: The re-measurement's progress display for a time limit: a context manager whose value
    #: has `line(text)` and `round_done(rounds)` (output/progress.py's Progress).
    rounds: Callable[[float], ContextManager[Any]] = no_display


@dataclasses.dataclass
class Remeasured:
    """The stored comparisons with the re-measured rows in place, and what the rounds took."""
    comparisons: list[Comparison]
    rounds: int
    seconds: float


def judge_gate(config: Config, store, request: Request, listener: Listener = Listener()) -> Answer:
    """The gate's answer: its rows (re-measured where the plan allows), the judgment, and the
    notes on how rows were measured. `store` is None only when both sides are result files."""
    missing = no_baseline_yet(store, request)
    if missing is not None:
        return missing
    notes: list[str] = []

    def say(line: str) -> None:
        listener.note(line)
        notes.append(line)

    remeasured, time_limit = None, request.time_limit
    counts = counter_thresholds(config, request) if request.judge == basis.COUNTS else {}
    thresholds = Thresholds.of(config, floor=request.floor, max_regression=request.max_regression, counters=counts)
    with remeasure.workspace() as directory:
        plan = remeasure_plan(config, store, request, directory, say) if request.remeasure and store else None
        if plan is not None and plan.pairs:
            # before anything runs (a first calibration included): the limit, and what it must fit
            time_limit = time_limit if time_limit is not None else default_time_limit(len(plan.pairs))
            check_time_limit(time_limit, benchmark_counts(store, request.run, plan), flag="--time")
        if plan is None or plan.fallbacks or not plan.pairs:
            calibrate_first_time(config, store, request.run, listener)
        # every row judged at once: the stored figures' intervals hold together, as re-measured ones do
        comparisons, side_a, side_b = compare_sides(request.baseline, request.run, lambda: store, thresholds,
                                                    family=True)
        found = basis.bases(comparisons, counts) if counts else {}
        if plan is not None and plan.pairs and found:
            for line in keep_pairs_for_time(plan, comparisons, found):
                say(line)
        if plan is not None and plan.pairs:
            remeasured = remeasure_rows(config, comparisons, plan, thresholds, time_limit, listener,
                                        on_counts=on_counts(found))
            comparisons = remeasured.comparisons
    for line in fallback_notes(plan, request):
        say(line)
    if found:
        comparisons, left = basis.judged_rows(
            comparisons, found, counts, lambda bench, counter: thresholds.row(bench, counter=counter).threshold)
        for line in basis.notes(found, counts, left):
            say(line)
    judgment = judge(comparisons, command="gate", inconclusive=request.inconclusive,
                     advice=_advice(remeasured, time_limit, remeasure_hint(store, plan, request),
                                    workload_runs(side_b.records)))
    held = f"baseline {request.baseline!r} ({side_a.label})" if is_baseline(store, request.baseline) else side_a.label
    return Answer("gate", f"{side_b.label} against {held}", side_a.label, side_b.label, comparisons, judgment,
                  request.inconclusive, context_differences(side_a, side_b), notes,
                  remeasured.seconds if remeasured else 0.0)


def counter_thresholds(config: Config, request: Request) -> dict[str, float]:
    """Each judged counter's threshold (a fraction) under --judge counts: instructions and
    estimated-cycles at --max-regression, then benchlab.toml's [gate.counter_thresholds], then
    --counter-threshold's."""
    thresholds = {name: request.max_regression / 100 for name in JUDGED_BY_DEFAULT}
    thresholds.update(config.counter_thresholds)
    thresholds.update({name: value / 100 for name, value in request.counter_thresholds.items()})
    return thresholds


def on_counts(found: dict[tuple, basis.Basis]) -> set[str]:
    """The benchmarks (by name) that --judge counts judges on counts alone: their time needs
    no re-measuring. A name with one benchmark (a param, a sweep value) judged on time is not."""
    names: dict[str, bool] = {}
    for (bench, _, _), judged in found.items():
        names[bench] = names.get(bench, True) and judged.judged_on == basis.COUNTS
    return {name for name, counted in names.items() if counted}


def keep_pairs_for_time(plan: remeasure.Plan, comparisons: list[Comparison],
                        found: dict[tuple, basis.Basis]) -> list[str]:
    """Under --judge counts, only the pairs that time some benchmark judged on time are run
    again: counts are exact as stored, and time judges nothing else. The lines that say so."""
    counted = on_counts(found)
    benches: dict[str, set[str]] = {}
    for c in comparisons:
        benches.setdefault(noise.code_label(c.program or "", c.platform), set()).add(c.key[0])
    kept, lines = [], []
    for pair in plan.pairs:
        if pair.a.platform.counts_instructions:
            lines.append(f"counts of {pair.name} judged as stored: callgrind counts the same on every run")
        elif benches.get(pair.name, set()) <= counted:
            lines.append(f"{pair.name} not re-measured: every benchmark of it is judged on counts")
        else:
            kept.append(pair)
    plan.pairs[:] = kept
    return lines


def _advice(remeasured: Remeasured | None, time_limit: float | None, hint: str,
            workloads: dict[str, int] | None = None) -> Callable[[list[Comparison]], list[str]]:
    """What would decide the undecided rows: more rounds for re-measured ones, more runs for a
    workload's (`workloads`: its runs by name), more processes or what would re-measure them
    (`hint`) for other stored ones."""
    workloads = workloads or {}

    def advice(undecided: list[Comparison]) -> list[str]:
        again = [c for c in undecided if c.rounds is not None]
        lines = remeasure_advice(remeasured.rounds, remeasured.seconds, time_limit) if again else []
        timed = [c for c in undecided if c.rounds is None and c.program in workloads]
        stored = [c for c in undecided if c.rounds is None and c.program not in workloads]
        return lines + workload_advice(timed, workloads) + (stored_advice(stored, hint) if stored else [])
    return advice


def remeasure_hint(store, plan: remeasure.Plan | None, request: Request) -> str:
    """What would let the gate re-measure the rows it judged on stored figures: not to be
    told to gate against a saved baseline when that is what it was doing."""
    if not is_baseline(store, request.baseline):
        return SAVE_A_BASELINE
    if not request.remeasure:
        return "leave out --no-remeasure: the gate then runs both builds again, interleaved, until they are decided"
    if plan is not None:
        return ("let the gate run both builds again: the 'stored figures for' lines say what kept it from doing so "
                "and what would let it")
    return ("gate a run stored by benchlab run rather than a result file: the gate runs its binaries again beside "
            "the baseline's")


def workload_runs(records: list) -> dict[str, int]:
    """The candidate's workloads by name, with the runs each was timed over."""
    return {r.binary: int(r.reported.get("runs") or len(r.samples)) for r in records if r.format == "workload"}


def workload_advice(undecided: list[Comparison], runs: dict[str, int]) -> list[str]:
    """What decides a workload's rows: a workload is timed over its own runs, once per `benchlab
    run` and never re-measured by the gate, so neither more processes nor a saved baseline
    narrow it (the advice said "gate against a saved baseline" to a user doing that: issue 37)."""
    names = sorted({c.program for c in undecided})
    if not names:
        return []
    said = ", ".join(f"{name} ({runs[name]} runs)" for name in names)
    return [f"workload(s) {said} are timed over their own runs and not re-measured by the gate: give them more "
            f"runs (workloads.{names[0]}.runs in benchlab.toml), run both sides again, and save the baseline again "
            "from the new run"]


def is_baseline(store, name: str) -> bool:
    return store is not None and not Path(name).is_file() and bool(store.list_baselines(name))


def no_baseline_yet(store, request: Request) -> Answer | None:
    """The answer when BASELINE names no baseline, run or file yet, but could name a baseline
    (a CI store's first job): exit 5, said, and nothing judged. None when it names something;
    a missing run id stays a usage error."""
    from benchlab.storage.store import check_baseline_name  # here: storage is imported only to store
    baseline, run = request.baseline, request.run
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
    empty = not Path(run).is_file() and not store.list_runs(1)
    candidate = None if Path(run).is_file() or empty else store.resolve_run_id(run)
    others = [row["name"] for row in store.list_baselines()]
    judgment = no_baseline(baseline, candidate, store.url, others, empty=empty)
    b_label = "no run" if empty else run if candidate is None else f"run {candidate}"
    return Answer("gate", f"{b_label} against baseline {baseline!r}, which does not exist yet", baseline, b_label,
                  [], judgment, request.inconclusive)


def remeasure_plan(config: Config, store, request: Request, directory: Path,
                   say: Callable[[str], None]) -> remeasure.Plan | None:
    """What can be run again; None when BASELINE names no baseline (a run id, a result file)
    or the candidate is a result file: then only stored figures exist, and `say` says so."""
    baseline, run = request.baseline, request.run
    if not is_baseline(store, baseline):
        say(f"stored figures only: {baseline} is not a baseline (benchlab baseline save NAME RUN keeps "
            "its binaries for the gate to run again)")
        return None
    if Path(run).is_file():
        say(f"stored figures only: {run} is a result file (a stored run of `benchlab run` records "
            "the binaries the gate runs again)")
        return None
    base_context = store.run_row(store.baseline(baseline)["run_id"]).get("context")
    candidate_context = store.run_row(store.resolve_run_id(run)).get("context")
    kept = store.baseline_binaries(baseline)
    found = remeasure.plan(config, kept, base_context, candidate_context, directory, trust_stored=request.trust_stored)
    # A unit the baseline keeps no binary of: why, from its run's record and what it keeps.
    labels = {noise.code_label(row["binary"], row["platform"]) for row in kept}
    for label in found.fallbacks:
        if label not in labels:
            found.fallbacks[label] = remeasure.not_kept_reason(label, base_context, len(kept))
    return found


def fallback_notes(plan: remeasure.Plan | None, request: Request) -> list[str]:
    """Which rows stand on stored figures, and why: per unit the plan could not pair or the
    re-measurement could not run; all of them under --no-remeasure."""
    if plan is not None:
        return [f"stored figures for {label}: {why}" for label, why in sorted(plan.fallbacks.items())]
    return [] if request.remeasure else ["stored figures only (--no-remeasure)"]


def remeasure_rows(config: Config, comparisons: list[Comparison], plan: remeasure.Plan, thresholds: Thresholds,
                   time_limit: float, listener: Listener, on_counts: set[str] = frozenset()) -> Remeasured:
    """The stored comparisons with every row the pairs measure replaced by its re-measured
    one, judged at its floor and threshold; a pair that fails to run here joins the plan's
    fallbacks. A benchmark in `on_counts` is judged on its counts (--judge counts): its time,
    judged by nothing, counts as decided at once, so the rounds measure it no more."""
    labels = ", ".join(pair.name for pair in plan.pairs)
    listener.note(f"re-measuring {labels} against the baseline's binaries: at most {time_limit:g} s of rounds "
                  f"(--time), less once every row is decided")
    with listener.rounds(time_limit) as progress:
        measured, failed, rounds, seconds = remeasure.run(
            config, plan.pairs, decided=thresholds.decider(on_counts), floor_of=thresholds.floor_of,
            time_limit=time_limit, progress=progress.line, on_round=progress.round_done)
    plan.fallbacks.update(failed)
    attribute_causes(measured)  # at the noise floor, as compare's stored rows
    thresholds.judge(measured)
    again = {(c.key, c.platform) for c in measured}
    return Remeasured(measured + [c for c in comparisons if (c.key, c.platform) not in again], rounds, seconds)


def benchmark_counts(store, run: str, plan: remeasure.Plan) -> list[int]:
    """How many time figures the candidate run has of each pair's binary (binary@platform):
    what a process of it measures, for the least time a round takes (ab.least_round_seconds)."""
    _, records, _ = store.load_run(store.resolve_run_id(run))
    figures: dict[str, set] = {}
    for record in records:
        if record.counter == "time":
            figures.setdefault(noise.code_label(record.binary, record.platform), set()).add(record.key)
    return [len(figures.get(pair.name, ())) for pair in plan.pairs]


def calibrate_first_time(config: Config, store, run: str, listener: Listener) -> None:
    """`benchlab calibrate`, once, the first time the gate judges stored figures of this machine's
    runs: the prior that figures with no identical-code history rest on (noise.py)."""
    if store is None or not config.gate_calibrates or Path(run).is_file():
        return
    here = noise.Machine.of(run_context.machine())
    candidate = store.run_row(store.resolve_run_id(run))
    if noise.Machine.of(candidate.get("context"), candidate.get("host")) != here or store.machine_priors(here):
        return
    listener.note("first gate on this machine: measuring its run-to-run noise (benchlab calibrate)")
    calibration.calibrate_and_store(config, store, note=listener.note, progress=listener.step)
