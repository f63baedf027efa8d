"""The two sides that `compare` and `gate` hold against each other, and their comparison.

A side is a stored run (an id, `latest`, `-N`) or a result file of any format benchlab
reads; a stored run brings the spread between earlier runs of its machine (noise.py) and
its profile buckets too. The comparison model is statistics/compare.py; this module loads
the two sides for it and says where their contexts differ in what can explain a
difference in figures.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from benchlab.errors import UserError
from benchlab.formats.importing import read_results
from benchlab.judging.thresholds import Thresholds
from benchlab.records import Record
from benchlab.statistics.compare import Comparison, compare

#: Context fields whose difference can explain a difference in figures.
CONTEXT_FIELDS = ("cpu", "kernel", "arch", "compilers", "cflags", "platforms")


class Side:
    """One side of a comparison: its name, records and context."""

    def __init__(self, label: str, records: list[Record], context: dict[str, Any], levels: dict | None = None,
                 profile: list[dict[str, Any]] | None = None):
        self.label, self.records, self.context = label, records, context
        #: The spread between whole runs before this one on its machine (noise.run_levels).
        self.levels = levels or {}
        #: The run's profile buckets (benchlab profile), [] when it has none.
        self.profile: list[dict[str, Any]] = profile or []


def load_side(text: str, store_opener: Callable[[], Any]) -> Side:
    """A result file (any format `benchlab import` reads) when `text` names one, else a stored
    run of the store `store_opener` opens (only then)."""
    path = Path(text)
    if path.is_file():
        try:
            imported = read_results(text)
        except UserError as error:
            raise UserError(error.what, "give a stored run (an id, latest, -N) or a result file of a format "
                                        "benchlab import reads") from None
        return Side(text, imported.records, imported.context or {})
    store = store_opener()
    run, records, _ = store.load_run(store.resolve_run_id(text))
    context = run.get("context") or {}
    return Side(f"run {run['id']}", records, context, store.run_levels(run["id"], context),
                store.load_profile(run["id"]))


def compare_sides(a_text: str, b_text: str, store_opener: Callable[[], Any], thresholds: Thresholds,
                  family: bool = False) -> tuple[list[Comparison], Side, Side]:
    """B held against A, per benchmark both have, each row at its floor and threshold
    (`thresholds`); an error when they have neither a benchmark nor a profile in common.
    `family`: the rows' intervals hold together (the gate judges them at once)."""
    a, b = load_side(a_text, store_opener), load_side(b_text, store_opener)
    comparisons = compare(a.records, b.records, floor_of=thresholds.floor_of,
                          levels=b.levels or a.levels, family=family, shown_levels=(a.levels, b.levels))
    thresholds.judge(comparisons)
    if not comparisons and not (a.profile and b.profile):
        raise UserError(f"{a.label} and {b.label} have no benchmark in common",
                        "compare runs of the same programs (benchlab show RUN lists what a run has)")
    return comparisons, a, b


def context_differences(a: Side, b: Side) -> list[str]:
    """`field: A's -> B's` for each of CONTEXT_FIELDS both sides have and differ in."""
    lines = []
    for field in CONTEXT_FIELDS:
        if field in a.context and field in b.context and a.context[field] != b.context[field]:
            lines.append(f"{field}: {_short(a.context[field])} -> {_short(b.context[field])}")
    return lines


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."
