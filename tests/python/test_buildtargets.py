"""benchlab.buildtargets, the one table of build targets: each row is the compile command,
the binaries' suffix, the toolchain checks, the built-in platform and the threads rule that
build.py, targets.py, platforms.py, config.py, context.py and buildable.py use, and the docs
list the same; a row added to the table is a platform of its own with nothing else changed."""
import dataclasses
import re
import sys
from pathlib import Path

import pytest

from benchlab import buildtargets, wasi
from benchlab.measuring import context
from benchlab.measuring.buildable import unbuildable_reason
from benchlab.measuring.build import Builder
from benchlab.buildtargets import BuildTarget
from benchlab.config import BuildSettings, Config, load_config
from benchlab.errors import UserError
from benchlab.measuring.platforms import Platform, builtin_platforms, resolve_platforms
from benchlab.measuring.targets import Target
from conftest import REPO, write

CLI_DOC = (REPO / "docs" / "cli.md").read_text()


def test_every_rows_build_keys_are_settings_of_benchlab_toml(project):
    fields = {field.name: field for field in dataclasses.fields(BuildSettings)}
    settings = BuildSettings()
    for target in buildtargets.TARGETS:
        assert isinstance(target.compiler_of(settings), str) and target.compiler in fields
        assert isinstance(target.flags_of(settings), list) and target.flags in fields
        assert isinstance(target.libs, tuple) or target.libs in fields
    write(project / "benchlab.toml", "[build]\n" + "".join(f'{t.compiler} = "cc-{t.name}"\n{t.flags} = ["-O{i}"]\n'
                                                           for i, t in enumerate(buildtargets.TARGETS)))
    build = load_config().build
    assert [(t.compiler_of(build), t.flags_of(build)) for t in buildtargets.TARGETS] == [
        (f"cc-{t.name}", [f"-O{i}"]) for i, t in enumerate(buildtargets.TARGETS)]


def test_the_commands_are_the_ones_docs_cli_gives_per_target(project):
    """docs/cli.md, *Builds*: one row per target, its command with the default settings."""
    section = CLI_DOC[CLI_DOC.index("### Builds"):]
    rows = dict(re.findall(r"^\| `([\w-]+)` \| `([^`]+)` \|$", section[:section.index("\n###")], re.MULTILINE))
    assert list(rows) == list(buildtargets.NAMES)
    builder = Builder(Config(root=project))
    for target in buildtargets.TARGETS:
        archive = Path(f".benchlab/build/{target.name}/benchlab-HASH.a")  # the implementation's (build.py)
        argv = builder.command(Path("FILE.c"), target.name, Path(f"OUT{target.suffix}"), implementation=archive)
        assert f"-ffile-prefix-map={project}=." in argv  # the prefix maps and include dirs, each shown as one
        shown = []
        for arg, shown_as in ((arg, _shown_as_one(arg)) for arg in argv):
            if shown_as is None or shown_as not in shown:
                shown.append(arg if shown_as is None else shown_as)
        assert " ".join(shown) == rows[target.name], target.name


def _shown_as_one(arg: str) -> str | None:
    for prefix, shown in (("-ffile-prefix-map=", "-ffile-prefix-map=ROOT=."), ("-I", "-Iinclude")):
        if arg.startswith(prefix):
            return shown
    return None


def test_every_target_has_its_built_in_platform_as_docs_cli_lists_it():
    section = CLI_DOC[CLI_DOC.index("## Platforms"):]
    documented = dict(re.findall(r"^\| `([\w-]+)` \| ([\w-]+) \|", section, re.MULTILINE))
    platforms = builtin_platforms()
    assert documented == {name: spec.build for name, spec in platforms.items()}
    for target in buildtargets.TARGETS:
        spec = platforms[target.platform]
        assert (spec.build, spec.command, spec.description) == (target.name, list(target.runner), target.description)


def test_the_wasm_platform_names_its_runner_and_a_copy_of_it_does_not():
    [wasm] = resolve_platforms(["wasm"], Config(root=Path(".")))
    assert wasm.version() == wasi.version() and wasi.version().startswith("wasmtime (Python package) ")
    other = Platform(dataclasses.replace(wasm.spec, name="wasm2"))
    assert other._runner_module() is None


