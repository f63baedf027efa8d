"""A run kept while it runs (recording.py), without click: a session of fake processes, a
store that records what it is asked, and a progress listener that remembers what it heard."""
import dataclasses
import os
import signal

import pytest

from benchlab.errors import ExitCode, Interrupted, StoreFailed
from benchlab.records import Record
from benchlab.measuring.recording import Recorder, RunStorage, unit_key
from benchlab.measuring.session import Budget, Session


@dataclasses.dataclass
class Target:
    name: str
    kind: str = "source"


@dataclasses.dataclass
class Platform:
    name: str = "native"


@dataclasses.dataclass
class Unit:
    target: Target
    platform: Platform = dataclasses.field(default_factory=Platform)
    sweep_value: str | None = None

    @property
    def label(self) -> str:
        return f"{self.target.name}@{self.platform.name}"


@dataclasses.dataclass
class Result:
    records: list
    faults: list = dataclasses.field(default_factory=list)
    filtered_out: int = 0
    context: dict | None = None


class FakeRunner:
    """Each process prints one record; `broken` units failed to build; `interrupt_at` raises
    what Ctrl-C raises as that many processes have run."""

    def __init__(self, broken=(), interrupt_at=None, signal_at=None):
        self.broken, self.interrupt_at, self.signal_at = set(broken), interrupt_at, signal_at
        self.ran = 0

    def known_build_failure(self, unit) -> bool:
        return unit.target.name in self.broken

    def run_unit(self, unit, process):
        self.ran += 1
        if self.ran == self.interrupt_at:
            raise KeyboardInterrupt
        if self.ran == self.signal_at:
            os.kill(os.getpid(), signal.SIGTERM)  # a CI job cancelled mid-run
        record = Record(bench=unit.target.name, param=None, samples=[1.0, 2.0, 3.0], platform="native",
                        binary=unit.target.name)
        return Result([record], context={"header": "0.2.0", "process": process})

    def code_identity(self, unit, platform_info):
        return {"id": f"code-of-{unit.target.name}"}


class FakeStore:
    """Remembers every call; `full` makes add_unit fail that many times (a full disk)."""

    def __init__(self, full: int = 0):
        self.full = full
        self.units: list[tuple] = []
        self.finished = None
        self.context = None
        self.reclaimed = 0

    def begin_run(self, argv, platforms, info):
        self.begun = (argv, platforms, list(info["plan"]))
        return 7

    def add_unit(self, run_id, records, faults, key):
        if self.full:
            self.full -= 1
            raise StoreFailed("the disk is full", "free some space")
        self.units.append((run_id, [r.bench for r in records], key))

    def reclaim(self):
        self.reclaimed += 1

    def finish_run(self, run_id, status, exit_code):
        self.finished = (run_id, status, exit_code)

    def update_context(self, run_id, info):
        self.context = info

    def run_levels(self, run_id, info):
        return {}


class Heard:
    def __init__(self):
        self.events: list[str] = []

    def start(self, label):
        self.events.append(f"start {label}")

    def finished(self):
        self.events.append("finished")

    def skipped(self):
        self.events.append("skipped")


def session(runner, names=("a", "b"), processes=2):
    units = [Unit(Target(name)) for name in names]
    budget = Budget.from_flags(processes=processes, seconds=None, precision=None, fast=False, rigorous=False,
                               default=processes)
    return Session(runner, units, seed=3, budget=budget, started=0.0)


