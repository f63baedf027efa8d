"""The gate's rule for what it executes (issue 31): binaries this user's `benchlab run`
recorded in a file of its own, and stored file names that can never leave the workspace."""
import os
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


def test_recorded_sha256s_are_trusted_once_each_and_nothing_else_is(trust_file):
    assert trust.trusted() == set()
    assert trust.record([A, A, "not a sha256", "../" + B]) is None
    assert trust.record([A, B]) is None
    assert trust.trusted() == {A, B}
    assert trust_file.read_text() == f"{A}\n{B}\n"
    assert trust_file.stat().st_mode & 0o777 == 0o600


def test_a_record_others_can_write_is_not_believed(trust_file):
    trust.record([A])
    os.chmod(trust_file, 0o666)
    assert trust.trusted() == set()


def test_a_record_that_cannot_be_written_says_why_and_raises_nothing(trust_file):
    trust_file.parent.mkdir(parents=True)
    trust_file.mkdir()  # a directory where the file should be
    assert trust.record([A]).startswith(f"cannot record the binaries it ran in {trust_file}: ")


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
