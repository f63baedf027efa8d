"""The progress display's estimate of the time left, on a clock the tests move by hand, and
what --quiet leaves of it (output/progress.py)."""
import io

from rich.console import Console

from benchlab.output.progress import PlannedWork, Progress, TimeBudget, duration_text, left_text


class Clock:
    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def process(work, clock, label, seconds):
    work.start(label)
    clock.now += seconds
    work.finished()


def test_planned_processes_are_estimated_at_their_own_programs_pace():
    clock = Clock()
    # 3 rounds of a slow program (2 s a process) and a fast one (0.5 s)
    work = PlannedWork(["slow", "fast"] * 3, clock)
    assert work.seconds_left() is None and left_text(work) == ""  # nothing measured yet
    process(work, clock, "slow", 2.0)
    assert work.seconds_left() == 5 * 2.0  # every program at the only pace known
    process(work, clock, "fast", 0.5)
    assert work.seconds_left() == 2 * 2.0 + 2 * 0.5
    process(work, clock, "slow", 2.0)
    process(work, clock, "fast", 0.5)
    assert work.seconds_left() == 2.0 + 0.5
    assert left_text(work) == "~3 s left"


def test_a_programs_first_process_which_built_it_leaves_its_pace_once_it_has_another():
    clock = Clock()
    work = PlannedWork(["a"] * 5, clock)
    process(work, clock, "a", 9.0)  # compiled first
    assert work.seconds_left() == 4 * 9.0
    process(work, clock, "a", 1.0)
    assert work.seconds_left() == 3 * 1.0


def test_the_process_running_now_counts_down_its_share():
    clock = Clock()
    work = PlannedWork(["a"] * 3, clock)
    process(work, clock, "a", 4.0)
    work.start("a")
    clock.now += 1.5
    assert work.seconds_left() == 2 * 4.0 - 1.5
    clock.now += 10.0  # longer than its pace: the estimate does not go below the processes after it
    assert work.seconds_left() == 4.0


def test_skipped_processes_take_no_time():
    clock = Clock()
    work = PlannedWork(["broken", "a", "broken", "a"], clock)
    work.skipped()
    process(work, clock, "a", 3.0)
    work.skipped()
    assert work.seconds_left() == 3.0


def test_a_time_limit_bounds_what_is_left_and_rounds_at_most_may_end_sooner():
    clock = Clock(50.0)
    budget = TimeBudget(30.0, started=50.0, clock=clock, rounds=1000)
    clock.now += 4.0
    assert budget.seconds_left() == 26.0 and left_text(budget) == "at most 26 s left"
    budget = TimeBudget(30.0, started=50.0, clock=clock, rounds=10)
    for _ in range(8):
        budget.round_done()  # 8 rounds in 4 s: 2 rounds more take 1 s
    assert budget.seconds_left() == 1.0
    clock.now += 40.0
    assert TimeBudget(30.0, started=50.0, clock=clock).seconds_left() == 0.0


def test_durations_read_as_people_say_them():
    assert [duration_text(s) for s in (0.2, 12.0, 59.5, 61.0, 3599.0, 7440.0)] == [
        "1 s", "12 s", "1 min", "1 min 1 s", "59 min 59 s", "2 h 4 min"]


def stderr_console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=200, color_system=None), buffer


def test_log_lines_carry_the_estimate_and_the_bar_shows_it_on_a_terminal():
    clock = Clock()
    console, buffer = stderr_console()
    progress = Progress(console, terminal=False, estimate=PlannedWork(["a", "b"] * 2, clock), total=4, clock=clock)
    with progress:
        for label, seconds in (("a", 2.0), ("b", 1.0), ("a", 2.0)):
            progress.start(label)
            clock.now += seconds
            progress.finished()
    assert buffer.getvalue() == ("[1/4] a\n[2/4] b (~6 s left)\n[3/4] a (~3 s left)\n")
    console, buffer = stderr_console()
    bar = Progress(console, terminal=True, estimate=TimeBudget(30.0, started=clock.now, clock=clock), clock=clock)
    assert bar.bar is not None
    clock.now += 12.0
    rendered = [column.render(None) for column in bar.bar.columns if type(column).__name__ == "LeftColumn"]
    assert [text.plain for text in rendered] == ["at most 18 s left"]


def test_ab_lines_every_few_rounds_carry_the_bound():
    clock = Clock()
    console, buffer = stderr_console()
    progress = Progress(console, terminal=False, estimate=TimeBudget(30.0, started=clock.now, clock=clock), clock=clock)
    with progress:
        for rounds in range(1, 11):
            clock.now += 0.5
            progress.round_done(rounds)
        progress.line("round 10: the widest interval is +-3.20%")
    assert buffer.getvalue() == "round 10: the widest interval is +-3.20% (at most 25 s left)\n"


def test_quiet_shows_neither_progress_nor_notes_nor_warnings():
    clock = Clock()
    console, buffer = stderr_console()
    progress = Progress(console, quiet=True, terminal=True, estimate=PlannedWork(["a"], clock), total=1, clock=clock)
    assert progress.bar is None
    with progress:
        progress.start("a")
        progress.finished()
        progress.line("round 10")
        progress.note("saved as run 1")
        progress.warn("the machine is busy")
    assert buffer.getvalue() == ""
