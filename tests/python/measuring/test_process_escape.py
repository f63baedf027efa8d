"""A child's descendant that leaves its process group (setsid) does not outlive it: it is
found by the token its environment inherited, killed, and counted (issue 31)."""
import os
from pathlib import Path

from benchlab.measuring.process import PROCESS_TOKEN_VARIABLE, run_process
from conftest import write


def state(pid: int) -> str:
    """A process's state letter (Z: dead, not yet reaped by its parent), or 'gone'."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_a_daemon_left_behind_by_setsid_is_killed_and_counted(tmp_path):
    pid_file = tmp_path / "daemon.pid"
    # The script ends only once the daemon has left its group (it reads from it then): the
    # group's kill cannot come first.
    write(tmp_path / "leave.sh", f"#!/bin/sh\nmkfifo {tmp_path}/up\n"
          f"setsid sh -c 'echo $$ > {pid_file}; echo up > {tmp_path}/up; exec sleep 600' &\n"
          f"read x < {tmp_path}/up\n", executable=True)
    outcome = run_process([str(tmp_path / "leave.sh")], timeout=60)
    assert outcome.ok and outcome.escaped == 1
    assert state(int(pid_file.read_text())) in ("Z", "gone")


def test_children_in_the_group_are_not_counted_and_each_child_has_its_own_token(tmp_path):
    write(tmp_path / "stay.sh", f"#!/bin/sh\nsleep 600 &\necho ${PROCESS_TOKEN_VARIABLE}\n", executable=True)
    first = run_process([str(tmp_path / "stay.sh")], timeout=60)
    second = run_process([str(tmp_path / "stay.sh")], timeout=60, env={"PATH": os.environ["PATH"]})
    assert (first.escaped, second.escaped) == (0, 0)  # the group's kill took the sleep
    assert first.stdout.strip() and second.stdout.strip() and first.stdout != second.stdout
