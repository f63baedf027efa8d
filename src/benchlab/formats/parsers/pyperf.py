"""pyperf's JSON file (`pyperf timeit -o`, `Runner` with `-o`, pyperformance), format 1.0:

    {"version": "1.0", "metadata": {...common to every run...},
     "benchmarks": [{"metadata": {...common to this benchmark's runs...},
                     "runs": [{"metadata": {...this run's...}, "warmups": [[loops, raw], ...],
                               "values": [v, v, v]}, ...]}]}

pyperf runs each benchmark in several worker processes, one `run` each (20 by default),
so each run becomes one record of its own with `reported.process` its index among the
benchmark's runs that have values, as `benchlab run --processes` stores its processes:
the between-process model (combine.py) then applies as it does to ours. `values` are
the samples, already per loop iteration (pyperf divides each raw sample by loops x
inner_loops, which become the record's iterations). `warmups` are raw samples taken
before measuring and are left out, as is a calibration run (warmups and no values).

Metadata are merged as pyperf merges them (common, then benchmark, then run): a run's
`name` and `unit` may be set at any level. Units: `second` is stored in ns (counter
`time`, pyperf's values being per-iteration times like ours), `byte` as `memory` in
bytes, `integer` as `value`. The run's own metadata (date, load, frequencies) stay in
the record's `reported`; the common and per-benchmark metadata in the context.
"""
from __future__ import annotations

from typing import Any

from benchlab.formats.parsers.base import BadValue, Parsed, clean_reported, figure, name, show, whole
from benchlab.records import Record

#: pyperf unit -> (counter, unit, factor from pyperf's unit to ours).
UNITS = {"second": ("time", "ns", 1e9), "byte": ("memory", "bytes", 1.0), "integer": ("value", "integer", 1.0)}


class PyperfParser:
    name = "pyperf"

    def sniff_object(self, document: Any) -> bool:
        if not isinstance(document, dict) or "context" in document:  # Google Benchmark's has a context
            return False
        benchmarks = document.get("benchmarks")
        return (isinstance(benchmarks, list) and ("version" in document or "metadata" in document)
                and (not benchmarks or isinstance(benchmarks[0], dict) and "runs" in benchmarks[0]))

    def parse_object(self, document: Any, binary: str, parsed: Parsed) -> None:
        benchmarks = document.get("benchmarks") if isinstance(document, dict) else None
        if not isinstance(benchmarks, list):
            parsed.warn(f"{binary}: pyperf \"benchmarks\" is {show(benchmarks)}, not a list")
            return
        common = document.get("metadata") or {}
        if not isinstance(common, dict):
            parsed.warn(f"{binary}: pyperf \"metadata\" is {show(common)}, not an object")
            return
        per_benchmark = {}
        for b_index, benchmark in enumerate(benchmarks):
            where = f"benchmarks[{b_index}]"
            try:
                if not isinstance(benchmark, dict):
                    raise BadValue(f"not an object: {show(benchmark)}")
                metadata = {**common, **_object(benchmark.get("metadata"), "metadata")}
                runs = benchmark.get("runs")
                if not isinstance(runs, list):
                    raise BadValue(f"runs must be a list, got {show(runs)}")
            except BadValue as bad:
                parsed.warn(f"{binary}: pyperf {where}: {bad}")
                continue
            process = 0
            for r_index, run in enumerate(runs):
                try:
                    record = _record(run, metadata, process)
                except BadValue as bad:
                    parsed.warn(f"{binary}: pyperf {where}.runs[{r_index}]: {bad}")
                    continue
                if record is None:
                    continue  # a calibration run: warmups only
                per_benchmark.setdefault(record.bench, clean_reported(benchmark.get("metadata") or {}))
                parsed.records.append(record)
                process += 1
        parsed.context = {"tool": "pyperf", "version": clean_reported(document.get("version")),
                          "metadata": clean_reported(common), "benchmarks": per_benchmark}


def _object(value: Any, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadValue(f"{what} must be an object, got {show(value)}")
    return value


def _record(run: Any, metadata: dict, process: int) -> Record | None:
    if not isinstance(run, dict):
        raise BadValue(f"not an object: {show(run)}")
    own = _object(run.get("metadata"), "metadata")
    merged = {**metadata, **own}
    values = run.get("values") or []
    if not isinstance(values, list):
        raise BadValue(f"values must be a list, got {show(values)}")
    if not values:
        return None
    bench = name(merged.get("name"), "name (in metadata)")
    unit = merged.get("unit", "second")
    if not isinstance(unit, str) or unit not in UNITS:  # a list or an object is no key of UNITS
        raise BadValue(f"unit (in metadata) must be one of {', '.join(UNITS)}, got {show(unit)}")
    counter, our_unit, factor = UNITS[unit]
    loops = whole(merged.get("loops", 1), "loops") * whole(merged.get("inner_loops", 1), "inner_loops")
    iterations = whole(loops, "loops x inner_loops")
    samples = [figure(figure(v, f"values[{i}]", minimum=0) * factor, f"values[{i}] in {our_unit}")
               for i, v in enumerate(values)]
    warmups = run.get("warmups") or []
    return Record(bench=bench, param=None, counter=counter, unit=our_unit, samples=samples, iterations=iterations,
                  sample_iterations=[iterations] * len(samples),
                  reported={"process": process, "warmups": len(warmups) if isinstance(warmups, list) else 0,
                            "metadata": clean_reported(own)})
