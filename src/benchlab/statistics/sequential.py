"""When a paired comparison may stop, and at what level its intervals are read: a
group-sequential rule whose verdicts hold at 99% over every look it takes, not at each
look (issue 36).

`ab` and the gate add rounds until every row is decided. Checking a 99% interval after
every round and stopping at the first decision is many tests, not one: replayed on
rounds recorded on this machine, a slowdown exactly at the threshold was called "not
slower" in 3-10% of judgments (bench/README.md, *Stopping rule*). So the rule looks only
at a few round counts, growing by half each time (LOOKS: 6, 9, 14, 21, 31, ... rounds),
and reads every look's interval at one stricter level, Pocock's constant boundary for
that schedule (Pocock, "Group sequential methods in the design and analysis of clinical
trials", Biometrika 64, 1977): the level at which the chance that *any* look's interval
misses the truth is 1%. The looks are correlated (each holds the rounds of the one
before), which is why the boundary is well inside Bonferroni's over the same looks.

The boundary is computed for a Brownian motion seen at the looks (the statistic of n
paired rounds is a sum of n independent terms), by the recursive numerical integration
of Armitage, McPherson and Rowe (J. R. Stat. Soc. A 132, 1969), as group-sequential
software does; each look's interval then applies that level to its own method (t with
its degrees of freedom below ROBUST_FROM rounds, the signed-rank interval from there),
so small looks pay for their estimated spread as they always did.

A run that ends between looks (its time is out) takes one last look at the same level:
it is one of the looks the boundary allows for, never an extra one. After the last look
of the schedule no more rounds are run. Stored figures are one look (the gate's
`--no-remeasure`): their level is the rows' family level alone.
"""
from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

from benchlab import stats
from benchlab.statistics.distributions import normal_quantile_two_sided

if TYPE_CHECKING:
    import numpy as np

#: The first look. At 4 rounds a t interval of 3 degrees of freedom decided wrongly on
#: rounds that fall into a few modes (a process lands in one of two states): all four in
#: one mode is 1 judgment in 300 when a mode holds a quarter of them, and the t interval
#: then sees no spread at all. At 6 that is 1 in 5,000 (bench/stopping_replay.py, the
#: bimodal control: wrong at the threshold in 1.3% of judgments from 4, 0.65% from 6).
FIRST_LOOK = 6
#: Each look this much later than the one before: often enough that a decision waits at
#: most half as long again as deciding after every round would, few enough that the
#: boundary stays near the single look's.
LOOK_GROWTH = 1.5
#: Looks in the schedule: the last is at 8,859 rounds, past any budget of `ab` or the gate.
LOOK_COUNT = 20
#: The boundary's shape (boundaries): 0.5 is Pocock's, the same level at every look.
BOUNDARY_SHAPE = 0.5
#: Grid points per look of the numerical integration, and how closely the boundary is
#: found: Pocock's tabulated constants to their third decimal (tests), in about 0.1 s.
_GRID = 161
BOUNDARY_TOLERANCE = 1e-4


def schedule(first: int = FIRST_LOOK, growth: float = LOOK_GROWTH, count: int = LOOK_COUNT) -> tuple[int, ...]:
    """The round counts at which a comparison looks: first, first * growth, ... (whole, rising)."""
    looks: list[int] = []
    size = float(first)
    while len(looks) < count:
        rounds = int(math.ceil(size - 1e-9))
        if not looks or rounds > looks[-1]:
            looks.append(rounds)
        size *= growth
    return tuple(looks)


LOOKS = schedule()


def family_level(rows: int, level: float = stats.CI_LEVEL) -> float:
    """The level of each of `rows` intervals for all of them to hold together at `level`
    (Bonferroni). A gate judges every row of a suite at once: with 10 rows of identical
    code at 99% each, one of them lands above the threshold by chance in up to 1 judgment
    in 10 rather than 1 in 100 (bench/README.md, "Verdicts on a busy machine")."""
    return 1 - (1 - level) / max(1, rows)


def look_levels(rows: int, level: float = stats.CI_LEVEL, looks: tuple[int, ...] = LOOKS,
                shape: float | None = None) -> tuple[float, ...]:
    """Each look's interval level for `rows` rows judged together over `looks`: the rows
    share 1 - level (family_level), and each row's share holds over all its looks
    (boundaries)."""
    alpha = (1 - level) / max(1, rows)
    shape = BOUNDARY_SHAPE if shape is None else shape
    return tuple(1 - 2 * (1 - _normal_cdf(z)) for z in boundaries(alpha, looks, shape))


