"""A stored run as CSV, one line per sample (formats.md, "Export"): benchlab's csv columns
`name,param,counter,iterations,value` (B63's, plus `param`), then where the sample came
from: `unit,platform,binary,process,sweep,overhead`.

`value` is the sample's total over `iterations`, as B63 and the header write it, so
`value / iterations` is the per-iteration sample; `overhead` is the empty loop's figure
of the same round over the same iterations (empty when there is none). A record
without per-sample iteration counts (lind, csb, a workload) writes its `iterations` on
every line, or 1. Unsupported counters have no samples and so no lines.

A text cell (a parameter's text too) that a spreadsheet would run as a formula (`=`,
`+`, `-`, `@`, a tab or a carriage return first) starts with a single quote (records.spreadsheet_cell); `benchlab import` takes it off again.

Not to be confused with `benchlab show --format csv` (exporters/csv.py): one line per
table cell, for spreadsheets of the summary.
"""
from __future__ import annotations

import csv
import io

from benchlab.formats.parsers.b63csv import BENCHLAB_HEADER, EXPORT_COLUMNS
from benchlab.records import Record, spreadsheet_cell
from benchlab.output.table import Table


def _count(record: Record, index: int) -> int:
    counts = record.sample_iterations
    count = counts[index] if counts and len(counts) == len(record.samples) else record.iterations
    return count if isinstance(count, int) and count >= 1 else 1


def _cell(param: int | str | None) -> int | str:
    """A parameter's cell: a number as it is, text as every text cell (a spreadsheet ran
    a text parameter `=cmd|...` as a formula: issue 37)."""
    if param is None:
        return ""
    return spreadsheet_cell(param) if isinstance(param, str) else param


def render(table: Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(BENCHLAB_HEADER + EXPORT_COLUMNS)
    for record in table.records:
        if not record.supported:
            continue
        process = record.process
        sweep = f"{record.sweep['flag']}={record.sweep['value']}" if record.sweep else ""
        overheads = record.overhead_samples
        for index, sample in enumerate(record.samples):
            count = _count(record, index)
            # str(float) is Python's shortest repr that reads back to the same float.
            writer.writerow([spreadsheet_cell(record.bench), _cell(record.param),
                             spreadsheet_cell(record.counter), count, sample * count, spreadsheet_cell(record.unit),
                             spreadsheet_cell(record.platform), spreadsheet_cell(record.binary),
                             "" if process is None else process, spreadsheet_cell(sweep),
                             "" if overheads is None else overheads[index] * count])
    return buffer.getvalue()
