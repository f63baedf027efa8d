"""The cross-platform runner's line: test<TAB>param<TAB>loops<TAB>avg_ns.

One average per line and no samples, so the record has a single sample and the
table marks it as uncertain: nothing in this format bounds its noise. The average is
(end - start) / loops of a monotonic clock, so it is never negative.
"""
from __future__ import annotations

import re

from benchlab.formats.parsers.base import BadValue, LineSession, Parsed, bad_line, figure, name, param_value, whole
from benchlab.records import Record

#: PARAM is a number, or text where a benchmark has none (Lind's bench.c prints `-` and
#: `(STREAM, 1)` with its emit_result_string).
_LINE = re.compile(r"^([^\t]+)\t([^\t]+)\t(\d+)\t(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)$")
_SHAPE = "want test<TAB>param<TAB>loops<TAB>avg_ns"


class LindParser:
    name = "lind"

    def sniff(self, line: str) -> bool:
        return bool(_LINE.match(line))

    def session(self, binary: str, parsed: Parsed) -> "_Session":
        return _Session(binary, parsed)


class _Session(LineSession):

    def feed(self, number: int, line: str) -> bool:
        match = _LINE.match(line)
        if not match:
            return False
        test, param, loops, avg_ns = match.groups()
        try:
            record = Record(bench=name(test, "test"), param=param_value(param, text=True),
                            iterations=whole(loops, "loops"), samples=[figure(avg_ns, "avg_ns", minimum=0)],
                            counter="time", unit="ns")
        except BadValue as bad:
            self.parsed.warn(bad_line(self.binary, number, line, "lind", str(bad)))
            return True
        self.parsed.records.append(record)
        return True

    def reject(self, number: int, line: str) -> None:
        self.parsed.warn(bad_line(self.binary, number, line, "lind", _SHAPE))

    def finish(self) -> None:
        pass
