"""A GitHub-flavoured markdown table, for pull-request comments."""
from __future__ import annotations

from benchlab.exporters.columns import (
    cells, failure_lines, footnote_lines, footnotes, headings, legend_lines, partial_lines, scaling_tables)
from benchlab.report import Report


def _table(heads: list[str], rows: list[list[str]]) -> list[str]:
    def line(values: list[str]) -> str:
        return "| " + " | ".join(v.replace("|", "\\|").replace("~", "\\~") for v in values) + " |"

    aligns = ["---"] + ["---:"] * (len(heads) - 1)
    return [line(heads), "|" + "|".join(aligns) + "|", *(line(r) for r in rows)]


def render(report: Report) -> str:
    notes = footnotes(report)
    lines = _table(headings(report), [cells(report, row, notes) for row in report.rows])
    for title, heads, rows in scaling_tables(report):
        lines += ["", f"**{title}**", "", *_table(heads, rows)]
    notes = footnote_lines(report)
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    legend = legend_lines(report)
    if legend:
        lines += ["", *(f"- `{entry.split('  ', 1)[0]}` {entry.split('  ', 1)[1]}" for entry in legend)]
    failures = failure_lines(report)
    if failures:
        lines += ["", "**Failures**", "", "```", *failures, "```"]
    partial = partial_lines(report)
    if partial:
        lines += ["", f"**{partial[0]}**", *(["", "```", *(line.strip() for line in partial[1:]), "```"] if partial[1:] else [])]
    return "\n".join(lines) + "\n"
