"""A stored run as github-action-benchmark's `customSmallerIsBetter` input (formats.md, "Export").

benchmark-action/github-action-benchmark keeps a chart per benchmark across commits (on
GitHub Pages) and comments when one moves past its alert threshold. Its custom tools read
a JSON array of entries, each `name`, `unit` and `value` (required), `range` and `extra`
(optional strings: its `src/extract.ts` checks them with zod, coercing each to its type).

One entry per figure the table shows, i.e. per (row, platform) with a figure: `value` is
that figure (the run's processes combined, combine.py), never the raw samples `gbench`
writes as repetitions. `range` is its interval as the tool writes ranges itself,
`± H`: the tool reads a number after `±` (its extractRangeInfo) and converts it with the
value when the unit changes between runs (ns to us). benchlab's intervals need not be
symmetric, so H is the larger side, and `extra` (the tooltip) gives the interval itself,
what it covers, the processes and iterations, and the run and commit.

Every entry of a `customSmallerIsBetter` file is smaller-is-better, so throughput (more
is better) is left out; every other counter, one of your own too, is taken as
smaller-is-better.
"""
from __future__ import annotations

import json
from typing import Any

from benchlab.errors import UserError
from benchlab.output.figures import UNINFORMATIVE_WORD, figure_interval, interval_bounds_text
from benchlab.output.table import OK, Row, Table
from benchlab.records import Record

#: Counters whose larger value is better: they do not fit a smaller-is-better file.
LARGER_IS_BETTER = ("throughput",)


def render(table: Table) -> str:
    run = table.run or {}
    commit = ((run.get("context") or {}).get("git") or {}).get("commit")
    entries = [_entry(row, platform, row.cells[platform].record, run.get("id"), commit)
               for row in table.rows if not row.failed and row.counter not in LARGER_IS_BETTER
               for platform in table.platforms
               if platform in row.cells and row.cells[platform].status == OK]
    if not entries:
        raise UserError(f"run {run.get('id')} has no figure to write as github-action-benchmark's "
                        "customSmallerIsBetter JSON (its throughput rows are larger-is-better)",
                        "export it as jsonl or csv")
    return json.dumps(entries, indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def entry_name(row: Row, platform: str) -> str:
    """`bench/param [counter] @sweep (platform)`: the chart's title, the same in every run."""
    name = row.test if row.param is None else f"{row.test}/{row.param}"
    if row.counter != "time":
        name += f" [{row.counter}]"
    if row.sweep_value is not None:
        name += f" @{row.sweep_value}"
    if row.binary is not None:
        name = f"{row.binary}: {name}"
    return f"{name} ({platform})"


def _entry(row: Row, platform: str, record: Record, run_id: Any, commit: str | None) -> dict[str, str | float]:
    entry: dict[str, str | float] = {"name": entry_name(row, platform), "unit": record.unit,
                                     "value": float(record.median)}
    interval = figure_interval(record)
    extra = []
    if interval is not None:
        low, high = interval
        entry["range"] = f"± {max(high - record.median, record.median - low):.6g}"
        covers = "a rerun" if record.figures.processes > 1 else "this process"
        # as every output says it: an interval as wide as the figure bounds nothing (figures.py)
        uninformative = "; uninformative: as wide as the figure" if interval_bounds_text(
            record.median, interval) == UNINFORMATIVE_WORD else ""
        extra.append(f"99% interval: [{low:.6g}, {high:.6g}] {record.unit} (covers {covers}{uninformative})")
    extra.append(f"processes: {record.figures.processes}")
    if record.iterations:
        extra.append(f"iterations: {record.iterations}")
    extra.append(f"benchlab run {run_id}" + (f", commit {commit[:12]}" if commit else ""))
    entry["extra"] = "\n".join(extra)
    return entry
