"""A run kept while it runs: each process's results stored as it finishes, the run's
context (what ran, which code, in what order) kept up to date, and the run closed
cleanly however it ends (finished, a full disk, Ctrl-C or SIGTERM).

The session (session.py) decides what runs and when it stops; the Recorder here is its
listener, and a progress object (the command's bar or lines) is the Recorder's. A run
that cannot store a unit (a full disk) keeps it in memory, tries again at the end and
goes on: its measurements are printed either way, and the run is never left 'running'.
"""
from __future__ import annotations

import contextlib
import signal
from typing import Callable, Protocol

from benchlab.measuring import context as run_context
from benchlab.statistics import noise
from benchlab import signals
from benchlab.errors import ExitCode, Interrupted, StoreFailed, UserError
from benchlab.measuring import trust
from benchlab.measuring.session import Outcome, Session


class Progress(Protocol):
    """What the Recorder tells whoever shows the run's progress."""

    def start(self, label: str) -> None: ...   # a process starts
    def finished(self) -> None: ...            # a process finished
    def skipped(self) -> None: ...             # a unit whose build failed: nothing to run


def unit_key(unit) -> dict:
    """A unit as the store records it: what `benchlab show` compares with the plan."""
    return {"binary": unit.target.name, "platform": unit.platform.name, "sweep": unit.sweep_value}


class RunStorage:
    """The run in the database, one unit committed as it finishes (see the module's docstring)."""

    def __init__(self, store, warn: Callable[[str], None]):
        self.store = store
        self.warn = warn
        self.run_id: int | None = None
        self.pending: list[tuple] = []
        self.stored_records = 0

    def begin(self, argv, platforms, info) -> int:
        self.run_id = self.store.begin_run(argv, platforms, info)
        return self.run_id

    def add(self, records, faults, key) -> None:
        try:
            self.store.add_unit(self.run_id, records, faults, key)
            self.stored_records += len(records)
        except StoreFailed as failure:
            if not self.pending:
                self.warn(f"{failure.what}; the run goes on and keeps its results in memory")
            self.pending.append((records, faults, key))
            self.store.reclaim()  # the failed write's space, for the units still to come

    def close(self, info, status, exit_code) -> StoreFailed | None:
        """Store what could not be stored yet, then the context and the final status; the last failure, if any."""
        problem = None
        if self.pending:
            self.store.reclaim()
        for unit in list(self.pending):
            try:
                self.store.add_unit(self.run_id, *unit)
                self.pending.remove(unit)
                self.stored_records += len(unit[0])
            except StoreFailed as failure:
                problem = failure
        if self.pending and status != "interrupted":
            # Measured but not all stored: not a complete run in the database (show names what is missing).
            status, exit_code = "failed", ExitCode.USAGE_ERROR
        for step in (lambda: self.store.finish_run(self.run_id, status, exit_code),
                     lambda: self.store.update_context(self.run_id, info)):
            try:
                step()
            except StoreFailed as failure:
                problem = failure
                self.store.reclaim()  # a full disk: free what the failed writes took, and try once more
                try:
                    step()
                except StoreFailed:
                    pass
        return problem

    def run_levels(self, info) -> dict | None:
        """Earlier runs' spread for this run's intervals (noise.py); none if unreadable:
        a rerun interval from the processes alone is still a result worth printing."""
        try:
            return self.store.run_levels(self.run_id, info)
        except UserError as failure:
            self.warn(f"{failure.what}; the intervals use this run's processes only")
            return None

    def without_prior(self, info) -> bool:
        """Whether the machine has no prior (benchlab calibrate) in the store."""
        try:
            return not self.store.machine_priors(noise.Machine.of(info))
        except UserError:
            return False

    def forget(self) -> None:
        try:
            self.store.delete_run(self.run_id)
        except StoreFailed:
            pass  # an empty run left behind: harmless, and the user error says what happened


class Recorder:
    """Listens to a session: keeps the run's context (`info`) and, unless `storage` is None
    (--no-store), the store up to date as each process finishes, and tells `progress`."""

    def __init__(self, runner, info: dict, storage: RunStorage | None, progress: Progress):
        self.runner, self.info, self.storage, self.progress = runner, info, storage, progress
        self.trust_warned = False

    def run(self, session: Session, argv: list[str], platforms: list[str]) -> Outcome:
        """The session, stored as it runs. Ctrl-C and SIGTERM close the run as interrupted
        and raise Interrupted, saying what was kept."""
        self.info["plan"] = [unit_key(unit) for unit, _ in session.planned()]  # a unit once per process
        if self.storage:
            self.storage.begin(argv, platforms, self.info)
        try:
            with sigterm_as_interrupt():
                return session.run(on_round=self._on_round, on_start=self._on_start, on_result=self._on_result,
                                   on_skip=self._on_skip, levels=self.run_levels)
        except KeyboardInterrupt:
            raise self._interrupted() from None
        finally:
            self.info.setdefault("load", {})["end"] = run_context.load()

    def run_levels(self) -> dict | None:
        return self.storage.run_levels(self.info) if self.storage else None

    def _on_round(self, order) -> None:
        self.info["plan"].extend(unit_key(unit) for unit, _ in order)

    def _on_start(self, unit) -> None:
        self.progress.start(unit.label)

    def _on_result(self, unit, result) -> None:
        if result.context is not None:
            self.info["binaries"][f"{unit.target.name}@{unit.platform.name}"] = result.context
        self._record_code(unit)
        if self.storage:
            self.storage.add(result.records, result.faults, unit_key(unit))
        self.progress.finished()

    def _on_skip(self, unit) -> None:
        if self.storage:
            self.storage.add([], [], unit_key(unit))  # done: nothing to run
        self.progress.skipped()

    def _record_code(self, unit) -> None:
        """What the unit ran, once per unit, in the context's `code`: the identity that picks
        the earlier runs of identical code whose spread is this run's noise (noise.py)."""
        label = noise.code_label(unit.target.name, unit.platform.name)
        code = self.info.setdefault("code", {})
        if label not in code:
            identity = self.runner.code_identity(unit, self.info["platforms"].get(unit.platform.name, {}))
            if identity is not None:
                code[label] = identity
                # This machine ran it: the gate may run it again (trust.py; a failure to
                # record is said once and costs only that re-measurement).
                problem = trust.record([(identity["sha256"], identity.get("path"))]) if identity.get("sha256") else None
                if problem and not self.trust_warned:
                    self.trust_warned = True
                    self.runner.warn(f"{problem}; benchlab gate will judge them on stored figures")

    def _interrupted(self) -> Interrupted:
        if not self.storage:
            return Interrupted("interrupted: nothing stored (--no-store)")
        problem = self.storage.close(self.info, "interrupted", ExitCode.INTERRUPTED)
        kept = f"run {self.storage.run_id} keeps the {self.storage.stored_records} records completed so far"
        return Interrupted(f"interrupted: {kept}" + (f"; {problem}" if problem else ""))


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Treat SIGTERM (a CI job cancelled) like Ctrl-C, so the run is closed cleanly: as the
    entry point does for every command (signals.py), also where the command is called in-process."""
    previous = signal.signal(signal.SIGTERM, signals.raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
