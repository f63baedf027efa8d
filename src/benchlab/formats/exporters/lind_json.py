"""A stored run as the Lind runner's JSON (formats.md, "Export"):

    {test: {param: {platform: ns, ..., "loops": n}}}

one figure per (test, param, platform): the figure the table shows, i.e. the combined
figure of the run's processes (combine.py; the median of the one process otherwise),
in ns per iteration, as a JSON number (the runner writes strings of whole ns; readers
of either take numbers). `loops` is the iterations per sample on the first platform
that has the row, as the table's ITERATIONS column. A benchmark without a parameter
has param "0", as the `lind` line writes it. Only time results fit the format.
"""
from __future__ import annotations

import json

from benchlab.errors import UserError
from benchlab.formats.parsers.lind_json import LOOPS
from benchlab.output.table import Table

FIX = "export jsonl or csv, which keep every record apart"


def render(table: Table) -> str:
    run_id = (table.run or {}).get("id")
    if LOOPS in table.platforms:
        raise UserError(f"run {run_id} has a platform named {LOOPS!r}, a key of its own in the Lind runner's JSON", FIX)
    document: dict[str, dict[str, dict]] = {}
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
        cell = {platform: row.cells[platform].record.median for platform in table.platforms
                if row.cells[platform].record is not None and row.cells[platform].record.supported
                and row.cells[platform].record.median is not None}
        if row.iterations is not None:
            cell[LOOPS] = row.iterations
        cells[param] = cell
    if not document:
        raise UserError(f"run {run_id} has no time results (ns per iteration) to write as the Lind runner's JSON",
                        FIX)
    return json.dumps(document, indent=2, allow_nan=False) + "\n"
