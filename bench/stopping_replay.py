#!/usr/bin/env python3
"""The stopping rule of `ab` and the gate, replayed on paired rounds recorded on this
machine (issue 36): how often each verdict is wrong, and how many rounds a decision takes.

A judgment draws rounds one by one, with replacement, from an A/A recording (identical
code built twice, `benchlab ab` with --format json: each round's B/A), each round's log
ratio given a random sign (A/A rounds are symmetric about 0 when the order of A and B is
drawn each round: the sign makes the pool exactly so) and moved to the truth. The rule
then decides, as `ab --max-regression` and the gate do, or runs out of rounds (the
budget) and is inconclusive. Per noise (each recorded kernel, a Gaussian and a bimodal
control), truth (1.00, the threshold, 1.5x the threshold) and rule:

  slower / not slower / inconclusive   the share of judgments with each verdict
  wrong                                the share of wrong verdicts: "slower" at 1.00 and at
                                       the threshold, "not slower" at the threshold and above
  median rounds                        over the judgments that decided

The rules: `before`, a 99% interval after every round from round 4, stopping at the first
decision (the rule before issue 36); `after`, benchlab's rule (statistics/sequential.py:
looks at 6, 9, 14, 21, ... rounds, every look read at Pocock's level for the looks the
budget holds). The target: wrong at most 1 in 100 at the threshold and below it.

    bench/stopping_replay.py                      # the recordings in bench/replay/rounds/
    bench/stopping_replay.py --judgments 500      # quicker
    bench/stopping_replay.py --record 300         # record new A/A rounds first (300 s, ~5 min)
"""
from __future__ import annotations

import argparse
import bisect
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from benchlab.measuring.ab import least_round_seconds
from benchlab.statistics import sequential
from benchlab.statistics.compare import INCONCLUSIVE, NOT_SLOWER, SLOWER, verdict_of
from benchlab.statistics.distributions import normal_quantile_two_sided
from benchlab.statistics.paired import ROBUST_FROM, log_interval

HERE = Path(__file__).resolve().parent
ROUNDS_DIR = HERE / "replay" / "rounds"
KERNELS = HERE / "replay" / "kernels.c"
BEFORE, AFTER = "before", "after"


def recorded_pools(files: list[Path]) -> dict[str, np.ndarray]:
    """Each recorded kernel's A/A log ratios, one per round, over every file given."""
    pools: dict[str, list[float]] = {}
    for path in files:
        answer = json.loads(path.read_text())
        for row in answer["comparisons"]:
            a, b = row["rounds"]["a"], row["rounds"]["b"]
            pools.setdefault(row["test"], []).extend(math.log(y / x) for x, y in zip(a, b))
    return {name: np.asarray(logs) for name, logs in pools.items()}


def control_pools(rng: np.random.Generator, size: int = 4000) -> dict[str, np.ndarray]:
    """A Gaussian (sd 2%) and a bimodal control: each process lands in a mode 10% slower
    with probability 0.4, A's and B's apart, plus 0.5% of Gaussian noise (the multiply
    chain's per-process modes on some hosts)."""
    gaussian = rng.normal(0, 0.02, size)
    modes = (rng.random((2, size)) < 0.4) * math.log(1.1)
    bimodal = modes[1] - modes[0] + rng.normal(0, 0.005, size)
    return {"gaussian (control)": gaussian, "bimodal (control)": bimodal}


def judge(draws: np.ndarray, looks: list[int], levels: list[float], limit: float) -> tuple[str, int]:
    """The verdict after the first look whose interval (benchlab's own, statistics/paired.py,
    at that look's level) decides, or at the last look."""
    for n, level in zip(looks, levels):
        _, low, high = log_interval(draws[:n], level)
        verdict = verdict_of(math.exp(low), math.exp(high), limit)
        if verdict != INCONCLUSIVE:
            return verdict, n
    return INCONCLUSIVE, looks[-1]


