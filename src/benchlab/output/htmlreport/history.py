"""A run's history: the stored runs measured on the same machine, oldest first.

Trend lines only mean something between runs of one machine: a level shift between two
hosts is the hosts, not the code. "The same machine" is noise.Machine (host name, CPU
model, kernel release, architecture; noise.py says why); platform and counter are
matched per series, not per run. Runs are in the order `history` puts them: by date,
then id.
"""
from __future__ import annotations

from benchlab.statistics.noise import Machine
from benchlab.output.htmlreport.runs import StoredRun, load_id
from benchlab.records import Record
from benchlab.statistics.combine import figures


def history_runs(store, subject: StoredRun, limit: int) -> list[StoredRun]:
    """The last `limit` runs up to `subject` (included) with its fingerprint, oldest first:
    read newest first and no further back than they go (a store of 10,000 runs costs what one
    of 1,000 does: bench/scale.py)."""
    wanted = Machine.of_run(subject.run)
    rows = []
    for row in store.runs_up_to(subject.id):
        if Machine.of_run(row) == wanted:
            rows.append(row)
            if len(rows) == limit:
                break
    rows.sort(key=lambda row: ((row.get("context") or {}).get("date") or row["started_at"] or "", row["id"]))
    return [subject if row["id"] == subject.id else load_id(store, row["id"]) for row in rows]


def series(history: list[StoredRun]) -> dict[tuple, list[tuple[StoredRun, Record]]]:
    """Per (key, platform, binary): each run's combined figure, in the runs' order."""
    result: dict[tuple, list[tuple[StoredRun, Record]]] = {}
    for stored in history:
        for record in figures(stored.records, stored.levels):
            if record.supported and record.median is not None:
                result.setdefault((record.key, record.platform, record.binary), []).append((stored, record))
    return result
