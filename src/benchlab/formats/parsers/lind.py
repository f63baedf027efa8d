"""The cross-platform runner's line: test<TAB>param<TAB>loops<TAB>avg_ns.

One average per line and no samples, so the record has a single sample and the
table marks it as uncertain: nothing in this format bounds its noise. The average is
(end - start) / loops of a monotonic clock, so it is never negative.

One row per (test, param), as Lind's runner keeps them (a dictionary: the last line of
each wins). A test that prints before fork() with stdout a pipe has its child print the
parent's unflushed lines again (Lind's ipc_uds.c): the repeats are kept once and a
warning says so, rather than shown as rows of their own (`ipc_uds #2`, ...).
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

    def __init__(self, binary: str, parsed: Parsed):
        super().__init__(binary, parsed)
        #: (test, param) -> the index of its record in parsed.records, and each line it was printed on
        self._rows: dict[tuple, tuple[int, list[tuple[int, str]]]] = {}

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
        key = (record.bench, record.param)
        if key in self._rows:  # the runner's dictionary keeps the last line of a (test, param)
            index, lines = self._rows[key]
            self.parsed.records[index] = record
            lines.append((number, line))
            return True
        self._rows[key] = (len(self.parsed.records), [(number, line)])
        self.parsed.records.append(record)
        return True

    def reject(self, number: int, line: str) -> None:
        self.parsed.warn(bad_line(self.binary, number, line, "lind", _SHAPE))

    def finish(self) -> None:
        for (test, param), (_, lines) in self._rows.items():
            if len(lines) > 1:
                self.parsed.warn(_repeated(self.binary, test, param, lines))


def _repeated(binary: str, test: str, param, lines: list[tuple[int, str]]) -> str:
    """What a (test, param) printed more than once means, and which line was kept."""
    numbers = ", ".join(str(number) for number, _ in lines)
    row = f"{test}/{'-' if param is None else param}"
    if len({text for _, text in lines}) == 1:
        return (f"{binary}: {row} is printed {len(lines)} times, the same line each time (lines {numbers}): a child "
                "process repeated its parent's unflushed output after fork(); kept once, as Lind's runner keeps it "
                "(setvbuf(stdout, NULL, _IOLBF, 0) or fflush(stdout) before fork() fixes the test)")
    return (f"{binary}: {row} is printed {len(lines)} times with different figures (lines {numbers}): kept the "
            f"last, line {lines[-1][0]}, as Lind's runner keeps it (one line per test and param fixes the test)")