@pytest.mark.parametrize("suffix, runs_on", [(".wasm", {"wasm32-wasi"}), ("", {"native"}), (".sh", {"native"})])
def test_a_prebuilt_binary_runs_on_the_target_its_suffix_names(tmp_path, suffix, runs_on):
    exe = write(tmp_path / f"b{suffix}", "", executable=True)
    target = Target(name="b", kind="executable", path=exe)
    assert {name for name in buildtargets.NAMES if target.runs_on(name)} == runs_on


def test_a_missing_toolchain_and_a_missing_library_name_the_package(project):
    builder = Builder(Config(root=project, build=BuildSettings(wasm_cc="no-such-clang")))
    with pytest.raises(UserError) as error:
        builder.check_toolchain("wasm32-wasi")
    assert (error.value.what, error.value.fix) == (
        "the wasm32-wasi compiler 'no-such-clang' is not on PATH",
        "apt-get install clang lld wasi-libc, or set build.wasm_cc in benchlab.toml")
    with pytest.raises(UserError) as error:
        builder._explain_toolchain_failure("wasm32-wasi", "fatal error: 'stdio.h' file not found")
    assert str(error.value) == "wasi-libc (the C library for wasm32-wasi) is not installed (apt-get install wasi-libc)"
    builder._explain_toolchain_failure("native", "fatal error: 'stdio.h' file not found")  # the source's own fault


def test_only_a_target_without_threads_excuses_a_pthread_source(tmp_path):
    source = write(tmp_path / "t.c", "#include <pthread.h>\nint main(void) { return 0; }\n")
    assert unbuildable_reason([source], "wasm32-wasi") == "not built for wasm32-wasi: includes <pthread.h> " \
                                                          "(wasi-libc has no threads)"
    assert unbuildable_reason([source], "native") is None


ROW = BuildTarget("riscv64-linux-gnu", compiler="cc", flags="cflags", compiler_what="the riscv64 compiler",
                  packages="gcc-riscv64-linux-gnu", target_flags=("-march=rv64gc",), libs=("-lm",), suffix=".rv64",
                  no_threads="no threads in this test", platform="riscv", runner=("qemu-riscv64", "{exe}", "{args}"),
                  description="riscv64 under qemu-user")


@pytest.fixture
def one_more_row(monkeypatch):
    monkeypatch.setattr(buildtargets, "TARGETS", (*buildtargets.TARGETS, ROW))
    monkeypatch.setitem(buildtargets.BY_NAME, ROW.name, ROW)
    monkeypatch.setattr(buildtargets, "SUFFIXES", buildtargets.SUFFIXES | {ROW.suffix})


def test_a_row_added_to_the_table_is_a_platform_with_nothing_else_changed(project, one_more_row, tmp_path):
    write(project / "benchlab.toml", '[platforms.rv]\nbuild = "riscv64-linux-gnu"\ncommand = ["{exe}", "{args}"]\n')
    config = load_config()
    assert config.user_platforms["rv"].build == ROW.name
    [riscv] = resolve_platforms(["riscv"], config)
    assert (riscv.build, riscv.argv("/b/x.rv64", ["-v"], "/s", "/r")) == (ROW.name, ["qemu-riscv64", "/b/x.rv64", "-v"])
    builder = Builder(config)
    assert builder.command(Path("a.c"), ROW.name, Path("a.rv64"))[:3] == ["cc", "-march=rv64gc", "-O2"]
    assert builder.command(Path("a.c"), ROW.name, Path("a.rv64"))[-1] == "-lm"
    exe = write(tmp_path / "x.rv64", "", executable=True)
    assert Target(name="x", kind="executable", path=exe).runs_on(ROW.name)
    assert not Target(name="x", kind="executable", path=exe).runs_on("native")
    assert unbuildable_reason([write(tmp_path / "t.c", "#include <threads.h>\n")], ROW.name).endswith(
        "(no threads in this test)")
    run = context.collect(config, [riscv], 1, ["benchlab"])
    assert list(run["compilers"]) == ["native", ROW.name] and run["cflags"][ROW.name] == ["-O2"]


def test_an_unknown_build_target_lists_the_tables(project):
    write(project / "benchlab.toml", '[platforms.x]\nbuild = "vax"\ncommand = ["{exe}"]\n')
    with pytest.raises(UserError) as error:
        load_config()
    assert "unknown build target 'vax'" in error.value.what
    assert error.value.fix == f"use one of: {', '.join(buildtargets.NAMES)}"
    assert sys.executable in buildtargets.BY_NAME["wasm32-wasi"].runner
