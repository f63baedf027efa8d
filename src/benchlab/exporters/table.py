"""The human table (rich), laid out like the cross-platform runner's."""
from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchlab.exporters.columns import (
    cells, failure_lines, footnote_lines, footnotes, headings, legend_lines, partial_lines, scaling_tables)
from benchlab.report import Report


def build(report: Report) -> list:
    """Renderables for a rich Console: the table, its scaling tables, legend and failures."""
    main = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for index, heading in enumerate(headings(report)):
        main.add_column(heading, justify="left" if index == 0 else "right", no_wrap=True)
    notes = footnotes(report)
    for row in report.rows:
        values = [Text(value) for value in cells(report, row, notes)]
        if row.failed:
            for value in values:
                if value.plain.startswith("FAILED"):
                    value.stylize("bold red")
        main.add_row(*values)
    parts: list = [main]
    for title, heads, rows in scaling_tables(report):
        scaling = Table(*heads, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for values in rows:
            scaling.add_row(*(Text(value) for value in values))  # "[copy 1 of 2 failed]" is no markup
        # The title as its own line: a table title would wrap to the (narrow) table's width.
        parts.extend([Text(""), Text(title, style="bold"), scaling])
    parts.extend(Text(line, style="dim") for line in [*footnote_lines(report), *legend_lines(report)])
    failures = failure_lines(report)
    if failures:
        parts.append(Text("failures:", style="bold red"))
        parts.extend(Text(line) for line in failures)
    parts.extend(Text(line, style="bold red" if index == 0 else "") for index, line in enumerate(partial_lines(report)))
    return parts


def render(report: Report) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=1000, color_system=None, highlight=False)
    for part in build(report):
        console.print(part)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"
