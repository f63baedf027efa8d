"""Parsers of benchmark output, one module per format, auto-detected per binary."""
from __future__ import annotations

from benchlab.parsers.b63csv import B63CsvParser
from benchlab.parsers.base import Parsed, Parser
from benchlab.parsers.csb import CsbParser
from benchlab.parsers.gbench import GbenchParser
from benchlab.parsers.jsonl import JsonlParser
from benchlab.parsers.lind import LindParser

#: Most specific first: a Google Benchmark document also starts with "{".
PARSERS: list[Parser] = [GbenchParser(), JsonlParser(), CsbParser(), B63CsvParser(), LindParser()]
FORMAT_NAMES = [parser.name for parser in PARSERS]


def detect(text: str) -> Parser | None:
    """The parser whose format `text` is in, or None when none recognises it."""
    for parser in PARSERS:
        if parser.sniff(text):
            return parser
    return None


def parse_output(text: str, binary: str) -> Parsed:
    """Records of a binary's stdout in whatever supported format it printed."""
    parser = detect(text)
    if parser is None:
        parsed = Parsed()
        if text.strip():
            first = text.strip().splitlines()[0][:120]
            parsed.warnings.append(
                f"{binary}: output is in no known format ({', '.join(FORMAT_NAMES)}), ignored; first line: {first!r}"
            )
        return parsed
    parsed = parser.parse(text, binary)
    for record in parsed.records:
        record.format = parser.name
        record.binary = binary
    return parsed


__all__ = ["PARSERS", "FORMAT_NAMES", "Parsed", "Parser", "detect", "parse_output"]