def test_each_process_is_stored_as_it_finishes_with_the_plan_and_the_code_it_ran():
    runner, store, heard = FakeRunner(), FakeStore(), Heard()
    info = {"platforms": {"native": {}}, "binaries": {}}
    warnings = []
    storage = RunStorage(store, warnings.append)
    planned = session(runner)
    order = [unit.target.name for unit, _ in planned.planned()]
    outcome = Recorder(runner, info, storage, heard).run(planned, ["benchlab", "run"], ["native"])
    assert [r.bench for r in outcome.records] == order and len(order) == 4
    # The plan stored before the first process is the order that ran, unit by unit.
    assert store.begun == (["benchlab", "run"], ["native"], [unit_key(Unit(Target(n))) for n in order])
    assert [(run_id, benches, key["binary"]) for run_id, benches, key in store.units] == [
        (7, [name], name) for name in order]
    assert info["code"] == {"a@native": {"id": "code-of-a"}, "b@native": {"id": "code-of-b"}}
    assert info["binaries"]["a@native"]["header"] == "0.2.0"
    assert heard.events == [e for name in order for e in (f"start {name}@native", "finished")]
    assert storage.close(info, "complete", ExitCode.OK) is None
    assert store.finished == (7, "complete", ExitCode.OK) and store.context is info and warnings == []


def test_a_unit_whose_build_failed_is_stored_empty_and_not_run():
    runner, store, heard = FakeRunner(broken={"b"}), FakeStore(), Heard()
    info = {"platforms": {}, "binaries": {}}
    Recorder(runner, info, RunStorage(store, print), heard).run(session(runner), ["benchlab"], ["native"])
    assert runner.ran == 2  # a's two processes only
    assert sorted((benches, key["binary"]) for _, benches, key in store.units) == [
        ([], "b"), ([], "b"), (["a"], "a"), (["a"], "a")]
    assert heard.events.count("skipped") == 2


def test_a_full_disk_keeps_units_in_memory_warns_once_and_stores_them_at_the_end():
    runner, store = FakeRunner(), FakeStore(full=2)
    info = {"platforms": {}, "binaries": {}}
    warnings = []
    storage = RunStorage(store, warnings.append)
    Recorder(runner, info, storage, Heard()).run(session(runner), ["benchlab"], ["native"])
    assert len(store.units) == 2 and len(storage.pending) == 2
    assert warnings == ["the disk is full; the run goes on and keeps its results in memory"]
    assert storage.close(info, "complete", ExitCode.OK) is None
    assert len(store.units) == 4 and storage.pending == [] and storage.stored_records == 4
    assert store.finished == (7, "complete", ExitCode.OK)


def test_units_that_never_fit_leave_the_run_failed_not_complete():
    runner, store = FakeRunner(), FakeStore(full=100)
    info = {"platforms": {}, "binaries": {}}
    storage = RunStorage(store, lambda message: None)
    Recorder(runner, info, storage, Heard()).run(session(runner), ["benchlab"], ["native"])
    problem = storage.close(info, "complete", ExitCode.OK)
    assert problem.what == "the disk is full"
    assert store.finished == (7, "failed", ExitCode.USAGE_ERROR)


@pytest.mark.parametrize("how", ["interrupt_at", "signal_at"])
def test_ctrl_c_or_sigterm_closes_the_run_as_interrupted_and_says_what_it_kept(how):
    runner, store = FakeRunner(**{how: 3}), FakeStore()
    info = {"platforms": {}, "binaries": {}}
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as raised:
        Recorder(runner, info, RunStorage(store, print), Heard()).run(session(runner), ["benchlab"], ["native"])
    # The signal arrives during the third process: the two before it are kept, stored.
    assert str(raised.value) == "interrupted: run 7 keeps the 2 records completed so far"
    assert len(store.units) == 2 and store.context is info
    assert store.finished == (7, "interrupted", ExitCode.INTERRUPTED)
    assert signal.getsignal(signal.SIGTERM) is previous  # the handler is put back


def test_without_a_store_an_interrupt_says_nothing_was_stored():
    runner = FakeRunner(interrupt_at=1)
    with pytest.raises(Interrupted) as raised:
        Recorder(runner, {"platforms": {}, "binaries": {}}, None, Heard()).run(session(runner), [], ["native"])
    assert str(raised.value) == "interrupted: nothing stored (--no-store)"
