"""benchlab.statistics.sequential: the looks of a paired comparison and the level that
holds over all of them."""
import math

import numpy as np
import pytest

from benchlab.statistics import sequential
from benchlab.statistics.distributions import normal_quantile_two_sided


def test_the_schedule_grows_by_half_from_the_first_look():
    assert sequential.LOOKS[:8] == (6, 9, 14, 21, 31, 46, 69, 103)
    assert len(sequential.LOOKS) == sequential.LOOK_COUNT
    assert all(later > earlier for earlier, later in zip(sequential.LOOKS, sequential.LOOKS[1:]))
    assert sequential.schedule(first=2, growth=2, count=4) == (2, 4, 8, 16)


@pytest.mark.parametrize("looks, alpha, pocock", [
    # Pocock's constants for K equally spaced looks (Jennison and Turnbull, "Group Sequential
    # Methods with Applications to Clinical Trials", 2000, Table 2.1).
    ((1, 2), 0.05, 2.178),
    ((1, 2, 3, 4, 5), 0.05, 2.413),
    ((1, 2, 3, 4, 5), 0.01, 2.986),
])
def test_the_boundary_is_pococks_for_equally_spaced_looks(looks, alpha, pocock):
    assert sequential.boundaries(alpha, looks, 0.5)[0] == pytest.approx(pocock, abs=6e-4)


def test_the_boundary_is_obrien_and_flemings_for_shape_zero():
    # Jennison and Turnbull, Table 2.3: C_B(5, 0.05) = 2.040, the last look's z; the first
    # look's is C_B * sqrt(5).
    zs = sequential.boundaries(0.05, (1, 2, 3, 4, 5), 0.0)
    assert zs[-1] == pytest.approx(2.040, abs=6e-4) and zs[0] == pytest.approx(2.040 * math.sqrt(5), abs=2e-3)


def test_one_look_is_the_single_interval_and_more_looks_cost_less_than_bonferroni():
    assert sequential.boundaries(0.01, (10,), 0.5)[0] == normal_quantile_two_sided(0.99)
    looks = sequential.LOOKS[:11]
    z = sequential.boundaries(0.01, looks, 0.5)[0]  # Pocock's: one z at every look
    assert normal_quantile_two_sided(0.99) < z < normal_quantile_two_sided(1 - 0.01 / len(looks))


def test_the_crossing_probability_agrees_with_brownian_paths():
    # 20,000 random walks of 103 normal steps, read at the looks 6..103: the share that cross
    # z = 3 at some look, against the numerical integration (binomial sd about 0.0009).
    looks = sequential.LOOKS[:7]
    rng = np.random.default_rng(5)
    walks = np.cumsum(rng.normal(size=(20000, looks[-1])), axis=1)
    standardized = walks[:, [n - 1 for n in looks]] / np.sqrt(looks)
    simulated = float(np.mean(np.any(np.abs(standardized) >= 3.0, axis=1)))
    assert sequential.crossing_probability(3.0, looks) == pytest.approx(simulated, abs=0.003)
    assert 1 - math.erf(3 / math.sqrt(2)) < sequential.crossing_probability(3.0, looks)  # more than one look's


def test_the_rule_plans_the_looks_a_budget_can_hold_and_no_more():
    rule = sequential.Rule(rows=1, most_rounds=30)
    assert rule.looks == (6, 9, 14, 21, 31)
    assert rule.is_look(9) and not rule.is_look(10) and not rule.ended(30) and rule.ended(31)
    assert rule.levels == sequential.look_levels(1, looks=rule.looks)
    # A last look between two (the time is out after 10 rounds) takes the next one's level.
    assert rule.level_at(9) == rule.levels[1] and rule.level_at(10) == rule.levels[2]
    assert sequential.Rule(rows=1, most_rounds=10 ** 9).looks == sequential.LOOKS
    # Ten rows share the 1%: each row's level is higher than one row's at the same looks.
    assert sequential.Rule(rows=10, most_rounds=30).levels[0] > rule.levels[0]


def test_the_level_over_the_looks_holds_the_wrong_verdicts_to_one_in_a_hundred():
    # Gaussian rounds whose truth is exactly the threshold: every decision is wrong. Deciding
    # after every round at 99% is wrong far more often than 1%; the rule's looks at its level
    # are not (a t interval before 10 rounds, the signed-rank one from there, as ab reads them).
    from benchlab.statistics.paired import paired_interval
    rng = np.random.default_rng(11)
    budget, judgments = 46, 600
    rule = sequential.Rule(1, budget)

    def wrong(looks, levels):
        count = 0
        for _ in range(judgments):
            ratios = list(np.exp(rng.normal(0, 0.02, budget)))
            count += any(not (low <= 1 <= high) for _, low, high in
                         (paired_interval(ratios[:n], level) for n, level in zip(looks, levels)))
        return count / judgments

    every_round = wrong(range(4, budget + 1), [0.99] * budget)
    at_looks = wrong(rule.looks, rule.levels)
    assert every_round > 0.03
    assert at_looks <= 0.015
