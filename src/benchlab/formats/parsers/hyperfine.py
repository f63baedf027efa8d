"""hyperfine's `--export-json` file: whole commands, each timed over several runs.

    {"results": [{"command": "true", "mean": ..., "median": ..., "user": ..., "system": ...,
                  "min": ..., "max": ..., "times": [0.00118, 0.00091, ...], "exit_codes": [0, 0, ...],
                  "parameters": {"n": "1"}}]}

Each result becomes one `wall` record whose samples are its `times`, **in seconds**,
as the file gives them and as benchlab's own whole-command workloads store their wall
time (docs/cli.md, "Whole-command workloads"), so the two line up and nothing is
rounded by a conversion. hyperfine gives user and system time as means only, one
figure for all runs: those are kept in `reported` with its other statistics, never
stored as samples. hyperfine 1.17 and later also write `memory_usage_byte`, the peak
RSS of each run: it becomes a `max_rss` record in KiB, as a workload's.

A result with a bad value is a warning naming its index (`results[2]`) and the value;
the other results are kept.
"""
from __future__ import annotations

from typing import Any

from benchlab.formats.parsers.base import BadValue, Parsed, clean_reported, figure, name, param_value, show
from benchlab.records import Record

#: The file's own statistics of each command, kept for reference (ours are recomputed from `times`).
_REPORTED = ("mean", "stddev", "median", "user", "system", "min", "max")


class HyperfineParser:
    name = "hyperfine"

    def sniff_object(self, document: Any) -> bool:
        if not isinstance(document, dict) or not isinstance(document.get("results"), list):
            return False
        results = document["results"]
        return not results or (isinstance(results[0], dict) and "command" in results[0])

    def parse_object(self, document: Any, binary: str, parsed: Parsed) -> None:
        results = document.get("results") if isinstance(document, dict) else None
        if not isinstance(results, list):
            parsed.warn(f"{binary}: hyperfine \"results\" is {show(results)}, not a list")
            return
        commands = []
        for index, result in enumerate(results):
            try:
                records = _records(result)
            except BadValue as bad:
                parsed.warn(f"{binary}: hyperfine results[{index}]: {bad}")
                continue
            commands.append({"command": records[0].bench, "parameters": records[0].reported.get("parameters")})
            parsed.records.extend(records)
        # The commands as hyperfine named them (`--command-name`, parameters): the run's context.
        parsed.context = {"tool": "hyperfine", "commands": commands}


def _records(result: Any) -> list[Record]:
    if not isinstance(result, dict):
        raise BadValue(f"not an object: {show(result)}")
    try:
        command = name(result.get("command"), "command")
    except BadValue as bad:  # the store keeps names of up to 255 characters; hyperfine can name a command
        raise BadValue(f"{bad}; give it a shorter name with hyperfine's --command-name") from None
    times = result.get("times")
    if not isinstance(times, list) or not times:
        raise BadValue(f"times must be a non-empty list of seconds, got {show(times)}")
    samples = [figure(t, f"times[{i}]", minimum=0) for i, t in enumerate(times)]
    parameters = result.get("parameters")
    if parameters is not None and not isinstance(parameters, dict):
        raise BadValue(f"parameters must be an object, got {show(parameters)}")
    param, param_name = _param(parameters or {})
    reported: dict[str, Any] = {}
    for key in _REPORTED:
        if result.get(key) is not None:
            reported[key] = figure(result[key], key)
    for key in ("exit_codes", "parameters"):
        if result.get(key) is not None:
            reported[key] = clean_reported(result[key])
    common = dict(bench=command, param=param, param_name=param_name, iterations=1, reported=reported)
    records = [Record(counter="wall", unit="s", samples=samples, **common)]
    memory = result.get("memory_usage_byte")
    if memory is not None:
        if not isinstance(memory, list) or len(memory) != len(samples):
            raise BadValue(f"memory_usage_byte must be a list of {len(samples)} numbers, one per run")
        # bytes / 1024 is exact in binary floating point: KiB, the unit of a workload's max_rss
        rss = [figure(m, f"memory_usage_byte[{i}]", minimum=0) / 1024 for i, m in enumerate(memory)]
        records.append(Record(counter="max_rss", unit="KiB", samples=rss, **common))
    return records


def _param(parameters: dict[str, Any]) -> tuple[int | None, str | None]:
    """A single integer parameter (`-P n 1 8`, `-L size 64,1024`) is the record's param, so
    that a scan lines up as a sweep; other parameters stay in `reported` only."""
    if len(parameters) != 1:
        return None, None
    (key, value), = parameters.items()
    try:
        return param_value(value), name(key, "parameter name")
    except BadValue:
        return None, None
