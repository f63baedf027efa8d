"""The Lind runner's table as CSV (`benchrunner.py -o results.csv`):

    TEST,PARAM,LINUX (ns),LIND (ns),GRATE (ns),ITERATIONS,DESCRIPTION
    Read,1,240 (1.000),451 (1.879),--,1000000,Issues pread() for buffer of size PARAM.
    Read,1024,252 (1.000),461 (1.829),--,1000000,

A header, then a row per (test, param): one column per platform (`NAME (ns)`, its name
lower-cased as the runner's JSON spells it: linux, lind, grate), each cell the average ns
per iteration and, in parentheses, its ratio to the first platform (recomputed here, not
read), or `--` where the platform did not run (not run: no record, never a time);
ITERATIONS the loops behind the averages (-1 when none ran); DESCRIPTION the source's
`// DESCRIPTION:` line on a test's first row (`--` for none), empty on its other rows.
PARAM is a number, or text (`-`, `(STREAM, 1)`).
"""
from __future__ import annotations

import csv
import re

from benchlab.formats.parsers.base import BadValue, LineSession, Parsed, bad_line, figure, name, param_value, whole
from benchlab.records import Record, in_param_order

#: The first columns and the last ones; the platforms' are between.
FIRST, LAST = ["TEST", "PARAM"], "ITERATIONS"
#: A platform's column: `LINUX (ns)`.
_PLATFORM = re.compile(r"^(.+) \(ns\)$")
#: A cell: the average, then its ratio to the first platform.
_CELL = re.compile(r"^(\d+(?:\.\d*)?)(?: \(\d+(?:\.\d*)?\))?$")
#: What the runner writes for a platform that did not run (`--`; -1 in its JSON).
NOT_RUN = ("--", "-1", "")
#: What its DESCRIPTION column holds for a test without one.
NO_DESCRIPTION = "--"


def _fields(line: str) -> list[str] | None:
    try:
        return [field.strip() for field in next(csv.reader([line]), [])]
    except csv.Error:
        return None


def platforms_of(line: str) -> list[str] | None:
    """The platforms a header line names, lower-cased (linux, lind, grate), or None if it is no header."""
    columns = _fields(line)
    if not columns or columns[:2] != FIRST or LAST not in columns:
        return None
    between = columns[2:columns.index(LAST)]
    matches = [_PLATFORM.match(column) for column in between]
    if not between or None in matches or columns[columns.index(LAST) + 1:] not in ([], ["DESCRIPTION"]):
        return None
    return [match.group(1).strip().lower() for match in matches]


class LindCsvParser:
    name = "lind-csv"

    def sniff(self, line: str) -> bool:
        return platforms_of(line) is not None

    def session(self, binary: str, parsed: Parsed) -> "_Session":
        return _Session(binary, parsed)


class _Session(LineSession):

    def __init__(self, binary: str, parsed: Parsed):
        super().__init__(binary, parsed)
        self.platforms: list[str] | None = None
        self.width = 0
        self.test = None  # the test whose description the rows after it share

    def feed(self, number: int, line: str) -> bool:
        if self.platforms is None:
            self.platforms = platforms_of(line)
            if self.platforms is None:
                return False
            self.width = len(_fields(line))
            self.parsed.platforms = list(self.platforms)
            return True
        fields = _fields(line)
        if fields is None or len(fields) != self.width:
            return False
        try:
            self.parsed.records.extend(self._row(fields))
        except BadValue as bad:
            self.parsed.warn(bad_line(self.binary, number, line, "lind-csv", str(bad)))
            return True
        return True

    def _row(self, fields: list[str]) -> list[Record]:
        test, param = name(fields[0], "TEST"), param_value(fields[1], "PARAM", text=True)
        cells = fields[2:2 + len(self.platforms)]
        rest = fields[2 + len(self.platforms):]
        loops = None if rest[0] in NOT_RUN else whole(rest[0], "ITERATIONS")
        if len(rest) > 1 and rest[1] not in ("", NO_DESCRIPTION):
            self.parsed.describe(test, rest[1])
        records = []
        for platform, cell in zip(self.platforms, cells):
            if cell in NOT_RUN:
                continue
            match = _CELL.match(cell)
            if not match:
                raise BadValue(f"{platform}'s cell must be ns, ns (ratio) or --, got {cell!r}")
            records.append(Record(bench=test, param=param, counter="time", unit="ns", iterations=loops,
                                  samples=[figure(match.group(1), f"{platform} ns", minimum=0)], platform=platform))
        return records

    def reject(self, number: int, line: str) -> None:
        want = f"{self.width} fields" if self.platforms else "the header TEST,PARAM,<PLATFORM> (ns),...,ITERATIONS"
        self.parsed.warn(bad_line(self.binary, number, line, "lind-csv", f"want {want}"))

    def finish(self) -> None:
        # the runner sorts text params as text, (STREAM, 10240) before (STREAM, 4096): numbers in their order
        self.parsed.records[:] = in_param_order(self.parsed.records)
