"""Per-sample CSV: B63's plaintext `name,counter,iterations,value[,per-iteration]` and
benchlab's `--format=csv`, which adds a header and a `param` column:
`name,param,counter,iterations,value`. `benchlab export --format csv` writes more
columns after those five (EXPORT_COLUMNS: unit, platform, binary, process, sweep,
overhead), so that a stored run's samples come back to the record they were taken in.

Each line is one sample (one of B63's epochs): `value` is the counter's total over
`iterations` iterations, so the per-iteration sample is value / iterations. Since 2021
(b63 bc9a214) B63 prints that quotient too, as a fifth field (`%lf`, 6 decimals): it is
checked against value / iterations and the exact quotient kept. B63's README calls its
time counter microseconds, but its code (include/b63/counters/time.h) reads
CLOCK_MONOTONIC in nanoseconds, and its example output (16777215 iterations taking
233781738 units in a one-second epoch) only fits that; we read time as ns.

The three are three layouts of one parser (benchlab.formats.registry names them `b63csv`,
`header-csv` and `export-csv`): `run` and `import --format b63csv` read any of them,
the header line saying which; `import --format header-csv` (or `export-csv`) reads a
file that starts with that layout's header only.
"""
from __future__ import annotations

import collections
import csv
import re

from benchlab.formats.parsers.base import BadValue, LineSession, Parsed, bad_line, figure, name, param_value, whole
from benchlab.records import Record, from_spreadsheet_cell

BENCHLAB_HEADER = ["name", "param", "counter", "iterations", "value"]
#: Columns a stored run's export adds after BENCHLAB_HEADER, in this order (formats.md, "Export"):
#: `overhead` is the empty loop's figure over the same iterations as `value`.
EXPORT_COLUMNS = ["unit", "platform", "binary", "process", "sweep", "overhead"]
_NUMBER = r"-?\d+(\.\d*)?([eE][-+]?\d+)?"
#: B63's line (4 fields before 2021, 5 since), and benchlab's (after its header) with the param column.
_B63_LINE = re.compile(rf"^[^,]+,[^,]+,\d+,{_NUMBER}(,{_NUMBER})?$")
_BENCHLAB_LINE = re.compile(rf"^[^,]+,(-?\d+)?,[^,]+,\d+,{_NUMBER}$")
#: The end of B63's five-field line written with `-d DELIM` (B63 takes any one character;
#: benchlab's header, under BL_FLAGS b63, only those read here that none of its names holds:
#: BL__B63_DELIMITERS, tests/python/header/test_b63_dialect.py): DELIM iterations DELIM value DELIM
#: per-iteration, the same DELIM each time. Only the five-field form is read with another
#: delimiter: its fifth field, checked as value / iterations, confirms the split, where four
#: tab-separated fields (B63 before 2021) would be a lind line.
_DELIMITED_TAIL = re.compile(
    rf"(?P<d>[^\w.,+-])(?P<iterations>\d+)(?P=d)(?P<value>{_NUMBER})(?P=d)(?P<per_iteration>{_NUMBER})$")


def _delimited(line: str) -> list[str] | None:
    """The five fields of a B63 line written with a delimiter other than a comma, or None."""
    tail = _DELIMITED_TAIL.search(line.strip())
    if tail is None:
        return None
    head = line.strip()[:tail.start()].split(tail["d"])  # name and counter
    if len(head) != 2 or not all(head):
        return None
    return [*head, tail["iterations"], tail["value"], tail["per_iteration"]]


#: Units of the counters benchlab's header names (docs/counters.md): the csv lines carry
#: no unit, so a counter's is known from its name; any other counter (B63's perf events,
#: a user counter) counts events.
_UNITS = {
    "time": "ns", "task-clock": "ns", "cpu-clock": "ns",
    "cycles": "cycles", "cpu-cycles": "cycles", "bus-cycles": "cycles", "ref-cycles": "cycles",
    "stalled-cycles-frontend": "cycles", "stalled-cycles-backend": "cycles",
    "idle-cycles-frontend": "cycles", "idle-cycles-backend": "cycles",
    "instructions": "instructions", "branches": "branches", "branch-instructions": "branches",
    "branch-misses": "branches",
    "rusage-minor-faults": "faults", "rusage-major-faults": "faults",
    "rusage-voluntary-cs": "switches", "rusage-involuntary-cs": "switches", "rusage-max-rss": "KiB",
    "allocs": "calls", "alloc-bytes": "bytes", "jemalloc-allocated": "bytes",
}


