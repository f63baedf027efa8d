"""A stored run as the Lind runner's JSON (formats.md, "Export"):

    {test: {param: {platform: ns, ..., "loops": n}}}

one figure per (test, param, platform): the figure the table shows, i.e. the combined
figure of the run's processes (combine.py; the median of the one process otherwise),
in ns per iteration, as a JSON number (the runner writes strings of whole ns; readers
of either take numbers), and -1 on a platform without one, as the runner writes a platform
that did not run; `desc` a test's description when the run has one. `loops` is the iterations per sample on the first platform
that has the row, as the table's ITERATIONS column. A benchmark without a parameter
has param "0", as the `lind` line writes it. Only time results fit the format.
"""
from __future__ import annotations

import json

from benchlab.errors import UserError
from benchlab.formats.parsers.lind_json import DESC, LOOPS
from benchlab.output.table import Table

FIX = "export jsonl or csv, which keep every record apart"


def render(table: Table) -> str:
    run_id = (table.run or {}).get("id")
    for key in (LOOPS, DESC):
        if key in table.platforms:
            raise UserError(f"run {run_id} has a platform named {key!r}, a key of its own in the Lind runner's JSON", FIX)
    document: dict[str, dict[str, dict]] = {}
    described = ((table.run or {}).get("context") or {}).get("descriptions") or {}
    for row in table.rows:
        if row.failed or row.counter != "time" or row.unit != "ns":
            continue
        label = f"{row.test} {row.param if row.param is not None else ''}".strip()
        if row.binary is not None or row.sweep_value is not None:
            why = f"binaries ({row.binary}, ...)" if row.binary is not None else "sweep values"
            raise UserError(f"{label} of run {run_id} comes from several {why} on one platform, and the Lind "
                            "runner's JSON has one figure per (test, param, platform)", FIX)
        param = str(row.param if row.param is not None else 0)
        cells = document.setdefault(row.test, {})
        if param in cells:
            raise UserError(f"{row.test} has a result without a parameter and one at parameter 0 in run {run_id}: "
                            "the Lind runner's JSON writes both as param \"0\"", FIX)
        # -1 where a platform has no figure, as the runner writes a platform that did not run
        cell = {platform: _figure(row.cells[platform].record) for platform in table.platforms}
        cell[LOOPS] = row.iterations if row.iterations is not None else -1
        if isinstance(described.get(row.test), str):
            cell[DESC] = described[row.test]
        cells[param] = cell
    if not document:
        raise UserError(f"run {run_id} has no time results (ns per iteration) to write as the Lind runner's JSON",
                        FIX)
    return json.dumps(document, indent=2, allow_nan=False) + "\n"


def _figure(record) -> float | int:
    """A record's figure, or the runner's -1 (not run) when there is none."""
    if record is None or not record.supported or record.median is None:
        return -1
    return record.median
