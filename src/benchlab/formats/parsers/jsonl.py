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
from typing import Any

from benchlab.formats.parsers.base import (
    BadValue, LineSession, Parsed, bad_line, clean_reported, figure, name, param_value, show, whole)
from benchlab.records import CONTENTION_FIELDS, Record
from benchlab.statistics import difference
from benchlab.stats import STATISTICS

#: Schema 1 wrote samples with the empty loop already subtracted; schema 2 writes them
#: as measured, with the empty loop's sample of each round in `overhead_samples`.
SUPPORTED_SCHEMAS = (1, 2)

#: Fields of a result record that the binary computed and we keep for reference;
#: the statistics themselves are recomputed from `samples`.
_REPORTED_FIELDS = (
    *STATISTICS, "median_ci",
    "ci_level", "ci_scope", "zero", "raw_median", "raw_median_ci", "subtracted", "stopped",
    "outliers_low", "outliers_high", "overhead", "loop_share", "baseline", "compared_to",
    "ratio", "ratio_ci", "ratio_of_medians", "significant",
    # BL_DIFFERENCE: the base's name and the binary's own figure of the difference to it
    "difference_to", "difference", "difference_ci",
    # counter records (formats.md, "Counter records")
    "supported", "reason", "source", "pass", "per_iteration", "kernel", "user", "running_fraction", "scaled",
    # instruction counts under callgrind (benchlab.profiling.callgrind): exact, the same on every run
    "deterministic", "region_totals", "system_calls",
    # what the kernel says the samples lost to other tasks, and calibration under load (formats.md, "Contention")
    *CONTENTION_FIELDS, "short_samples", "widened_to",
)
#: Reported fields that are numbers (or null) in formats.md: anything else is dropped with a warning,
#: so no later comparison (the binary's median against ours) meets a string or an object.
_REPORTED_NUMBERS = (*STATISTICS, "ci_level", "outliers_low", "outliers_high", "overhead", "loop_share", "ratio", "difference",
                     "ratio_of_medians", "running_fraction", "raw_median", "run_delay_ns", "sampled_ns",
                     "system_calls", "widened_to")
_REPORTED_PAIRS = ("median_ci", "ratio_ci", "raw_median_ci", "difference_ci")
#: Reported fields that are counts (or null).
_REPORTED_COUNTS = ("preempted", "left_out", "involuntary_switches")
#: Reported fields that are true or false.
_REPORTED_FLAGS = ("short_samples",)

#: Statistics of one operation of a throughput record that a latency Record keeps
#: (everything but the histogram, which stays in the throughput Record's `reported`).
_OP_FIELDS = ("op", "name", "freq", "count", "successes", "skipped", "timed", "min_ns", "max_ns", "mean_ns",
              "p50_ns", "p90_ns", "p99_ns", "p999_ns")

_KINDS = ("context", "result", "throughput")


def _loads(line: str) -> Any:
    """json.loads that fails only with ValueError: nesting too deep for the parser is a bad line too."""
    try:
        return json.loads(line)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _optional(value: Any, what: str) -> float | None:
    """A number of the record as a float, or None for null (formats.md's non-finite)."""
    if value is None:
        return None
    return figure(value, what)


class JsonlParser:
    name = "jsonl"

    def __init__(self, stored: bool = False):
        #: Also read what `benchlab export` adds to a result record (`platform`, `binary`,
        #: `format`, `sweep`, `reported`: where a stored record came from). Only `benchlab
        #: import` asks for it: a benchmark binary's output has no say in those.
        self.stored = stored

    def sniff(self, line: str) -> bool:
        if not line.startswith("{"):
            return False
        try:
            obj = _loads(line)
        except ValueError:
            return False
        return isinstance(obj, dict) and obj.get("type") in _KINDS

    def session(self, binary: str, parsed: Parsed) -> "_Session":
        return _Session(binary, parsed, self.stored)


