"""A stored run as benchlab's canonical JSON Lines (formats.md, "Export"): everything kept.

A context record first: the canonical fields a reader of the header's output expects
(date, host, cpu, ...), and under `run` the run as stored (id, dates, status, argv,
platforms, its whole context, its failures). Then one result record per stored record,
in the order stored, with every sample, `overhead_samples`, the statistics recomputed
from them, and where it came from: `platform`, `binary`, `format`, `sweep`, and
`reported` (the process index, layout, what the binary said). `benchlab import` reads
it back into the same records.
"""
from __future__ import annotations

import json
from typing import Any

from benchlab.output.exporters.json import finite
from benchlab.records import Record
from benchlab.output.table import Table

#: The canonical format's schema (formats.md): an export only adds fields to it.
SCHEMA = 2
#: Canonical context fields, copied from the run's context when it has them.
_CONTEXT_FIELDS = ("benchlab", "date", "host", "cpu", "os", "kernel", "arch")


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(finite(obj), separators=(",", ":"), allow_nan=False, default=str)


def context_record(table: Table) -> dict[str, Any]:
    run = table.run or {}
    context = run.get("context") or {}
    head: dict[str, Any] = {"type": "context", "schema": SCHEMA}
    head.update({key: context[key] for key in _CONTEXT_FIELDS if key in context})
    head["run"] = {
        "id": run.get("id"), "started_at": run.get("started_at"), "finished_at": run.get("finished_at"),
        "status": run.get("status"), "exit_code": run.get("exit_code"), "argv": run.get("argv"),
        "platforms": table.platforms, "context": context, "faults": [f.to_dict() for f in table.faults],
        # planned units that never finished (a killed run): an import marks the others done
        "missing": run.get("missing") or [],
    }
    return head


def result_record(record: Record) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "type": "result", "bench": record.bench, "param": record.param, "param_name": record.param_name,
        "counter": record.counter, "unit": record.unit, "iterations": record.iterations,
        "sample_iterations": record.sample_iterations, "samples": record.samples,
    }
    if not record.supported:
        obj.update(supported=False, reason=record.reason)
    elif record.overhead_samples is not None:
        obj.update(overhead_samples=record.overhead_samples, subtracted=True)
    obj.update({key: value for key, value in record.summary.items() if key != "n"})
    obj.update(platform=record.platform, binary=record.binary, format=record.format, sweep=record.sweep,
               reported=record.reported)
    return obj


def render(table: Table) -> str:
    lines = [_line(context_record(table))]
    lines.extend(_line(result_record(record)) for record in table.records)
    return "\n".join(lines) + "\n"
