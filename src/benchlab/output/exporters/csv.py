"""One CSV row per table cell (test, param, platform), for spreadsheets and scripts."""
from __future__ import annotations

import csv
import io

from benchlab.records import printable, spreadsheet_cell
from benchlab.stats import STATISTICS
from benchlab.output.table import EMPTY, OK, Table

#: The statistics after the median's own columns (median, ci_low, ci_high): every one but the
#: MAD, which this export has never had, so that its columns stay as they were.
FIGURES = tuple(name for name in STATISTICS if name not in ("median", "mad"))
COLUMNS = ["test", "param", "counter", "unit", "sweep", "platform", "binary", "status", "median", "ci_low",
           "ci_high", "ratio", "marks", "iterations", "samples", *FIGURES, "reason"]
#: Columns of text from binaries and files: escaped as every printer shows them (records.printable).
#: `param` is text where a benchmark has no number (Lind's `-`, or whatever a file gave).
TEXT_COLUMNS = ("test", "param", "counter", "unit", "sweep", "platform", "binary", "reason")


def _escaped(values: dict) -> dict:
    """Every text cell, whichever column, never read as a formula by a spreadsheet
    (records.spreadsheet_cell): a text parameter `=cmd|...` was written as it came (issue 37)."""
    return {key: spreadsheet_cell(printable(value) if key in TEXT_COLUMNS else value) if isinstance(value, str)
            else value for key, value in values.items()}


def render(table: Table) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in table.rows:
        for platform in table.platforms:
            cell = row.cells[platform]
            base = {"test": row.test, "param": row.param, "counter": row.counter, "unit": row.unit,
                    "sweep": row.sweep_value, "platform": platform}
            if cell.status == EMPTY:
                continue
            values = {**base, "binary": cell.binary, "status": cell.status, "reason": cell.reason}
            if cell.status == OK:
                figures = cell.record.figures
                ci = figures.interval or [None, None]
                values.update({
                    "median": figures.median, "ci_low": ci[0], "ci_high": ci[1], "ratio": cell.ratio,
                    "marks": cell.marks, "iterations": cell.record.iterations, "samples": figures.n,
                    **{k: getattr(figures, k) for k in FIGURES},
                })
            writer.writerow(_escaped(values))
    return buffer.getvalue()
