"""The one small interface every output-format parser implements."""
from __future__ import annotations

import dataclasses
from typing import Any, Protocol

from benchlab.records import Record


@dataclasses.dataclass
class Parsed:
    records: list[Record] = dataclasses.field(default_factory=list)
    #: One message per line that did not parse, naming the binary and the line.
    warnings: list[str] = dataclasses.field(default_factory=list)
    #: The binary's own description of its run (host, compiler, timer, ...), if it gives one.
    context: dict[str, Any] | None = None


class Parser(Protocol):
    #: Short name, stored with each record ("jsonl", "lind", "csb", "b63csv", "gbench").
    name: str

    def sniff(self, text: str) -> bool:
        """True if `text` (a binary's whole stdout) looks like this format."""

    def parse(self, text: str, binary: str) -> Parsed:
        """Records of `text`; lines that do not parse become warnings, never exceptions."""


def bad_line(binary: str, number: int, line: str, format_name: str, why: str) -> str:
    shown = line if len(line) <= 120 else line[:117] + "..."
    return f"{binary}: line {number} is not valid {format_name} output ({why}), ignored: {shown!r}"


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def parse_param(text: str) -> int | None:
    """An integer parameter, or None for an empty field."""
    text = text.strip()
    return int(text) if text else None