def unit_of(counter: str) -> str:
    return _UNITS.get(counter.split(":", 1)[0], "events")  # instructions:u counts instructions


def header(line: str) -> list[str] | None:
    """The columns of a benchlab csv header line (the five, then any export columns), or None."""
    columns = [c.strip() for c in line.split(",")]
    extra = columns[len(BENCHLAB_HEADER):]
    if columns[:len(BENCHLAB_HEADER)] != BENCHLAB_HEADER or len(set(extra)) != len(extra):
        return None
    return columns if set(extra) <= set(EXPORT_COLUMNS) else None


#: The header line each of benchlab's layouts starts with, for the message when a file does not.
_LAYOUT_HEADERS = {"header-csv": "the header line " + ",".join(BENCHLAB_HEADER),
                   "export-csv": "the header line " + ",".join(BENCHLAB_HEADER + EXPORT_COLUMNS)}


def layout(line: str) -> str | None:
    """Which layout `line`, the first of an output, starts: 'header-csv' (benchlab's five columns),
    'export-csv' (more after them), 'b63csv' (a B63 line, no header), or None."""
    columns = header(line)
    if columns is not None:
        return "export-csv" if len(columns) > len(BENCHLAB_HEADER) else "header-csv"
    return "b63csv" if _B63_LINE.match(line) or _delimited(line) else None


class B63CsvParser:
    #: Stored with every record read, whatever the layout.
    name = "b63csv"

    def __init__(self, layout: str | None = None):
        #: The one layout a file must be in (`import --format header-csv`), or None for any.
        self.layout = layout

    def sniff(self, line: str) -> bool:
        if self.layout is not None:
            return layout(line) == self.layout
        return header(line) is not None or bool(_B63_LINE.match(line)) or _delimited(line) is not None

    def session(self, binary: str, parsed: Parsed) -> "_Session":
        return _Session(binary, parsed, self.layout)


