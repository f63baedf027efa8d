"""The answer of `gate` and `ab --max-regression`: slower, not slower, or inconclusive.

Each row already has its verdict (statistics/compare.py). The command's answer follows:
any row slower fails (exit 3); otherwise any row inconclusive is *not* a pass: exit 4
(ExitCode.INCONCLUSIVE), unless the team chose `--inconclusive=pass`; only when every row
is not slower does the command pass. The lines name the rows that decided it, and for
the undecided ones what would decide them.

A gate whose baseline does not exist yet (the first job of a CI store) has nothing to
judge: neither a pass nor a usage error, but exit 5 (ExitCode.NO_BASELINE), saying how to
save one (`no_baseline`).

The answer's data (`Judgment`) and a row's verdict in words (`row_answer`) are in
statistics/answer.py, where the renderers in output/ reach them too.
"""
from __future__ import annotations

import os
from typing import Callable

from benchlab.errors import ExitCode
from benchlab.statistics.answer import Judgment, row_answer, row_label, threshold_text
from benchlab.statistics.compare import INCONCLUSIVE, SLOWER, Comparison

#: What `--inconclusive` may say: an undecided row fails the command, or passes it.
INCONCLUSIVE_POLICIES = ("fail", "pass")


def judge(comparisons: list[Comparison], *, command: str, inconclusive: str,
          advice: Callable[[list[Comparison]], list[str]]) -> Judgment:
    """The command's answer over `comparisons` (each with its threshold set); `advice`
    says what would decide the undecided rows."""
    slower = [c for c in comparisons if c.verdict == SLOWER]
    undecided = [c for c in comparisons if c.verdict == INCONCLUSIVE]
    lines = [f"regression: {row_label(c)}: {row_answer(c)}" for c in slower]
    lines += [f"inconclusive: {row_label(c)}: {row_answer(c)}" for c in undecided]
    if undecided:
        lines += [f"to decide the {len(undecided)} inconclusive row(s): {text}" for text in advice(undecided)]
    if slower:
        lines.append(f"{command} failed: {len(slower)} slower beyond the threshold"
                     + (f", {len(undecided)} inconclusive" if undecided else ""))
        return Judgment(slower, undecided, ExitCode.REGRESSION, lines)
    if undecided and inconclusive == "fail":
        lines.append(f"{command} inconclusive: {len(undecided)} row(s) undecided, nothing slower for sure; not passed "
                     f"(exit {int(ExitCode.INCONCLUSIVE)}; --inconclusive=pass accepts undecided rows)")
        return Judgment(slower, undecided, ExitCode.INCONCLUSIVE, lines)
    if undecided:
        lines.append(f"{command} inconclusive: {len(undecided)} row(s) undecided, accepted by --inconclusive=pass")
        return Judgment(slower, undecided, ExitCode.OK, lines)
    thresholds = sorted({threshold_text(c) for c in comparisons})
    lines.append(f"{command} passed: every row not slower than {', '.join(thresholds) or '-'} "
                 "with 99% confidence")
    return Judgment(slower, undecided, ExitCode.OK, lines)


def no_baseline(baseline: str, run_id: int | None, store_url: str, others: list[str],
                command: str = "gate", empty: bool = False) -> Judgment:
    """The answer when BASELINE names nothing yet: exit 5, what is missing and how to save it
    (`run_id` the candidate's, None for a result file or, `empty`, a store with no run at all:
    a CI job's first gate, however it got there, is the same answer)."""
    candidate = f"run {run_id}" if run_id is not None else "a result file"
    lines = [f"no baseline {baseline!r} yet in {store_url}: nothing to judge {candidate} against" if not empty else
             f"no baseline {baseline!r} and no run yet in {store_url}: nothing to judge"]
    if others:
        lines.append(f"the store has baseline(s) {', '.join(repr(name) for name in others)}: is {baseline!r} "
                     "the name you meant?")
    run = run_id if run_id is not None else "RUN (a stored run: benchlab import FILE stores one)"
    lines.append(f"save one (on your main branch): benchlab baseline save {baseline} {run}" if not empty else
                 f"store a run first (benchlab run TARGET), then save it (on your main branch): benchlab baseline "
                 f"save {baseline} latest")
    lines.append(f"{command} not judged: no baseline {baseline!r} yet (exit {int(ExitCode.NO_BASELINE)})")
    return Judgment([], [], ExitCode.NO_BASELINE, lines)


def remeasure_advice(rounds: int, seconds: float, time_limit: float) -> list[str]:
    """What decides rows re-measured in paired rounds: more rounds, or a quieter machine."""
    advice = []
    if seconds >= 0.9 * time_limit:
        advice.append(f"{rounds} paired rounds fitted in {seconds:.0f} s: give more time (--time "
                      f"{max(2 * time_limit, time_limit + 30):g})")
    busy = busy_machine()
    if busy:
        advice.append(f"{busy}: run where fewer jobs share the CPUs")
    if not advice:
        advice.append(f"the rows' paired rounds disagree: more rounds (--time {2 * time_limit:g}) narrow them")
    return advice


#: What re-measures rows judged on stored figures, where nothing else is known: a baseline.
SAVE_A_BASELINE = ("gate against a saved baseline (benchlab baseline save NAME RUN), which re-measures both "
                   "builds")


def stored_advice(undecided: list[Comparison], remeasure: str = SAVE_A_BASELINE) -> list[str]:
    """What decides rows judged on stored figures: more processes, or what would measure
    both builds again (`remeasure`: the gate names what kept it from doing so)."""
    fewest = min(min(c.processes) for c in undecided)
    return [f"their stored runs have as few as {fewest} process(es): rerun with more (benchlab run --time 30), "
            f"or {remeasure}"]


def compare_advice(undecided: list[Comparison]) -> list[str]:
    """What `compare` says of its undecided rows: what would decide them."""
    return [f"inconclusive: {len(undecided)} row(s) undecided; to decide them: " + line for line in stored_advice(
        undecided, "measure both builds interleaved in one job (benchlab ab A B, or benchlab ab --rev R1 --rev R2 "
                   "TARGET), or save a baseline and gate against it (benchlab baseline save NAME RUN, then benchlab "
                   "gate --baseline NAME), which re-measures both")]


def busy_machine() -> str | None:
    """"the machine is busy (load average L on N CPUs)" when its 1-minute load average
    exceeds its CPUs; None otherwise or where the platform has no load average."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return f"the machine is busy (load average {load:.1f} on {cpus} CPUs)" if load > cpus else None

