"""Parsers of benchmark output, one module per format, detected per binary and per line.

A binary's output is read as a stream of lines. Google Benchmark's JSON document is
recognised by its start and read whole; every other format is a format of lines, and
each line goes to the first parser that recognises it (the format being read first,
so a line is parsed once). Junk before, between or after valid lines is a warning,
never the loss of the valid lines; warnings are capped per binary and the rest
counted in one summary line.
"""
from __future__ import annotations

import io
import itertools
from typing import Iterable

from benchlab.formats import registry as formats
from benchlab.formats.parsers.base import MAX_WARNINGS, Parsed, Parser, problems
from benchlab.formats.parsers.gbench import SNIFF_CHARS, GbenchParser

_ROWS = formats.used_by(formats.RUN)
#: The formats `run` reads (benchlab.formats.registry): the document first, then lines most specific first.
PARSERS = [formats.parser(row.name) for row in _ROWS]
FORMAT_NAMES = [row.name for row in _ROWS]
#: The one document format a binary prints, read whole: Google Benchmark's JSON.
[GBENCH] = [formats.parser(row.name) for row in _ROWS if row.document]
#: Formats of lines, most specific first.
LINE_PARSERS: list[Parser] = [formats.parser(row.name) for row in _ROWS if not row.document]
#: Formats whose lines are JSON objects: a first line of theirs is not the start of a document.
_JSON_LINES = [formats.parser(row.name) for row in _ROWS if row.json_lines]


def detect(text: str) -> Parser | GbenchParser | None:
    """The parser of the first line of `text` that some format recognises (or of the whole
    document, for Google Benchmark's JSON), or None when no line is recognised."""
    if GBENCH.sniff(text[:SNIFF_CHARS]):
        return GBENCH
    for line in text.splitlines():
        line = line.strip()
        if line:
            parser = next((p for p in LINE_PARSERS if p.sniff(line)), None)
            if parser is not None:
                return parser
    return None


def parse_output(text: str, binary: str) -> Parsed:
    """Records of a binary's stdout in whatever supported format(s) it printed."""
    return parse_stream(io.StringIO(text, newline=None), binary)  # \r ends a line, as in files


def parse_stream(lines: Iterable[str], binary: str, max_records: int | None = None,
                 max_bytes: int | None = None) -> Parsed:
    """Records of an output read line by line (a text file, or any iterable of lines);
    with `max_records`, reading stops past that many records, with `max_bytes`, once the
    records hold more than that much memory (Record.held_bytes; `Parsed.truncated` says which)."""
    parsed = Parsed()
    lines = iter(lines)
    head: list[str] = []
    size = 0
    for line in lines:
        head.append(line)
        size += len(line)
        if line.strip():
            break
    if head and head[-1].lstrip().startswith("{") and not any(p.sniff(head[-1].strip()) for p in _JSON_LINES):
        # Possibly Google Benchmark's document: look at its start before reading it whole.
        for line in lines:
            head.append(line)
            size += len(line)
            if size > SNIFF_CHARS:
                break
        start = "".join(head)
        if GBENCH.sniff(start):
            GBENCH.parse_document(start + "".join(lines), binary, parsed)
            _tag(parsed, GBENCH.name, binary)
            _limit(parsed, 0, max_records, max_bytes)  # read whole (bounded by its bytes), then held only so far
            return _finish(parsed, binary)
    _parse_lines(itertools.chain(head, lines), binary, parsed, max_records, max_bytes)
    return _finish(parsed, binary)


def _parse_lines(lines: Iterable[str], binary: str, parsed: Parsed, max_records: int | None = None,
                 max_bytes: int | None = None) -> None:
    sessions: dict[str, tuple[Parser, object]] = {}
    active = None  # (parser, session) of the format read last
    junk: list[tuple[int, str]] = []  # lines before any recognised line (the first few)
    junk_count = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if active is not None:
            records_before = len(parsed.records)
            if active[1].feed(number, line):
                _tag(parsed, active[0].name, binary, start=records_before)
                if _limit(parsed, records_before, max_records, max_bytes):
                    break
                continue
        parser = next((p for p in LINE_PARSERS if (active is None or p is not active[0]) and p.sniff(line)), None)
        if parser is None:
            if active is not None:
                if len(parsed.warnings) >= MAX_WARNINGS:
                    parsed.suppressed += 1  # not even formatted: a million junk lines stay cheap
                else:
                    active[1].reject(number, line)
            else:
                junk_count += 1
                if len(junk) < MAX_WARNINGS:
                    junk.append((number, line))
            continue
        if parser.name not in sessions:
            session = parser.session(binary, parsed)
            sessions[parser.name] = (parser, session)
            if len(sessions) == 1 and junk_count:
                # Lines before the first recognised one: warned about now that a format is known.
                for junk_number, junk_line in junk:
                    shown = junk_line if len(junk_line) <= 120 else junk_line[:117] + "..."
                    parsed.warn(f"{binary}: line {junk_number} is in no known format, ignored: {shown!r}")
                parsed.suppressed += junk_count - len(junk)
        active = sessions[parser.name]
        records_before = len(parsed.records)
        active[1].feed(number, line)
        _tag(parsed, parser.name, binary, start=records_before)
        if _limit(parsed, records_before, max_records, max_bytes):
            break
    for parser, session in sessions.values():
        records_before = len(parsed.records)
        session.finish()
        _tag(parsed, parser.name, binary, start=records_before)
        _limit(parsed, records_before, None, max_bytes)
    if not sessions and junk_count:
        first = junk[0][1][:120]
        parsed.warnings.append(
            f"{binary}: output is in no known format ({', '.join(FORMAT_NAMES)}), ignored; first line: {first!r}")


def _limit(parsed: Parsed, start: int, max_records: int | None, max_bytes: int | None) -> bool:
    """Count what the records from `start` on hold; past a limit, drop what is over it and
    say so in `truncated` (True: stop reading)."""
    parsed.held_bytes += sum(record.held_bytes for record in parsed.records[start:])
    if max_records is not None and len(parsed.records) > max_records:
        parsed.truncated = f"printed more than {max_records} results, the rest was not read"
        return True
    if max_bytes is not None and parsed.held_bytes > max_bytes:
        while parsed.records and parsed.held_bytes > max_bytes:
            parsed.held_bytes -= parsed.records.pop().held_bytes
        parsed.truncated = f"its results past {max_bytes} bytes held in memory were not read"
        parsed.truncated_held = True
        return True
    return False


def _tag(parsed: Parsed, format_name: str, binary: str, start: int = 0) -> None:
    for record in parsed.records[start:]:
        if not record.format:
            record.format = format_name
        record.binary = binary


def _finish(parsed: Parsed, binary: str) -> Parsed:
    # The invariants every parser keeps (base.problems); a record breaking one is a bug
    # of ours, but even then it is not stored.
    kept = []
    for record in parsed.records:
        found = problems(record)
        if found:
            parsed.warn(f"{binary}: {record.bench}: a record with a bad {', '.join(found)} is not stored "
                        "(a benchlab parser bug: please report it)")
        else:
            kept.append(record)
    parsed.records = kept
    if parsed.suppressed:
        parsed.warnings.append(f"{binary}: {parsed.suppressed} more warnings like these not shown "
                               f"(the first {MAX_WARNINGS} are)")
    return parsed


__all__ = ["PARSERS", "FORMAT_NAMES", "Parsed", "Parser", "detect", "parse_output", "parse_stream"]
