"""The stored runs a report shows, loaded once through the store API.

Every figure on the page comes from here, combined by the same code `benchlab show`
uses (combine.py, combine.figures), so the page and the table never disagree.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from benchlab.statistics.combine import combine_group, process_groups
from benchlab.errors import UserError
from benchlab.records import Fault, Record
from benchlab.output.table import Table
from benchlab.statistics.noise import Machine

#: Runs of a history the trend charts show at most (the latest ones): a page of a thousand
#: points per line says no more than one of fifty (and each run's records are read to make them).
DEFAULT_HISTORY_RUNS = 50


@dataclasses.dataclass
class StoredRun:
    """One stored run: its row (`run`), its records as stored (one per process) and faults."""

    run: dict[str, Any]
    records: list[Record]
    faults: list[Fault]
    #: The spread between whole runs before this one on its machine (noise.run_levels), which
    #: `show` and `compare` add to this run's intervals: the page adds it too.
    levels: dict[tuple, Any] = dataclasses.field(default_factory=dict)
    _table: Table | None = dataclasses.field(default=None, repr=False, compare=False)
    _figures: list | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def id(self) -> int:
        return int(self.run["id"])

    @property
    def context(self) -> dict[str, Any]:
        return self.run.get("context") or {}

    @property
    def platforms(self) -> list[str]:
        return list(self.run.get("platforms") or [])

    @property
    def date(self) -> str:
        return self.context.get("date") or self.run.get("started_at") or ""

    @property
    def host(self) -> str:
        return self.run.get("host") or self.context.get("host") or ""

    @property
    def commit(self) -> str:
        """The git commit, short, with `+` when the tree had uncommitted changes (as `baseline list`)."""
        git = self.context.get("git") or {}
        commit = (git.get("commit") or "")[:10]
        return commit + ("+" if commit and git.get("dirty") else "")

    @property
    def label(self) -> str:
        return f"run {self.id}"

    def report(self) -> Table:
        """The table of `benchlab show` for this run (made once: the summary and several pages read it)."""
        if self._table is None:
            self._table = Table(platforms=self.platforms, records=self.records, faults=self.faults,
                                run={"id": self.id, "status": self.run.get("status"),
                                     "started_at": self.run.get("started_at"), "context": self.context,
                                     "missing": self.run.get("missing")}, history=self.levels)
        return self._table

    def figures(self) -> list[tuple[Record, list[Record]]]:
        """Each figure of the run (as combine.figures gives it) with the per-process records it
        combines, so that a chart can show the processes and the figure side by side (made once)."""
        if self._figures is None:
            self._figures = figures_with_processes(self.records, self.levels)
        return self._figures


def figures_with_processes(records: list[Record], levels: dict | None = None) -> list[tuple[Record, list[Record]]]:
    """Each figure with the records it combines, in combine.figures' order (the run's plan)."""
    pairs = [(combine_group(group, levels), group) for group in process_groups(records)]
    return sorted(pairs, key=lambda pair: pair[0].reported.get("unit", 0))


def check_not_empty(store) -> None:
    if not store.list_runs(limit=1):
        raise UserError(f"the database {store.url} has no runs to report",
                        "store one first: benchlab run TARGET, or benchlab import FILE")


def load(store, run_text: str) -> StoredRun:
    """A run as `show` names it: an id, `latest`, -N or a baseline's name."""
    return load_id(store, store.resolve_run_id(run_text))


def load_id(store, run_id: int) -> StoredRun:
    run, records, faults = store.load_run(run_id)
    return StoredRun(run, records, faults, store.run_levels(run_id, run.get("context") or {}) if records else {})


def load_reference(store, text: str) -> tuple[str, StoredRun]:
    """--baseline: a baseline's name, or any run as `show` names it (as `gate --baseline`
    takes it); its label on the page, and the run."""
    stored = load(store, text)
    named = bool(store.list_baselines(text))
    return (f"baseline {text} (run {stored.id})" if named else f"run {stored.id}"), stored


#: Runs looked through, newest first, for the latest with measurements before every run is.
DEFAULT_LOOKBACK = 50


def load_default(store) -> tuple[StoredRun, StoredRun]:
    """The run a report shows when none is named, and the newest run of its machine.

    Not simply the latest: a run of `benchlab profile` stores buckets, no records, and a page
    about it alone would be nearly empty. The run shown is the latest with measurements (or
    faults: a run that failed whole is news too); the newest run (a profile after it) still
    bounds the history, so that its profile is on the page."""
    rows = store.list_runs(limit=DEFAULT_LOOKBACK)
    measured = next((row for row in rows if row["records"] or row["faults"]), None)
    if measured is None and len(rows) == DEFAULT_LOOKBACK:
        measured = next((row for row in store.list_runs() if row["records"] or row["faults"]), None)
    newest = load_id(store, int(rows[0]["id"]))
    if measured is None or int(measured["id"]) == newest.id:
        return newest, newest
    subject = load_id(store, int(measured["id"]))
    same_machine = Machine.of_run(subject.run) == Machine.of_run(newest.run)
    return subject, (newest if same_machine else subject)
