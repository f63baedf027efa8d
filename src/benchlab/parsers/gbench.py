"""Google Benchmark's `--benchmark_format=json` output.

Each repetition of a benchmark is one entry with `run_type: "iteration"`; they
become the samples of one record. Aggregates (mean, median, stddev) are skipped:
we recompute them. `BM_name/64` becomes bench `BM_name`, param 64.
"""
from __future__ import annotations

import json

from benchlab.parsers.base import Parsed
from benchlab.records import Record

_NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def _split_name(full: str) -> tuple[str, int | None]:
    base, _, last = full.rpartition("/")
    if base and last.lstrip("-").isdigit():
        return base, int(last)
    return full, None


class GbenchParser:
    name = "gbench"

    def sniff(self, text: str) -> bool:
        stripped = text.lstrip()
        return stripped.startswith("{") and '"benchmarks"' in stripped[:100000] and '"context"' in stripped[:100000]

    def parse(self, text: str, binary: str) -> Parsed:
        parsed = Parsed()
        try:
            document = json.loads(text)
        except ValueError as exc:
            parsed.warnings.append(f"{binary}: Google Benchmark output is not valid JSON ({exc}); no results read")
            return parsed
        parsed.context = document.get("context")
        groups: dict[str, dict] = {}
        for entry in document.get("benchmarks", []):
            if entry.get("run_type", "iteration") != "iteration" or entry.get("error_occurred"):
                if entry.get("error_occurred"):
                    parsed.warnings.append(f"{binary}: {entry.get('name')}: {entry.get('error_message', 'error')}")
                continue
            name = entry.get("run_name", entry["name"])
            scale = _NS_PER.get(entry.get("time_unit", "ns"))
            if scale is None:
                parsed.warnings.append(f"{binary}: {name}: unknown time_unit {entry.get('time_unit')!r}, ignored")
                continue
            group = groups.setdefault(name, {"real": [], "cpu": [], "iterations": []})
            group["real"].append(entry["real_time"] * scale)
            group["cpu"].append(entry["cpu_time"] * scale)
            group["iterations"].append(int(entry["iterations"]))
        for name, group in groups.items():
            bench, param = _split_name(name)
            for counter, key in (("time", "real"), ("cpu_time", "cpu")):
                parsed.records.append(Record(
                    bench=bench, param=param, counter=counter, unit="ns", samples=group[key],
                    iterations=group["iterations"][0], sample_iterations=group["iterations"],
                ))
        return parsed


