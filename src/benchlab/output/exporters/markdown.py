"""A GitHub-flavoured markdown table, for pull-request comments."""
from __future__ import annotations

from benchlab.output.exporters.columns import (
    cells, difference_lines, failure_lines, footnote_lines, footnotes, headings, legend_lines, partial_lines, scaling_tables)
from benchlab.output.table import Table


def _table(heads: list[str], rows: list[list[str]]) -> list[str]:
    def line(values: list[str]) -> str:
        return "| " + " | ".join(v.replace("|", "\\|").replace("~", "\\~") for v in values) + " |"

    aligns = ["---"] + ["---:"] * (len(heads) - 1)
    return [line(heads), "|" + "|".join(aligns) + "|", *(line(r) for r in rows)]


def render(table: Table) -> str:
    notes = footnotes(table)
    lines = _table(headings(table), [cells(table, row, notes) for row in table.rows])
    for title, heads, rows in scaling_tables(table):
        lines += ["", f"**{title}**", "", *_table(heads, rows)]
    differences = difference_lines(table)
    if differences:
        lines += ["", differences[0], "", *(f"- {line.strip()}" for line in differences[1:])]
    notes = footnote_lines(table)
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    legend = legend_lines(table)
    if legend:
        lines += ["", *(f"- `{entry.split('  ', 1)[0]}` {entry.split('  ', 1)[1]}" for entry in legend)]
    failures = failure_lines(table)
    if failures:
        lines += ["", "**Failures**", "", "```", *failures, "```"]
    partial = partial_lines(table)
    if partial:
        lines += ["", f"**{partial[0]}**", *(["", "```", *(line.strip() for line in partial[1:]), "```"] if partial[1:] else [])]
    return "\n".join(lines) + "\n"
