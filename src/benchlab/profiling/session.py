"""One profile: run a command under perf or callgrind, read what it recorded, fold it into
buckets. Nothing here stores anything: a profile that fails raises a UserError and the
command keeps no run.
"""
from __future__ import annotations

import dataclasses
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from benchlab.profiling import callgrind
from benchlab.errors import UserError
from benchlab.measuring.process import run_process
from benchlab.profiling import perf
from benchlab.profiling.buckets import OTHER, Buckets, Share, fold_inclusive, fold_self, stack_inclusive

#: Fewest perf samples a profile may rest on: 100 samples are 25 ms of CPU time, and a
#: bucket's share is then known to a few percentage points (binomial: sqrt(p(1-p)/n)).
MIN_SAMPLES = 100


@dataclasses.dataclass
class Plan:
    """What to profile on one platform: the full argv (launchers included) and where to run it."""

    target: str
    platform: str
    argv: list[str]
    cwd: str
    env: dict[str, str]
    #: A benchlab binary's body function (bl__body_NAME): only what runs inside it counts.
    body: str | None = None


@dataclasses.dataclass
class Profile:
    target: str
    platform: str
    unit: str      # samples | instructions
    total: int
    #: Samples recorded outside the benchmark's body (harness, baseline, empty loop), left out.
    left_out: int
    self_shares: list[Share]
    inclusive_shares: list[Share]
    #: perf: {dso: samples} of the counted samples that stayed addresses (perf.unresolved).
    unresolved: Counter = dataclasses.field(default_factory=Counter)

    def rows(self) -> list[dict[str, Any]]:
        """The profile as profile_buckets rows (store.py)."""
        return [dict(platform=self.platform, target=self.target, kind=share.kind, position=position,
                     bucket=share.bucket, samples=share.samples, share=share.share, top_symbols=share.top)
                for shares in (self.self_shares, self.inclusive_shares)
                for position, share in enumerate(shares)]


def body_pattern(body: str) -> re.Pattern:
    # gcc may clone a static function it optimises (bl__body_spin.constprop.0): the same body.
    return re.compile(rf"^{re.escape(body)}(\..+)?$")


def profile_with_perf(plan: Plan, buckets: Buckets, event: str, call_graph: str, timeout: float,
                      workdir: Path) -> Profile:
    data = workdir / "perf.data"
    outcome = run_process(perf.record_argv(data, event, call_graph, plan.argv), cwd=plan.cwd, env=plan.env,
                          timeout=timeout, stdout=subprocess.DEVNULL)
    _check_outcome(plan, outcome, "perf record")
    stacks = perf.read_stacks(data)
    left_out = 0
    if plan.body:
        inside = body_pattern(plan.body)
        kept = Counter({stack: n for stack, n in stacks.items() if any(inside.match(sym) for sym, _ in stack)})
        left_out = sum(stacks.values()) - sum(kept.values())
        stacks = kept
    total = sum(stacks.values())
    _check_enough(plan, total, left_out)
    self_costs: Counter = Counter()
    for stack, weight in stacks.items():
        self_costs[stack[0]] += weight
    self_shares = fold_self(self_costs, buckets)
    inclusive: list[Share] = []
    if call_graph != "none":
        weights = stack_inclusive(stacks, buckets)
        inclusive = fold_inclusive(total, lambda name: weights.get(name, 0), buckets, [s.bucket for s in self_shares])
    return Profile(plan.target, plan.platform, "samples", total, left_out, self_shares, inclusive,
                   perf.unresolved(stacks))


def profile_with_callgrind(plan: Plan, buckets: Buckets, timeout: float, workdir: Path) -> Profile:
    out_dir = workdir / "callgrind"
    out_dir.mkdir()
    collect = [plan.body, f"{plan.body}.*"] if plan.body else []
    argv = callgrind.valgrind_argv(plan.argv, out_dir, collect=collect, trace_children=True, plain=True)
    outcome = run_process(argv, cwd=plan.cwd, env=plan.env, timeout=timeout, stdout=subprocess.DEVNULL)
    _check_outcome(plan, outcome, "callgrind")
    counts = callgrind.read_counts(out_dir)
    total = counts.total
    if total == 0:
        where = f" inside {plan.body}" if plan.body else ""
        raise UserError(f"{plan.target} executed no instructions{where} under callgrind",
                        "check that the program does its work (and, for a benchmark, that --filter selects it)")
    self_shares = fold_self(counts.self_costs, buckets)
    names = [share.bucket for share in self_shares]

    def inclusive(name: str) -> int:
        if name == OTHER and not buckets.by_dso:
            # As for perf: what runs in or under no named bucket. Pairs of caller and callee
            # cannot tell when a bucket is both above and below "other" (libc's start-up calls
            # main, which calls into libc), so the estimate is bounded below by other's own
            # instructions, which no bucket's can include.
            named = counts.inclusive(lambda location: buckets.classify(*location) != OTHER)
            own = next(share.samples for share in self_shares if share.bucket == OTHER)
            return max(total - named, own)
        return counts.inclusive(lambda location: buckets.classify(*location) == name)

    inclusive_shares = fold_inclusive(total, inclusive, buckets, names)
    return Profile(plan.target, plan.platform, "instructions", total, 0, self_shares, inclusive_shares)


def _check_outcome(plan: Plan, outcome, tool: str) -> None:
    """A target that crashed, failed or timed out gives no profile worth keeping."""
    if outcome.ok:
        return
    tail = outcome.stderr_tail()
    said = f": {' | '.join(tail)}" if tail else ""
    raise UserError(f"{plan.target} on {plan.platform} {outcome.reason()} under {tool}{said}",
                    "a profile is kept only of a run that ends normally: run the command alone to see why it fails, "
                    "or give --timeout")


def _check_enough(plan: Plan, total: int, left_out: int) -> None:
    if total >= MIN_SAMPLES:
        return
    if plan.body:
        raise UserError(f"only {total} perf samples inside {plan.body} ({left_out} outside it): too few to profile",
                        f"give a longer --time-limit (at least {MIN_SAMPLES} samples, "
                        f"{MIN_SAMPLES * perf.PERIOD_NS / 1e6:g} ms of CPU time, are needed)")
    raise UserError(f"{plan.target} ran for only {total} perf samples ({total * perf.PERIOD_NS / 1e6:g} ms of CPU "
                    f"time): it exited too early to profile",
                    f"give it more work (at least {MIN_SAMPLES * perf.PERIOD_NS / 1e6:g} ms of CPU time), "
                    "or use --instructions, which counts every instruction however short the run")
