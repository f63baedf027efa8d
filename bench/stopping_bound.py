#!/usr/bin/env python3
"""How few rounds any valid stopping rule can take (issue 36's rounds target): on Gaussian
rounds of known spread, today's rule against the best rule there is for a known truth.

Issue 36 asks for verdicts wrong at most 1 in 100 at the threshold, in no more than 1.5x
the median rounds of the rule before it (a 99% interval after every round from round 4,
stopping at the first decision). This asks what the best possible rule takes, given far
more than `ab` or the gate will ever know: the rounds are Gaussian, their spread is known
exactly, and so is the truth. For a known truth the rule that decides in the fewest
rounds on average at a given error is Wald's sequential probability ratio test between
the threshold and that truth (Wald and Wolfowitz, "Optimum character of the sequential
probability ratio test", Ann. Math. Stat. 19, 1948), looking after every round. Its
boundary is set here so that at the threshold it says "not slower" in 0.5% of judgments
(found by bisection on the same draws), the most a side may take when both wrong verdicts
together must stay within 1%.

Per spread (sd over the distance between the truth and the threshold):

  today        a z interval (the spread known) after every round from 4, at 99%
  pocock       benchlab's looks (6, 9, 14, 21, ...) read at Pocock's level for a 30 s
               budget (statistics/sequential.py), with the spread known: a z interval
  oracle       the SPRT above: it knows the truth, so no real rule decides sooner on average

and for each, the median and mean rounds of the judgments that decided and the ratio to
today's, and the wrong verdicts at the threshold. No real rule knows the truth or the
spread: the figures are a floor under every rule that holds 1%, not a rule to use.

    .venv/bin/python bench/stopping_bound.py                   # about 1 minute
    .venv/bin/python bench/stopping_bound.py --judgments 2000  # quicker
"""
from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from benchlab.measuring.ab import least_round_seconds
from benchlab.statistics import sequential
from benchlab.statistics.distributions import normal_quantile_two_sided
from benchlab.statistics.paired import Z_995

#: One side's share of the 1% of wrong verdicts allowed at the threshold.
SIDE_ERROR = 0.005


def first_crossing(crossed: np.ndarray) -> np.ndarray:
    """Per judgment (row), the round (1-based) of the first True, or 0 for none."""
    return np.where(crossed.any(axis=1), crossed.argmax(axis=1) + 1, 0)


def today(sums: np.ndarray, sd: float) -> np.ndarray:
    """Rounds to "not slower" (the truth below the threshold at 0): the 99% z interval's
    upper end below 0 after some round from 4 on."""
    n = np.arange(1, sums.shape[1] + 1)
    return first_crossing((sums / n + Z_995 * sd / np.sqrt(n) < 0) & (n >= 4))


def pocock(sums: np.ndarray, sd: float, horizon: int) -> np.ndarray:
    """Rounds to "not slower" at benchlab's looks and levels (sequential.Rule), the spread known."""
    rule = sequential.Rule(1, horizon)
    looks = [look for look in rule.looks if look <= sums.shape[1]]
    crossed = np.zeros_like(sums, dtype=bool)
    for look in looks:
        z = normal_quantile_two_sided(rule.level_at(look))
        crossed[:, look - 1] = sums[:, look - 1] / look + z * sd / math.sqrt(look) < 0
    return first_crossing(crossed)


def sprt_statistic(sums: np.ndarray, sd: float, distance: float) -> np.ndarray:
    """The log likelihood ratio of "the truth is `distance` below the threshold" against
    "at the threshold", after each round: Gaussian rounds of known sd."""
    n = np.arange(1, sums.shape[1] + 1)
    return (distance / sd ** 2) * (-sums - n * distance / 2)


def sprt_boundary(null_statistic: np.ndarray, error: float) -> float:
    """The least boundary that rounds at the threshold cross in at most `error` of judgments."""
    return float(np.quantile(null_statistic.max(axis=1), 1 - error))


def summary(rounds: np.ndarray) -> tuple[float, float, float]:
    decided = rounds[rounds > 0]
    return float(np.median(decided)), float(np.mean(decided)), len(decided) / len(rounds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judgments", type=int, default=10000, help="judgments per spread (default 10000)")
    parser.add_argument("--spreads", default="0.5,1,2,3,4", help="sd / distance to the threshold (default 0.5,1,2,3,4)")
    parser.add_argument("--seconds", type=float, default=30.0, help="the budget Pocock's looks are planned for (default 30)")
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    horizon = math.ceil(args.seconds / least_round_seconds([0]))
    distance = 1.0
    print(f"# Gaussian rounds of known sd; the truth {distance:g} below the threshold; {args.judgments} judgments; "
          f"the oracle's boundary set for {SIDE_ERROR:.1%} wrong at the threshold on its own draws")
    print(f"{'sd/dist':>7} {'rule':<7} {'median':>7} {'mean':>7} {'x today':>8} {'decided':>8} {'not slower at thr.':>19}")
    for spread in (float(s) for s in args.spreads.split(",")):
        sd = spread * distance
        budget = int(60 * spread ** 2 + 60)
        truth_sums = np.cumsum(rng.normal(-distance, sd, (args.judgments, budget)), axis=1)
        null_sums = np.cumsum(rng.normal(0.0, sd, (args.judgments, budget)), axis=1)
        boundary = sprt_boundary(sprt_statistic(null_sums, sd, distance), SIDE_ERROR)
        rules = {
            "today": (today(truth_sums, sd), today(null_sums, sd)),
            "pocock": (pocock(truth_sums, sd, horizon), pocock(null_sums, sd, horizon)),
            "oracle": (first_crossing(sprt_statistic(truth_sums, sd, distance) >= boundary),
                       first_crossing(sprt_statistic(null_sums, sd, distance) >= boundary)),
        }
        base_median, base_mean, _ = summary(rules["today"][0])
        for name, (rounds, null_rounds) in rules.items():
            median, mean, decided = summary(rounds)
            wrong = float(np.mean(null_rounds > 0))
            print(f"{spread:>7g} {name:<7} {median:>7g} {mean:>7.1f} {median / base_median:>7.2f}x {decided:>8.1%} "
                  f"{wrong:>19.2%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