def judge_every_round(draws: np.ndarray, first: int, budget: int, level: float, limit: float) -> tuple[str, int]:
    """judge() with a look after every round from `first`, made fast enough to replay: from
    ROBUST_FROM rounds the signed-rank interval's ends against log(limit) are read from how
    many Walsh averages lie at or below it (low > L when at most k do, high <= L when at
    least m - k do), kept up to date round by round; before that, the t interval itself.
    check_fast_path() holds it to judge()'s verdicts."""
    bound = math.log(limit)
    z = normal_quantile_two_sided(level)
    ordered: list[float] = []
    below = 0
    for n in range(1, budget + 1):
        x = float(draws[n - 1])
        bisect.insort(ordered, x)
        below += bisect.bisect_right(ordered, 2 * bound - x)  # the Walsh averages (x_i + x) / 2 <= bound
        if n < first:
            continue
        if n < ROBUST_FROM:
            _, low, high = log_interval(draws[:n], level)
            verdict = verdict_of(math.exp(low), math.exp(high), limit)
        else:
            m = n * (n + 1) // 2
            k = int(math.floor(m / 2 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24)))
            k = min(max(k, 0), (m - 1) // 2)
            verdict = SLOWER if below <= k else NOT_SLOWER if below >= m - k else INCONCLUSIVE
        if verdict != INCONCLUSIVE:
            return verdict, n
    return INCONCLUSIVE, budget


def check_fast_path(pool: np.ndarray, limit: float, budget: int, rng: np.random.Generator, judgments: int = 30) -> None:
    """The fast every-round judge gives judge()'s verdict and rounds on `judgments` draws."""
    for _ in range(judgments):
        draws = rng.choice(pool, budget) * rng.choice((-1.0, 1.0), budget) + math.log(limit)
        fast = judge_every_round(draws, 4, budget, 0.99, limit)
        slow = judge(draws, list(range(4, budget + 1)), [0.99] * budget, limit)
        if fast != slow:
            raise SystemExit(f"stopping_replay: the fast path gave {fast}, benchlab's interval {slow}")


def rule_looks(rule: str, budget: int, horizon: int) -> tuple[list[int], list[float]]:
    """A rule's looks within `budget` rounds and each look's level. `before`: every round from
    4 at 99%; `after`: benchlab's (sequential.Rule); `wtD`, e.g. wt0.25: benchlab's looks
    with Wang and Tsiatis's boundary of shape D instead (0.5 is Pocock's), growthG, e.g.
    growth2: looks growing by G instead, to compare."""
    if rule == BEFORE:
        return list(range(4, budget + 1)), [0.99] * (budget - 3)
    shape = float(rule[2:]) if rule.startswith("wt") else None
    growth = float(rule[6:]) if rule.startswith("growth") else sequential.LOOK_GROWTH
    plan = sequential.Rule(1, horizon, shape=shape, looks=sequential.schedule(growth=growth, count=400))
    looks = [n for n in plan.looks if n < budget] + [budget]
    return looks, [plan.level_at(n) for n in looks]


def wrong_verdict(verdict: str, truth: float, limit: float) -> bool:
    return (verdict == SLOWER and truth <= limit + 1e-12) or (verdict == NOT_SLOWER and truth >= limit - 1e-12)


def replay_cell(pool: np.ndarray, truth: float, limit: float, rule: str, budget: int, horizon: int,
                judgments: int, rng: np.random.Generator) -> dict:
    looks, levels = rule_looks(rule, budget, horizon)
    decide = ((lambda draws: judge_every_round(draws, looks[0], budget, levels[0], limit)) if rule == BEFORE
              else (lambda draws: judge(draws, looks, levels, limit)))
    counts = {SLOWER: 0, NOT_SLOWER: 0, INCONCLUSIVE: 0}
    wrong, decided_rounds = 0, []
    for _ in range(judgments):
        draws = rng.choice(pool, budget) * rng.choice((-1.0, 1.0), budget) + math.log(truth)
        verdict, rounds = decide(draws)
        counts[verdict] += 1
        wrong += wrong_verdict(verdict, truth, limit)
        if verdict != INCONCLUSIVE:
            decided_rounds.append(rounds)
    share = {k: v / judgments for k, v in counts.items()}
    return {**share, "wrong": wrong / judgments,
            "median_rounds": statistics.median(decided_rounds) if decided_rounds else None}


def record(seconds: float, directory: Path) -> Path:
    """A/A rounds of bench/replay/kernels.c built twice (two directories), by `benchlab ab`."""
    work = directory / "aa"
    for side in ("a", "b"):
        (work / side).mkdir(parents=True, exist_ok=True)
        (work / side / "kernels.c").write_text(KERNELS.read_text())
    out = ROUNDS_DIR / time.strftime("aa-%Y%m%d-%H%M%S.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as stream:
        subprocess.run([str(Path(sys.executable).parent / "benchlab"), "ab", str(work / "a" / "kernels.c"),
                        str(work / "b" / "kernels.c"), "--format", "json", "--time", str(seconds),
                        "--precision", "0.01", "--max-rounds", "100000"], stdout=stream, check=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", nargs="*", type=Path, help="ab --format json files (default: bench/replay/rounds/*.json)")
    parser.add_argument("--judgments", type=int, default=2000, help="judgments per cell (default 2000)")
    parser.add_argument("--threshold", type=float, default=2.0, help="the threshold in percent (default 2)")
    parser.add_argument("--budget", type=int, default=300,
                        help="rounds a judgment may take (default 300: 30 s at the 10 rounds a second recorded here)")
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="the time budget the looks are planned for, as ab and the gate plan them (default 30)")
    parser.add_argument("--rules", default=f"{BEFORE},{AFTER}", help="before, after, wtD (see rule_looks)")
    parser.add_argument("--noises", help="only these noises (comma-separated names)")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--record", type=float, metavar="S", help="record S seconds of A/A rounds first")
    args = parser.parse_args()
    if args.record:
        print(f"recorded {record(args.record, HERE / 'build')}", file=sys.stderr)
    files = args.rounds or sorted(ROUNDS_DIR.glob("*.json"))
    if not files:
        parser.error(f"no recorded rounds in {ROUNDS_DIR}: give --rounds FILE or --record S")
    rng = np.random.default_rng(args.seed)
    pools = {**recorded_pools(files), **control_pools(rng)}
    if args.noises:
        pools = {name: pool for name, pool in pools.items() if name in args.noises.split(",")}
    threshold = args.threshold / 100
    horizon = math.ceil(args.seconds / least_round_seconds([0]))  # ABRun._stopping_rule's most rounds
    limit = 1 + threshold
    truths = [(1.0, "1.00"), (limit, "threshold"), (1 + 1.5 * threshold, "1.5x threshold")]
    rules = args.rules.split(",")
    check_fast_path(next(iter(pools.values())), limit, min(args.budget, 120), rng)
    print(f"# {len(files)} recording(s), {args.judgments} judgments a cell, threshold {args.threshold:g}%, "
          f"budget {args.budget} rounds, looks planned for {horizon} ({args.seconds:g} s)")
    for rule in args.rules.split(","):
        if rule != BEFORE:
            looks, levels = rule_looks(rule, args.budget, horizon)
            print(f"# {rule}: " + ", ".join(f"{n} at {level:.5f}" for n, level in zip(looks, levels)))
    print(f"{'noise':<20} {'sd':>6} {'truth':<15} {'rule':<7} {'slower':>7} {'not sl.':>7} {'incon.':>7} "
          f"{'wrong':>7} {'rounds':>7}")
    for name, pool in pools.items():
        sd = 1.4826 * float(np.median(np.abs(pool - np.median(pool))))
        for truth, label in truths:
            for rule in rules:
                cell = replay_cell(pool, truth, limit, rule, args.budget, horizon, args.judgments, rng)
                rounds = "-" if cell["median_rounds"] is None else f"{cell['median_rounds']:g}"
                print(f"{name:<20} {sd:>6.2%} {label:<15} {rule:<7} {cell[SLOWER]:>7.2%} {cell[NOT_SLOWER]:>7.2%} "
                      f"{cell[INCONCLUSIVE]:>7.2%} {cell['wrong']:>7.2%} {rounds:>7}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
