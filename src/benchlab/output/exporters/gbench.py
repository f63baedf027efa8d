"""A stored run as Google Benchmark JSON (formats.md, "Export"), for its `tools/compare.py`.

Every sample of a `time` record is one repetition of the benchmark, as Google Benchmark
writes `--benchmark_repetitions=N`: an entry with `run_type` "iteration", `run_name`,
`repetitions`, `repetition_index`, `iterations`, `real_time`, `cpu_time` and
`time_unit` "ns", followed by the `mean`, `median` and `stddev` aggregates it adds.
compare.py pairs entries by `name` and runs its U test on the repetitions, so all the
samples of all of a run's processes are repetitions (in process order).

`real_time` is the sample as measured: Google Benchmark subtracts nothing, and compare.py
compares like with like when both files come from the same kind of source. `cpu_time` is
the sample of the matching `cpu_time` record (a run imported from Google Benchmark), else
the same as `real_time`: benchlab measures wall time only. The file has no platform, so
a run with results on several platforms is exported one platform at a time (--platform).
"""
from __future__ import annotations

import json
from typing import Any, Iterator

import numpy as np

from benchlab.errors import UserError
from benchlab.output.exporters.json import finite
from benchlab.records import Record
from benchlab.output.table import Table

#: compare.py refuses other versions of the file's layout.
JSON_SCHEMA_VERSION = 1
#: The aggregates Google Benchmark writes after the repetitions of a benchmark.
AGGREGATES = {"mean": np.mean, "median": np.median, "stddev": lambda x: np.std(x, ddof=1)}


def _run_name(record: Record) -> str:
    return record.bench if record.param is None else f"{record.bench}/{record.param}"


def render(table: Table) -> str:
    run = table.run or {}
    times = [r for r in table.records if r.counter == "time" and r.unit == "ns" and r.supported and r.samples]
    if not times:
        raise UserError(f"run {run.get('id')} has no time results (ns per iteration) to write as Google Benchmark JSON",
                        "export it as jsonl or csv")
    platforms = sorted({r.platform for r in times})
    if len(platforms) > 1:
        raise UserError(f"run {run.get('id')} has results on {len(platforms)} platforms ({', '.join(platforms)}) and "
                        "Google Benchmark JSON has no place for a platform", "export one with --platform NAME")
    cpu = {(r.bench, r.param, r.binary, r.process, r.sweep and r.sweep["value"]): r
           for r in table.records if r.counter == "cpu_time" and r.supported}
    groups: dict[str, list[Record]] = {}
    for record in times:
        groups.setdefault(_run_name(record), []).append(record)
    for run_name, records in groups.items():
        binaries = sorted({r.binary for r in records})
        sweeps = sorted({str(r.sweep["value"]) for r in records if r.sweep})
        if len(binaries) > 1 or len(sweeps) > 1:
            what = f"binaries {', '.join(binaries)}" if len(binaries) > 1 else f"sweep values {', '.join(sweeps)}"
            raise UserError(f"{run_name} comes from {what} of run {run.get('id')}, and Google Benchmark JSON has one "
                            "benchmark per name", "export jsonl or csv, which keep them apart")
    # One entry per line, written as it is made: a run of a million samples is a million
    # entries, which as one document of dicts would take gigabytes before a byte is written.
    head = json.dumps(finite({"context": _context(table, platforms[0])}), indent=2, default=str)
    entries = (json.dumps(finite(entry), allow_nan=False) for entry in _entries(groups, cpu))
    return head[:-2] + ',\n  "benchmarks": [\n    ' + ",\n    ".join(entries) + "\n  ]\n}\n"


def _entries(groups: dict[str, list[Record]], cpu: dict[tuple, Record]) -> Iterator[dict[str, Any]]:
    families: dict[str, int] = {}
    instances: dict[str, int] = {}
    for run_name, records in groups.items():
        bench = records[0].bench
        family = families.setdefault(bench, len(families))
        instances[bench] = instances.get(bench, -1) + 1
        reps = []
        for record in sorted(records, key=lambda r: r.process or 0):
            match = cpu.get((record.bench, record.param, record.binary, record.process,
                             record.sweep and record.sweep["value"]))
            cpu_samples = match.samples if match is not None and len(match.samples) == len(record.samples) \
                else record.samples
            counts = record.sample_iterations or [record.iterations or 1] * len(record.samples)
            reps.extend(zip(record.samples, cpu_samples, counts))
        common = {"family_index": family, "per_family_instance_index": instances[bench], "run_name": run_name,
                  "repetitions": len(reps), "threads": 1}
        for index, (real, cpu_time, count) in enumerate(reps):
            yield {"name": run_name, **common, "run_type": "iteration", "repetition_index": index,
                   "iterations": count, "real_time": real, "cpu_time": cpu_time, "time_unit": "ns"}
        if len(reps) > 1:
            real_values = np.array([r[0] for r in reps])
            cpu_values = np.array([r[1] for r in reps])
            for aggregate, function in AGGREGATES.items():
                yield {"name": f"{run_name}_{aggregate}", **common, "run_type": "aggregate",
                       "aggregate_name": aggregate, "aggregate_unit": "time", "iterations": len(reps),
                       "real_time": float(function(real_values)), "cpu_time": float(function(cpu_values)),
                       "time_unit": "ns"}


def _context(table: Table, platform: str) -> dict[str, Any]:
    run = table.run or {}
    context = run.get("context") or {}
    # A run imported from Google Benchmark keeps its own context: give it back.
    imported = context.get("imported") or {}
    base = dict(context["source"]) if imported.get("format") == "gbench" and isinstance(context.get("source"), dict) \
        else {}
    base.setdefault("date", context.get("date") or run.get("started_at"))
    base.setdefault("host_name", context.get("host") or run.get("host"))
    base.setdefault("executable", ", ".join(sorted({r.binary for r in table.records if r.platform == platform})))
    base["json_schema_version"] = JSON_SCHEMA_VERSION
    base["benchlab"] = {"run": run.get("id"), "platform": platform, "git": context.get("git")}
    return base
