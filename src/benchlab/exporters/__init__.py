"""Writers of a Table, one module per format, behind one small interface:
`render(report) -> str`. hyperfine's export/ directory is the model.

EXPORTERS are what `run` and `show` print (the table and its summaries); RUN_FORMATS
are what `export` writes of a stored run (every sample, in formats other tools read).
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from benchlab.table import Table

Exporter = Callable[["Table"], str]


class _Formats(Mapping[str, Exporter]):
    """Format name -> its module's render function, the module imported when its format is
    first used: `show` prints a table, and need not import what lind_json's parsers do."""

    def __init__(self, modules: dict[str, str]):
        self._modules = modules

    def __getitem__(self, name: str) -> Exporter:
        return importlib.import_module(f"benchlab.exporters.{self._modules[name]}").render

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


EXPORTERS: Mapping[str, Exporter] = _Formats({
    "table": "table",
    "json": "json",
    "csv": "csv",
    "markdown": "markdown",
})
FORMAT_BY_SUFFIX = {".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".txt": "table"}

RUN_FORMATS: Mapping[str, Exporter] = _Formats({
    "jsonl": "jsonl",          # benchlab's canonical records, everything kept
    "csv": "samples",          # one line per sample
    "gbench": "gbench",        # Google Benchmark JSON, for its tools/compare.py
    "lind-json": "lind_json",  # the Lind runner's {test: {param: {platform: ns}}}
})
RUN_FORMAT_BY_SUFFIX = {".jsonl": "jsonl", ".csv": "csv"}

__all__ = ["EXPORTERS", "FORMAT_BY_SUFFIX", "RUN_FORMATS", "RUN_FORMAT_BY_SUFFIX", "Exporter"]
