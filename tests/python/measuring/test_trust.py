"""The gate's rule for what it executes (issue 31): binaries this user's `benchlab run`
recorded in a file of its own, and stored file names that can never leave the workspace."""
import os
import signal
from pathlib import Path

import pytest

from benchlab.config import load_config
from benchlab.measuring import remeasure, trust
from benchlab.statistics import noise

A = "a" * 64
B = "b" * 64


@pytest.fixture
def trust_file(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "cache" / "trusted-binaries"
    monkeypatch.setenv(trust.TRUST_FILE_VARIABLE, str(path))
    return path


def test_recorded_sha256s_are_trusted_once_each_with_their_paths_and_nothing_else_is(trust_file, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative path is recorded absolute
    assert trust.trusted() == trust.Trusted()
    assert trust.record([(A, "bin/a"), (A, "bin/a"), ("not a sha256", "x"), ("../" + B, "y")]) is None
    assert trust.record([(A, str(tmp_path / "bin" / "a")), (B, "/odd\npath \"q\"")]) is None  # A at bin/a: known
    known = trust.trusted()
    assert known.digests == {A, B} and known.problem is None
    assert known.paths == {(A, os.path.abspath("bin/a")), (B, "/odd\npath \"q\"")}
    assert trust_file.read_text().splitlines() == [f'{A} "{os.path.abspath("bin/a")}"', f'{B} "/odd\\npath \\"q\\""']
    assert trust_file.stat().st_mode & 0o777 == 0o600


def test_a_record_of_sha256s_alone_trusts_their_content_at_no_path(trust_file):
    trust_file.parent.mkdir(parents=True)
    trust_file.write_text(f"{A}\n{B} not-json\n")
    trust_file.chmod(0o600)
    assert trust.trusted() == trust.Trusted(frozenset({A, B}), frozenset())
    assert trust.untrusted_reason("it", A, trust.trusted()) is None
    assert trust.untrusted_path_reason("the candidate's binary", "/x", A, trust.trusted()).startswith(
        f"the candidate's binary /x (sha256 {A[:12]}...) is not a path benchlab run on this machine ran that binary at")


def test_a_record_others_can_write_is_not_believed(trust_file):
    trust.record([(A, "/a")])
    os.chmod(trust_file, 0o666)
    known = trust.trusted()
    assert (known.digests, known.paths) == (frozenset(), frozenset())
    assert known.problem == f"{trust_file} may be written by another user: not believed (make it yours, mode 600)"
    assert f"was not run by benchlab run on this machine ({known.problem}): not executed" in \
        trust.untrusted_reason("it", A, known)


def test_a_record_that_cannot_be_written_says_why_and_raises_nothing(trust_file):
    trust_file.parent.mkdir(parents=True)
    trust_file.mkdir()  # a directory where the file should be
    assert trust.record([(A, "/a")]).startswith(f"cannot record the binaries it ran: {trust_file} is not a regular file")


@pytest.fixture
def watchdog():
    """A call that blocks fails the test (SIGALRM) instead of hanging it; nothing here waits on it."""
    def expire(signum, frame):
        raise TimeoutError("blocked")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_a_fifo_at_the_record_never_blocks_run_or_gate_and_says_what_to_do(trust_file, watchdog):
    trust_file.parent.mkdir(parents=True)
    os.mkfifo(trust_file, 0o600)  # no writer: a blocking open for reading waits for one forever
    problem = f"{trust_file} is not a regular file: remove it (benchlab run writes it anew)"
    assert trust.trusted() == trust.Trusted(problem=problem)
    assert trust.record([(A, "/a")]) == f"cannot record the binaries it ran: {problem}"


def test_a_record_larger_than_the_bound_is_refused_unread(trust_file, monkeypatch):
    trust.record([(A, "/a")])
    monkeypatch.setattr(trust, "MAX_TRUST_FILE_BYTES", 16)
    known = trust.trusted()
    assert known.digests == frozenset() and known.problem == (
        f"{trust_file} holds {len(A) + 6} bytes, more than the 16 read: remove it (benchlab run records the "
        "binaries it runs anew)")


@pytest.mark.parametrize("name, safe", [
    ("loop", "loop"), ("module.wasm", "module.wasm"), ("../../etc/passwd", "_.._etc_passwd"), ("..", "binary"),
    ("", "binary"), (None, "binary"), ("a\0b", "a_b"), (".hidden", "hidden"), ("a/b@native", "a_b_native"),
    ("x" * 300 + ".wasm", "x" * 95 + ".wasm"), ("\u202eexe.txt", "_exe.txt"),
])
def test_a_stored_name_is_one_safe_file_name(name, safe):
    assert remeasure.safe_name(name) == safe


def test_kept_binaries_with_hostile_names_are_written_inside_the_workspace_only(tmp_path):
    config = load_config(cwd=tmp_path)
    candidate = tmp_path / "candidate"
    candidate.write_bytes(b"#!/bin/sh\n")
    code = {"sha256": noise.file_sha256(candidate), "path": str(candidate), "flags": {}}
    names = ["../../escaped", "", "a\0b", "..", "/abs/olute", "same", "same"]
    kept = [{"binary": f"b{index}", "platform": "native", "file_name": name, "content": b"x", "intact": True,
             "sha256": code["sha256"]} for index, name in enumerate(names)]
    context = {"code": {noise.code_label(f"b{index}", "native"): code for index in range(len(names))}}
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    plan = remeasure.plan(config, kept, context, context, workspace, trust_stored=True)
    assert plan.fallbacks == {}
    written = [pair.a.target.path for pair in plan.pairs]
    assert len(set(written)) == len(names)
    assert all(path.resolve().parent.parent == workspace.resolve() and path.read_bytes() == b"x" for path in written)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["candidate", "workspace"]


def test_sigterm_in_the_gate_removes_its_workspace_and_ends_as_ctrl_c():
    import signal
    with pytest.raises(KeyboardInterrupt):
        with remeasure.workspace() as directory:
            (directory / "kept").write_bytes(b"x")
            os.kill(os.getpid(), signal.SIGTERM)
            signal.sigtimedwait([], 0)  # a bytecode boundary after delivery: the handler has run
    assert not directory.exists()


def test_a_fifo_at_a_binary_s_path_never_blocks_the_gate_or_baseline_save(tmp_path, watchdog):
    fifo = tmp_path / "loop"
    os.mkfifo(fifo)  # no writer: a blocking open waits for one forever
    code = {"sha256": A, "path": str(fifo), "flags": {}}
    context = {"code": {"loop@native": code}}
    assert remeasure.kept_binaries(context) == (
        [], {"loop@native": f"its binary {fifo} is gone or was rebuilt since the run"})
    kept = [{"binary": "loop", "platform": "native", "file_name": "loop", "content": b"x", "intact": True,
             "sha256": A}]
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    plan = remeasure.plan(load_config(cwd=tmp_path), kept, context, context, workspace, trust_stored=True)
    assert plan.pairs == [] and plan.fallbacks == {
        "loop@native": f"the candidate's binary {fifo} is gone or was rebuilt since its run"}