@functools.lru_cache(maxsize=256)
def boundaries(alpha: float, looks: tuple[int, ...] = LOOKS, shape: float = 0.5) -> tuple[float, ...]:
    """The z of each look that a standardized sum of paired rounds crosses at some look
    with probability `alpha` (two-sided) when the truth is at the centre: Wang and
    Tsiatis's family (Biometrics 43, 1987), z_k = c (n_k / n_K) ** (shape - 1/2), c found
    by bisection on crossing_probability. shape 0.5 is Pocock's constant boundary, 0
    O'Brien and Fleming's, which spends almost nothing at the first looks."""
    import numpy as np  # here: `run` imports this module for family_level, and numpy is 0.1 s of its CPU

    fractions = np.asarray(looks, dtype=float) / looks[-1]
    profile = fractions ** (shape - 0.5)
    if len(looks) == 1:
        return (normal_quantile_two_sided(1 - alpha),)
    low = normal_quantile_two_sided(1 - alpha) / float(profile.max())          # below every look's one-look z
    high = normal_quantile_two_sided(1 - alpha / len(looks)) / float(profile.min())  # Bonferroni at every look
    while high - low > BOUNDARY_TOLERANCE:
        middle = (low + high) / 2
        if crossing_probability(tuple(middle * profile), looks) > alpha:
            low = middle
        else:
            high = middle
    return tuple(float(z) for z in high * profile)


def crossing_probability(z: float | tuple[float, ...], looks: tuple[int, ...]) -> float:
    """P(|S_n| >= z_k sqrt(n) at some look n = looks[k]) for S a standard Brownian motion
    (`z` one number for every look, or one per look): the density of S on a grid inside
    the continuation region, carried from look to look by the normal increment between
    them, truncated at each look (Armitage, McPherson, Rowe)."""
    import numpy as np  # as in boundaries

    times = np.asarray(looks, dtype=float)
    zs = np.broadcast_to(np.asarray(z, dtype=float), times.shape)
    points, weights = _grid(zs[0] * math.sqrt(times[0]))
    density = np.exp(-points ** 2 / (2 * times[0])) / math.sqrt(2 * math.pi * times[0])
    for k in range(1, len(times)):
        step = times[k] - times[k - 1]
        new_points, new_weights = _grid(zs[k] * math.sqrt(times[k]))
        kernel = np.exp(-(new_points[:, None] - points[None, :]) ** 2 / (2 * step)) / math.sqrt(2 * math.pi * step)
        density = kernel @ (weights * density)
        points, weights = new_points, new_weights
    return float(1 - np.sum(weights * density))


def _grid(edge: float) -> tuple[np.ndarray, np.ndarray]:
    """Points on [-edge, edge] and Simpson's weights for them."""
    import numpy as np  # as in boundaries

    points = np.linspace(-edge, edge, _GRID)
    weights = np.ones(_GRID)
    weights[1:-1:2], weights[2:-1:2] = 4, 2
    return points, weights * (points[1] - points[0]) / 3


def _normal_cdf(z: float) -> float:
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def planned_looks(most_rounds: int, schedule: tuple[int, ...] = LOOKS) -> tuple[int, ...]:
    """The schedule's looks up to the first at or past `most_rounds`, the most rounds the
    budget could hold: no more looks are allowed for than can be taken."""
    looks = []
    for look in schedule:
        looks.append(look)
        if look >= most_rounds:
            break
    return tuple(looks)


class Rule:
    """The looks of one comparison of `rows` rows and the level each look reads its
    intervals at, for the verdicts to hold at `level` together over rows and looks."""

    def __init__(self, rows: int, most_rounds: int, level: float = stats.CI_LEVEL, shape: float | None = None,
                 looks: tuple[int, ...] = LOOKS):
        self.looks = planned_looks(max(1, most_rounds), looks)
        self.levels = look_levels(rows, level, self.looks, shape)

    def is_look(self, rounds: int) -> bool:
        return rounds in self.looks

    def level_at(self, rounds: int) -> float:
        """The level of a look after `rounds` rounds: a scheduled look's, or for a last look
        between two (the time is out) the next one's, whose place it takes."""
        for look, level in zip(self.looks, self.levels):
            if rounds <= look:
                return level
        return self.levels[-1]

    def ended(self, rounds: int) -> bool:
        """Past the last look: no more rounds."""
        return rounds >= self.looks[-1]
