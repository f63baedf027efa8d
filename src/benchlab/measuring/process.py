"""Running one child process: output, exit reason, timeout, and the OS's accounting.

The child gets its own session, and when it ends (or times out, or on Ctrl-C) its
whole process group is killed: qemu, valgrind and the wasm launcher fork helpers, and
a benchmark may leave a child behind that still holds our output file. A descendant
that left the group (setsid, setpgid: a daemon) would outlive that: each child's
environment carries a token of its own (PROCESS_TOKEN_VARIABLE), which whatever it
starts inherits, so once the group is killed every process still carrying it is found
in /proc, killed, and counted in `Outcome.escaped` for the caller to say so. os.wait4
returns the child's rusage, so user/sys seconds are the kernel's numbers for exactly
that child. Its max RSS is not the command's own when the child was forked from this
Python process (see measure.c): workloads run through the small `measure` launcher.
Output goes to temporary files rather than pipes: a chatty child can never block on a
full pipe while we wait, and a caller can read a large output as a stream.
"""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import select
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import BinaryIO, Callable

#: Lines of stderr kept to explain a failure.
STDERR_TAIL_LINES = 5
#: Bytes of stderr read back: its end explains a failure, and a program printing
#: gigabytes of diagnostics must not cost as much memory.
STDERR_KEPT_BYTES = 64 * 1024
#: In every child's environment, with a value of its own (see the top).
PROCESS_TOKEN_VARIABLE = "BENCHLAB_PROCESS"
_tokens = itertools.count(1)
#: Seconds an escaped process is given to die once killed (it always does: SIGKILL).
ESCAPED_DEATH_WAIT_S = 5.0
#: Seconds between looks at the size of a child's output file, when it has a limit
#: (run_process's max_output_bytes): a child may write this long past the limit before it
#: is stopped, but no more than the limit is ever read.
OUTPUT_CHECK_INTERVAL_S = 0.05


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
    #: When the command started, in CLOCK_MONOTONIC ns (the measure launcher's report only).
    start_ns: int | None = None
    #: The limit on its output it went past (then it was stopped), or None.
    output_exceeded: int | None = None
    #: Processes it started that left its process group and outlived it (killed since).
    escaped: int = 0

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.timed_out and self.output_exceeded is None

    def reason(self) -> str | None:
        """Why the run failed, in words, or None when it did not."""
        if self.output_exceeded is not None:
            return (f"printed more than {byte_amount(self.output_exceeded)} of output, stopped "
                    "(the limit is MAX_OUTPUT_BYTES in benchlab/limits.py)")
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


