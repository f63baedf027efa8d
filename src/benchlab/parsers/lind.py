"""The cross-platform runner's line: test<TAB>param<TAB>loops<TAB>avg_ns.

One average per line and no samples, so the record has a single sample and the
table marks it as uncertain: nothing in this format bounds its noise.
"""
from __future__ import annotations

import re

from benchlab.parsers.base import Parsed, bad_line, first_line
from benchlab.records import Record

_LINE = re.compile(r"^([^\t]+)\t(-?\d+)\t(\d+)\t(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)$")


class LindParser:
    name = "lind"

    def sniff(self, text: str) -> bool:
        return bool(_LINE.match(first_line(text)))

    def parse(self, text: str, binary: str) -> Parsed:
        parsed = Parsed()
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            match = _LINE.match(line.strip())
            if not match:
                parsed.warnings.append(bad_line(binary, number, line, "lind", "want test<TAB>param<TAB>loops<TAB>avg_ns"))
                continue
            test, param, loops, avg_ns = match.groups()
            parsed.records.append(Record(
                bench=test, param=int(param), iterations=int(loops), samples=[float(avg_ns)],
                counter="time", unit="ns",
            ))
        return parsed
