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

benchlab's header writes CSB's keys in CSB's units (latencies in its timer's ticks,
`ticks_to_ms` of them per ms; in ns with `ticks_to_ms=1000000` under --csb-unit=ns),
says which with `latency_unit=ticks` or `ns`, and keeps its own figures under keys CSB
does not use (docs/formats.md, "csb"). Lines of benchlab 0.1 wrote throughput in
ops/s and said so with `throughput_unit=ops/s`: that key wins when present.
"""
from __future__ import annotations

import re

from benchlab.formats.parsers.base import NS_PER_UNIT, BadValue, LineSession, Parsed, bad_line, figure, name, whole
from benchlab.records import Record

_PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=([^;]*);")
_LINE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=[^;]*;)+$")
_OP_AVG = re.compile(r"^(op\d+_[A-Za-z0-9_]+)_avg$")

#: CSB's throughput unit, for lines without `throughput_unit` (see the module's docstring).
CSB_THROUGHPUT_UNIT = "ops/ms"


class CsbParser:
    name = "csb"

    def sniff(self, line: str) -> bool:
        return bool(_LINE.match(line))

    def session(self, binary: str, parsed: Parsed) -> "_Session":
        return _Session(binary, parsed)


class _Session(LineSession):

    def feed(self, number: int, line: str) -> bool:
        if not _LINE.match(line):
            return False
        values = dict(_PAIR.findall(line))
        # Each figure of the line stands alone: a bad latency does not cost the throughput.
        for record_or_problem in _records(values):
            if isinstance(record_or_problem, Record):
                self.parsed.records.append(record_or_problem)
            else:
                self.parsed.warn(bad_line(self.binary, number, line, "csb", record_or_problem))
        return True

    def reject(self, number: int, line: str) -> None:
        self.parsed.warn(bad_line(self.binary, number, line, "csb", "want key=val; pairs"))

    def finish(self) -> None:
        pass


def _records(values: dict[str, str]) -> list[Record | str]:
    """The line's throughput and latency records, or for each one that is bad, why."""
    try:
        bench = name(values.get("algo_name", "csb"), "algo_name")
        threads = whole(values.get("num_threads"), "num_threads")
    except BadValue as bad:
        return [str(bad)]
    reported = dict(values)
    common = dict(bench=bench, param=threads, param_name="threads", reported=reported)
    results: list[Record | str] = []
    try:
        unit = name(values.get("throughput_unit") or CSB_THROUGHPUT_UNIT, "throughput_unit", limit=32)
        count = whole(values["univ_count"], "univ_count", minimum=0) if "univ_count" in values else None
        results.append(Record(counter="throughput", unit=unit, iterations=count,
                              samples=[figure(values.get("throughput_min"), "throughput_min", minimum=0)], **common))
    except BadValue as bad:
        results.append(str(bad))
    latency_unit = values.get("latency_unit")
    if latency_unit is not None and latency_unit != "ticks":  # ticks: CSB's, read by ticks_to_ms
        if latency_unit not in NS_PER_UNIT:
            return [*results, f"latency_unit={latency_unit!r} (known: {', '.join(NS_PER_UNIT)})"]
        ns_per_value = NS_PER_UNIT[latency_unit]
    else:
        try:
            ticks_per_ms = figure(values.get("ticks_to_ms", 0) or 0, "ticks_to_ms", minimum=0)
        except BadValue as bad:
            return [*results, str(bad)]
        ns_per_value = 1e6 / ticks_per_ms if ticks_per_ms > 0 else None
    if ns_per_value is None:
        return results  # ticks of an unknown length: no latency we can state in ns
    for key, value in values.items():
        match = _OP_AVG.match(key)
        if not match:
            continue
        try:
            results.extend(_latency(match.group(1), value, values, ns_per_value, common))
        except BadValue as bad:
            results.append(str(bad))
    return results


def _latency(op: str, value: str, values: dict[str, str], ns_per_value: float, common: dict) -> list[Record]:
    # Nothing timed (benchlab's --latency-every=0) is written avg=0.00 with an
    # all-zero histogram; a timed 0-tick latency would count in entry 0. No
    # latency then, rather than a zero one.
    histogram = values.get(f"{op}_histogram")
    if histogram is not None:
        counts = [figure(h or 0, f"{op}_histogram", minimum=0) for h in histogram.split(",")]
        if not any(counts):
            return []
    count = values.get(f"{op}_count")
    latency = figure(value, f"{op}_avg", minimum=0) * ns_per_value
    # The operation's name comes from the line: it must fit the store like any name
    # (a long-run fuzz found a 200-digit "op99...9_nop" that no column could hold).
    counter = name(f"latency:{op}", "operation name")
    return [Record(counter=counter, unit="ns", samples=[figure(latency, f"{op}_avg in ns")],
                   iterations=whole(count, f"{op}_count", minimum=0) if count else None, **common)]
