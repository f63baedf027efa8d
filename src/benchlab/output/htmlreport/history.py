"""A run's history: the stored runs measured on the same machine, oldest first, and the
series of its figures over them.

Trend lines only mean something between runs of one machine: a level shift between two
hosts is the hosts, not the code. "The same machine" is noise.Machine (host name, CPU
model, kernel release, architecture; noise.py says why); platform and counter are
matched per series, not per run. The series are the history model's (statistics/series.py),
the one `benchlab history` prints: the same runs in the same order (by date, then id), the
same points with the same intervals, the same change points.

What is held of each run of a history is its row (its context cut to what a series reads)
and its figures, never its records: a report of 10,000 runs read 569 MB that way (issue 40).
"""
from __future__ import annotations

import dataclasses

from benchlab.output.figures import WORKLOAD_FORMAT
from benchlab.output.htmlreport.runs import StoredRun
from benchlab.records import Record
from benchlab.statistics import series as history_model
from benchlab.statistics.noise import Machine


@dataclasses.dataclass
class History:
    """The runs of the subject's machine up to it, oldest first, and what was read of them."""

    #: Each run as a StoredRun without records (the subject's own, whole).
    runs: list[StoredRun]
    #: (key, platform, binary) of the subject's figures -> their points over the runs.
    series: dict[tuple, list[history_model.Point]]
    #: The ids of the runs with measurements (a run of `benchlab profile` has none).
    measured: set[int]
    #: Each run's workload records (their charts read them per record), by run id.
    workloads: dict[int, list[Record]]

    def measured_runs(self) -> list[StoredRun]:
        return [stored for stored in self.runs if stored.id in self.measured]

    def __len__(self) -> int:
        return len(self.runs)


def history_runs(store, subject: StoredRun, limit: int) -> list[dict]:
    """The rows of the last `limit` runs up to `subject` (included) with its fingerprint,
    oldest first (by date, then id): read newest first and no further back than they go (a
    store of 10,000 runs costs what one of 1,000 does: bench/scale.py), each context cut to
    what a series reads (series.slim)."""
    wanted = Machine.of_run(subject.run)
    rows = []
    for row in store.runs_up_to(subject.id, wanted):  # the machine's runs (and a check of each)
        if Machine.of_run(row) == wanted:
            rows.append(history_model.slim(row))
            if len(rows) == limit:
                break
    rows.sort(key=lambda row: ((row.get("context") or {}).get("date") or row["started_at"] or "", row["id"]))
    return rows


def read_history(store, subject: StoredRun, latest: StoredRun, limit: int) -> History:
    """The history of `subject`'s machine up to it (history_runs) and the series of `latest`'s
    figures over it, read a page of runs at a time (series.read_runs)."""
    rows = history_runs(store, subject, limit)
    wanted = {(figure.key, figure.platform, figure.binary) for figure, _ in latest.figures()
              if figure.supported and figure.median is not None and figure.format != WORKLOAD_FORMAT}
    read = history_model.read_runs(store, rows, wanted, keep=lambda record: record.format == WORKLOAD_FORMAT)
    runs = [subject if row["id"] == subject.id else StoredRun(row, [], []) for row in rows]
    return History(runs, read.series, read.measured, read.kept)
