"""The human table (rich), laid out like the cross-platform runner's."""
from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from benchlab.output.exporters.columns import (
    cells, description_lines, difference_lines, failure_lines, footnote_lines, footnotes, headings, legend_lines, partial_lines,
    scaling_tables)
from benchlab.output.fitting import CUT, Column, Fitted, Narrower, fit
from benchlab.output.table import SPREAD_FULL, SPREAD_INTERVAL, SPREAD_NONE, Table


#: The console width the table is laid out for: wide enough that no row wraps.
WIDTH = 1000
#: How the note under a narrowed table names the intervals it left out: by what the cells
#: lost, `+-` and `uninformative` (issue 37: "intervals" alone went unnoticed).
INTERVALS_LEFT_OUT = "intervals (+-h%, uninformative) left out"


def build(table: Table, main: bool = True, intervals: bool = True) -> list:
    """Renderables for a rich Console: the table (unless `main` is False), its scaling tables,
    legend and failures; without the legend of the intervals when `intervals` is False (a
    narrowed table left them out)."""
    parts: list = [_rich_table(table)] if main else []
    for title, heads, rows in scaling_tables(table):
        scaling = RichTable(*heads, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for values in rows:
            scaling.add_row(*(Text(value) for value in values))  # "[copy 1 of 2 failed]" is no markup
        # The title as its own line: a table title would wrap to the (narrow) table's width.
        parts.extend([Text(""), Text(title, style="bold"), scaling])
    parts.extend(Text(line) for line in description_lines(table))
    parts.extend(Text(line) for line in difference_lines(table))
    parts.extend(Text(line, style="dim") for line in [*footnote_lines(table), *legend_lines(table, intervals)])
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


def plain_table(table: Table, width: int | None = None) -> list[str] | None:
    """The main table's lines as rich lays them out (a box.SIMPLE_HEAD table without edges:
    the test column left-aligned, the others right-aligned, a rule under the headings), in
    time linear in the rows and a tenth of rich's: rich measured and rendered each cell
    through a dozen objects, 0.7 ms a row, a minute for 100,000. Within `width` (a
    terminal's) when given, with a line saying what was left out (narrower below); None when
    a table without a width is wider than WIDTH, where rich's cropping is kept."""
    fitted = _fitted(table, width)
    if width is None and fitted.total > WIDTH:
        return None
    return [*fitted.lines(), *fitted.note_lines()]


def _fitted(table: Table, width: int | None) -> Fitted:
    columns, steps = _columns(table, narrow=width is not None)
    return fit(columns, steps, width)


def _columns(table: Table, narrow: bool) -> tuple[list[Column], list[Narrower]]:
    """The table's columns, and how a narrow terminal narrows it, the least missed first: the
    ITERATIONS column, each figure's cv, its interval (`benchlab stats` shows both), the
    test's name cut (to fitting.MIN_CUT at most), then the platforms from the last (the first,
    every ratio's reference, stays). The other name columns (binary, param, counter, unit)
    stay. Without `narrow` (no width to fit), the whole table alone: the shorter cells would
    cost as much again."""
    heads, notes = headings(table), footnotes(table)
    spreads = {spread: [cells(table, row, notes, spread) for row in table.rows]
               for spread in ((SPREAD_FULL, SPREAD_INTERVAL, SPREAD_NONE) if narrow else (SPREAD_FULL,))}

    def column(index: int, spread: str = SPREAD_FULL) -> Column:
        return Column(heads[index], [values[index] for values in spreads[spread]], right=index > 0, cut=index == 0)

    columns = [column(index) for index in range(len(heads))]
    if not narrow:
        return columns, []
    figures = range(len(heads) - 1 - len(table.platforms), len(heads) - 1)
    steps = [Narrower(f"{heads[-1]} hidden", {len(heads) - 1: None}),
             Narrower("cv left out", {index: column(index, SPREAD_INTERVAL) for index in figures}),
             Narrower(INTERVALS_LEFT_OUT, {index: column(index, SPREAD_NONE) for index in figures})]
    steps.append(CUT)
    steps += [Narrower(f"{table.platforms[index - figures[0]]} hidden", {index: None})
              for index in reversed(figures[1:])]
    return columns, steps


def render(table: Table, width: int | None = None) -> str:
    """The table and what goes under it; within `width` columns when given (a terminal's:
    output/fitting.py), else laid out whole."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or WIDTH, color_system=None, highlight=False)
    plain = plain_table(table, width)
    intervals = width is None or INTERVALS_LEFT_OUT not in _fitted(table, width).left_out
    for part in build(table, main=plain is None, intervals=intervals):
        console.print(part)
    lines = [*(plain or []), *buffer.getvalue().splitlines()]
    return "\n".join(line.rstrip() for line in lines) + "\n"
