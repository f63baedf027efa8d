"""Running one child process: output, exit reason, timeout, and the OS's accounting.

The child gets its own session so that a timeout or Ctrl-C kills the whole tree
(qemu, valgrind and wasm launchers fork helpers). os.wait4 returns the child's
rusage, so user/sys seconds and max RSS are the kernel's numbers for exactly that
child, not a difference of our own counters. Output goes to temporary files
rather than pipes: a chatty child can never block on a full pipe while we wait.
"""
from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import tempfile
import threading
import time

#: Lines of stderr kept to explain a failure.
STDERR_TAIL_LINES = 5


@dataclasses.dataclass
class Outcome:
    argv: list[str]
    exit_status: int | None = None  # None when killed by a signal
    signal_number: int | None = None
    timed_out: bool = False
    timeout: float | None = None
    stdout: str = ""
    stderr: str = ""
    wall_s: float = 0.0
    user_s: float = 0.0
    sys_s: float = 0.0
    max_rss_kib: int = 0

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.timed_out

    def reason(self) -> str | None:
        """Why the run failed, in words, or None when it did not."""
        if self.timed_out:
            return f"timed out after {self.timeout:g} s"
        if self.signal_number is not None:
            try:
                name = signal.Signals(self.signal_number).name
            except ValueError:
                name = f"signal {self.signal_number}"
            return f"killed by {name}"
        if self.exit_status:
            return f"exit status {self.exit_status}"
        return None

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> list[str]:
        return [line for line in self.stderr.rstrip().splitlines() if line.strip()][-lines:]


def run_process(argv: list[str], *, env: dict[str, str] | None = None, cwd: str | None = None,
                timeout: float | None = None) -> Outcome:
    """Run argv to completion (or kill it at `timeout` seconds); never raises for the child's failure."""
    outcome = Outcome(argv=argv, timeout=timeout)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        try:
            child = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                     env=env, cwd=cwd, start_new_session=True)
        except OSError as exc:
            outcome.exit_status = 127
            outcome.stderr = f"cannot start {argv[0]}: {exc.strerror}"
            return outcome
        waited: dict = {}

        def reap() -> None:
            # Blocking wait4 in a thread, so the wall time ends when the child does,
            # not at the next tick of a polling loop.
            _, status, usage = os.wait4(child.pid, 0)
            waited.update(status=status, usage=usage, ended=time.perf_counter())

        reaper = threading.Thread(target=reap, daemon=True)
        reaper.start()
        try:
            reaper.join(timeout)
            if reaper.is_alive():
                outcome.timed_out = True
                _kill_group(child.pid)
                reaper.join()
        except BaseException:
            # Ctrl-C (or any error of ours): never leave the benchmark running behind us.
            _kill_group(child.pid)
            reaper.join()
            child.returncode = -9
            raise
        status, usage = waited["status"], waited["usage"]
        child.returncode = os.waitstatus_to_exitcode(status)  # tells Popen it is reaped
        if os.WIFSIGNALED(status):
            outcome.signal_number = os.WTERMSIG(status)
        else:
            outcome.exit_status = os.WEXITSTATUS(status)
        outcome.wall_s = waited["ended"] - started
        outcome.user_s = usage.ru_utime
        outcome.sys_s = usage.ru_stime
        outcome.max_rss_kib = usage.ru_maxrss  # kilobytes on Linux
        out.seek(0)
        err.seek(0)
        outcome.stdout = out.read().decode(errors="replace")
        outcome.stderr = err.read().decode(errors="replace")
    return outcome


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