def byte_amount(count: int) -> str:
    """A size for a message: 64 MiB, 12 KiB, 100 bytes."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count} bytes"


def run_process(argv: list[str], *, env: dict[str, str] | None = None, cwd: str | None = None,
                timeout: float | None = None, stdout: BinaryIO | int | None = None,
                pass_fds: tuple[int, ...] = (), on_start: Callable[[int], None] | None = None,
                max_output_bytes: int | None = None) -> Outcome:
    """Run argv to completion (or kill it at `timeout` seconds); never raises for the child's failure.

    With `stdout` (a binary file, or subprocess.DEVNULL to discard it as hyperfine does
    for commands it times), the child's output goes there for the caller to read as a
    stream, and `Outcome.stdout` stays empty. `pass_fds` are inherited by the child;
    `on_start` is called with its pid once it runs (instances.py starts copies behind a gate).
    With `max_output_bytes` (and a `stdout` file), a child whose output grows past it is
    stopped as at a timeout, and `Outcome.output_exceeded` says so.
    """
    outcome = Outcome(argv=argv, timeout=timeout)
    token = f"{os.getpid()}-{next(_tokens)}-{os.urandom(8).hex()}"  # secrets.token_hex, without its imports
    env = {**(os.environ if env is None else env), PROCESS_TOKEN_VARIABLE: token}
    with contextlib.ExitStack() as files:
        out = stdout if stdout is not None else files.enter_context(tempfile.TemporaryFile())
        err = files.enter_context(tempfile.TemporaryFile())
        started = time.perf_counter()
        try:
            child = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                     env=env, cwd=cwd, start_new_session=True, pass_fds=pass_fds)
        except (OSError, ValueError) as exc:
            # ValueError: a NUL byte in an argument or the environment, which no exec can pass.
            outcome.exit_status = 127
            outcome.stderr = f"cannot start {argv[0]!r}: {getattr(exc, 'strerror', None) or exc}"
            return outcome
        if on_start is not None:
            on_start(child.pid)
        waited: dict = {}

        def reap() -> None:
            # Wait for the exit without reaping (WNOWAIT): the zombie keeps its process
            # group id from being reused while we kill what it left behind. Blocking, in
            # a thread, so the wall time ends when the child does, not at a polling tick.
            os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
            waited["ended"] = time.perf_counter()
            _kill_group(child.pid)
            _, status, usage = os.wait4(child.pid, 0)
            waited.update(status=status, usage=usage)

        reaper = threading.Thread(target=reap, daemon=True)
        reaper.start()
        watched = out if max_output_bytes is not None and hasattr(out, "fileno") else None
        try:
            _wait(reaper, timeout, watched, max_output_bytes)
            if reaper.is_alive():
                if watched is not None and _size(watched) > max_output_bytes:
                    outcome.output_exceeded = max_output_bytes
                else:
                    outcome.timed_out = True
                _kill_group(child.pid)
                reaper.join()
        except BaseException:
            # Ctrl-C (or any error of ours): never leave the benchmark running behind us.
            _kill_group(child.pid)
            reaper.join()
            _kill_escaped(token, child.pid)
            child.returncode = -9
            raise
        outcome.escaped = _kill_escaped(token, child.pid)
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
        if watched is not None and _size(watched) > max_output_bytes:
            outcome.output_exceeded = max_output_bytes  # also when it ended before a look caught it
        if stdout is None:
            out.seek(0)
            outcome.stdout = out.read().decode(errors="replace")
        size = err.seek(0, os.SEEK_END)
        err.seek(max(0, size - STDERR_KEPT_BYTES))
        outcome.stderr = err.read().decode(errors="replace")
    return outcome


def _wait(reaper: threading.Thread, timeout: float | None, out: BinaryIO | None, limit: int | None) -> None:
    """Wait for the reaper until `timeout` seconds pass, or `out` grows past `limit` bytes."""
    if out is None:
        reaper.join(timeout)
        return
    deadline = None if timeout is None else time.monotonic() + timeout
    while reaper.is_alive() and _size(out) <= limit:
        left = OUTPUT_CHECK_INTERVAL_S if deadline is None else min(OUTPUT_CHECK_INTERVAL_S, deadline - time.monotonic())
        if left <= 0:
            return
        reaper.join(left)


def _size(file: BinaryIO) -> int:
    return os.fstat(file.fileno()).st_size


def run_measured(argv: list[str], launcher: Path, *, env: dict[str, str] | None = None, cwd: str,
                 timeout: float | None = None, stdout=None, pass_fds: tuple[int, ...] = (),
                 on_start: Callable[[int], None] | None = None, max_output_bytes: int | None = None) -> Outcome:
    """Run argv through the `measure` launcher (measure.c): the kernel's accounting of argv alone.

    Exit status, signal, user and sys seconds, max RSS and wall time are those the
    launcher reports for its child; the launcher's own run only bounds the timeout.
    """
    with tempfile.NamedTemporaryFile(prefix="measure-", suffix=".txt", dir=cwd, delete=False) as handle:
        report_path = Path(handle.name)
    try:
        outcome = run_process([str(launcher), str(report_path), *argv], env=env, cwd=cwd, timeout=timeout,
                              stdout=stdout, pass_fds=pass_fds, on_start=on_start,
                              max_output_bytes=max_output_bytes)
        report = _read_report(report_path)
    finally:
        report_path.unlink(missing_ok=True)
    outcome.argv = argv
    if report is None:
        return outcome  # timed out or killed: the launcher's own outcome says so
    outcome.exit_status = report["status"] if report["status"] >= 0 else None
    outcome.signal_number = report["signal"] or None
    outcome.user_s = report["user_us"] / 1e6
    outcome.sys_s = report["sys_us"] / 1e6
    outcome.max_rss_kib = report["maxrss_kib"]
    outcome.wall_s = report["wall_ns"] / 1e9
    outcome.start_ns = report.get("start_ns")
    return outcome


def _read_report(path: Path) -> dict[str, int] | None:
    try:
        fields = dict(item.split("=", 1) for item in path.read_text().split())
        report = {key: int(fields[key]) for key in ("status", "signal", "user_us", "sys_us", "maxrss_kib", "wall_ns")}
        if "start_ns" in fields:
            report["start_ns"] = int(fields["start_ns"])
        return report
    except (OSError, ValueError, KeyError):
        return None


def _kill_escaped(token: str, group: int) -> int:
    """Kill every process that carries `token` but is not in process group `group` (which
    is being killed already): what left the group. How many there were."""
    escaped = _carrying(token, group)
    for pid in escaped:
        _kill_and_wait(pid)
    return len(escaped)


def _carrying(token: str, group: int) -> list[int]:
    """The processes whose environment holds PROCESS_TOKEN_VARIABLE=token, outside `group`
    (/proc; none where there is no /proc, or for processes of other users)."""
    needle = f"\0{PROCESS_TOKEN_VARIABLE}={token}\0".encode()
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                if needle not in b"\0" + environ.read():
                    continue
            if os.getpgid(int(name)) != group:
                found.append(int(name))
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return found


def _kill_and_wait(pid: int) -> None:
    """SIGKILL `pid` and wait (at most ESCAPED_DEATH_WAIT_S) until it has died."""
    try:
        handle = os.pidfd_open(pid)
    except OSError:
        handle = None  # gone already, or no pidfd on this kernel: killed without waiting
    try:
        os.kill(pid, signal.SIGKILL)
        if handle is not None:
            select.select([handle], [], [], ESCAPED_DEATH_WAIT_S)  # readable once it has ended
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        if handle is not None:
            os.close(handle)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # nothing left in the group (a setuid member we may not signal is not ours to kill)
