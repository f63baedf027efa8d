import os
import shutil

import pytest

from benchlab.measuring.build import BUNDLED_INCLUDE, Builder, BuildFailed
from benchlab.config import load_config
from benchlab.errors import UserError
from conftest import SMALL_BENCH, write



@pytest.fixture
def source(project):
    return write(project / "suite" / "small.c", SMALL_BENCH)


def test_second_build_compiles_nothing_and_reuses_the_same_file(project, source):
    first = Builder(load_config())
    path = first.build(source, "native")
    assert first.compiled == [path] and first.reused == []
    stamp = os.stat(path).st_mtime_ns

    second = Builder(load_config())
    assert second.build(source, "native") == path
    assert second.compiled == [] and second.reused == [path]
    assert os.stat(path).st_mtime_ns == stamp
    assert path.parent == project / ".benchlab" / "build" / "native"


def test_a_change_to_source_header_or_flags_rebuilds(project, source):
    builder = Builder(load_config())
    original = builder.build(source, "native")

    header = project / "include" / "benchlab.h"
    header.write_text(header.read_text() + "\n/* changed */\n")
    after_header = builder.build(source, "native")
    assert after_header != original

    source.write_text(source.read_text() + "\n/* changed */\n")
    after_source = builder.build(source, "native")
    assert after_source not in (original, after_header)

    write(project / "benchlab.toml", '[build]\ncflags = ["-O1"]\n')
    other_flags = Builder(load_config())
    assert other_flags.build(source, "native") not in (original, after_header, after_source)
    assert len(builder.compiled) == 3 and len(other_flags.compiled) == 1


def test_the_same_sources_in_another_directory_are_the_same_build(project, source):
    # Two checkouts of a suite with a header beside its sources (ab --rev's worktrees): one
    # build, one binary; a changed local header is another build.
    for copy in ("a", "b"):
        write(project / copy / "suite" / "small.c", SMALL_BENCH)
        write(project / copy / "suite" / "local.h", "#define LOCAL 1\n")
    builder = Builder(load_config())
    first = builder.build(project / "a" / "suite" / "small.c", "native")
    assert builder.build(project / "b" / "suite" / "small.c", "native") == first
    assert builder.compiled == [first] and builder.reused == [first]
    write(project / "b" / "suite" / "local.h", "#define LOCAL 2\n")
    assert builder.build(project / "b" / "suite" / "small.c", "native") != first


def test_a_project_without_the_header_builds_against_benchlabs_own(project, source):
    shutil.rmtree(project / "include")
    builder = Builder(load_config())
    assert builder.include_dirs()[-1] == BUNDLED_INCLUDE
    assert builder.build(source, "native").is_file()


def test_a_projects_own_header_comes_before_benchlabs(project, source):
    # A copy that differs from benchlab's (an older version, a patched one): the project's wins.
    (project / "include" / "benchlab.h").write_text("#error the project's own copy\n")
    with pytest.raises(BuildFailed) as failure:
        Builder(load_config()).build(source, "native")
    assert "the project's own copy" in failure.value.stderr


def test_wasm_and_native_builds_are_cached_separately(project, source):
    builder = Builder(load_config())
    wasm = builder.build(source, "wasm32-wasi")
    assert wasm.suffix == ".wasm" and wasm.read_bytes()[:4] == b"\0asm"
    assert builder.build(source, "native") != wasm


def test_a_compile_error_is_a_build_failure_with_the_compilers_message(project):
    broken = write(project / "broken.c", "int main(void) { return missing_symbol; }\n")
    with pytest.raises(BuildFailed) as failure:
        Builder(load_config()).build(broken, "native")
    assert "missing_symbol" in failure.value.stderr
    assert not list((project / ".benchlab" / "build" / "native").glob("*broken*"))


def test_a_missing_compiler_is_a_user_error_naming_the_package(project, source):
    write(project / "benchlab.toml", '[build]\ncc = "no-such-cc"\n')
    with pytest.raises(UserError) as error:
        Builder(load_config()).build(source, "native")
    assert str(error.value) == ("the C compiler 'no-such-cc' is not on PATH "
                                "(apt-get install gcc, or set build.cc in benchlab.toml)")
