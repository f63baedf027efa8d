"""The human table (rich), laid out like the cross-platform runner's."""
from __future__ import annotations

import io

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from benchlab.formats.exporters.columns import (
    cells, description_lines, difference_lines, failure_lines, footnote_lines, footnotes, headings, legend_lines, partial_lines,
    scaling_tables)
from benchlab.output.table import Table


#: The console width the table is laid out for: wide enough that no row wraps.
WIDTH = 1000
#: Between two columns: a column's right padding, the box's space, the next one's left padding.
GAP = "   "


def build(table: Table, main: bool = True) -> list:
    """Renderables for a rich Console: the table (unless `main` is False), its scaling tables,
    legend and failures."""
    parts: list = [_rich_table(table)] if main else []
    for title, heads, rows in scaling_tables(table):
        scaling = RichTable(*heads, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for values in rows:
            scaling.add_row(*(Text(value) for value in values))  # "[copy 1 of 2 failed]" is no markup
        # The title as its own line: a table title would wrap to the (narrow) table's width.
        parts.extend([Text(""), Text(title, style="bold"), scaling])
    parts.extend(Text(line) for line in description_lines(table))
    parts.extend(Text(line) for line in difference_lines(table))
    parts.extend(Text(line, style="dim") for line in [*footnote_lines(table), *legend_lines(table)])
    failures = failure_lines(table)
    if failures:
        parts.append(Text("failures:", style="bold red"))
        parts.extend(Text(line) for line in failures)
    parts.extend(Text(line, style="bold red" if index == 0 else "") for index, line in enumerate(partial_lines(table)))
    return parts


def _rich_table(table: Table) -> RichTable:
    main = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for index, heading in enumerate(headings(table)):
        main.add_column(heading, justify="left" if index == 0 else "right", no_wrap=True)
    notes = footnotes(table)
    for row in table.rows:
        values = [Text(value) for value in cells(table, row, notes)]
        if row.failed:
            for value in values:
                if value.plain.startswith("FAILED"):
                    value.stylize("bold red")
        main.add_row(*values)
    return main


def plain_table(table: Table) -> list[str] | None:
    """The main table's lines as rich lays them out (a box.SIMPLE_HEAD table without edges:
    the test column left-aligned, the others right-aligned, a rule under the headings), in
    time linear in the rows and a tenth of rich's: rich measured and rendered each cell
    through a dozen objects, 0.7 ms a row, a minute for 100,000. None when the table is
    wider than the console, where rich's cropping is kept."""
    heads = headings(table)
    notes = footnotes(table)
    rows = [cells(table, row, notes) for row in table.rows]
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


def render(table: Table) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=WIDTH, color_system=None, highlight=False)
    plain = plain_table(table)
    for part in build(table, main=plain is None):
        console.print(part)
    lines = [*(plain or []), *buffer.getvalue().splitlines()]
    return "\n".join(line.rstrip() for line in lines) + "\n"
