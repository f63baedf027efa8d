"""Writers of a Table, one module per format, behind one small interface:
`render(table) -> str`. hyperfine's export/ directory is the model.

EXPORTERS are what `run` and `show` print (the table and its summaries); RUN_FORMATS
are what `export` writes of a stored run (every sample, in formats other tools read).
Both are built from benchlab.formats.registry, which names each format, its module and the
suffixes of `--out` that choose it.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Callable

from benchlab.formats import registry as formats

if TYPE_CHECKING:
    from benchlab.output.table import Table

Exporter = Callable[["Table"], str]


def writer(name: str) -> Exporter:
    """The `render(table) -> str` of the registry's row `name`; its module imported on first use."""
    return importlib.import_module(f"{__name__}.{formats.BY_NAME[name].writer}").render


class _Formats(Mapping[str, Exporter]):
    """Format name -> its module's render function, the module imported when its format is
    first used: `show` prints a table, and need not import what lind_json's parsers do.
    An alias (`csv`) finds the format it names; iteration gives the names only."""

    def __init__(self, use: str):
        self._use = use

    def __getitem__(self, name: str) -> Exporter:
        return writer(formats.resolve(name, self._use))

    def __iter__(self) -> Iterator[str]:
        return iter(formats.names(self._use))

    def __len__(self) -> int:
        return len(formats.names(self._use))

    def __contains__(self, name: object) -> bool:  # without importing the writer
        return name in formats.names(self._use) or name in formats.aliases(self._use)


EXPORTERS: Mapping[str, Exporter] = _Formats(formats.SHOW)
FORMAT_BY_SUFFIX = formats.by_suffix(formats.SHOW)

RUN_FORMATS: Mapping[str, Exporter] = _Formats(formats.EXPORT)
RUN_FORMAT_BY_SUFFIX = formats.by_suffix(formats.EXPORT)

__all__ = ["EXPORTERS", "FORMAT_BY_SUFFIX", "RUN_FORMATS", "RUN_FORMAT_BY_SUFFIX", "Exporter", "writer"]
