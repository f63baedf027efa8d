"""Google Benchmark's `--benchmark_format=json` output.

Each repetition of a benchmark is one entry with `run_type: "iteration"`; they
become the samples of one record. Aggregates (mean, median, stddev) are skipped:
we recompute them. `BM_name/64` becomes bench `BM_name`, param 64.

Unlike the line formats this is one JSON document, so it is recognised by its start
(parsers/__init__.py) and read whole. A bad entry is a warning naming its index and
name; the other entries are kept.
"""
from __future__ import annotations

import json
from typing import Any

from benchlab.formats.parsers.base import (
    INT64_MAX, NS_PER_UNIT, BadValue, Parsed, clean_reported, figure, name, param_value, show, whole)
from benchlab.records import Record

#: How far into the output its two top-level keys must appear for it to be Google Benchmark's.
SNIFF_CHARS = 100_000


def _split_name(full: str) -> tuple[str, int | None]:
    base, _, last = full.rpartition("/")
    if base and last.lstrip("-").isdigit() and len(last) <= 20:
        try:
            return base, param_value(last)
        except BadValue:
            pass  # beyond 64 bits: part of the name, not a parameter
    return full, None


class GbenchParser:
    name = "gbench"

    def sniff(self, text: str) -> bool:
        """True if `text`, the start of an output, is a Google Benchmark JSON document."""
        stripped = text.lstrip()
        head = stripped[:SNIFF_CHARS]
        return stripped.startswith("{") and '"benchmarks"' in head and '"context"' in head

    def sniff_object(self, document: Any) -> bool:
        """True if `document`, a whole JSON document already read, is Google Benchmark's."""
        return isinstance(document, dict) and "benchmarks" in document and "context" in document

    def parse_document(self, text: str, binary: str, parsed: Parsed) -> None:
        try:
            document = json.loads(text)
        except (ValueError, RecursionError) as exc:
            why = getattr(exc, "msg", None) or str(exc) or "nested too deeply"
            parsed.warn(f"{binary}: Google Benchmark output is not valid JSON ({why}); no results read")
            return
        self.parse_object(document, binary, parsed)

    def parse_object(self, document: Any, binary: str, parsed: Parsed) -> None:
        """Records of a Google Benchmark document already read as JSON."""
        if not isinstance(document, dict):
            parsed.warn(f"{binary}: Google Benchmark output is not a JSON object; no results read")
            return
        context = document.get("context")
        parsed.context = clean_reported(context) if isinstance(context, dict) else None
        entries = document.get("benchmarks", [])
        if not isinstance(entries, list):
            parsed.warn(f"{binary}: Google Benchmark \"benchmarks\" is {show(entries)}, not a list; no results read")
            return
        groups: dict[str, dict[str, list]] = {}
        for index, entry in enumerate(entries):
            try:
                item = _entry(entry)
            except BadValue as bad:
                label = entry.get("name") if isinstance(entry, dict) else None
                named = f" ({show(label)})" if label is not None else ""
                parsed.warn(f"{binary}: Google Benchmark entry {index}{named} is not valid ({bad}), ignored")
                continue
            if item is None:
                continue
            if isinstance(item, tuple) and len(item) == 2:
                parsed.fail(binary, *item)
                continue
            run_name, real, cpu, iterations = item
            group = groups.setdefault(run_name, {"real": [], "cpu": [], "iterations": []})
            group["real"].append(real)
            group["cpu"].append(cpu)
            group["iterations"].append(iterations)
        for run_name, group in groups.items():
            bench, param = _split_name(run_name)
            for counter, key in (("time", "real"), ("cpu_time", "cpu")):
                parsed.records.append(Record(
                    bench=bench, param=param, counter=counter, unit="ns", samples=group[key],
                    iterations=group["iterations"][0], sample_iterations=group["iterations"],
                ))


def _entry(entry: Any) -> tuple[str, float, float, int] | tuple[str, str] | None:
    """(run name, real ns, cpu ns, iterations) of a repetition; None for an aggregate;
    (name, message) for a benchmark that reports an error."""
    if not isinstance(entry, dict):
        raise BadValue(f"not an object: {show(entry)}")
    label = name(entry.get("name"), "name")
    if entry.get("error_occurred"):
        message = entry.get("error_message", "error")
        return label, message if isinstance(message, str) else show(message)
    if entry.get("run_type", "iteration") != "iteration":
        return None
    run_name = name(entry.get("run_name", label), "run_name")
    unit = entry.get("time_unit", "ns")
    scale = NS_PER_UNIT.get(unit) if isinstance(unit, str) else None
    if scale is None:
        raise BadValue(f"unknown time_unit {show(unit)}")
    for key in ("real_time", "cpu_time", "iterations"):
        if key not in entry:
            raise BadValue(f"no {key}")
    real = figure(figure(entry["real_time"], "real_time", minimum=0) * scale, "real_time in ns")
    cpu = figure(figure(entry["cpu_time"], "cpu_time", minimum=0) * scale, "cpu_time in ns")
    return run_name, real, cpu, whole(entry["iterations"], "iterations", maximum=INT64_MAX)
