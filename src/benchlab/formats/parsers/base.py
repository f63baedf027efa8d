"""The one small interface every output-format parser implements, and the checks they share.

A binary's output is read line by line (parsers/__init__.py routes each line), so a
100 MB output is never one string and junk before, between or after valid lines costs
warnings, not results. Every value a record stores is checked here: a count is a whole
number in range, a figure is finite, a parameter is an integer (or, where a format has text parameters, a
name). A value that is not is
a warning naming the binary and the line, and is not stored.
"""
from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Protocol

from benchlab.errors import show
from benchlab.records import Record, storable

#: Warnings kept per binary; the rest are counted and summarised in one line, so a
#: binary printing a million junk lines costs one screen, not 200 MB of stderr.
#: Nanoseconds in one of each time unit other tools write (Google Benchmark's time_unit, CSB's latency_unit).
NS_PER_UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
MAX_WARNINGS = 10
#: Integers are stored in 64-bit columns (SQLite INTEGER, PostgreSQL BIGINT).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: No real measurement comes near this; beyond it the statistics (squares of
#: deviations over up to a million samples) would overflow to infinity.
MAX_ABS_FIGURE = 1e150
#: Longest bench/counter name the store keeps (String(255) columns), and unit (String(32)).
MAX_NAME_CHARS = 255
MAX_UNIT_CHARS = 32
#: Nesting kept in a record's `reported` values (a binary's own extras): deeper is cut.
MAX_REPORTED_DEPTH = 16

_DIGITS = re.compile(r"[-+]?[0-9]{1,20}")
#: What looks like an integer of any length, in any script's digits: as a parameter, a number
#: (one out of range, or in digits other than ASCII, is an error, not text).
_INTEGER = re.compile(r"[-+]?\d+")
#: What may surround a number in text: ASCII blanks only. str.strip() alone also removes
#: \x1c-\x1f and Unicode spaces, which int() then refused (a traceback in the csb parser).
_BLANKS = " \t\r\n\f\v"


class BadValue(ValueError):
    """A value of a result that cannot be stored as it is; the message says which and why."""


@dataclasses.dataclass
class Parsed:
    records: list[Record] = dataclasses.field(default_factory=list)
    #: One message per line that did not parse, naming the binary and the line (at most MAX_WARNINGS).
    warnings: list[str] = dataclasses.field(default_factory=list)
    #: The binary's own description of its run (host, compiler, timer, ...), if it gives one.
    context: dict[str, Any] | None = None
    #: Warnings beyond MAX_WARNINGS: counted, not kept.
    suppressed: int = 0
    #: (benchmark, message) of each benchmark the output itself says failed (Google Benchmark's
    #: `error_occurred`): a result of the run, not a line we could not read.
    failures: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    #: Every platform the output names, results or not (the Lind runner's columns: one that did
    #: not run is still a column), in its order; None when it names none.
    platforms: list[str] | None = None
    #: {test or binary: its description} (the Lind runner's `// DESCRIPTION:` column, `desc` key).
    descriptions: dict[str, str] = dataclasses.field(default_factory=dict)

    def describe(self, test: str, text: Any) -> None:
        """Keep a test's description (the first one given), a line of printable text."""
        if isinstance(text, str) and text.strip() and test not in self.descriptions:
            self.descriptions[test] = " ".join(text.split())[:300]
    #: Set when a parser failed on the output (a bug of ours): the process's fault, not the run's end.
    parser_error: str | None = None
    #: Set when reading stopped at parse_stream's `max_records` or `max_bytes`: what was read is kept.
    truncated: str | None = None
    #: Whether it was `max_bytes` that stopped it.
    truncated_held: bool = False
    #: What the records hold in memory, estimated (Record.held_bytes), counted as they are read.
    held_bytes: int = 0

    def warn(self, message: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)
        else:
            self.suppressed += 1

    def fail(self, binary: str, bench: str, message: str) -> None:
        """A benchmark the output reports as failed: kept apart from unreadable lines, and warned about."""
        self.failures.append((bench, message))
        self.warn(f"{binary}: {f'{bench}: {message}'[:300]}")


class Session(Protocol):
    """One parser reading one binary's output."""

    def feed(self, number: int, line: str) -> bool:
        """Take `line` (stripped, non-empty) if it has this format's shape; False leaves it to another format.

        A line of this format with a bad value is taken: the session warns, naming the line.
        """

    def reject(self, number: int, line: str) -> None:
        """Warn, in this format's words, about a line no format took while this one was being read."""

    def finish(self) -> None:
        """End of output: emit what was gathered across lines."""


class LineSession:
    """What every parser's session keeps: whose output it reads, and where the results go."""

    def __init__(self, binary: str, parsed: Parsed):
        self.binary = binary
        self.parsed = parsed


class Parser(Protocol):
    #: Short name, stored with each record: its row in benchlab.formats.registry (every csv layout's is "b63csv").
    name: str

    def sniff(self, line: str) -> bool:
        """True if `line` (stripped, non-empty) is a line of this format."""

    def session(self, binary: str, parsed: Parsed) -> Session:
        """A reader of one binary's output that adds records and warnings to `parsed`."""


