"""The bucket gate: `benchlab gate --bucket "dispatch<30%" --margin 1pp`, the hot-path
pipeline's phase exit gate. A bucket passes when its share is on the right side of the
limit by at least the margin: `dispatch<30%` with 1 pp passes at 29% and below, fails
at 29.5%. Read from a stored profile (the latest run that has one, unless RUN is given).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from benchlab.errors import UserError

_SPEC = re.compile(r"^\s*(?P<bucket>.+?)\s*(?P<op>[<>])\s*(?P<limit>\d+(\.\d+)?)\s*%\s*$")
_MARGIN = re.compile(r"^\s*(?P<value>\d+(\.\d+)?)\s*(pp)?\s*$")
#: Shares are sums of counts divided by a total: compared to 1e-9 pp, so that 29.000000000004%
#: against "30% by 1 pp" is not a failure of floating point.
TOLERANCE_PP = 1e-9


@dataclasses.dataclass(frozen=True)
class BucketLimit:
    bucket: str
    below: bool  # "<": the share must be under the limit; ">": over it
    limit: float

    def __str__(self) -> str:
        return f"{self.bucket}{'<' if self.below else '>'}{self.limit:g}%"


@dataclasses.dataclass
class Verdict:
    limit: BucketLimit
    platform: str
    share: float
    margin: float

    @property
    def room(self) -> float:
        """Percentage points between the share and the limit, on the side the limit asks for."""
        return self.limit.limit - self.share if self.limit.below else self.share - self.limit.limit

    @property
    def passed(self) -> bool:
        return self.room > 0 and self.room + TOLERANCE_PP >= self.margin

    def describe(self, kind: str, unit: str = "samples") -> str:
        side = "under" if self.limit.below else "over"
        outcome = "passed" if self.passed else "FAILED"
        return (f"bucket {self.limit.bucket} on {self.platform}: {self.share:.2f}% of {unit} ({kind}), "
                f"{side} {self.limit.limit:g}% by {self.room:+.2f} pp (margin {self.margin:g} pp): {outcome}")


def parse_limit(text: str) -> BucketLimit:
    found = _SPEC.match(text)
    if not found:
        raise UserError(f"--bucket {text!r} is not NAME<PCT% or NAME>PCT%", 'write e.g. --bucket "dispatch<30%"')
    limit = float(found.group("limit"))
    if limit > 100:
        raise UserError(f"--bucket {text!r}: a share is at most 100%", "give a limit from 0 to 100")
    return BucketLimit(found.group("bucket"), found.group("op") == "<", limit)


def parse_margin(text: str) -> float:
    found = _MARGIN.match(text)
    if not found or float(found.group("value")) > 100:
        raise UserError(f"--margin {text!r} is not a number of percentage points from 0 to 100",
                        "write e.g. --margin 1pp (percentage points of the share, not a percent of it)")
    return float(found.group("value"))


def evaluate(limits: list[BucketLimit], margin: float, rows: list[dict[str, Any]], kind: str,
             run_id: int) -> list[Verdict]:
    """One verdict per limit and platform of the run's profile; an unknown bucket is an error."""
    chosen = [row for row in rows if row["kind"] == kind]
    if not chosen:
        raise UserError(f"run {run_id}'s profile has no {kind} shares",
                        "inclusive shares need a call graph: profile with --call-graph fp or dwarf")
    verdicts = []
    for limit in limits:
        matching = [row for row in chosen if row["bucket"] == limit.bucket]
        if not matching:
            names = sorted({row["bucket"] for row in chosen})
            raise UserError(f"run {run_id}'s profile has no bucket {limit.bucket!r}",
                            f"its buckets are: {', '.join(names)}")
        verdicts += [Verdict(limit, row["platform"], row["share"], margin) for row in matching]
    return verdicts
