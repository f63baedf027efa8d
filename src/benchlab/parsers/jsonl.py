"""benchlab's canonical JSON Lines (docs/formats.md, schemas 1 and 2).

Three kinds of record besides the context:
- a result record of `time` or of another counter (`--counters`, docs/counters.md):
  one Record with its per-iteration samples; a counter the binary could not measure
  (`"supported": false`, a `reason`, no samples) is kept as an unsupported Record, so
  the table says `not supported: <reason>` instead of losing the row;
- a `throughput` record of a threaded target (docs/threads.md): one `throughput`
  Record in ops/s, and one `latency:opK_NAME` Record per operation, named and valued
  as the csb parser names them so that both formats of one binary give the same rows.
"""
from __future__ import annotations

import json
import math
from typing import Any

from benchlab.parsers.base import Parsed, bad_line, first_line
from benchlab.records import Record

#: Schema 1 wrote samples with the empty loop already subtracted; schema 2 writes them
#: as measured, with the empty loop's sample of each round in `overhead_samples`.
SUPPORTED_SCHEMAS = (1, 2)

#: Fields of a result record that the binary computed and we keep for reference;
#: the statistics themselves are recomputed from `samples`.
_REPORTED_FIELDS = (
    "median", "min", "max", "mean", "stddev", "p75", "p90", "p99", "mad", "median_ci",
    "ci_level", "ci_scope", "zero", "raw_median", "raw_median_ci", "subtracted", "stopped",
    "outliers_low", "outliers_high", "overhead", "baseline", "compared_to",
    "ratio", "ratio_ci", "ratio_of_medians", "significant",
    # counter records (formats.md, "Counter records")
    "supported", "reason", "source", "pass", "per_iteration", "kernel", "user", "running_fraction", "scaled",
)

#: Statistics of one operation of a throughput record that a latency Record keeps
#: (everything but the histogram, which stays in the throughput Record's `reported`).
_OP_FIELDS = ("op", "name", "freq", "count", "successes", "skipped", "timed", "min_ns", "max_ns", "mean_ns",
              "p50_ns", "p90_ns", "p99_ns", "p999_ns")

_KINDS = ("context", "result", "throughput")


def _finite(value: Any) -> float | None:
    """A number of the record as a float, or None for null (formats.md's non-finite)."""
    if value is None or isinstance(value, bool):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _overhead_samples(obj: dict, count: int) -> list[float] | None:
    """The empty loop's sample of each round, for a schema-2 time record that subtracted it."""
    values = obj.get("overhead_samples")
    if obj.get("subtracted") is not True or not isinstance(values, list) or len(values) != count:
        return None
    numbers = [_finite(v) for v in values]
    return None if any(v is None for v in numbers) else numbers


class JsonlParser:
    name = "jsonl"

    def sniff(self, text: str) -> bool:
        line = first_line(text)
        if not line.startswith("{"):
            return False
        try:
            return json.loads(line).get("type") in _KINDS
        except (ValueError, AttributeError):
            return False

    def parse(self, text: str, binary: str) -> Parsed:
        parsed = Parsed()
        schema = SUPPORTED_SCHEMAS[-1]
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
                schema = obj.get("schema")
                if schema not in SUPPORTED_SCHEMAS:
                    parsed.warnings.append(
                        f"{binary}: jsonl schema {schema!r}, this benchlab reads schemas "
                        f"{', '.join(map(str, SUPPORTED_SCHEMAS))}; results may be misread (rebuild against this checkout's header)"
                    )
                parsed.context = obj
            elif kind == "result":
                try:
                    parsed.records.append(self._record(obj, schema))
                except (KeyError, TypeError, ValueError) as exc:
                    parsed.warnings.append(bad_line(binary, number, line, "jsonl", f"bad result record: {exc}"))
            elif kind == "throughput":
                try:
                    parsed.records.extend(self._throughput(obj))
                except (KeyError, TypeError, ValueError) as exc:
                    parsed.warnings.append(bad_line(binary, number, line, "jsonl", f"bad throughput record: {exc}"))
            else:
                parsed.warnings.append(bad_line(binary, number, line, "jsonl",
                                                "no \"type\": \"context\"|\"result\"|\"throughput\""))
        return parsed

    @staticmethod
    def _record(obj: dict, schema: object = SUPPORTED_SCHEMAS[-1]) -> Record:
        raw = obj["samples"]
        if not isinstance(raw, list):
            raise TypeError("\"samples\" is not a list")
        iterations = obj.get("iterations")
        common = dict(
            bench=str(obj["bench"]),
            param=obj.get("param"),
            param_name=obj.get("param_name"),
            counter=obj.get("counter", "time"),
            unit=obj.get("unit", "ns"),
            reported={k: obj[k] for k in _REPORTED_FIELDS if k in obj},
        )
        if obj.get("supported") is False:
            # A counter that cannot be measured here: no samples by design, never zeros.
            common["reported"].setdefault("reason", "no reason given")
            return Record(samples=[], sample_iterations=[], **common)
        # formats.md writes non-finite numbers as null; such a sample carries no value.
        samples = [float(v) for v in raw if v is not None and math.isfinite(float(v))]
        if not samples:
            raise ValueError("no finite samples")
        return Record(
            iterations=int(iterations) if iterations is not None else None,
            sample_iterations=obj.get("sample_iterations"),
            samples=samples,
            overhead_samples=_overhead_samples(obj, len(samples)) if schema != 1 else None,
            **common,
        )

    @staticmethod
    def _throughput(obj: dict) -> list[Record]:
        """A threaded target's run: throughput (ops/s) and each operation's latency (ns).

        The figure is `throughput`, the sum of each thread's operations over its own
        window: the header's headline number (its table prints it first). CSB's pair,
        `throughput_min` (all operations over the longest window) and `throughput_max`,
        are in `reported` with everything else the record says, histograms included.
        `param` is the thread count, as the csb parser's, so a sweep over threads
        lines up whichever of the two formats a binary printed.
        """
        threads = obj.get("threads")
        common = dict(bench=str(obj["target"]), param=int(threads) if threads is not None else None,
                      param_name="threads")
        reported = {k: v for k, v in obj.items() if k != "type"}
        if obj.get("supported") is False:
            reported.setdefault("reason", "no reason given")
            return [Record(counter="throughput", unit=str(obj.get("unit", "ops/s")), samples=[],
                           sample_iterations=[], reported=reported, **common)]
        throughput = _finite(obj["throughput"])
        if throughput is None:
            raise ValueError("\"throughput\" is not a finite number")
        every = obj.get("all") or {}
        count = _finite(every.get("count"))
        if count is None:
            count = sum(_finite(t.get("ops")) or 0 for t in obj.get("per_thread") or [])
        records = [Record(counter="throughput", unit=str(obj.get("unit", "ops/s")), samples=[throughput],
                          iterations=int(count), reported=reported, **common)]
        for op in obj.get("ops") or []:
            # The mean latency, as CSB's opK_NAME_avg: the same figure from either format.
            # Nothing timed (--latency-every=0) means no latency, not a zero one.
            mean = _finite(op.get("mean_ns"))
            if mean is None:
                continue
            timed = _finite(op.get("timed"))
            records.append(Record(
                counter=f"latency:op{op['op']}_{op['name']}", unit="ns", samples=[mean],
                iterations=int(timed) if timed is not None else None,
                reported={k: op[k] for k in _OP_FIELDS if k in op}, **common))
        return records
