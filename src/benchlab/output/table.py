"""The cross-platform table as data: one row per (test, param), one cell per platform.

Every exporter (table, markdown, csv, json, ...) and the HTML report render this same
model, so the formats can never disagree about a number or a mark. The figures in it
and their marks are judged in figures.py.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any

from benchlab.output.figures import (LEGEND, MARK_OVERLAP, WORKLOAD_FORMAT, figure_interval,
                                     format_value, overlaps, own_marks, spread_text)
from benchlab.statistics import compare
from benchlab.statistics.compare import uninformative_interval
from benchlab.statistics.combine import figures
from benchlab.records import NOT_BUILT, Fault, Record

#: Sweep flags that mean the thread count (runner.SWEEP_ALIASES: threads is -t).
SWEEP_ALIASES_OF_THREADS = ("threads", "-t", "--threads")


#: What a cell holds, one word each (csv's and json's "status" column; the text table's
#: wording follows from it).
OK = "ok"                    # a figure
FAILED = "failed"            # the binary failed there
NOT_BUILT_CELL = NOT_BUILT   # its source cannot be built for that platform, by design: "-", no failure
UNSUPPORTED = "unsupported"  # the record says the platform cannot measure this counter
EMPTY = "empty"              # nothing: the benchmark did not run on that platform

#: How much of a figure's spread a cell's text shows: everything (the interval's +-h% and the
#: processes' cv), the interval alone, or the figure alone (its marks still say ? when it is
#: uncertain). A table narrowed to a terminal's width (output/fitting.py) drops the cv first.
SPREAD_FULL, SPREAD_INTERVAL, SPREAD_NONE = "full", "interval", "none"


#: A ratio to the first platform whose 99% interval bounds nothing, in place of its digits
#: (short: at 80 columns the figures' intervals must still fit; the legend explains it).
RATIO_UNKNOWN = "ratio ?"
RATIO_UNKNOWN_LEGEND = (f"({RATIO_UNKNOWN})  the ratio to the first platform has a 99% interval as wide as the "
                        "ratio itself: it bounds nothing, so no digits are given (`benchlab stats` shows both figures)")


@dataclasses.dataclass
class Cell:
    platform: str
    record: Record | None = None
    fault: Fault | None = None
    ratio: float | None = None  # to the first platform's median
    #: The ratio's 99% interval bounds nothing (as wide as the ratio: uninformative_interval),
    #: so the cell says so instead of printing the ratio as if it were exact.
    ratio_uninformative: bool = False
    marks: str = ""
    #: Processes of the run that failed for this cell's binary (the figure stands on the others).
    failed_processes: int = 0

    @property
    def status(self) -> str:
        if self.record is None:
            if self.fault is None:
                return EMPTY
            return NOT_BUILT_CELL if self.fault.kind == NOT_BUILT else FAILED
        return OK if self.record.supported else UNSUPPORTED

    @property
    def reason(self) -> str | None:
        """Why a failed or unsupported cell has no figure."""
        status = self.status
        if status in (FAILED, NOT_BUILT_CELL):
            return self.fault.reason
        return self.record.reason if status == UNSUPPORTED else None

    @property
    def binary(self) -> str | None:
        holder = self.record or self.fault
        return holder.binary if holder is not None else None

    @property
    def text(self) -> str:
        return self.shown(SPREAD_FULL)

    def shown(self, spread: str) -> str:
        """The cell's text with as much of its spread as `spread` (SPREAD_*) says."""
        status = self.status
        # The figure alone (a narrow table) leaves the reason to the failures under the table.
        if status == FAILED:
            return "FAILED" if spread == SPREAD_NONE else f"FAILED: {self.reason}"
        if status == NOT_BUILT_CELL:  # left out there (buildable.py), not failed
            return "-" if spread == SPREAD_NONE else f"- ({self.reason})"
        if status == EMPTY:
            return "-"
        if status == UNSUPPORTED:
            return f"not supported: {self.reason}"
        figures = self.record.figures
        if figures.zero:
            high = figures.interval.high
            # An interval of [0, 0] (every process's figure clamped at 0) is below nothing.
            value = f"~0 (<{format_value(high)})" if high > 0 else "~0 (<=0)"
        else:
            value = format_value(self.record.median) + (
                "" if spread == SPREAD_NONE else spread_text(figures, cv=spread == SPREAD_FULL))
        if self.record.format == WORKLOAD_FORMAT and spread != SPREAD_NONE:
            # A workload's few runs (3 by default) bound nothing statistically: show their range.
            value += f" [{format_value(figures.min)}–{format_value(figures.max)}]"
        ratio = f" ({self.ratio:.3f})" if self.ratio is not None else ""
        if self.ratio is not None and self.ratio_uninformative:
            ratio = f" ({RATIO_UNKNOWN})"
        stands = ""
        if self.failed_processes:
            processes = figures.processes
            stands = f" [{processes} of {processes + self.failed_processes} processes]"
        return f"{value}{ratio}{self.marks}{stands}"



