"""Writers of a Report, one module per format, behind one small interface:
`render(report) -> str`. hyperfine's export/ directory is the model.

EXPORTERS are what `run` and `show` print (the table and its summaries); RUN_FORMATS
are what `export` writes of a stored run (every sample, in formats other tools read).
"""
from __future__ import annotations

from typing import Callable

from benchlab.exporters import csv, gbench, json, jsonl, lind_json, markdown, samples, table
from benchlab.report import Report

Exporter = Callable[[Report], str]

EXPORTERS: dict[str, Exporter] = {
    "table": table.render,
    "json": json.render,
    "csv": csv.render,
    "markdown": markdown.render,
}
FORMAT_BY_SUFFIX = {".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".txt": "table"}

RUN_FORMATS: dict[str, Exporter] = {
    "jsonl": jsonl.render,         # benchlab's canonical records, everything kept
    "csv": samples.render,         # one line per sample
    "gbench": gbench.render,       # Google Benchmark JSON, for its tools/compare.py
    "lind-json": lind_json.render,  # the Lind runner's {test: {param: {platform: ns}}}
}
RUN_FORMAT_BY_SUFFIX = {".jsonl": "jsonl", ".csv": "csv"}

__all__ = ["EXPORTERS", "FORMAT_BY_SUFFIX", "RUN_FORMATS", "RUN_FORMAT_BY_SUFFIX", "Exporter"]
