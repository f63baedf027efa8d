"""Everything, for machines: the run, the table, and every record with its samples."""
from __future__ import annotations

import json
import math
from typing import Any

from benchlab.output.table import EMPTY, OK, Table

#: Version of this document's layout; bumped when a field is removed or renamed.
SCHEMA = 1


def _contention(record) -> dict[str, Any]:
    lost = record.contention
    return {"preempted": lost.preempted if lost else None, "left_out": lost.left_out if lost else None,
            "waited_share": lost.waited_share if lost else None, "short_samples": record.short_samples}


def finite(value: Any) -> Any:
    """JSON has no NaN or infinity: write them as null, as formats.md does."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def document_text(document: Any, indent: int = 2) -> str:
    """A JSON document as every `--format json` writes it: NaN and infinities as null
    (`finite`), never the `NaN`/`Infinity` that JSON parsers other than Python's refuse."""
    return json.dumps(finite(document), indent=indent, allow_nan=False, default=str) + "\n"


def render(table: Table) -> str:
    rows = []
    for row in table.rows:
        cells = {}
        for platform, cell in row.cells.items():
            if cell.status == EMPTY:
                continue
            cells[platform] = {"status": cell.status, "reason": cell.reason} if cell.status != OK else {
                "status": OK, "median": cell.record.median, "median_ci": cell.record.figures.interval,
                # before the empty loop was subtracted, and what was (null: nothing was)
                "raw_median": cell.record.figures.raw_median, "overhead": cell.record.figures.overhead,
                "loop_share": cell.record.figures.loop_share,
                "ratio": cell.ratio, "marks": cell.marks, "iterations": cell.record.iterations,
                # processes left out of the figure: most of their rounds preempted (formats.md, Contention)
                "preempted_processes": list(cell.record.figures.preempted_processes),
                # what the kernel said its samples lost to other tasks (null: not measured)
                **_contention(cell.record)}
        rows.append({"test": row.test, "param": row.param, "counter": row.counter, "unit": row.unit,
                     "sweep": row.sweep_value, "binary": row.binary, "cells": cells})
    document = {
        "schema": SCHEMA,
        "run": table.run,
        "platforms": table.platforms,
        "rows": rows,
        "records": [r.to_dict() for r in table.records],
        "faults": [f.to_dict() for f in table.faults],
    }
    return document_text(document)