@dataclasses.dataclass
class Row:
    test: str
    param: int | None
    counter: str
    unit: str
    sweep_value: Any
    cells: dict[str, Cell]
    iterations: int | None = None
    failed: bool = False
    #: The binary, when another binary (or another line of the same one) gives the same
    #: (test, param) on a platform: both are shown, never one hiding the other.
    binary: str | None = None
    param_name: str | None = None
    #: What ITERATIONS means for this row's records: iterations per sample, or (see iterations_label)
    #: a workload's runs, a threaded run's operations.
    kind: str = ""

    @property
    def iterations_label(self) -> str:
        if self.kind == WORKLOAD_FORMAT:
            # One execution per sample: the number worth showing is the runs measured.
            runs = next((c.record.figures.n for c in self.cells.values() if c.record and c.record.summary), None)
            return f"{runs} runs" if runs else ""
        if self.iterations is None:
            return ""
        if self.counter == "throughput" or self.counter.startswith("latency:"):
            return f"{self.iterations} ops"
        return str(self.iterations)


@dataclasses.dataclass
class Table:
    platforms: list[str]
    records: list[Record]
    faults: list[Fault]
    run: dict[str, Any] = dataclasses.field(default_factory=dict)
    rows: list[Row] = dataclasses.field(default_factory=list)
    #: Earlier runs' spread per figure (combine.History), for intervals that cover a rerun.
    history: dict | None = None

    def __post_init__(self) -> None:
        if not self.rows:
            self.rows = build_rows(self.platforms, self.records, self.faults, self.history)

    # Properties of the whole table, asked once per row by the exporters: computed once
    # (a table is not changed after it is made), or `show` is quadratic in its rows.
    @functools.cached_property
    def sweep_flag(self) -> str | None:
        for item in (*self.records, *self.faults):
            if item.sweep:
                return item.sweep["flag"]
        return None

    @functools.cached_property
    def show_counter(self) -> bool:
        return any(row.counter != "time" for row in self.rows if not row.failed)

    @functools.cached_property
    def common_unit(self) -> str | None:
        units = {row.unit for row in self.rows if not row.failed}
        return units.pop() if len(units) == 1 else None

    @functools.cached_property
    def marks_used(self) -> list[str]:
        used = {mark for row in self.rows for cell in row.cells.values() for mark in cell.marks}
        return [mark for mark in LEGEND if mark in used]


def row_keys(records: list[Record]) -> list[tuple[tuple, str | None]]:
    """Each record's row: its key, plus its binary when the key is not unique on a platform.

    Two binaries printing the same (test, param) on one platform (the Lind seed's native,
    sandbox and interposer programs; two suites with a common test name), or one binary
    printing it twice, get a row each, named by binary (and `#2`, ... for repeats).
    """
    counts = collections.Counter((record.key, record.platform) for record in records)
    shared = {key for (key, _), count in counts.items() if count > 1}
    seen: collections.Counter = collections.Counter()
    result = []
    for record in records:
        if record.key not in shared:
            result.append((record.key, None))
            continue
        seen[(record.key, record.platform, record.binary)] += 1
        repeat = seen[(record.key, record.platform, record.binary)]
        label = record.binary if repeat == 1 else f"{record.binary} #{repeat}"
        result.append(((*record.key, label), label))
    return result


