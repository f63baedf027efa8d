"""What a measuring command (`run`, `ab`, the gate's re-measurement) shows while it works,
on stderr: rich's bar on a terminal, with the time elapsed and an estimate of the time
left; elsewhere (a pipe, a CI log), where a bar would be noise, one line per step with the
same estimate, so a long run is never silent; nothing at all with --quiet.

The estimate comes from the planned work: a run of a fixed count of processes knows every
process it will start, and each takes about what its program's earlier processes took; a
run with a time budget, `ab` and the gate stop at their time limit at the latest (or after
their last round, at the pace of the rounds so far), and say "at most". The clock is given,
so that the estimates are tested without waiting.
"""
from __future__ import annotations

import math
import statistics
import time
from typing import Callable

from rich.console import Console

from benchlab.records import printable, printable_text

Clock = Callable[[], float]


class PlannedWork:
    """The time left of processes known in advance (`run` with a count of processes): each
    process still to run takes the mean of its program's earlier ones (its first, which built
    it, left out once there are others), or the programs' mean pace while its program has not
    run yet; nothing is known before the first finishes."""

    bound = False  # an estimate, not a limit

    def __init__(self, labels: list[str], clock: Clock = time.monotonic):
        self.labels, self.clock = labels, clock
        self.done = 0
        self.took: dict[str, list[float]] = {}
        self.current: tuple[str, float] | None = None

    def start(self, label: str) -> None:
        self.current = (label, self.clock())

    def finished(self) -> None:
        if self.current is not None:
            label, began = self.current
            self.took.setdefault(label, []).append(self.clock() - began)
            self.current = None
        self.done += 1

    def skipped(self) -> None:
        self.current = None
        self.done += 1

    def seconds_left(self) -> float | None:
        if not self.took:
            return None
        # A program's first process builds it too (the build cache fills as the run starts):
        # from its second on, the first is left out of its pace.
        pace = {label: statistics.fmean(took[1:] or took) for label, took in self.took.items()}
        overall = statistics.fmean(pace.values())

        def expected(label: str) -> float:
            return pace.get(label, overall)

        left = sum(expected(label) for label in self.labels[self.done:])
        if self.current is not None:  # the process running now is part-way through its share
            label, began = self.current
            left -= min(self.clock() - began, expected(label))
        return max(left, 0.0)


class TimeBudget:
    """The time left of work that stops at a time limit at the latest (`run --time`, `ab`, the
    gate): the limit less the time spent, or, when a count of rounds ends it sooner, those
    rounds at the pace of the rounds so far. An upper bound: it may stop earlier, once decided."""

    bound = True

    def __init__(self, seconds: float, started: float, clock: Clock = time.monotonic, rounds: int | None = None):
        self.seconds, self.started, self.clock = seconds, started, clock
        self.rounds_at_most = rounds
        self.rounds = 0

    def round_done(self) -> None:
        self.rounds += 1

    def seconds_left(self) -> float | None:
        spent = self.clock() - self.started
        left = self.seconds - spent
        if self.rounds_at_most is not None and self.rounds:
            left = min(left, (self.rounds_at_most - self.rounds) * spent / self.rounds)
        return max(left, 0.0)


def left_text(estimate: PlannedWork | TimeBudget | None) -> str:
    """`~12 s left`, `at most 1 min 5 s left`, or '' while nothing is known."""
    seconds = estimate.seconds_left() if estimate is not None else None
    if seconds is None:
        return ""
    return f"{'at most ' if estimate.bound else '~'}{duration_text(seconds)} left"


