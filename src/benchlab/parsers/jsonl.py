"""benchlab's canonical JSON Lines (docs/formats.md, schema 1)."""
from __future__ import annotations

import json
import math

from benchlab.parsers.base import Parsed, bad_line, first_line
from benchlab.records import Record

SUPPORTED_SCHEMA = 1

#: Fields of a result record that the binary computed and we keep for reference;
#: the statistics themselves are recomputed from `samples`.
_REPORTED_FIELDS = (
    "median", "min", "max", "mean", "stddev", "p75", "p90", "p99", "mad", "median_ci",
    "ci_level", "outliers_low", "outliers_high", "overhead", "baseline", "compared_to",
    "ratio", "ratio_ci", "ratio_of_medians", "significant",
)


class JsonlParser:
    name = "jsonl"

    def sniff(self, text: str) -> bool:
        line = first_line(text)
        if not line.startswith("{"):
            return False
        try:
            return json.loads(line).get("type") in ("context", "result")
        except (ValueError, AttributeError):
            return False

    def parse(self, text: str, binary: str) -> Parsed:
        parsed = Parsed()
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                parsed.warnings.append(bad_line(binary, number, line, "jsonl", f"not JSON: {exc.msg}"))
                continue
            kind = obj.get("type") if isinstance(obj, dict) else None
            if kind == "context":
                if obj.get("schema") != SUPPORTED_SCHEMA:
                    parsed.warnings.append(
                        f"{binary}: jsonl schema {obj.get('schema')!r}, this benchlab reads schema "
                        f"{SUPPORTED_SCHEMA}; results may be misread (rebuild against this checkout's header)"
                    )
                parsed.context = obj
            elif kind == "result":
                try:
                    parsed.records.append(self._record(obj))
                except (KeyError, TypeError, ValueError) as exc:
                    parsed.warnings.append(bad_line(binary, number, line, "jsonl", f"bad result record: {exc}"))
            else:
                parsed.warnings.append(bad_line(binary, number, line, "jsonl", "no \"type\": \"context\"|\"result\""))
        return parsed

    @staticmethod
    def _record(obj: dict) -> Record:
        raw = obj["samples"]
        if not isinstance(raw, list):
            raise TypeError("\"samples\" is not a list")
        # formats.md writes non-finite numbers as null; such a sample carries no value.
        samples = [float(v) for v in raw if v is not None and math.isfinite(float(v))]
        if not samples:
            raise ValueError("no finite samples")
        iterations = obj.get("iterations")
        return Record(
            bench=str(obj["bench"]),
            param=obj.get("param"),
            param_name=obj.get("param_name"),
            counter=obj.get("counter", "time"),
            unit=obj.get("unit", "ns"),
            iterations=int(iterations) if iterations is not None else None,
            sample_iterations=obj.get("sample_iterations"),
            samples=samples,
            reported={k: obj[k] for k in _REPORTED_FIELDS if k in obj},
        )
