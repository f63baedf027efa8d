"""The header's implementation compiled once per target, compiler, flags and header, into an
archive in the build cache, and linked by every program (build.py, issue 40). Compiler
invocations are counted through the builder's own runner, not timed."""
import dataclasses
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from benchlab.config import load_config
from benchlab.measuring import build
from benchlab.measuring.build import EXTERNAL_IMPLEMENTATION, Builder
from conftest import SMALL_BENCH, compile_c, write

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


class Counting:
    """subprocess.run, recording each command: which compiled the implementation, which
    archived it, which compiled a program."""

    def __init__(self):
        self.argvs: list[list[str]] = []

    def __call__(self, argv, **kwargs):
        self.argvs.append([str(arg) for arg in argv])
        return subprocess.run(argv, **kwargs)

    @property
    def implementations(self):
        return [argv for argv in self.argvs if "-include" in argv]

    @property
    def archives(self):
        return [argv for argv in self.argvs if argv[1:2] == ["rcsD"]]

    @property
    def programs(self):
        return [argv for argv in self.argvs if "-include" not in argv and argv[1:2] != ["rcsD"]]


def suite(project, names=("a", "b", "c")):
    return [write(project / "suite" / f"{name}.c", SMALL_BENCH.replace("spin", f"spin_{name}")) for name in names]