def duration_text(seconds: float) -> str:
    """12 s, 1 min, 3 min 5 s, 2 h 4 min: whole seconds up (a second left is not zero left)."""
    whole = math.ceil(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min" + (f" {whole % 60} s" if whole % 60 else "")
    return f"{whole // 3600} h {whole % 3600 // 60} min"


class Progress:
    """The progress display (see the module's docstring) and the command's notes and warnings,
    which --quiet silences with it (each warning once: a binary says the same in each of its
    processes). Errors never pass here: they always print.

    `run` tells it of each process (start, finished, skipped: the Recorder's Progress);
    `ab` and the gate of each round (round_done) and of a line every few rounds (line)."""

    def __init__(self, console: Console, *, quiet: bool = False, terminal: bool | None = None,
                 estimate: PlannedWork | TimeBudget | None = None, total: float | None = None,
                 clock: Clock = time.monotonic):
        self.console, self.quiet, self.clock = console, quiet, clock
        self.estimate, self.total = estimate, total  # total: processes planned; None when open-ended
        terminal = console.file.isatty() if terminal is None else terminal
        self.bar = None if quiet or not terminal else _bar(console, self._left, clock, counted=total is not None)
        self.task = None
        self.done = 0
        self.warned: set[str] = set()

    def __enter__(self) -> "Progress":
        if self.bar is not None:
            self.bar.__enter__()
            self.task = self.bar.add_task("running", total=self.total if self.total is not None else self._limit)
        return self

    @property
    def _limit(self) -> float | None:
        """Open-ended work's bar fills with the time spent against its time limit."""
        return self.estimate.seconds if isinstance(self.estimate, TimeBudget) else None

    def _advance(self) -> None:
        if self.bar is None:
            return
        if self.total is None and self._limit is not None:
            spent = self.clock() - self.estimate.started
            self.bar.update(self.task, completed=min(spent, self._limit))
        else:
            self.bar.advance(self.task)

    def __exit__(self, *exc) -> bool:
        return self.bar.__exit__(*exc) if self.bar is not None else False

    def _left(self) -> str:
        return left_text(self.estimate)

    def note(self, line: str | None) -> None:
        """A line of the command's own (what it did, what stopped it); not with --quiet."""
        if line and not self.quiet:
            self.console.print(printable_text(line), markup=False, highlight=False, soft_wrap=True)

    def warn(self, message: str) -> None:
        if message not in self.warned:
            self.warned.add(message)
            self.note(f"warning: {message}")

    def start(self, label: str) -> None:
        if isinstance(self.estimate, PlannedWork):
            self.estimate.start(label)
        if self.bar is not None:
            self.bar.update(self.task, description=printable(label))
            return
        self.done += 1
        counted = f"{self.done}/{self.total}" if self.total is not None else f"{self.done}"
        left = self._left()
        self.note(f"[{counted}] {printable(label)}" + (f" ({left})" if left else ""))

    def finished(self) -> None:
        if isinstance(self.estimate, PlannedWork):
            self.estimate.finished()
        self._advance()

    def skipped(self) -> None:
        if isinstance(self.estimate, PlannedWork):
            self.estimate.skipped()
        self.done += 1
        self._advance()

    def round_done(self, rounds: int) -> None:
        """A round of `ab` or the gate is over (`rounds` so far)."""
        if isinstance(self.estimate, TimeBudget):
            self.estimate.round_done()
        if self.bar is not None:
            self.bar.update(self.task, description=f"round {rounds}")
        self._advance()

    def line(self, message: str) -> None:
        """A line every few rounds, with the time left: for a log, where there is no bar."""
        if self.bar is None:
            left = self._left()
            self.note(message + (f" ({left})" if left else ""))


def _bar(stderr: Console, left: Callable[[], str], clock: Clock, counted: bool):
    """rich's progress bar, for a terminal: the step, the bar (of processes when they are
    counted), the time elapsed and the time left. Imported here: 12 ms of start-up that a run
    whose stderr is a pipe or a file (which gets lines) does not need."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar, ProgressColumn, TextColumn,
                               TimeElapsedColumn)
    from rich.text import Text

    class LeftColumn(ProgressColumn):
        """The estimate of the time left, asked again at each refresh: it counts down between steps."""

        def render(self, task) -> Text:
            return Text(left(), style="progress.remaining")

    columns = [TextColumn("{task.description}"), BarColumn(), *([MofNCompleteColumn()] if counted else []),
               TimeElapsedColumn(), LeftColumn()]
    return Bar(*columns, console=stderr, transient=True, get_time=clock)
