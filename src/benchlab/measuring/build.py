"""Compiling C benchmark sources per build target (buildtargets.py), with a content-addressed cache.

The cache key is a hash of everything that can change the binary: the source, every
header it could include, the compiler (path and full --version), the flags and the
target. Same key, same file under .benchlab/build/: a second run compiles nothing. The
key names no directory by where the checkout is (include directories by their place in
the project, `place`), so a build cache restored into another checkout (a CI job's, at
another path) is found again.

Builds are reproducible: the same source, flags and compiler give the same bytes in any
directory, so two CI jobs, two clones or `ab --rev`'s two worktrees build identical code
and the history of identical code (statistics/noise.py) follows it from one to the next.
A binary would otherwise carry the directory it was built in: `__FILE__` (the header's
registration macros keep each benchmark's file, for its messages) and, with -g, the debug
information's file and compilation directory names. So the compiler runs in the project
root and -ffile-prefix-map names every directory a build reads by where it is in the
project (`prefix_maps`); SOURCE_DATE_EPOCH pins `__DATE__` and `__TIME__`.

The header's implementation is compiled once, not with every file (issue 40: about 2 s
of CPU a file, most of a suite's build): per build target, compiler, flags and header, an
archive `.benchlab/build/<target>/benchlab-<hash>.a` holds it, compiled from the header
alone with the benchmark's own flags (so `-march`, sanitizers, `__OPTIMIZE__` and
BL_CFLAGS are the benchmark's), and each program is compiled with
-DBENCHLAB_EXTERNAL_IMPLEMENTATION (the header then declares only) and linked with it.
A program whose files define what the implementation reads at compile time (BL_NO_TSC,
BENCHLAB_IMPLEMENTATION, ...: `_OWN_DEFINE`) is compiled whole, as before; so is one
for a target without an archiver, or when the archive does not build.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable

from benchlab import bundled
from benchlab.buildtargets import BY_NAME as BUILD_TARGETS
from benchlab.config import Config
from benchlab.errors import UserError

#: Bump to invalidate every cached binary when the way we build changes
#: (2: reproducible builds, prefix maps and SOURCE_DATE_EPOCH; 3: keys that name include
#: directories by their place in the project, not the checkout's path; 4: the header's
#: implementation linked from an archive compiled once).
CACHE_VERSION = "4"
#: The workload launcher's source (see its comment: why max RSS needs it).
MEASURE_SOURCE = Path(__file__).with_name("measure.c")
#: The header benchlab was installed with: the checkout's include/, or the wheel's copy
#: (bundled.py). Searched after the project's include dirs: a project with its own copy
#: builds against that, and one without (a C file in any directory) still finds benchlab.h.
BUNDLED_INCLUDE = bundled.INCLUDE_DIR
#: The flag that renames a directory in everything a binary records of its paths: `__FILE__`
#: (-fmacro-prefix-map) and debug information (-fdebug-prefix-map); gcc >= 8, clang >= 10.
PREFIX_MAP = "-ffile-prefix-map"
#: What benchlab's own directories are called inside a binary, wherever benchlab is installed
#: (its sources, measuring/*.c, and the header), when they are outside the project.
OWN_DIRECTORY_NAMES = ((bundled.PACKAGE_DIR, "benchlab"), (BUNDLED_INCLUDE, "benchlab/include"))
#: `__DATE__` and `__TIME__` of a build, for compilers that honour SOURCE_DATE_EPOCH (gcc):
#: the epoch, unless the environment gives another date.
SOURCE_DATE_EPOCH = "0"
#: The define that makes the header declare only; its implementation is then the archive's.
EXTERNAL_IMPLEMENTATION = "-DBENCHLAB_EXTERNAL_IMPLEMENTATION"
#: What the implementation reads from a file at compile time, besides the flags (which the
#: archive is compiled with): a program whose file defines one is compiled whole. The
#: header's guard gives such a file its own copy by itself, but for BL_NO_ALLOC_HOOK: its
#: file leaves malloc undefined, which would pull in the archive's malloc wrappers, so the
#: header asks for an archive compiled with BL_NO_ALLOC_HOOK, and the link would fail.
_OWN_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(BENCHLAB_IMPLEMENTATION|BL_NO_TSC|BL_NO_ALLOC_HOOK|"
                         r"BL_DEFAULT_FORMAT|BL__TEST_CLOCK|BL__NOP)\b", re.MULTILINE)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)


class BuildFailed(Exception):
    """A benchmark source that does not compile: a failure of that benchmark, not of benchlab."""

    def __init__(self, source: Path, target: str, stderr: str):
        super().__init__(f"{source.name} does not compile for {target}")
        self.source = source
        self.target = target
        self.stderr = stderr


@functools.cache
def compiler_version(compiler: str) -> str:
    """The compiler's first --version line, e.g. 'cc (Debian 12.2.0-14) 12.2.0'."""
    try:
        out = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return "unknown"
    return (out.stdout.strip().splitlines() or ["unknown"])[0]