def records(binary, *, warnings=False):
    """The binary's records at 3 samples, and its stderr (its warnings, when asked for)."""
    env = {name: value for name, value in os.environ.items() if name != "BL_NO_WARN"}
    if not warnings:
        env["BL_NO_WARN"] = "1"
    done = subprocess.run([str(binary), "--samples=3", "--time-limit=0.001", "--format=jsonl"],
                          capture_output=True, text=True, env=env, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def result_names(records):
    return sorted((record["bench"], record.get("param")) for record in records if record["type"] == "result")


def test_a_suite_of_three_files_compiles_the_implementation_once(project):
    sources = suite(project)
    counting = Counting()
    builder = Builder(load_config(), run=counting)
    binaries = [builder.build(source, "native") for source in sources]

    assert len(counting.implementations) == 1 and len(counting.archives) == 1
    [archive] = builder.implementations
    assert archive.is_file() and archive.parent == project / ".benchlab" / "build" / "native"
    assert len(counting.programs) == 3
    for argv in counting.programs:
        assert EXTERNAL_IMPLEMENTATION in argv and argv.index(str(archive)) < argv.index("-o")
    for binary in binaries:
        assert any(record["type"] == "result" for record in records(binary)[0])

    # A fourth file takes the archive from the cache; the first three are cached whole.
    counting = Counting()
    again = Builder(load_config(), run=counting)
    assert [again.build(source, "native") for source in sources] == binaries
    again.build(suite(project, ("d",))[0], "native")
    assert counting.implementations == [] and counting.archives == [] and len(counting.programs) == 1
    assert again.implementations == []


def test_a_changed_flag_compiler_or_header_makes_another_implementation(project):
    [source] = suite(project, ("a",))
    archives = set()

    def implementation():
        builder = Builder(load_config())
        builder.build(source, "native")
        assert len(builder.implementations) == 1
        archives.add(builder.implementations[0])

    implementation()
    write(project / "benchlab.toml", '[build]\ncflags = ["-O1"]\n')
    implementation()
    write(project / "benchlab.toml", '[build]\ncflags = ["-O1", "-march=x86-64-v2"]\n' if os.uname().machine == "x86_64"
          else '[build]\ncflags = ["-O1", "-fno-inline"]\n')
    implementation()
    header = project / "include" / "benchlab.h"
    header.write_text(header.read_text() + "\n/* changed */\n")
    implementation()
    if shutil.which("clang") and shutil.which("gcc"):
        other = "clang" if "gcc" in build.compiler_version("cc") else "gcc"
        write(project / "benchlab.toml", f'[build]\ncc = "{other}"\ncflags = ["-O1"]\n')
        implementation()
        assert len(archives) == 5
    assert len(archives) >= 4


def test_the_binary_reports_the_benchmarks_compiler_and_flags(project, tmp_path):
    # The record's compiler and flags are the program's, as a whole build's; the
    # implementation is compiled with the benchmark's flags: at -O0 it warns (it reads
    # __OPTIMIZE__), at -O2 not.
    [source] = suite(project, ("a",))
    write(project / "benchlab.toml", '[build]\ncflags = ["-O2", "-DEXTRA=1"]\n')
    builder = Builder(load_config())
    linked, stderr = records(builder.build(source, "native"), warnings=True)
    assert builder.implementations, "the program was compiled whole"
    whole, _ = records(compile_c(source, tmp_path / "whole", flags=("-DBL_CFLAGS=\"-O2 -DEXTRA=1\"",)))
    context, whole_context = linked[0], whole[0]
    assert context["compiler_flags"] == "-O2 -DEXTRA=1" == whole_context["compiler_flags"]
    assert context["compiler"] == whole_context["compiler"] and context["arch"] == whole_context["arch"]
    assert result_names(linked) == result_names(whole) and len(result_names(linked)) == 4
    assert "built without optimization" not in stderr

    write(project / "benchlab.toml", '[build]\ncflags = ["-O0"]\n')
    builder = Builder(load_config())
    _, stderr = records(builder.build(source, "native"), warnings=True)
    assert builder.implementations and "built without optimization" in stderr


@pytest.mark.parametrize("option", ["BL_NO_TSC", "BL_NO_ALLOC_HOOK", "BL_DEFAULT_FORMAT \"jsonl\"",
                                    "BENCHLAB_IMPLEMENTATION"])
def test_a_program_that_defines_an_option_of_the_implementation_is_compiled_whole(project, option):
    # In the file itself, or in a header of its own that it includes: its copy must apply.
    direct = write(project / "suite" / "direct.c", f"#define {option}\n{SMALL_BENCH}")
    write(project / "suite" / "options.h", f"#define {option}\n")
    indirect = write(project / "suite" / "indirect.c", f'#include "options.h"\n{SMALL_BENCH}')
    counting = Counting()
    builder = Builder(load_config(), run=counting)
    for source in (direct, indirect):
        assert any(r["type"] == "result" for r in records(builder.build(source, "native"))[0])
    assert counting.implementations == [] and len(counting.programs) == 2
    assert not any(EXTERNAL_IMPLEMENTATION in argv for argv in counting.programs)


def test_a_define_in_a_comment_changes_nothing(project):
    source = write(project / "suite" / "commented.c", f"/* no #define BL_NO_TSC here:\n#define BL_NO_TSC\n*/\n{SMALL_BENCH}")
    builder = Builder(load_config())
    builder.build(source, "native")
    assert len(builder.implementations) == 1


def test_a_two_file_program_links_the_archive_or_its_own_copy(project):
    # examples/two_files: one file defines BENCHLAB_IMPLEMENTATION, so the program keeps it.
    counting = Counting()
    builder = Builder(load_config(), run=counting)
    (project / "two").mkdir()
    main, other = (Path(shutil.copy(EXAMPLES / name, project / "two")) for name in ("two_files_a.c", "two_files_b.c"))
    own = records(builder.build(main, "native", (other,)))[0]
    assert counting.implementations == [] and EXTERNAL_IMPLEMENTATION not in counting.programs[0]
    # The same program with the define taken out: its two files link the archive.
    main.write_text(main.read_text().replace("#define BENCHLAB_IMPLEMENTATION\n", ""))
    shared = records(builder.build(main, "native", (other,)))[0]
    assert len(counting.implementations) == 1 and EXTERNAL_IMPLEMENTATION in counting.programs[1]
    assert result_names(own) == result_names(shared) == [("copy_loop", None), ("copy_memcpy", None)]


def test_without_an_archiver_a_program_is_compiled_whole(project, monkeypatch):
    monkeypatch.setitem(build.BUILD_TARGETS, "native",
                        dataclasses.replace(build.BUILD_TARGETS["native"], archiver="no-such-archiver"))
    [source] = suite(project, ("a",))
    counting = Counting()
    builder = Builder(load_config(), run=counting)
    assert any(r["type"] == "result" for r in records(builder.build(source, "native"))[0])
    assert counting.implementations == [] and EXTERNAL_IMPLEMENTATION not in counting.programs[0]


@pytest.mark.skipif(not (shutil.which("clang") and shutil.which("wasm-ld") and shutil.which("llvm-ar")),
                    reason="needs clang, wasm-ld and llvm-ar")
def test_wasm_programs_share_one_implementation_of_their_own(project):
    sources = suite(project, ("a", "b"))
    counting = Counting()
    builder = Builder(load_config(), run=counting)
    native = builder.build(sources[0], "native")
    modules = [builder.build(source, "wasm32-wasi") for source in sources]
    assert len(counting.implementations) == 2 and len(builder.implementations) == 2
    assert builder.implementations[1].parent.name == "wasm32-wasi"
    assert all(module.read_bytes()[:4] == b"\0asm" for module in modules) and native.suffix == ""
    assert [argv[0] for argv in counting.archives] == [shutil.which("ar"), shutil.which("llvm-ar")]


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_strict_c99_builds_link_the_implementation_with_gcc_and_clang(project, compiler):
    if not shutil.which(compiler):
        pytest.skip(f"needs {compiler}")
    write(project / "benchlab.toml", f'[build]\ncc = "{compiler}"\n'
          'cflags = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2"]\n')
    [source] = suite(project, ("a",))
    builder = Builder(load_config())
    linked, _ = records(builder.build(source, "native"))
    assert len(builder.implementations) == 1 and len(result_names(linked)) == 4
    assert linked[0]["compiler"].startswith(compiler)
