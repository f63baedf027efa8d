"""The scalability skeleton's `key=val;` line (one line per run of a threaded benchmark).

From the keys we make:
- a `throughput` record (ops/ms): `throughput_min`, i.e. all operations over the
  slowest thread's duration. It is the conservative one of the pair and the one
  linearity is computed from; `throughput_max` is kept in `reported`.
- one `latency:<op>` record (ns) per operation, its mean latency converted from
  clock ticks with `ticks_to_ms`.
`param` is the thread count, so a --sweep over threads lines up row by row.
Every key/value of the line is kept in `reported`.
"""
from __future__ import annotations

import re

from benchlab.parsers.base import Parsed, bad_line, first_line
from benchlab.records import Record

_PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=([^;]*);")
_LINE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=[^;]*;)+$")
_OP_AVG = re.compile(r"^(op\d+_[A-Za-z0-9_]+)_avg$")


class CsbParser:
    name = "csb"

    def sniff(self, text: str) -> bool:
        return bool(_LINE.match(first_line(text)))

    def parse(self, text: str, binary: str) -> Parsed:
        parsed = Parsed()
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line:
                continue
            if not _LINE.match(line):
                parsed.warnings.append(bad_line(binary, number, line, self.name, "want key=val; pairs"))
                continue
            values = dict(_PAIR.findall(line))
            try:
                parsed.records.extend(self._records(values))
            except (KeyError, ValueError) as exc:
                parsed.warnings.append(bad_line(binary, number, line, self.name, f"missing or bad key {exc}"))
        return parsed

    @staticmethod
    def _records(values: dict[str, str]) -> list[Record]:
        name = values.get("algo_name", "csb")
        threads = int(values["num_threads"])
        common = dict(bench=name, param=threads, param_name="threads", reported=dict(values))
        records = [Record(counter="throughput", unit="ops/ms", samples=[float(values["throughput_min"])],
                          iterations=int(values["univ_count"]) if "univ_count" in values else None, **common)]
        ticks_per_ms = float(values.get("ticks_to_ms", 0) or 0)
        for key, value in values.items():
            match = _OP_AVG.match(key)
            if match and ticks_per_ms > 0:
                ns = float(value) * 1e6 / ticks_per_ms
                count = values.get(f"{match.group(1)}_count")
                records.append(Record(counter=f"latency:{match.group(1)}", unit="ns", samples=[ns],
                                      iterations=int(count) if count else None, **common))
        return records