class _Session(LineSession):
    def __init__(self, binary: str, parsed: Parsed, stored: bool = False):
        super().__init__(binary, parsed)
        self.schema = SUPPORTED_SCHEMAS[-1]  # until a context record says otherwise
        self.stored = stored

    def _bad(self, number: int, line: str, why: str) -> None:
        self.parsed.warn(bad_line(self.binary, number, line, "jsonl", why))

    def feed(self, number: int, line: str) -> bool:
        if not line.startswith("{"):
            return False
        try:
            obj = _loads(line)
        except ValueError as exc:
            # JSONDecodeError has .msg; a number too long to convert is a plain ValueError.
            self._bad(number, line, f"not JSON: {getattr(exc, 'msg', None) or exc}")
            return True
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind == "context":
            self.schema = obj.get("schema")
            if self.schema not in SUPPORTED_SCHEMAS:
                self.parsed.warn(
                    f"{self.binary}: jsonl schema {show(self.schema)}, this benchlab reads schemas "
                    f"{', '.join(map(str, SUPPORTED_SCHEMAS))}; results may be misread "
                    "(rebuild against this checkout's header)")
            self.parsed.context = clean_reported(obj)
        elif kind in ("result", "throughput"):
            try:
                records = ([_record(obj, self.warn_at(number, line), self.schema)] if kind == "result"
                           else _throughput(obj))
                if self.stored and kind == "result":
                    _stored_fields(records[0], obj)
            except (BadValue, KeyError, TypeError) as exc:
                why = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
                self._bad(number, line, f"bad {kind} record: {why}")
                return True
            self.parsed.records.extend(records)
        else:
            self._bad(number, line, 'no "type": "context"|"result"|"throughput"')
        return True

    def warn_at(self, number: int, line: str):
        """A warning about one value of a line whose record is kept."""
        return lambda why: self.parsed.warn(f"{self.binary}: line {number}: {why}")

    def reject(self, number: int, line: str) -> None:
        self._bad(number, line, "not JSON: a line of jsonl output starts with {")

    def finish(self) -> None:
        pass


def _record(obj: dict, warn, schema: object = SUPPORTED_SCHEMAS[-1]) -> Record:
    raw = obj["samples"]
    if not isinstance(raw, list):
        raise BadValue('"samples" is not a list')
    reported = _reported(obj, warn)
    common = dict(
        bench=name(obj["bench"], "bench"),
        param=param_value(obj.get("param"), text=True),
        param_name=name(obj["param_name"], "param_name") if obj.get("param_name") is not None else None,
        counter=name(obj.get("counter", "time"), "counter"),
        unit=name(obj.get("unit", "ns"), "unit", limit=32),
        reported=reported,
    )
    if obj.get("supported") is False:
        # A counter that cannot be measured here: no samples by design, never zeros.
        reported.setdefault("reason", "no reason given")
        return Record(samples=[], sample_iterations=[], **common)
    iterations = obj.get("iterations")
    per_sample = obj.get("sample_iterations")
    if per_sample is not None:
        try:
            if not isinstance(per_sample, list) or len(per_sample) != len(raw):
                raise BadValue(f"sample_iterations must be a list of {len(raw)} counts, one per sample")
            per_sample = [whole(count, "sample_iterations[]") for count in per_sample]
        except BadValue as bad:
            warn(f"{bad}; the samples are kept without it")
            per_sample = None
    samples, counts = [], []
    for index, value in enumerate(raw):
        if value is None:
            continue  # formats.md writes non-finite numbers as null: such a sample carries no value
        try:
            samples.append(figure(value, f"samples[{index}]"))
        except BadValue as bad:
            warn(f"{bad}; that sample is left out")
            continue
        if per_sample is not None:
            counts.append(per_sample[index])
    if not samples:
        raise BadValue("no finite samples")
    overhead = _overhead_samples(obj, raw, warn) if schema != 1 and len(samples) == len(raw) else None
    if len(samples) == len(raw) and "base_samples" in obj:
        base = _base_samples(obj, raw, warn)
        if base is not None:
            common["reported"]["base_samples"] = base
    return Record(
        iterations=whole(iterations, "iterations") if iterations is not None else None,
        sample_iterations=counts if per_sample is not None else None,
        samples=samples,
        overhead_samples=overhead,
        **common,
    )


