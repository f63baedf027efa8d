"""What the kernel said the samples of a run lost to other tasks (formats.md, "Contention").

Each benchmark process records, per time record, the rounds the kernel preempted (an
involuntary context switch, or a wait for a CPU over BL__PREEMPTED_DELAY_PCT of the
sample), how many of them it left out of its samples, its involuntary switches, the time
its samples waited for a CPU and their wall time. Here they are summed: over the
processes of one figure (combine.py), and over a whole run, whose waited share says
whether the machine was busy while it ran.
"""
from __future__ import annotations

from typing import Iterable

from benchlab.records import CONTENTION_FIELDS, Contention, Record

#: A run whose samples waited for a CPU more than this share of their time says so
#: (`benchlab run`): on a quiet machine a sample waits only on wake-ups from its own sleeps,
#: well under 1%; 5% is a tenth of the machine's CPUs taken by others, enough to move a figure.
BUSY_SHARE = 0.05


#: The header's BL__BUSY_ROUNDS_PER_SWITCH: a machine busy enough to take rounds away also
#: switches the benchmark out involuntarily, at least once per this many preempted rounds.
BUSY_ROUNDS_PER_SWITCH = 2


def mostly_preempted(record: Record) -> bool:
    """Whether most of a time record's rounds were preempted and, by the header's rule
    (BL__MIN_UNPREEMPTED_PCT), kept, on a busy machine: its figure is then the machine's
    load, not the code's. (When fewer were preempted the header left them out, and
    `left_out` says how many.) A body that wakes a partner (a pipe round trip) waits for a
    CPU after every wake-up, so its rounds read as preempted on a quiet machine too; it is
    seldom switched out involuntarily, and its kept rounds are its figure (the header's
    bl__busy_kept)."""
    lost = record.contention
    if record.counter != "time" or lost is None or lost.preempted is None or lost.left_out:
        return False
    switched = lost.involuntary_switches
    taken_away = switched is None or switched * BUSY_ROUNDS_PER_SWITCH >= lost.preempted
    return 2 * lost.preempted > len(record.samples) and taken_away


def is_busy(record: Record) -> bool:
    """Whether a figure is the busy machine's: a combined one that says so (combine.py keeps
    its preempted processes when too few others remain), or one process's mostly preempted."""
    if record.figures.busy:
        return True
    return "processes" not in record.reported and mostly_preempted(record)


def summed(contentions: Iterable[Contention | None]) -> Contention | None:
    """The sum of several records' contention, field by field; a field stays None when any
    record lacks it (a sum over part of the processes would read as the whole)."""
    known = list(contentions)
    if not known or any(c is None for c in known):
        return None
    totals = {}
    for field in CONTENTION_FIELDS:
        values = [getattr(c, field) for c in known]
        totals[field] = None if any(v is None for v in values) else sum(values)
    return Contention(**totals)


def of_run(records: Iterable[Record]) -> Contention | None:
    """The contention of every time record that measured it, summed (the run's waited share):
    records of a platform that cannot tell (wasm32-wasi: nulls) count for nothing, not as unknown."""
    measured = [r.contention for r in records if r.counter == "time" and r.contention is not None
                and r.contention.preempted is not None and r.contention.run_delay_ns is not None]
    return summed(measured) if measured else None


def busy_note(records: Iterable[Record]) -> str | None:
    """One line when the run's samples waited for a CPU over BUSY_SHARE of their time."""
    records = list(records)
    total = of_run(records)
    share = total.waited_share if total else None
    if share is None or share <= BUSY_SHARE:
        return None
    preempted = f"; {total.preempted} rounds were preempted" if total.preempted is not None else ""
    return (f"the machine was busy: this run waited for a CPU {share:.0%} of its time (over {BUSY_SHARE:.0%})"
            f"{preempted}; its figures and intervals carry that load (benchlab stats shows it per figure)")


def share_text(contention: Contention | None) -> str:
    """`12 of 80 rounds preempted (left out), waited 23%`, or `-` where nothing was measured."""
    if contention is None or contention.preempted is None:
        return "-"
    text = f"{contention.preempted} preempted"
    if contention.left_out:
        text += f" ({contention.left_out} left out)"
    share = contention.waited_share
    return text + (f", waited {share:.0%}" if share is not None else "")


def short_samples_note(records: Iterable[Record]) -> str | None:
    """One line naming the figures whose binary could not make its samples long against its
    timer (`short_samples`: the machine too busy to calibrate), as the binary's stderr did."""
    names = sorted({f"{r.bench}" + (f"/{r.param_name or 'param'}={r.param}" if r.param is not None else "")
                    + f" on {r.platform}" for r in records if r.short_samples})
    if not names:
        return None
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (f"short samples: {shown}: the machine was too busy to make their samples last 1000 times the timer's "
            "resolution, so each carries up to a tick of rounding (a quieter machine or a longer --time-limit fixes it)")