def build_rows(platforms: list[str], records: list[Record], faults: list[Fault],
               history: dict | None = None) -> list[Row]:
    """Rows of the table; the records of several processes are first combined (combine.py)."""
    rows: dict[tuple, Row] = {}
    records = figures(records, history)
    for record, (key, binary) in zip(records, row_keys(records)):
        row = rows.get(key)
        if row is None:
            row = rows[key] = Row(
                test=record.bench, param=record.param, counter=record.counter, unit=record.unit,
                sweep_value=record.sweep["value"] if record.sweep else None,
                cells={p: Cell(p) for p in platforms}, binary=binary, param_name=record.param_name,
                kind=record.format)
        if record.platform in row.cells and row.cells[record.platform].record is None:
            row.cells[record.platform].record = record
    for row in rows.values():
        first = row.cells[platforms[0]].record if platforms else None
        for index, platform in enumerate(platforms):
            cell = row.cells[platform]
            if cell.record is None or not cell.record.supported:
                continue  # an unsupported record has no figure: no ratio, no marks
            if row.iterations is None:
                row.iterations = cell.record.iterations
            if index > 0 and first is not None and first.supported and first.median:
                cell.ratio = cell.record.median / first.median
                cell.ratio_uninformative = _ratio_uninformative(first, cell.record)
                if overlaps(first, cell.record):
                    cell.marks += MARK_OVERLAP
            cell.marks += own_marks(cell.record)
    result = list(rows.values())
    process_faults = [f for f in faults if f.process is not None]
    for row in result:
        for cell in row.cells.values():
            if cell.record is not None:
                # per sweep value: a process that failed at threads=2 is not missing from threads=1;
                # a copy that failed after printing (instances.py) is already among the figure's processes
                counted = {(p.get("process"), p.get("copy")) for p in cell.record.reported.get("processes", [])}
                cell.failed_processes = sum(1 for f in process_faults
                                            if f.binary == cell.record.binary and f.platform == cell.platform
                                            and _value(f.sweep) == _value(cell.record.sweep)
                                            and (f.copy is None or (f.process, f.copy) not in counted))
    # A FAILED row per binary and platform that gave nothing; several failed processes of
    # one binary make one row (the failure lines list each with its reason).
    failed_rows: dict[tuple, Row] = {}
    failed = {(f.binary, f.platform, f.process, _value(f.sweep)) for f in faults}
    healthy = {(p["binary"], p["platform"], p["sweep"]) for p in _processes(records)
               if (p["binary"], p["platform"], p["process"], p["sweep"]) not in failed}
    for fault in faults:
        if fault.process is not None and (fault.binary, fault.platform, _value(fault.sweep)) in healthy:
            continue  # other processes ran cleanly: the cell says how many (failed_processes)
        sweep_value = fault.sweep["value"] if fault.sweep else None
        row = failed_rows.get((fault.binary, sweep_value))
        if row is None:
            row = failed_rows[(fault.binary, sweep_value)] = Row(
                test=fault.binary, param=None, counter="", unit="", sweep_value=sweep_value,
                cells={p: Cell(p) for p in platforms}, failed=True)
            result.append(row)
        if fault.platform in row.cells and row.cells[fault.platform].fault is None:
            row.cells[fault.platform].fault = fault
    return result


def _ratio_uninformative(first: Record, other: Record) -> bool:
    """Whether other/first's 99% interval (compare.ratio_interval, as the report's ratio
    bars draw it) is as wide as the ratio: at load 22-31, 11 of 20 qemu cells (issue 38)."""
    if not figure_interval(first) or not figure_interval(other):
        return False  # no interval on a side: the ? mark says so
    if not first.median or not other.median or first.figures.zero or other.figures.zero:
        return False  # a figure indistinguishable from 0 shows as ~0 (<x): no relative width to judge
    ratio, low, high, _ = compare.ratio_interval(first, other)
    return uninformative_interval(ratio, low, high)


def _processes(records: list[Record]) -> list[dict[str, Any]]:
    """(binary, platform, process, sweep value) of every process a record came from, combined or not."""
    seen = []
    for record in records:
        indices = [p["process"] for p in record.reported.get("processes", [])] or [record.process]
        seen.extend({"binary": record.binary, "platform": record.platform, "process": i, "sweep": _value(record.sweep)}
                    for i in indices)
    return seen


def _value(sweep: dict[str, Any] | None) -> Any:
    return sweep["value"] if sweep else None

