"""`--sweep instances=1,2,4`: N copies of a binary at once, as the scalability skeleton's
runner sweeps its instance count.

Unlike every other sweep, `instances` is not a flag given to the binary: for a value N
the runner starts N copies of the same command line (same platform argv, so a launcher
or a container template applies to each copy), each with its own scratch directory,
output file, exit status and rusage, and waits for all of them.

The copies start together: each is started through the `measure` launcher (measure.c)
with the reading end of one pipe; the launcher reads it until its end before it forks
the command. Once every copy is running, benchlab closes the writing end, and every
launcher forks its command at the same moment. Without that gate the copies would start
one after another, a few milliseconds apart (Python's fork and exec), and a short copy
could finish before the last one started: its figure would be of one copy alone, not of
N at once. The launcher also reports each command's start time and wall time, so that
how long the copies actually overlapped is stored beside their figures (`window_s`) and
shown (scaling.py, the instances table).

What is summed is scaling.py's business (`instance_scaling`): the throughput of each
copy (its `throughput` record, or 1e9/median for a time per iteration), added over the
copies of one round.
"""
from __future__ import annotations

import dataclasses
import os
import resource
import signal
import threading
import time
from pathlib import Path
from typing import BinaryIO

from benchlab import limits
from benchlab.errors import UserError
from benchlab.measuring.process import Outcome, run_measured

#: The sweep name that means copies, not a flag (a binary's own --instances flag is
#: still reachable as `--sweep=--instances=...`: names starting with `-` are used as is).
INSTANCES = "instances"
#: At most this many copies at once: as the threaded mode's -t, a sane bound well past
#: any machine's cores, that keeps a typo (`instances=10000`) from forking a machine to death.
MAX_INSTANCES = 1024
#: What each copy holds open in benchlab while it runs: its output and stderr files
#: (and the launcher's report file, briefly); plus a reserve for everything else.
FILES_PER_COPY = 3
FILES_RESERVE = 64
#: Processes per copy: the launcher and the command (a launcher chain or a threaded
#: target may add more, which the kernel, not this check, then refuses).
PROCESSES_PER_COPY = 2
#: The variable that tells the measure launcher which descriptor is the start gate.
START_FD_VARIABLE = "BENCHLAB_START_FD"


def copy_fault_reason(index: int, count: int, reason: str) -> str:
    """The text of a copy's fault; which copy it was is the fault's `copy` field, which the
    table reads (this text is only shown)."""
    return f"copy {index} of {count}: {reason}"


def check_values(values: tuple[str, ...]) -> tuple[str, ...]:
    """The values of `--sweep instances=...`, checked before anything is built or run;
    each written as a plain integer ("04" becomes "4")."""
    shown = ",".join(values)
    counts = []
    for text in values:
        if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_INSTANCES:
            raise UserError(f"--sweep instances={shown}: each value must be a whole number of copies from 1 to "
                            f"{MAX_INSTANCES} (got {text!r})", "write e.g. --sweep instances=1,2,4")
        count = int(text)
        if count in counts:
            raise UserError(f"--sweep instances={shown}: {count} is given twice", "give each count of copies once")
        counts.append(count)
    _check_limits(max(counts), shown)
    return tuple(str(count) for count in counts)


def _check_limits(count: int, shown: str) -> None:
    """The user's ulimits: N copies need N launchers and N commands, and their files in benchlab."""
    files, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = count * FILES_PER_COPY + FILES_RESERVE
    if files != resource.RLIM_INFINITY and needed > files:
        raise UserError(f"--sweep instances={shown}: {count} copies need about {needed} open files in benchlab, "
                        f"over the limit of {files} (ulimit -n)",
                        f"raise it (ulimit -n {needed}) or sweep fewer instances")
    processes, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    needed = count * PROCESSES_PER_COPY
    if processes != resource.RLIM_INFINITY and needed > processes:
        raise UserError(f"--sweep instances={shown}: {count} copies need {needed} processes, over the limit of "
                        f"{processes} processes (ulimit -u)", f"raise it (ulimit -u) or sweep fewer instances")


@dataclasses.dataclass
class Copy:
    """One copy's command: its argv (the platform's, launchers included), environment,
    working directory and output file."""
    argv: list[str]
    env: dict[str, str]
    cwd: str
    stdout: BinaryIO


@dataclasses.dataclass
class Together:
    """How N copies ran: each one's outcome, and the moment they were released
    (CLOCK_MONOTONIC ns, as the launcher's start times)."""
    outcomes: list[Outcome]
    released_ns: int

    def window(self, index: int) -> list[float] | None:
        """Copy `index`'s command from start to end, in seconds after the release."""
        outcome = self.outcomes[index]
        if outcome.start_ns is None:
            return None  # the launcher wrote no report: killed, or timed out
        start = (outcome.start_ns - self.released_ns) / 1e9
        return [round(start, 6), round(start + outcome.wall_s, 6)]


def run_together(copies: list[Copy], launcher: Path, timeout: float) -> Together:
    """Run every copy at once behind the start gate (see the top); wait for all of them.

    A copy that cannot start or fails is its own outcome: the others run on. Ctrl-C
    kills every copy's process group before it propagates.
    """
    read_end, write_end = os.pipe()  # neither inheritable: only pass_fds hands the reading end on
    outcomes: list[Outcome | None] = [None] * len(copies)
    launched = [threading.Event() for _ in copies]
    pids: list[int] = []

    def started(index: int, pid: int) -> None:
        pids.append(pid)
        launched[index].set()

    def one(index: int, copy: Copy) -> None:
        try:
            outcomes[index] = run_measured(
                copy.argv, launcher, env={**copy.env, START_FD_VARIABLE: str(read_end)}, cwd=copy.cwd,
                timeout=timeout, stdout=copy.stdout, pass_fds=(read_end,), max_output_bytes=limits.MAX_OUTPUT_BYTES,
                on_start=lambda pid: started(index, pid))
        except Exception as error:  # noqa: BLE001 - a copy's own failure, never the others'
            outcomes[index] = Outcome(argv=copy.argv, exit_status=127, stderr=f"cannot start this copy: {error}")
        finally:
            launched[index].set()  # also when it could not start: the gate must not wait for it

    threads = [threading.Thread(target=one, args=(index, copy), daemon=True) for index, copy in enumerate(copies)]
    released_ns = 0
    try:
        for thread in threads:
            thread.start()
        for event in launched:
            event.wait()
        os.close(read_end)
        read_end = -1
        released_ns = time.monotonic_ns()
        os.close(write_end)  # the release: every launcher's read ends now
        write_end = -1
        for thread in threads:
            thread.join()
    except BaseException:
        for pid in list(pids):
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        raise
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)
    return Together([outcome or Outcome(argv=copy.argv, exit_status=127) for outcome, copy in zip(outcomes, copies)],
                    released_ns)
