"""The Lind cross-platform runner's JSON file (`benchrunner.py --out results.json`):

    {"Read": {"1":    {"linux": "237", "lind": "448", "grate": "1043", "loops": "1000000"},
              "1024": {"linux": "250", "lind": "457", "grate": "1038", "loops": "1000000"}}}

test -> param -> one average per platform (ns per iteration) and the loops they were
computed over. The runner writes every value it read as a string; numbers are read too.
Its own defaults are the number -1: a platform that did not run (and loops when none did)
is -1, "not run" (no record, never a negative time), and a test with a `// DESCRIPTION:`
has a "desc" key, kept as the test's description. A param may be text (`-`,
`(STREAM, 1)`). Each (test, param, platform) becomes one record of one sample, on that
platform: like the `lind` lines it was made from, the file says nothing of the noise of a
figure.

A cell with a bad value is a warning naming its path (`$["Read"]["1024"]["lind"]`);
the other cells are kept.
"""
from __future__ import annotations

import json
from typing import Any

from benchlab.formats.parsers.base import BadValue, Parsed, figure, name, param_value, show, whole
from benchlab.records import Record, in_param_order

#: The keys of a cell that are not platforms.
LOOPS, DESC = "loops", "desc"
#: What the runner writes for a platform that did not run.
NOT_RUN = (-1, "-1", "--")


def _path(*keys: str) -> str:
    return "$" + "".join(f"[{json.dumps(k)}]" for k in keys)


class LindJsonParser:
    name = "lind-json"

    def sniff_object(self, document: Any) -> bool:
        """test -> param -> {platform: value}: objects two levels deep, then scalars."""
        if not isinstance(document, dict) or not document:
            return False
        for params in document.values():
            if not isinstance(params, dict):
                return False
            for cell in params.values():
                if not isinstance(cell, dict) or not all(isinstance(v, (str, int, float)) for v in cell.values()):
                    return False
        return True

    def parse_object(self, document: Any, binary: str, parsed: Parsed) -> None:
        if not isinstance(document, dict):
            parsed.warn(f"{binary}: lind-json document is {show(document)}, not an object of tests")
            return
        for test, params in document.items():
            if not isinstance(params, dict):
                parsed.warn(f"{binary}: lind-json {_path(test)}: not an object of params: {show(params)}")
                continue
            for param, cell in params.items():
                try:
                    records = _cell(test, param, cell)
                except BadValue as bad:
                    parsed.warn(f"{binary}: lind-json {bad}")
                    continue
                parsed.records.extend(records)
                if isinstance(cell, dict):
                    parsed.describe(test, cell.get(DESC))
        parsed.records[:] = in_param_order(parsed.records)
        parsed.platforms = list(dict.fromkeys(
            platform for params in document.values() if isinstance(params, dict) for cell in params.values()
            if isinstance(cell, dict) for platform in cell if platform not in (LOOPS, DESC)))


def _cell(test: str, param: str, cell: Any) -> list[Record]:
    if not isinstance(cell, dict):
        raise BadValue(f"{_path(test, param)}: not an object of platforms: {show(cell)}")
    try:
        bench = name(test, "test")
        number = param_value(param, "param", text=True)
        loops = whole(cell[LOOPS], "loops") if cell.get(LOOPS) not in (None, *NOT_RUN) else None
    except BadValue as bad:
        raise BadValue(f"{_path(test, param)}: {bad}") from None
    records = []
    for platform, value in cell.items():
        if platform in (LOOPS, DESC) or (value in NOT_RUN and not isinstance(value, bool)):
            continue
        try:
            records.append(Record(bench=bench, param=number, counter="time", unit="ns", iterations=loops,
                                  samples=[figure(value, "average ns", minimum=0)],
                                  platform=name(platform, "platform")))
        except BadValue as bad:
            raise BadValue(f"{_path(test, param, platform)}: {bad}") from None
    if not records and not any(platform not in (LOOPS, DESC) for platform in cell):
        raise BadValue(f"{_path(test, param)}: no platform's figure")
    return records  # none when no platform ran
