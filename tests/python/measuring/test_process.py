import signal
import sys
import time

from benchlab.measuring.process import run_process
from conftest import alive


def test_exit_status_and_stderr_tail():
    outcome = run_process(["sh", "-c", "echo out; for i in 1 2 3 4 5 6 7; do echo err$i >&2; done; exit 3"])
    assert not outcome.ok
    assert outcome.reason() == "exit status 3"
    assert outcome.stdout == "out\n"
    assert outcome.stderr_tail() == ["err3", "err4", "err5", "err6", "err7"]


def test_crash_reports_the_signal_name():
    outcome = run_process([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
    assert outcome.signal_number == signal.SIGSEGV and outcome.exit_status is None
    assert outcome.reason() == "killed by SIGSEGV"


def test_timeout_kills_the_whole_process_group():
    outcome = run_process(["sh", "-c", "sleep 30 & sleep 30"], timeout=0.3)
    assert outcome.timed_out and outcome.reason() == "timed out after 0.3 s"
    assert 0.3 <= outcome.wall_s < 30  # killed at its timeout, not waited for (30 s of sleep)


def test_rusage_of_the_finished_child():
    code = "b = bytearray(80 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); sum(range(3_000_000))"
    outcome = run_process([sys.executable, "-c", code])
    assert outcome.ok
    assert outcome.max_rss_kib > 80 * 1024
    assert outcome.user_s > 0.01
    assert outcome.wall_s >= outcome.user_s * 0.5


def test_a_program_that_does_not_exist_is_exit_127_not_an_exception():
    outcome = run_process(["/no/such/program"])
    assert outcome.reason() == "exit status 127"
    assert "No such file" in outcome.stderr


def test_a_child_left_behind_is_killed_when_the_run_ends(tmp_path):
    # The benchmark exits at once; its child keeps our output file open and would run 30 s.
    pidfile = tmp_path / "pid"
    outcome = run_process(["sh", "-c", f"sleep 30 & echo $! > {pidfile}; echo done"], timeout=10)
    # not waited for: a run that waited for its child would last its 30 s of sleep (no tighter
    # bound: how long the rest takes depends on how busy the machine is)
    assert outcome.ok and outcome.stdout == "done\n" and outcome.wall_s < 30
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5  # SIGKILL is delivered asynchronously: allow the kernel a moment
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(pid)


def test_a_nul_byte_in_an_argument_is_exit_127_not_an_exception():
    outcome = run_process(["echo", "a\0b"])
    assert outcome.reason() == "exit status 127"
    assert outcome.stderr == "cannot start 'echo': embedded null byte"