def bad_line(binary: str, number: int, line: str, format_name: str, why: str) -> str:
    shown = line if len(line) <= 120 else line[:117] + "..."
    return f"{binary}: line {number} is not valid {format_name} output ({why}), ignored: {shown!r}"


# -- checks of values ----------------------------------------------------------------------------

def whole(value: Any, what: str, minimum: int = 1, maximum: int = INT64_MAX) -> int:
    """A whole number in [minimum, maximum]: a JSON integer, an integral float, or a decimal string."""
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _DIGITS.fullmatch(value.strip(_BLANKS)):
        number = int(value.strip(_BLANKS))
    if number is None or not minimum <= number <= maximum:
        if (minimum, maximum) == (INT64_MIN, INT64_MAX):
            raise BadValue(f"{what} must be a 64-bit integer, got {show(value)}")
        bound = f">= {minimum}" if maximum == INT64_MAX else f"in [{minimum}, {maximum}]"
        raise BadValue(f"{what} must be a whole number {bound}, got {show(value)}")
    return number


def param_value(value: Any, what: str = "param", *, text: bool = False) -> int | str | None:
    """A benchmark parameter: an integer in the 64-bit range, or None when absent or empty.

    With `text`, a parameter that is not a decimal integer is kept as text (Lind's `-`,
    `(STREAM, 1)`), as a name is: a number written as text stays a number, so `1024` is
    one parameter whether a file wrote it as a number or a string."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if text and isinstance(value, str) and not _INTEGER.fullmatch(value.strip(_BLANKS)):
        return name(value.strip(_BLANKS), what)
    return whole(value, what, minimum=INT64_MIN)


def figure(value: Any, what: str, *, minimum: float | None = None) -> float:
    """A finite number (optionally >= minimum) within MAX_ABS_FIGURE, from a number or a decimal string."""
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if number is None:
        raise BadValue(f"{what} must be a number, got {show(value)}")
    if not math.isfinite(number) or abs(number) > MAX_ABS_FIGURE:
        raise BadValue(f"{what} must be a finite number, got {show(value)}")
    if minimum is not None and number < minimum:
        raise BadValue(f"{what} must be >= {minimum:g}, got {show(value)}")
    return number


def name(value: Any, what: str, limit: int = MAX_NAME_CHARS) -> str:
    """A name (bench, counter, unit, a text parameter): a string without control characters,
    within the store's limit as stored, with what no database holds escaped (records.storable)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise BadValue(f"{what} must be a string, got {show(value)}")
    text = value if isinstance(value, str) else show(value)
    if not text or len(text) > limit or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise BadValue(f"{what} must be 1 to {limit} printable characters, got {show(value)}")
    stored = len(storable(text))
    if stored > limit:  # 100 lone surrogates are 600 characters once escaped (issue 37)
        raise BadValue(f"{what} must be at most {limit} characters as stored, got {stored} once its characters no "
                       f"database holds (lone surrogates, NUL) are escaped: {show(value)}")
    return text


def clean_reported(value: Any, depth: int = 0) -> Any:
    """A binary's extras as storable JSON: non-finite numbers become null (formats.md's
    convention), integers beyond 64 bits become null, nesting is cut at MAX_REPORTED_DEPTH."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if INT64_MIN <= value <= INT64_MAX else None
    if depth >= MAX_REPORTED_DEPTH:
        return None
    if isinstance(value, dict):
        return {str(k): clean_reported(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_reported(v, depth + 1) for v in value]
    return None


def _good_param(param: Any) -> bool:
    if isinstance(param, str):
        return 0 < len(param) <= MAX_NAME_CHARS and not _INTEGER.fullmatch(param.strip(_BLANKS))
    return isinstance(param, int) and not isinstance(param, bool) and INT64_MIN <= param <= INT64_MAX


def problems(record: Record) -> list[str]:
    """What makes a record unfit to store: the invariants every parser must keep (and the fuzzers check)."""
    found = []
    if not isinstance(record.bench, str) or not record.bench or len(record.bench) > MAX_NAME_CHARS:
        found.append("bench name")
    if not isinstance(record.counter, str) or not record.counter or len(record.counter) > MAX_NAME_CHARS:
        found.append("counter name")
    if not isinstance(record.unit, str) or len(record.unit) > MAX_UNIT_CHARS:
        found.append("unit")
    if record.param is not None and not _good_param(record.param):
        found.append("param")
    if record.iterations is not None and (isinstance(record.iterations, bool) or not isinstance(record.iterations, int)
                                          or not 0 <= record.iterations <= INT64_MAX):
        found.append("iterations")
    if record.sample_iterations is not None and record.samples:
        if len(record.sample_iterations) != len(record.samples) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 1 <= i <= INT64_MAX for i in record.sample_iterations):
            found.append("sample_iterations")
    if not all(isinstance(x, float) and math.isfinite(x) and abs(x) <= MAX_ABS_FIGURE for x in record.samples):
        found.append("samples")
    if record.supported and not record.samples:
        found.append("no samples")
    for key, value in record.summary.items():
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, float) and not math.isfinite(v) for v in values):
            found.append(f"summary {key}")
    return found