class _Session(LineSession):
    """Lines are samples: they are grouped per (name, param, counter) and become records at the end."""

    def __init__(self, binary: str, parsed: Parsed, required: str | None = None):
        super().__init__(binary, parsed)
        #: The layout the output must start with (its header line), until that line is read.
        self.required = required
        #: The name messages give the format: the required layout's, else the parser's.
        self.label = required or B63CsvParser.name
        self.with_param = False
        #: The header's columns beyond benchlab's five (an export's), if any.
        self.extra: list[str] = []
        self.groups: dict[tuple, list[tuple[int, float, float | None]]] = {}
        #: The checked key of each distinct (name, param, counter, ...) as written: an export
        #: repeats them on every line, and checking a name is most of the cost of a line.
        self.keys: dict[tuple, tuple] = {}

    def _fields(self, line: str) -> list[str] | None:
        try:
            # One line at a time: a bare carriage return or a huge field is this line's
            # problem (csv.Error), not the end of the whole output.
            fields = next(csv.reader([line]), [])
        except csv.Error:
            return None
        return [f.strip() for f in fields]

    def feed(self, number: int, line: str) -> bool:
        if self.required is not None:
            if layout(line) != self.required:
                return False
            self.required = None
        columns = header(line)
        if columns is not None:
            self.with_param = True
            self.extra = columns[len(BENCHLAB_HEADER):]
            return True
        if self.extra:
            return self._feed_export(number, line)
        shape = _BENCHLAB_LINE if self.with_param else _B63_LINE
        in_shape = bool(shape.match(",".join(f.strip() for f in line.split(","))))
        delimited = None if in_shape or self.with_param else _delimited(line)
        if not in_shape and delimited is None:
            return False
        fields = delimited if delimited is not None else self._fields(line)
        try:
            if fields is None or len(fields) not in ((5,) if self.with_param else (4, 5)):
                raise BadValue("quoted or malformed fields")
            printed = None
            if self.with_param:
                bench, param, counter, iterations, value = fields
                key = (name(bench, "name"), param_value(param), name(counter, "counter"))
            else:
                bench, counter, iterations, value, *printed = fields
                key = (name(bench, "name"), None, name(counter, "counter"))
            count = whole(iterations, "iterations")
            total = figure(value, "value", minimum=0)  # a time or a count of events, as lind's figures: never below 0
            per_iteration = figure(total / count, "value / iterations")
            if printed:
                _check_printed(figure(printed[0], "per-iteration"), per_iteration)
        except BadValue as bad:
            self.parsed.warn(bad_line(self.binary, number, line, self.label, str(bad)))
            return True
        self.groups.setdefault((*key, "", None, None, None, None), []).append((count, per_iteration, None))
        return True

    def _feed_export(self, number: int, line: str) -> bool:
        """A line under an export's header: quoted fields (a binary's name may hold a comma)."""
        fields = self._fields(line)
        if fields is None or len(fields) != len(BENCHLAB_HEADER) + len(self.extra):
            return False
        # Text cells as benchlab's export wrote them, a formula's quote taken off (records.spreadsheet_cell).
        row = {column: from_spreadsheet_cell(field) for column, field in zip(BENCHLAB_HEADER + self.extra, fields)}
        try:
            counter = name(row["counter"], "counter")
            count = whole(row["iterations"], "iterations")
            per_iteration = figure(figure(row["value"], "value") / count, "value / iterations")
            overhead = figure(figure(row["overhead"], "overhead") / count, "overhead / iterations") \
                if row.get("overhead") else None
            written = tuple(row.get(column) for column in ("name", "param", "counter", *EXPORT_COLUMNS[:5]))
            key = self.keys.get(written)
            if key is None:
                key = self.keys[written] = _export_key(row, counter)
        except BadValue as bad:
            self.parsed.warn(bad_line(self.binary, number, line, self.label, str(bad)))
            return True
        self.groups.setdefault(key, []).append((count, per_iteration, overhead))
        return True

    def reject(self, number: int, line: str) -> None:
        if self.required is not None:
            self.parsed.warn(bad_line(self.binary, number, line, self.label, f"want {_LAYOUT_HEADERS[self.required]}"))
            return
        fields = self._fields(line)
        want = (len(BENCHLAB_HEADER) + len(self.extra),) if self.with_param else (4, 5)
        why = "not CSV" if fields is None else (
            f"{len(fields)} fields, want {' or '.join(map(str, want))}" if len(fields) not in want
            else "iterations or value is not a number")
        self.parsed.warn(bad_line(self.binary, number, line, self.label, why))

    def finish(self) -> None:
        for (bench, param, counter, unit, platform, binary, process, sweep), rows in self.groups.items():
            counts = [count for count, _, _ in rows]
            overheads = [overhead for _, _, overhead in rows]
            self.parsed.records.append(Record(
                bench=bench, param=param, counter=counter, unit=unit or unit_of(counter),
                iterations=collections.Counter(counts).most_common(1)[0][0],  # the most common, first seen on a tie
                sample_iterations=counts,
                samples=[value for _, value, _ in rows],
                # the empty loop's figure of every sample's round, or of none
                overhead_samples=overheads if None not in overheads else None,
                platform=platform or "", binary=binary or "",
                reported={"process": process} if process is not None else {},
                sweep={"flag": sweep[0], "value": sweep[1]} if sweep else None,
            ))


def _check_printed(printed: float, computed: float) -> None:
    """B63's fifth field is value / iterations printed with %lf: it agrees to its 6 decimals."""
    if abs(printed - computed) > 5e-7 + 1e-9 * abs(computed):
        raise BadValue(f"per-iteration {printed:g} is not value / iterations ({computed:.6f})")


def _export_key(row: dict[str, str], counter: str) -> tuple:
    """(name, param, counter, unit, platform, binary, process, sweep) of a line of an export, checked."""
    sweep = None
    if row.get("sweep"):
        flag, sep, value = row["sweep"].partition("=")
        if not sep or not flag:
            raise BadValue(f"sweep must be FLAG=VALUE, got {row['sweep']!r}")
        sweep = (flag, value)
    return (name(row["name"], "name"), param_value(row["param"], text=True), counter,
            name(row["unit"], "unit", limit=32) if row.get("unit") else "",
            name(row["platform"], "platform") if row.get("platform") else None,
            name(row["binary"], "binary") if row.get("binary") else None,
            whole(row["process"], "process", minimum=0) if row.get("process") else None,
            sweep)