@functools.cache
def _compiler_identity(compiler: str) -> str:
    path = shutil.which(compiler) or compiler
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    return f"{os.path.realpath(path)}\n{out.stdout}"


@functools.cache
def knows_prefix_map(compiler: str, target_flags: tuple[str, ...]) -> bool:
    """Whether `compiler` takes -ffile-prefix-map (older ones stop at an unknown flag):
    asked once, on an empty preprocessed input. Without it builds work, not reproducibly."""
    try:
        probe = subprocess.run([compiler, *target_flags, f"{PREFIX_MAP}=/=/", "-E", "-x", "c", os.devnull],
                               capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


@functools.cache
def find_archiver(name: str, compiler: str) -> str | None:
    """The archiver `name` on PATH, or where `compiler` says it is (clang finds llvm-ar
    beside itself); None without one: the target's programs are then compiled whole."""
    found = shutil.which(name)
    if found is None:
        try:
            asked = subprocess.run([compiler, f"-print-prog-name={name}"], capture_output=True, text=True,
                                   timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return None
        found = asked if os.path.isabs(asked) and os.access(asked, os.X_OK) else None
    return found


def _absolute(path: Path) -> Path:
    """`path` from the current directory, `..` resolved but not symbolic links: the compiler
    runs in the project root, and `__FILE__` spells a source as the command line does."""
    return Path(os.path.abspath(path))


def _outermost(named: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """The directories of `named` that are not inside another one of them, in order. gcc
    applies the last matching prefix map and clang 14 the shortest: with no two nested,
    both name every file alike."""
    kept: list[tuple[Path, str]] = []
    for directory, name in sorted(named, key=lambda item: len(item[0].parts)):
        if not any(directory.is_relative_to(outer) for outer, _ in kept):
            kept.append((directory, name))
    return kept


@dataclasses.dataclass
class Builder:
    config: Config
    #: Paths compiled and reused by this builder, for the summary and the tests.
    compiled: list[Path] = dataclasses.field(default_factory=list)
    reused: list[Path] = dataclasses.field(default_factory=list)
    #: The implementation archives this builder compiled (not in `compiled`: no benchmark).
    implementations: list[Path] = dataclasses.field(default_factory=list)
    #: Runs every compiler and archiver command (subprocess.run's signature); tests count them.
    run: Callable[..., subprocess.CompletedProcess] = dataclasses.field(default=subprocess.run, repr=False)
    _launcher: Path | str | None = dataclasses.field(default=None, repr=False)
    #: Per implementation key, its archive, or None when it does not build (then compile whole).
    _archives: dict[str, Path | None] = dataclasses.field(default_factory=dict, repr=False)

    @property
    def cache_dir(self) -> Path:
        return self.config.state_dir / "build"

    def include_dirs(self) -> list[Path]:
        directories = [(self.config.root / d).resolve() for d in self.config.build.include]
        if (BUNDLED_INCLUDE / "benchlab.h").is_file() and BUNDLED_INCLUDE not in directories:
            directories.append(BUNDLED_INCLUDE)
        return directories

    def command(self, source: Path, target: str, output: Path, companions: tuple[Path, ...] = (),
                implementation: Path | None = None) -> list[str]:
        """The compiler's argv for a program; with `implementation` (an archive), the header
        declares only and the archive, after the program's files, holds its code."""
        settings, row = self.config.build, BUILD_TARGETS[target]
        external = [EXTERNAL_IMPLEMENTATION] if implementation else []
        linked = [str(implementation)] if implementation else []
        return [*self._compile_flags(target, (source, *companions)), *external, str(source), *map(str, companions),
                *linked, "-o", str(output), *row.libs_of(settings)]

    def implementation_command(self, header: Path, target: str, output: Path) -> list[str]:
        """The compiler's argv for the header's implementation alone, as an object: the
        header included into an empty file (so clang takes its static inline functions
        for a header's, not unused ones of the main file), with the programs' own flags."""
        return [*self._compile_flags(target, (header,)), "-c", "-include", str(header), "-x", "c", os.devnull,
                "-o", str(output)]

    def _compile_flags(self, target: str, sources: tuple[Path, ...]) -> list[str]:
        settings, row = self.config.build, BUILD_TARGETS[target]
        flags = row.flags_of(settings)
        return [row.compiler_of(settings), *row.target_flags, *flags, *self.prefix_maps(target, sources),
                *[f"-I{d}" for d in self.include_dirs()], f"-DBL_CFLAGS={_c_string(' '.join(flags))}"]

    def prefix_maps(self, target: str, sources: tuple[Path, ...]) -> list[str]:
        """-ffile-prefix-map flags that name each directory a build reads by its place in the
        project, not the project's place: the root (also the compiler's working directory,
        the debug information's compilation directory) is `.`, an include directory outside
        it is its path from the root (as benchlab.toml gives it), a source's own directory
        outside it is `.`, benchlab's own directories `benchlab` and `benchlab/include`.
        Only the outermost of nested directories is given (`_outermost`). None for a compiler
        that does not take the flag."""
        if not knows_prefix_map(self.compiler(target), BUILD_TARGETS[target].target_flags):
            return []
        root = _absolute(self.config.root)
        real_root = root.resolve()
        named = [(root, "."), (real_root, ".")]
        named += [(directory, os.path.relpath(directory, real_root)) for directory in self.include_dirs()
                  if directory != BUNDLED_INCLUDE]
        named += [(_absolute(source).parent, ".") for source in sources]
        named += list(OWN_DIRECTORY_NAMES)
        kept = sorted(_outermost(named), key=lambda item: (item[1], str(item[0])))
        return [f"{PREFIX_MAP}={directory}={name}" for directory, name in kept]

    def place(self, directory: Path) -> str:
        """An include directory as the cache key names it: its path from the project root, or
        `benchlab/include` for the header benchlab was installed with. A CI job that restores
        main's build cache into a checkout at another path finds its builds again."""
        if directory == BUNDLED_INCLUDE:
            return "benchlab/include"
        return os.path.relpath(directory, _absolute(self.config.root).resolve())

    def compiler(self, target: str) -> str:
        return BUILD_TARGETS[target].compiler_of(self.config.build)

    def check_toolchain(self, target: str) -> None:
        row = BUILD_TARGETS[target]
        compiler = self.compiler(target)
        if not shutil.which(compiler):
            raise UserError(f"{row.compiler_what} '{compiler}' is not on PATH",
                            f"apt-get install {row.packages}, or set build.{row.compiler} in benchlab.toml")
        for program, what, fix in row.tools:
            if not shutil.which(program):
                raise UserError(f"{program}, {what}, is not on PATH", fix)

    def cache_key(self, source: Path, target: str, companions: tuple[Path, ...] = ()) -> str:
        """The key of a program's binary. Whether its implementation comes from an archive
        needs no input of its own: the archive's key is made of inputs fed here too."""
        files = [("source", source), *[(f"companion {c.name}", c) for c in companions]]
        files += [(f"header {label}", header) for label, header in self._headers(source)]
        return self._key(target, self.command(Path("SRC"), target, Path("OUT")), files)

    def implementation_key(self, header: Path, target: str) -> str:
        """The key of the implementation's archive: target, compiler, flags, and the header
        with every other header it could include (the include directories', by content)."""
        files = [(f"header {label}", path) for label, path in self._headers(header)]
        return self._key(target, self.implementation_command(Path("HEADER"), target, Path("OUT")), files)

    def _key(self, target: str, argv: list[str], files: list[tuple[str, Path]]) -> str:
        digest = hashlib.sha256()

        def feed(label: str, data: bytes) -> None:
            # Length-prefixed so that two inputs can never run together into one.
            digest.update(f"{label}:{len(data)}:".encode())
            digest.update(data)

        feed("version", CACHE_VERSION.encode())
        feed("target", target.encode())
        feed("compiler", _compiler_identity(self.compiler(target)).encode())
        # Prefix maps name directories by their place in the project: whether there are any
        # counts, not where the project is (the same sources elsewhere are the same build).
        # So with the include directories: their headers are fed below, by content.
        places = {f"-I{directory}": f"-I{self.place(directory)}" for directory in self.include_dirs()}
        feed("argv", "\0".join(places.get(arg, arg) for arg in argv if not arg.startswith(PREFIX_MAP)).encode())
        feed("prefix maps", str(any(arg.startswith(PREFIX_MAP) for arg in argv)).encode())
        feed("date", _source_date_epoch().encode())
        for label, path in files:
            feed(label, path.read_bytes())
        return digest.hexdigest()

    def _headers(self, source: Path) -> list[tuple[str, Path]]:
        """Every header the source could include, the include dirs' and its own directory's,
        each named where it is found from (`./x.h`, `I0/benchlab.h`), not by its absolute
        path: the same sources in another checkout (`ab --rev`'s worktrees) are the same
        build, one binary, so an A/A of two revisions compares identical bytes. Keyed by
        absolute path, a suite with a header beside its sources (suites/sys's sysbench.h)
        was built once per worktree, each binary with its own path inside, and such an A/A
        flagged an unchanged row slower (bench/README.md, "Verdicts on a busy machine")."""
        here = source.resolve().parent
        headers = {f"./{path.name}": path for path in here.glob("*.h")}
        for index, directory in enumerate(self.include_dirs()):
            if directory.is_dir():
                headers.update({f"I{index}/{path.relative_to(directory)}": path for path in directory.rglob("*.h")})
        return sorted(headers.items())

    def output_path(self, source: Path, target: str, companions: tuple[Path, ...] = ()) -> Path:
        key = self.cache_key(source, target, companions)[:16]
        return self.cache_dir / target / f"{source.stem}-{key}{BUILD_TARGETS[target].suffix}"

    def build(self, source: Path, target: str, companions: tuple[Path, ...] = ()) -> Path:
        """The binary of `source` (+ `companions`, the other files of its program) for `target`."""
        self.check_toolchain(target)  # the cache key needs the compiler's identity too
        output = self.output_path(source, target, companions)
        if output.exists():
            self.reused.append(output)
            return output
        output.parent.mkdir(parents=True, exist_ok=True)
        # Compile to a temporary name and rename: an interrupted build never leaves
        # a truncated file under the final name, which the cache would then trust.
        partial = _absolute(output.with_name(f".{output.name}.{os.getpid()}.tmp"))
        implementation = self.implementation(source, target, companions)
        argv = self.command(_absolute(source), target, partial, tuple(map(_absolute, companions)), implementation)
        result = self.run(argv, capture_output=True, text=True, **self._reproducible_place())
        if result.returncode != 0:
            partial.unlink(missing_ok=True)
            self._explain_toolchain_failure(target, result.stderr)
            raise BuildFailed(source, target, result.stderr)
        os.replace(partial, output)
        self.compiled.append(output)
        return output

    def implementation(self, source: Path, target: str, companions: tuple[Path, ...] = ()) -> Path | None:
        """The archive of the header's implementation that `source`'s program links, compiled
        on first use and cached like a binary; None when the program is compiled whole: it
        includes no benchlab.h (or two), defines what the implementation reads (`_OWN_DEFINE`),
        or the target's archiver is missing or the archive does not build (the whole build
        then says what is wrong, as before)."""
        header = self._shared_header((source, *companions))
        archiver = header and self._archiver(target)
        if header is None or archiver is None:
            return None
        key = self.implementation_key(header, target)
        if key not in self._archives:
            archive = self.cache_dir / target / f"benchlab-{key[:16]}.a"
            self._archives[key] = archive if archive.exists() else self._archive(header, target, archiver, archive)
        return self._archives[key]

    def _archive(self, header: Path, target: str, archiver: str, archive: Path) -> Path | None:
        """Compile the implementation and archive it (the linker takes it only when a
        program leaves its symbols undefined); written under a temporary name, then renamed."""
        archive.parent.mkdir(parents=True, exist_ok=True)
        obj = _absolute(archive.with_name(f".{archive.stem}.{os.getpid()}.o"))
        partial = _absolute(archive.with_name(f".{archive.name}.{os.getpid()}.tmp"))
        try:
            compiled = self.run(self.implementation_command(_absolute(header), target, obj),
                                capture_output=True, text=True, **self._reproducible_place())
            if compiled.returncode != 0:
                return None
            partial.unlink(missing_ok=True)  # `ar r` adds to an archive that is there
            archived = self.run([archiver, "rcsD", str(partial), str(obj)], capture_output=True, text=True)
            if archived.returncode != 0:
                return None
            os.replace(partial, archive)
        finally:
            obj.unlink(missing_ok=True)
            partial.unlink(missing_ok=True)
        self.implementations.append(archive)
        return archive

    def _archiver(self, target: str) -> str | None:
        return find_archiver(BUILD_TARGETS[target].archiver, self.compiler(target))

    def _shared_header(self, files: tuple[Path, ...]) -> Path | None:
        """The benchlab.h a program's files include, through its own headers too (those of
        the include directories and of the files' directories, followed), when the program
        may link the implementation's archive: all find the same one and none defines what
        the implementation reads at compile time (`_OWN_DEFINE`). Else None."""
        found: set[Path] = set()
        seen: set[Path] = set()
        pending = [_absolute(path) for path in files]
        while pending:
            path = pending.pop()
            if path in seen:
                continue
            seen.add(path)
            try:
                text = _COMMENT.sub(" ", path.read_text(errors="replace"))
            except OSError:
                return None
            if _OWN_DEFINE.search(text):
                return None
            for quote, name in _INCLUDE.findall(text):
                included = self._locate(name.strip(), path.parent if quote == '"' else None)
                if Path(name).name == "benchlab.h":
                    if included is None:
                        return None
                    found.add(included.resolve())
                elif included is not None:
                    pending.append(included)
        return found.pop() if len(found) == 1 else None

    def _locate(self, name: str, quote_dir: Path | None) -> Path | None:
        """Where the compiler finds `#include "name"` (from a file in `quote_dir`) or
        `<name>` among the project's directories; None for a system header."""
        candidates = ([quote_dir / name] if quote_dir else []) + [d / name for d in self.include_dirs()]
        return next((path for path in candidates if path.is_file()), None)

    def measure_launcher(self) -> Path | str:
        """The `measure` launcher for workloads (measure.c), built once; or why it cannot be.

        Built with the native compiler like any source and cached the same way. Without
        a compiler the workloads still run, but their max RSS is unknown (a string says why).
        """
        if self._launcher is None:
            try:
                self._launcher = self.build(MEASURE_SOURCE, "native")
                # Not a benchmark: the "N compiled, M from the build cache" summary leaves it out.
                for built in (self.compiled, self.reused):
                    if built and built[-1] == self._launcher:
                        built.pop()
            except UserError as error:
                self._launcher = f"the workload launcher cannot be built: {error}"
            except BuildFailed as failure:
                tail = " ".join(failure.stderr.strip().splitlines()[-1:])
                self._launcher = f"the workload launcher does not compile: {tail}"
        return self._launcher

    def _reproducible_place(self) -> dict:
        """subprocess.run's cwd and env for a compile: the project root, also as PWD (gcc
        takes the compilation directory from PWD when it names the same directory), and
        SOURCE_DATE_EPOCH."""
        root = str(_absolute(self.config.root))
        return {"cwd": root, "env": {**os.environ, "PWD": root, "SOURCE_DATE_EPOCH": _source_date_epoch()}}

    @staticmethod
    def _explain_toolchain_failure(target: str, stderr: str) -> None:
        for texts, what, fix in BUILD_TARGETS[target].failures:
            if any(text in stderr for text in texts):
                raise UserError(what, fix)


def _source_date_epoch() -> str:
    return os.environ.get("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)


def _c_string(text: str) -> str:
    """`text` as a C string literal, for -DBL_CFLAGS (argv, so no shell quoting)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
