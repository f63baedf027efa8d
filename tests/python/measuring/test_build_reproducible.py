"""The same sources, flags and compiler give the same binary in any directory (build.py,
"reproducible"), so two clones, two CI jobs or two worktrees run identical code and share
its history: same sha256 natively and as wasm, and the same code identity in the runs."""
from __future__ import annotations

import hashlib
import shutil
import os
import sys

import pytest

from benchlab.config import load_config
from benchlab.measuring.build import Builder
from benchlab.measuring.platforms import builtin_platforms
from benchlab.measuring.runner import OWN_PYTHON, _without_own_python_path
from benchlab.storage.store import open_store
from conftest import FAST, HEADER, SMALL_BENCH, write

TARGETS = ("native", "wasm32-wasi")


def _clone(root, cflags: list[str], cc: str = "cc"):
    """A project as a clone has it: its own copy of the header, a suite whose source includes
    a header beside it (as suites/sys's sysbench.h)."""
    write(root / "include" / "benchlab.h", HEADER.read_text())
    write(root / "suite" / "local.h", "#define LOCAL_SIZE 16\n")
    write(root / "suite" / "small.c", '#include "local.h"\n' + SMALL_BENCH)
    flags = ", ".join(f'"{flag}"' for flag in cflags)
    write(root / "benchlab.toml", f'[build]\ncc = "{cc}"\ncflags = [{flags}]\nwasm_cflags = [{flags}]\n')
    return root


def _binaries(root, monkeypatch) -> dict[str, bytes]:
    monkeypatch.chdir(root)
    builder = Builder(load_config())
    return {target: builder.build(root / "suite" / "small.c", target).read_bytes() for target in TARGETS}


@pytest.fixture
def clones(tmp_path):
    """Two places of different depth, as two CI jobs' checkouts."""
    return tmp_path / "job-1" / "project", tmp_path / "job-22" / "checkouts" / "a" / "project"


def test_two_clones_at_different_paths_build_the_same_bytes_with_debug_information(clones, monkeypatch, tmp_path):
    # -g records file names and the compilation directory beside __FILE__: the prefix maps
    # cover all of them (the default flags: the runs' test below).
    first, second = (_binaries(_clone(root, ["-O2", "-g"]), monkeypatch) for root in clones)
    for target in TARGETS:
        assert hashlib.sha256(first[target]).hexdigest() == hashlib.sha256(second[target]).hexdigest(), target
        assert str(tmp_path).encode() not in first[target], target  # no trace of where it was built
    assert b"./suite/small.c" in first["native"]  # __FILE__, by its place in the project


def test_a_compiler_without_prefix_maps_still_builds_though_not_reproducibly(clones, monkeypatch, tmp_path):
    # A compiler older than gcc 8 or clang 10 stops at -ffile-prefix-map: it is asked once,
    # and builds go on without the flag.
    old_cc = write(tmp_path / "bin" / "old-cc", '#!/bin/sh\nfor a in "$@"; do case "$a" in -ffile-prefix-map=*) '
                   'echo "old-cc: unrecognized option $a" >&2; exit 1;; esac; done\nexec cc "$@"\n', executable=True)
    monkeypatch.setenv("PATH", f"{old_cc.parent}:{os.environ['PATH']}")
    builds = []
    for root in clones:
        _clone(root, ["-O2"], cc="old-cc")
        monkeypatch.chdir(root)
        builder = Builder(load_config())
        assert not [arg for arg in builder.command(root / "suite" / "small.c", "native", root / "out")
                    if arg.startswith("-ffile-prefix-map")]
        builds.append(builder.build(root / "suite" / "small.c", "native").read_bytes())
    assert builds[0] != builds[1] and str(clones[0]).encode() in builds[0]


def test_runs_of_two_clones_record_the_same_code_identity(clones, benchlab, monkeypatch, tmp_path):
    codes = []
    for root in clones:
        _clone(root, ["-O2"])
        monkeypatch.chdir(root)
        result = benchlab("run", "suite", "--platform", "native", "--platform", "wasm", "--processes", "1", *FAST)
        assert result.exit_code == 0, result.stdout + result.stderr
        store = open_store(f"sqlite:///{root / '.benchlab' / 'results.db'}")
        code = store.run_row(1)["context"]["code"]
        store.close()
        codes.append({label: (entry["id"], entry["sha256"]) for label, entry in code.items()})
        for entry in code.values():
            assert str(tmp_path).encode() not in open(entry["path"], "rb").read()
    assert set(codes[0]) == {"small@native", "small@wasm"}
    assert codes[0] == codes[1]  # the same binaries' sha256, natively and as wasm, and the same identity


def test_the_wasm_platforms_identity_does_not_name_where_the_virtual_environment_is(monkeypatch):
    # The wasm platform runs `python -m benchlab.wasi`: two CI jobs' virtual environments
    # in two places run the same runner (its version is in the platform's `version`).
    spec = builtin_platforms()["wasm"]
    identities = []
    for python in ("/home/runner/work/a/.venv/bin/python", "/builds/0/b/.venv/bin/python"):
        monkeypatch.setattr(sys, "executable", python)
        command = [python if element == spec.command[0] else element for element in spec.command]
        info = {"command": command, "launchers": spec.launchers, "build": spec.build, "version": "wasmtime 1"}
        identities.append(_without_own_python_path(info))
    assert identities[0] == identities[1]
    assert identities[0]["command"][:3] == [OWN_PYTHON, "-m", "benchlab.wasi"]


def test_a_build_cache_restored_into_a_checkout_at_another_path_is_found_again(clones, monkeypatch):
    # A CI job restores main's .benchlab/build (the Actions cache) into its own checkout, at
    # another path: the keys name no checkout's path (the include directories by their place
    # in the project), so nothing is compiled again.
    first, second = (_clone(root, ["-O2"]) for root in clones)
    monkeypatch.chdir(first)
    built = Builder(load_config())
    binary = built.build(first / "suite" / "small.c", "native")
    assert built.compiled == [binary]
    shutil.copytree(first / ".benchlab" / "build", second / ".benchlab" / "build")
    monkeypatch.chdir(second)
    again = Builder(load_config())
    found = again.build(second / "suite" / "small.c", "native")
    assert (again.compiled, again.reused) == ([], [found])
    assert found.relative_to(second) == binary.relative_to(first)
    # a header of the project changed is another build, wherever the project is
    write(second / "include" / "benchlab.h", HEADER.read_text() + "\n/* changed */\n")
    assert again.build(second / "suite" / "small.c", "native") != found