def _stored_fields(record: Record, obj: dict) -> None:
    """Where a record of `benchlab export` came from, as the store keeps it (formats.md, "Export")."""
    for key in ("platform", "binary"):
        if obj.get(key) is not None:
            setattr(record, key, name(obj[key], key))
    if obj.get("format") is not None:
        record.format = name(obj["format"], "format", limit=32)
    sweep = obj.get("sweep")
    if sweep is not None:
        if not isinstance(sweep, dict) or not isinstance(sweep.get("flag"), str) or "value" not in sweep:
            raise BadValue(f'sweep must be {{"flag": ..., "value": ...}}, got {show(sweep)}')
        value = sweep["value"]
        # a row of the table is keyed by it: a scalar
        if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int, float))):
            raise BadValue(f"sweep value must be a string or a number, got {show(value)}")
        record.sweep = {"flag": sweep["flag"], "value": clean_reported(value)}
    reported = obj.get("reported")
    if reported is not None:
        if not isinstance(reported, dict):
            raise BadValue(f"reported must be an object, got {show(reported)}")
        # As stored: it replaces the statistics read from the record's own fields, which
        # the export wrote from the record's summary, not from what its binary reported.
        record.reported = clean_reported(reported)
        _check_stored_reported(record)
        for key in ("process", "unit"):  # which process, and its place in the plan: what records are grouped and ordered by
            if record.reported.get(key) is not None:
                record.reported[key] = whole(record.reported[key], f"reported.{key}", minimum=0)
        _check_contention(record.reported)


def _check_stored_reported(record: Record) -> None:
    """The fields of a stored record's `reported` that a binary's record has at its top level,
    checked as they are there (`_checked`), and BL_DIFFERENCE's base samples and combined
    figure: a string there broke `show` of the imported run for good (issue 37)."""
    reported = record.reported
    for key in _REPORTED_FIELDS:
        if key in reported:
            try:
                reported[key] = clean_reported(_checked(key, reported[key]))
            except BadValue as bad:
                raise BadValue(f"reported.{bad}") from None
    if "base_samples" in reported:
        values = reported["base_samples"]
        if not isinstance(values, list) or len(values) != len(record.samples) or None in values:
            raise BadValue(f"reported.base_samples must be a list of {len(record.samples)} numbers, one per sample, "
                           f"got {show(values)}")
        reported["base_samples"] = [figure(v, "reported.base_samples[]") for v in values]
    combined = reported.get(difference.COMBINED_KEY)
    if difference.COMBINED_KEY in reported and difference.Difference.from_dict(combined) is None:
        raise BadValue(f"reported.{difference.COMBINED_KEY} must be {{base, value, low, high, processes, scope}} "
                       f"of their types, got {show(combined)}")


def _check_contention(reported: dict) -> None:
    """The contention fields of a stored record's `reported`, of the types formats.md gives
    them: summed over processes and runs, so a string there would fail far from here."""
    for key in _REPORTED_COUNTS:
        if reported.get(key) is not None:
            reported[key] = whole(reported[key], f"reported.{key}", minimum=0)
    for key in ("run_delay_ns", "sampled_ns"):
        if reported.get(key) is not None:
            reported[key] = figure(reported[key], f"reported.{key}", minimum=0)
    if "short_samples" in reported and not isinstance(reported["short_samples"], bool):
        raise BadValue(f"reported.short_samples must be true or false, got {show(reported['short_samples'])}")


def _overhead_samples(obj: dict, raw: list, warn) -> list[float] | None:
    """The empty loop's sample of each round, for a schema-2 time record that subtracted it
    (formats.md); without a usable list the record's figures stay as measured."""
    if obj.get("subtracted") is not True or obj.get("overhead_samples") is None:
        return None
    return _per_round(obj, "overhead_samples", raw, warn, "the figures are left as measured")


def _base_samples(obj: dict, raw: list, warn) -> list[float] | None:
    """BL_DIFFERENCE's base: its sample of each round, kept in `reported` (the store needs
    no column for it) for statistics.difference to pair with the record's own samples."""
    return _per_round(obj, "base_samples", raw, warn, f"the difference to {show(obj.get('difference_to'))} is left out")


