"""A GitHub-flavoured markdown table, for pull-request comments."""
from __future__ import annotations

from benchlab.exporters.columns import cells, failure_lines, headings, legend_lines, scaling_tables
from benchlab.report import Report


def _table(heads: list[str], rows: list[list[str]]) -> list[str]:
    def line(values: list[str]) -> str:
        return "| " + " | ".join(v.replace("|", "\\|").replace("~", "\\~") for v in values) + " |"

    aligns = ["---"] + ["---:"] * (len(heads) - 1)
    return [line(heads), "|" + "|".join(aligns) + "|", *(line(r) for r in rows)]


def render(report: Report) -> str:
    lines = _table(headings(report), [cells(report, row) for row in report.rows])
    for title, heads, rows in scaling_tables(report):
        lines += ["", f"**{title}**", "", *_table(heads, rows)]
    legend = legend_lines(report)
    if legend:
        lines += ["", *(f"- `{entry[0]}` {entry[3:]}" for entry in legend)]
    failures = failure_lines(report)
    if failures:
        lines += ["", "**Failures**", "", "```", *failures, "```"]
    return "\n".join(lines) + "\n"
