"""B63's interactive output (`-i`), one line per (benchmark, counter), as its printer.h writes it:

    basic                         time                : 23.875
    basic_half                    time                : \\e[0;32m13.133 (-44.992% *)\\e[0m
    \\e[0;31mbasic_w_assert_fail           time                : assertion fail\\e[0m

The name padded to 30 characters, the counter to 20, then the counter's mean per
iteration over the epochs (ns for `time`); a benchmark compared with the baseline adds
its difference to it in percent and `*` when B63's 99% interval of the difference
excludes 0. The colours are written whether or not the output is a terminal; B63 before
2021 wrote `:*13.133 (-44.992%)` (the mark before the figure), read too. `assertion fail`
is a benchmark whose B63_ASSERT failed: a failure of that benchmark, not a line we
cannot read.

One figure per benchmark, the mean of the epochs: the record has one sample (as a
`lind` line's), and B63's own difference and mark are kept in `reported`. The epochs
themselves are in B63's plain output (b63csv), which is what to feed benchlab when
there is a choice.
"""
from __future__ import annotations

import re

from benchlab.formats.parsers.b63csv import unit_of
from benchlab.formats.parsers.base import BadValue, LineSession, Parsed, bad_line, figure, name
from benchlab.records import Record

#: The colours B63 writes around a line or a figure.
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")
_NUMBER = r"-?\d+(?:\.\d+)?"
#: name and counter (two words), a colon, then a figure and perhaps B63's comparison.
_LINE = re.compile(rf"^(\S+)\s+(\S+)\s*:\s?(?:(\*?)\s*({_NUMBER})(?:\s+\(([-+]\s*\d+(?:\.\d+)?)%\s*(\*?)\s*\))?"
                   r"|(assertion fail))$")
_SHAPE = "want NAME COUNTER: VALUE [(+-PCT% *)], as B63 -i prints"
FORMAT = "b63-interactive"
#: Where B63's colon is at the earliest: after the name padded to 30 and the counter to 20.
#: It tells B63's lines from any `word word: 5` a program may print.
_COLON_AT = 50


def _match(line: str) -> re.Match | None:
    plain = _COLOUR.sub("", line).strip()
    if plain.find(":", _COLON_AT - 1) < _COLON_AT or ":" in plain[:plain.find(":", _COLON_AT)].replace("lpe:", ""):
        return None
    return _LINE.match(plain)


class B63InteractiveParser:
    name = FORMAT

    def sniff(self, line: str) -> bool:
        return _match(line) is not None

    def session(self, binary: str, parsed: Parsed) -> "_Session":
        return _Session(binary, parsed)


class _Session(LineSession):

    def feed(self, number: int, line: str) -> bool:
        match = _match(line)
        if match is None:
            return False
        bench, counter, old_mark, value, percent, mark, failed = match.groups()
        try:
            bench, counter = name(bench, "name"), name(counter, "counter")
            if failed:
                self.parsed.fail(self.binary, bench, f"{counter}: assertion fail (B63_ASSERT)")
                return True
            reported = {}
            if percent is not None:
                reported = {"b63_diff_percent": figure(percent.replace(" ", ""), "difference"),
                            "b63_significant": (mark or old_mark) == "*"}
            record = Record(bench=bench, param=None, counter=counter, unit=unit_of(counter),
                            samples=[figure(value, "value", minimum=0)], reported=reported)
        except BadValue as bad:
            self.parsed.warn(bad_line(self.binary, number, line, FORMAT, str(bad)))
            return True
        self.parsed.records.append(record)
        return True

    def reject(self, number: int, line: str) -> None:
        self.parsed.warn(bad_line(self.binary, number, line, FORMAT, _SHAPE))

    def finish(self) -> None:
        pass