def _per_round(obj: dict, key: str, raw: list, warn, without: str) -> list[float] | None:
    """A list of one number per round beside `samples` (`raw`), or None after a warning
    that says what is `without` it."""
    values = obj.get(key)
    try:
        if not isinstance(values, list) or len(values) != len(raw):
            raise BadValue(f"{key} must be a list of {len(raw)} numbers, one per sample")
        return [figure(v, f"{key}[]") for v in values]
    except BadValue as bad:
        warn(f"{bad}; {without}")
        return None


def _reported(obj: dict, warn) -> dict[str, Any]:
    """The binary's own statistics and flags, each of the type formats.md gives it, or left out."""
    reported = {}
    for key in _REPORTED_FIELDS:
        if key not in obj:
            continue
        try:
            value = _checked(key, obj[key])
        except BadValue as bad:
            warn(f"{bad}; the binary's {key} is left out")
            continue
        reported[key] = clean_reported(value)
    return reported


def _checked(key: str, value: Any) -> Any:
    """One of _REPORTED_FIELDS, of the type formats.md gives it; BadValue if not."""
    if key in _REPORTED_NUMBERS:
        value = _optional(value, key)
        if key in ("run_delay_ns", "sampled_ns") and value is not None and value < 0:
            raise BadValue(f"{key} must be >= 0, got {show(value)}")
    elif key in _REPORTED_COUNTS:
        value = whole(value, key, minimum=0) if value is not None else None
    elif key == "difference_to":
        value = name(value, key)
    elif key in _REPORTED_FLAGS and not isinstance(value, bool):
        raise BadValue(f"{key} must be true or false, got {show(value)}")
    elif key in _REPORTED_PAIRS and value is not None:
        if not isinstance(value, list) or len(value) != 2:
            raise BadValue(f"{key} must be a [low, high] pair, got {show(value)}")
        value = [figure(v, key) for v in value]
    return value


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
    common = dict(bench=name(obj["target"], "target"),
                  param=whole(threads, "threads") if threads is not None else None, param_name="threads")
    reported = clean_reported({k: v for k, v in obj.items() if k != "type"})
    unit = name(obj.get("unit", "ops/s"), "unit", limit=32)
    if obj.get("supported") is False:
        reported.setdefault("reason", "no reason given")
        return [Record(counter="throughput", unit=unit, samples=[], sample_iterations=[], reported=reported,
                       **common)]
    throughput = figure(obj["throughput"], "throughput", minimum=0)
    every = obj.get("all") or {}
    if not isinstance(every, dict):
        raise BadValue('"all" is not an object')
    if every.get("count") is not None:
        count = whole(every["count"], "all.count", minimum=0)
    else:
        threads_list = obj.get("per_thread") or []
        if not isinstance(threads_list, list) or not all(isinstance(t, dict) for t in threads_list):
            raise BadValue('"per_thread" is not a list of objects')
        count = whole(sum(whole(t.get("ops") or 0, "per_thread[].ops", minimum=0) for t in threads_list),
                      "total ops", minimum=0)
    records = [Record(counter="throughput", unit=unit, samples=[throughput], iterations=count,
                      reported=reported, **common)]
    ops = obj.get("ops") or []
    if not isinstance(ops, list) or not all(isinstance(op, dict) for op in ops):
        raise BadValue('"ops" is not a list of objects')
    for op in ops:
        # The mean latency, as CSB's opK_NAME_avg: the same figure from either format.
        # Nothing timed (--latency-every=0) means no latency, not a zero one.
        mean = _optional(op.get("mean_ns"), "ops[].mean_ns")
        if mean is None:
            continue
        if mean < 0:
            raise BadValue(f"ops[].mean_ns must be >= 0, got {show(mean)}")
        timed = op.get("timed")
        counter = name(f"latency:op{whole(op['op'], 'ops[].op', minimum=0)}_{name(op['name'], 'ops[].name')}",
                       "operation")
        records.append(Record(
            counter=counter, unit="ns", samples=[mean],
            iterations=whole(timed, "ops[].timed", minimum=0) if timed is not None else None,
            reported=clean_reported({k: op[k] for k in _OP_FIELDS if k in op}), **common))
    return records
