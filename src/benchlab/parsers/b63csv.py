"""Per-sample CSV: B63's plaintext `name,counter,iterations,value` and benchlab's
`--format=csv`, which adds a header and a `param` column:
`name,param,counter,iterations,value`.

Each line is one sample: `value` is the counter's total over `iterations`
iterations, so the per-iteration sample is value / iterations. B63's README calls
its time counter microseconds, but its example output (16777215 iterations taking
233781738 units in a one-second epoch) only fits nanoseconds, which is what it
measures; we read time as ns.
"""
from __future__ import annotations

import csv
import re

from benchlab.parsers.base import BadValue, LineSession, Parsed, bad_line, figure, name, param_value, whole
from benchlab.records import Record

BENCHLAB_HEADER = ["name", "param", "counter", "iterations", "value"]
_NUMBER = r"-?\d+(\.\d*)?([eE][-+]?\d+)?"
#: B63's line, and benchlab's (after its header) with the param column.
_B63_LINE = re.compile(rf"^[^,]+,[^,]+,\d+,{_NUMBER}$")
_BENCHLAB_LINE = re.compile(rf"^[^,]+,(-?\d+)?,[^,]+,\d+,{_NUMBER}$")


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


def _unit(counter: str) -> str:
    return _UNITS.get(counter.split(":", 1)[0], "events")  # instructions:u counts instructions


class B63CsvParser:
    name = "b63csv"

    def sniff(self, line: str) -> bool:
        return line.replace(" ", "") == ",".join(BENCHLAB_HEADER) or bool(_B63_LINE.match(line))

    def session(self, binary: str, parsed: Parsed) -> "_Session":
        return _Session(binary, parsed)


class _Session(LineSession):
    """Lines are samples: they are grouped per (name, param, counter) and become records at the end."""

    def __init__(self, binary: str, parsed: Parsed):
        super().__init__(binary, parsed)
        self.with_param = False
        self.groups: dict[tuple, list[tuple[int, float]]] = {}

    def _fields(self, line: str) -> list[str] | None:
        try:
            # One line at a time: a bare carriage return or a huge field is this line's
            # problem (csv.Error), not the end of the whole output.
            fields = next(csv.reader([line]), [])
        except csv.Error:
            return None
        return [f.strip() for f in fields]

    def feed(self, number: int, line: str) -> bool:
        if line.replace(" ", "") == ",".join(BENCHLAB_HEADER):
            self.with_param = True
            return True
        shape = _BENCHLAB_LINE if self.with_param else _B63_LINE
        compact = ",".join(f.strip() for f in line.split(","))
        if not shape.match(compact):
            return False
        fields = self._fields(line)
        try:
            if fields is None or len(fields) != (5 if self.with_param else 4):
                raise BadValue("quoted or malformed fields")
            if self.with_param:
                bench, param, counter, iterations, value = fields
                key = (name(bench, "name"), param_value(param), name(counter, "counter"))
            else:
                bench, counter, iterations, value = fields
                key = (name(bench, "name"), None, name(counter, "counter"))
            count = whole(iterations, "iterations")
            total = figure(value, "value")
            per_iteration = figure(total / count, "value / iterations")
        except BadValue as bad:
            self.parsed.warn(bad_line(self.binary, number, line, "b63csv", str(bad)))
            return True
        self.groups.setdefault(key, []).append((count, per_iteration))
        self.parsed.understood_lines += 1
        return True

    def reject(self, number: int, line: str) -> None:
        fields = self._fields(line)
        want = 5 if self.with_param else 4
        why = "not CSV" if fields is None else (
            f"{len(fields)} fields, want {want}" if len(fields) != want else "iterations or value is not a number")
        self.parsed.warn(bad_line(self.binary, number, line, "b63csv", why))

    def finish(self) -> None:
        for (bench, param, counter), rows in self.groups.items():
            counts = [count for count, _ in rows]
            self.parsed.records.append(Record(
                bench=bench, param=param, counter=counter, unit=_unit(counter),
                iterations=max(set(counts), key=counts.count),
                sample_iterations=counts,
                samples=[value for _, value in rows],
            ))
