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
import io
import re

from benchlab.parsers.base import Parsed, bad_line, first_line, parse_param
from benchlab.records import Record

BENCHLAB_HEADER = ["name", "param", "counter", "iterations", "value"]
_B63_LINE = re.compile(r"^[^,]+,[^,]+,\d+,-?\d+(\.\d*)?([eE][-+]?\d+)?$")


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

    def sniff(self, text: str) -> bool:
        line = first_line(text)
        return line.replace(" ", "") == ",".join(BENCHLAB_HEADER) or bool(_B63_LINE.match(line))

    def parse(self, text: str, binary: str) -> Parsed:
        parsed = Parsed()
        groups: dict[tuple, list[tuple[int, float]]] = {}
        with_param = False
        for number, fields in enumerate(csv.reader(io.StringIO(text)), start=1):
            if not fields or not "".join(fields).strip():
                continue
            fields = [f.strip() for f in fields]
            line = ",".join(fields)
            if fields == BENCHLAB_HEADER:
                with_param = True
                continue
            want = 5 if with_param else 4
            if len(fields) != want:
                parsed.warnings.append(bad_line(binary, number, line, self.name, f"{len(fields)} fields, want {want}"))
                continue
            try:
                if with_param:
                    name, param, counter, iterations, value = fields
                    key = (name, parse_param(param), counter)
                else:
                    name, counter, iterations, value = fields
                    key = (name, None, counter)
                count = int(iterations)
                if count <= 0:
                    raise ValueError("iterations must be positive")
                groups.setdefault(key, []).append((count, float(value)))
            except ValueError as exc:
                parsed.warnings.append(bad_line(binary, number, line, self.name, str(exc)))
        for (name, param, counter), rows in groups.items():
            counts = [count for count, _ in rows]
            parsed.records.append(Record(
                bench=name, param=param, counter=counter, unit=_unit(counter),
                iterations=max(set(counts), key=counts.count),
                sample_iterations=counts,
                samples=[value / count for count, value in rows],
            ))
        return parsed
