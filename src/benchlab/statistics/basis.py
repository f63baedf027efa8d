"""What `gate --judge counts` judges each benchmark on: its deterministic counts where
callgrind counted it, its time where only time can judge it.

Under `--judge time` (the default) every row is judged on its own figures, as always. Under
`--judge counts` a benchmark whose runs both have callgrind's counts of it (instructions,
estimated-cycles: exact, the same on every run, so a busy runner cannot make them
inconclusive) is judged on those, each at its counter's threshold, and its time rows are not
judged. Two kinds of benchmark are judged on time instead, and the answer says which and why:

- **not counted**: neither run has a count of it (a run without `--platform callgrind`, a
  baseline saved before estimated-cycles existed has instructions still);
- **system-call bound**: callgrind counts user space only, not the kernel's work for a system
  call. Each count says how many system calls an iteration makes (callgrind's sysCount, as
  exact as the instructions); priced at SYSCALL_CYCLES each, they are the kernel's estimated
  share of the iteration's cycles. From SYSTEM_CALL_BOUND on, the counts miss too much of
  what the time is made of, and the time judges.

The rule rests on counts, not on a time measured on a busy machine, so it gives the same
answer for the same code on every run (docs/ci.md, *Deterministic mode*).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

from benchlab.deterministic import ESTIMATED_CYCLES, INSTRUCTIONS
from benchlab.statistics.compare import Comparison, row_name

TIME, COUNTS = "time", "counts"
#: What `gate --judge` takes.
JUDGES = (TIME, COUNTS)
#: What one system call costs in the kernel, in cycles, at the least: entering and leaving it
#: (geteuid took 92-106 ns at 2.3 GHz on this project's VM, 210-245 cycles, of which callgrind
#: counts the 8 instructions of its libc wrapper). A call that does more (a read that copies)
#: costs more, so the share below is a lower bound.
SYSCALL_CYCLES = 200
#: The kernel's share of an iteration's estimated cycles from which a benchmark is judged on
#: time: with a quarter of its time in the kernel, a change of the kernel's part by 8% alone
#: moves the time by 2% (the default threshold) while every count stays the same.
SYSTEM_CALL_BOUND = 0.25


@dataclasses.dataclass(frozen=True)
class Basis:
    """What a benchmark is judged on (COUNTS or TIME), why in a few words (the table's cell),
    and why in full (the answer's notes); `detail` is empty where there is nothing to add."""
    judged_on: str
    why: str = ""
    detail: str = ""


def benchmark_of(c: Comparison) -> tuple:
    """A row's benchmark: (bench, param, sweep value), whatever its counter and platform."""
    bench, param, _, sweep = c.key
    return bench, param, sweep


def benchmark_name(benchmark: tuple) -> str:
    bench, param, sweep = benchmark
    return row_name((bench, param, "time", sweep))


def kernel_share(system_calls: float, cycles: float) -> float:
    """The kernel's estimated share of an iteration: its system calls at SYSCALL_CYCLES each,
    over those and the iteration's own estimated cycles."""
    kernel = system_calls * SYSCALL_CYCLES
    return kernel / (kernel + cycles) if kernel + cycles > 0 else 0.0


def bases(comparisons: list[Comparison], counters: Iterable[str]) -> dict[tuple, Basis]:
    """Each benchmark's basis, judged on `counters` (those with a threshold) where it can be."""
    counters = set(counters)
    rows: dict[tuple, list[Comparison]] = {}
    for c in comparisons:
        rows.setdefault(benchmark_of(c), []).append(c)
    return {benchmark: _basis(found, counters) for benchmark, found in rows.items()}


def _basis(rows: list[Comparison], counters: set[str]) -> Basis:
    counted = [c for c in rows if c.deterministic and c.key[2] in counters]
    timed = [c for c in rows if not c.deterministic]
    if not counted:
        return Basis(TIME, "not counted", f"no {' or '.join(sorted(counters))} counts of it in both runs "
                                           "(run --platform callgrind counts them)")
    calls = next((c.system_calls for c in rows if c.deterministic and c.system_calls is not None), None)
    if calls is None:
        return Basis(COUNTS, "", "its runs did not count system calls (recorded before benchlab counted them): "
                                 "not checked for being system-call bound")
    cycles = _figure(rows, ESTIMATED_CYCLES) or _figure(rows, INSTRUCTIONS) or counted[0].b
    share = kernel_share(calls, cycles)
    if share < SYSTEM_CALL_BOUND:
        return Basis(COUNTS)
    bound = (f"{calls:g} system call(s) an iteration beside {cycles:.4g} estimated cycles: about {share:.0%} of "
             f"its cycles in the kernel at {SYSCALL_CYCLES} a call, which callgrind does not count")
    if not timed:
        return Basis(COUNTS, "system-call bound, no time", f"{bound}; but no time figures of it in both runs "
                                                           "(run --platform native times it)")
    return Basis(TIME, "system-call bound", bound)


def _figure(rows: list[Comparison], counter: str) -> float | None:
    return next((c.b for c in rows if c.deterministic and c.key[2] == counter), None)


def judged_rows(comparisons: list[Comparison], found: dict[tuple, Basis], counter_thresholds: dict[str, float],
                counted_threshold: Callable[[str, str], float]) -> tuple[list[Comparison], list[Comparison]]:
    """(the rows judged, the rows not) under --judge counts, each judged row's basis set: a
    benchmark judged on counts by its counted rows, each at `counted_threshold(bench, counter)`
    (judging/thresholds.py: its counter's, unless the benchmark has its own); one judged on time
    by its other rows, whose thresholds are already set."""
    judged, left = [], []
    for c in comparisons:
        basis = found[benchmark_of(c)]
        if basis.judged_on == COUNTS and c.deterministic and c.key[2] in counter_thresholds:
            c.threshold = counted_threshold(c.key[0], c.key[2])
        elif not (basis.judged_on == TIME and not c.deterministic):
            left.append(c)
            continue
        c.judged_on, c.judged_on_reason = basis.judged_on, basis.why or None
        judged.append(c)
    return judged, left


def notes(found: dict[tuple, Basis], counter_thresholds: dict[str, float], left: list[Comparison]) -> list[str]:
    """The answer's lines on what each benchmark was judged on, where it is not counts plainly."""
    on_counts = sum(1 for basis in found.values() if basis.judged_on == COUNTS)
    at = ", ".join(f"{name} at {100 * value:g}%" for name, value in counter_thresholds.items())
    time_left = sum(1 for c in left if not c.deterministic)
    lines = [f"--judge counts: {on_counts} benchmark(s) judged on counts ({at}; a benchmark's own "
             f"[gate.max_regression] wins)" + (f", their {time_left} other row(s) not judged" if time_left else "")]
    for benchmark, basis in found.items():
        if basis.detail:
            lines.append(f"judged on {basis.judged_on}: {benchmark_name(benchmark)}: "
                         + (f"{basis.why}: " if basis.why else "") + basis.detail)
    return lines
