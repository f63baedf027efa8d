"""`ab --rev`'s worktrees (issue 31, measuring/revisions.py): git missing or failing is one error, and the worktrees
go away on SIGTERM as on Ctrl-C."""
import os
import signal
import subprocess
import tempfile

import pytest

from benchlab.measuring import revisions
from benchlab.errors import UserError
from conftest import write


def repository(project):
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(project / "suite" / "read.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t5\\n'\n", executable=True)
    subprocess.run([*git, "add", "suite"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    return git


def worktree_count(git) -> int:
    return subprocess.run([*git, "worktree", "list"], capture_output=True, text=True).stdout.count("\n")


def test_ab_rev_without_git_is_one_error(project, benchlab, monkeypatch, tmp_path):
    write(project / "a.sh", "#!/bin/sh\n", executable=True)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no git on it
    result = benchlab("ab", "--rev", "main", "--rev", "HEAD", "a.sh")
    assert (result.exit_code, result.stderr) == (
        2, "error: --rev needs git, which cannot run here: No such file or directory "
           "(install git (apt-get install git), or give two programs A B)\n")


def test_a_failing_git_worktree_add_is_one_error_naming_what_git_said(project, benchlab, monkeypatch, tmp_path):
    git = repository(project)
    taken = tmp_path / "taken"
    write(taken / "a" / "something", "in the way\n")  # git refuses to add a worktree over it
    monkeypatch.setattr(tempfile, "mkdtemp", lambda prefix="": str(taken))
    result = benchlab("ab", "--rev", "HEAD", "--rev", "HEAD", "suite")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --rev HEAD: git worktree add failed: fatal: ")
    assert result.stderr.endswith("(run `git worktree prune` and check the repository, or give two programs A B)\n")
    assert worktree_count(git) == 1


def test_sigterm_removes_the_worktrees_and_ends_as_ctrl_c(project):
    git = repository(project)
    with pytest.raises(KeyboardInterrupt):
        with revisions.worktrees(project, ("HEAD", "HEAD")) as paths:
            assert worktree_count(git) == 3 and all(path.is_dir() for path in paths)
            os.kill(os.getpid(), signal.SIGTERM)
            signal.sigtimedwait([], 0)  # a bytecode boundary after delivery: the handler has run
    assert worktree_count(git) == 1 and not any(path.exists() for path in paths)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
