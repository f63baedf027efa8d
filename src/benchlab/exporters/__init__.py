"""Writers of a Report, one module per format, behind one small interface:
`render(report) -> str`. hyperfine's export/ directory is the model.
"""
from __future__ import annotations

from typing import Callable

from benchlab.exporters import csv, json, markdown, table
from benchlab.report import Report

Exporter = Callable[[Report], str]

EXPORTERS: dict[str, Exporter] = {
    "table": table.render,
    "json": json.render,
    "csv": csv.render,
    "markdown": markdown.render,
}
FORMAT_BY_SUFFIX = {".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".txt": "table"}

__all__ = ["EXPORTERS", "FORMAT_BY_SUFFIX", "Exporter"]
