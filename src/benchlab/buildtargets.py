"""Build targets, in one table: how a C source is compiled for each, what its binaries are
called, what each needs installed, and the built-in platform that runs them.

build.py compiles from a row, targets.py tells a prebuilt binary's target from its
suffix, platforms.py makes each row's platform a built-in, config.py checks
`platforms.NAME.build` and the `[build]` keys against it, context.py records each
target's compiler, and buildable.py knows which have no threads. Adding a target is
one row here (and, when its binaries need one, a runner such as wasi.py); a compiler of
its own also needs its two `[build]` keys in config.BuildSettings, which
tests/python/test_buildtargets.py checks.

This module imports nothing of benchlab (config.py reads it).
"""
from __future__ import annotations

import dataclasses
import sys


@dataclasses.dataclass(frozen=True)
class BuildTarget:
    name: str
    #: The `[build]` keys (config.BuildSettings fields) of its compiler and its flags.
    compiler: str
    flags: str
    #: What the compiler is, and the packages that provide it, for the error when it is missing.
    compiler_what: str
    packages: str
    #: Flags before the configured ones that select the target (clang's --target=).
    target_flags: tuple[str, ...] = ()
    #: Libraries linked last: a `[build]` key (a str), or the libraries themselves.
    libs: str | tuple[str, ...] = "libs"
    #: The suffix of its binaries; a prebuilt file with it runs on this target only.
    suffix: str = ""
    #: The archiver of its objects, for the header's implementation compiled once
    #: (build.py): a target without it compiles the implementation with every file.
    archiver: str = "ar"
    #: Other programs the build needs: (program, what it is, how to install it).
    tools: tuple[tuple[str, str, str], ...] = ()
    #: A failed compile whose stderr says any of the texts is the toolchain's fault, not the
    #: source's: (texts, what is missing, how to install it).
    failures: tuple[tuple[tuple[str, ...], str, str], ...] = ()
    #: Why it has no threads ("" when it has them): a source that includes <pthread.h> fails
    #: to build for it as a `-` cell, not a failure (buildable.py).
    no_threads: str = ""
    #: The built-in platform that runs its binaries: its name, argv template and description.
    platform: str = ""
    runner: tuple[str, ...] = ()
    description: str = ""
    #: The Python module the runner runs (`python -m MODULE`), whose version() names it in a
    #: run's context; None when the runner is a program that answers --version.
    runner_module: str | None = None

    def compiler_of(self, settings) -> str:
        return getattr(settings, self.compiler)

    def flags_of(self, settings) -> list[str]:
        return getattr(settings, self.flags)

    def libs_of(self, settings) -> list[str]:
        return list(getattr(settings, self.libs) if isinstance(self.libs, str) else self.libs)


#: The build target of the machine benchlab runs on: its compiler is always recorded.
HOST = "native"

TARGETS: tuple[BuildTarget, ...] = (
    BuildTarget(HOST, compiler="cc", flags="cflags", compiler_what="the C compiler", packages="gcc",
                platform="native", runner=("{exe}", "{args}"), description="the host, directly"),
    # A subprocess rather than wasmtime in-process: the same timeout, crash and output
    # capture as every other platform, and a trap cannot take us down.
    BuildTarget("wasm32-wasi", compiler="wasm_cc", flags="wasm_cflags", compiler_what="the wasm32-wasi compiler",
                packages="clang lld wasi-libc", target_flags=("--target=wasm32-wasi",), libs=("-lm",),
                suffix=".wasm", archiver="llvm-ar", tools=(("wasm-ld", "the WebAssembly linker", "apt-get install lld"),),
                failures=((("stdio.h' file not found", "unable to find library -lc"),
                           "wasi-libc (the C library for wasm32-wasi) is not installed", "apt-get install wasi-libc"),
                          (("libclang_rt.builtins-wasm32",), "the compiler-rt builtins for wasm32 are missing",
                           "apt-get install libclang-rt-dev-wasm32 (or the version matching clang)")),
                no_threads="wasi-libc has no threads",
                platform="wasm", runner=(sys.executable, "-m", "benchlab.wasi", "--dir", "{scratch}", "{exe}", "{args}"),
                description="WASI module under the wasmtime Python package", runner_module="benchlab.wasi"),
)

BY_NAME = {target.name: target for target in TARGETS}
NAMES = tuple(BY_NAME)
#: Suffixes that name a binary's target (a file without one is a host binary).
SUFFIXES = frozenset(target.suffix for target in TARGETS if target.suffix)


def runs_on(path_suffix: str, target: str) -> bool:
    """Whether a prebuilt binary whose name ends in `path_suffix` runs on build target `target`:
    a target's suffix means that target only; a file without one runs where binaries have none."""
    suffix = BY_NAME[target].suffix
    return path_suffix == suffix if suffix else path_suffix not in SUFFIXES


__all__ = ["BuildTarget", "TARGETS", "BY_NAME", "NAMES", "HOST", "SUFFIXES", "runs_on"]
