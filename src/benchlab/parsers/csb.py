"""The scalability skeleton's `key=val;` line (one line per run of a threaded benchmark).

From the keys we make:
- a `throughput` record: `throughput_min`, i.e. all operations over the slowest
  thread's duration. It is the conservative one of the pair and the one linearity is
  computed from; `throughput_max` is kept in `reported`.
- one `latency:<op>` record (ns) per operation: its mean latency (`opK_NAME_avg`).
`param` is the thread count, so a --sweep over threads lines up row by row.
Every key/value of the line is kept in `reported`.

Units. CSB itself writes throughput in **operations per millisecond** and latencies
in clock ticks, and its line names neither unit. We know the throughput unit from
CSB's own documented `bm_empty` output (-d=1, 12 threads): op0_nop_count=301374035
operations with duration_min_ms=1000057 (the shortest window; for a 1-second run it
can only be microseconds, whatever its name says) and throughput_max=301356.87:
301374035 / 1.000057 s = 301.357e6 ops/s = 301357 ops/ms; throughput_min=297071.56
is the same count over duration_max_ms=1014483 (1.014 s), again in ops/ms. Its tick
latencies convert to ns with `ticks_to_ms` (ticks per millisecond).

benchlab's header writes CSB's keys in CSB's units (its ticks are nanoseconds:
`ticks_to_ms=1000000`), adds `latency_unit=ns`, and keeps its own figures under keys
CSB does not use (docs/formats.md, "csb"). Lines of benchlab 0.1 wrote throughput in
ops/s and said so with `throughput_unit=ops/s`: that key wins when present.
"""
from __future__ import annotations

import re

from benchlab.parsers.base import Parsed, bad_line, first_line
from benchlab.records import Record

_PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=([^;]*);")
_LINE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=[^;]*;)+$")
_OP_AVG = re.compile(r"^(op\d+_[A-Za-z0-9_]+)_avg$")

#: CSB's throughput unit, for lines without `throughput_unit` (see the module's docstring).
CSB_THROUGHPUT_UNIT = "ops/ms"
#: ns per unit of a `latency_unit` value we know.
_NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


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
        unit = values.get("throughput_unit") or CSB_THROUGHPUT_UNIT
        records = [Record(counter="throughput", unit=unit, samples=[float(values["throughput_min"])],
                          iterations=int(values["univ_count"]) if "univ_count" in values else None, **common)]
        latency_unit = values.get("latency_unit")
        if latency_unit is not None:
            if latency_unit not in _NS_PER:
                raise ValueError(f"latency_unit={latency_unit!r} (known: {', '.join(_NS_PER)})")
            ns_per_value = _NS_PER[latency_unit]
        else:
            ticks_per_ms = float(values.get("ticks_to_ms", 0) or 0)
            ns_per_value = 1e6 / ticks_per_ms if ticks_per_ms > 0 else None
        if ns_per_value is None:
            return records  # ticks of an unknown length: no latency we can state in ns
        for key, value in values.items():
            match = _OP_AVG.match(key)
            if match:
                # Nothing timed (benchlab's --latency-every=0) is written avg=0.00 with an
                # all-zero histogram; a timed 0-tick latency would count in entry 0. No
                # latency then, rather than a zero one.
                histogram = values.get(f"{match.group(1)}_histogram")
                if histogram is not None and not any(float(h or 0) for h in histogram.split(",")):
                    continue
                count = values.get(f"{match.group(1)}_count")
                records.append(Record(counter=f"latency:{match.group(1)}", unit="ns",
                                      samples=[float(value) * ns_per_value],
                                      iterations=int(count) if count else None, **common))
        return records
