"""The human table (rich), laid out like the cross-platform runner's."""
from __future__ import annotations

import io

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchlab.exporters.columns import (
    cells, failure_lines, footnote_lines, footnotes, headings, legend_lines, partial_lines, scaling_tables)
from benchlab.report import Report


#: The console width the table is laid out for: wide enough that no row wraps.
WIDTH = 1000
#: Between two columns: a column's right padding, the box's space, the next one's left padding.
GAP = "   "


def build(report: Report, main: bool = True) -> list:
    """Renderables for a rich Console: the table (unless `main` is False), its scaling tables,
    legend and failures."""
    parts: list = [_rich_table(report)] if main else []
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


def _rich_table(report: Report) -> Table:
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
    return main


def plain_table(report: Report) -> list[str] | None:
    """The main table's lines as rich lays them out (a box.SIMPLE_HEAD table without edges:
    the test column left-aligned, the others right-aligned, a rule under the headings), in
    time linear in the rows and a tenth of rich's: rich measured and rendered each cell
    through a dozen objects, 0.7 ms a row, a minute for 100,000. None when the table is
    wider than the console, where rich's cropping is kept."""
    heads = headings(report)
    notes = footnotes(report)
    rows = [cells(report, row, notes) for row in report.rows]
    widths = [cell_len(head) for head in heads]
    for values in rows:
        widths = [max(width, cell_len(value)) for width, value in zip(widths, values)]
    total = sum(widths) + len(GAP) * (len(widths) - 1)
    if total > WIDTH:
        return None

    def line(values: list[str]) -> str:
        padded = [value + " " * (width - cell_len(value)) if index == 0 else " " * (width - cell_len(value)) + value
                  for index, (value, width) in enumerate(zip(values, widths))]
        return GAP.join(padded).rstrip()

    return [line(heads), "─" * total, *(line(values) for values in rows)]


def render(report: Report) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=WIDTH, color_system=None, highlight=False)
    table = plain_table(report)
    for part in build(report, main=table is None):
        console.print(part)
    lines = [*(table or []), *buffer.getvalue().splitlines()]
    return "\n".join(line.rstrip() for line in lines) + "\n"
