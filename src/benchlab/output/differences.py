"""Lines of BL_DIFFERENCE's figures under a table: each benchmark reported less its base.

    differences to a base (BL_DIFFERENCE; per-round, 99%):
      syscall_0 - args_0 on native: 16.1 ns [16.1, 16.2] (within this run)
"""
from __future__ import annotations

from benchlab.output.figures import format_value
from benchlab.records import Record
from benchlab.statistics import difference
from benchlab.statistics.compare import row_name


def lines(records: list[Record]) -> list[str]:
    """One line per record with a base, in the records' order; none when no record has one."""
    found = [(record, difference.of_record(record)) for record in records if record.counter == "time"]
    found = [(record, d) for record, d in found if d is not None]
    if not found:
        return []
    out = ["differences to a base (BL_DIFFERENCE; median of per-round differences, 99% interval):"]
    for record, d in found:
        where = f" on {record.platform}" if record.platform else ""
        processes = f", {d.processes} processes" if d.processes > 1 else ""
        out.append(f"  {row_name(record.key)} - {d.base}{where}: {format_value(d.value)} {record.unit} "
                   f"[{format_value(d.low)}, {format_value(d.high)}] ({d.scope}{processes})")
    return out
