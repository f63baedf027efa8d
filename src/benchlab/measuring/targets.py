"""Turning the command line's TARGETs into things to run.

A target is a suite directory, a C source, a prebuilt executable (native or .wasm),
a workload name from benchlab.toml, or a file-name prefix (`fs_` runs fs_read.c and
fs_write.c, as the cross-platform runner does).
"""
from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path

from benchlab import buildtargets
from benchlab.config import Config, Workload
from benchlab.errors import UserError

SOURCE_SUFFIXES = (".c",)


@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    kind: str  # "source" | "executable" | "workload"
    path: Path | None = None
    workload: Workload | None = None
    #: Other C files of the same program (see _attach_companions).
    companions: tuple[Path, ...] = ()
    #: Those of `companions` taken as helpers by a guess (no entry point), not named by build.shared.
    guessed: tuple[Path, ...] = ()

    @property
    def flavor(self) -> str:
        """Which flags the binary understands: 'benchlab', 'gbench' or 'foreign' (none)."""
        if self.kind == "source":
            return "benchlab" if b"benchlab.h" in self.path.read_bytes() else "foreign"
        if self.kind == "executable":
            return _executable_flavor(self.path)
        return "foreign"

    def runs_on(self, build_target: str) -> bool:
        """Sources build for any target; a prebuilt file only runs where it was built for."""
        if self.kind == "source":
            return True
        exe = self.path if self.kind == "executable" else Path(self.workload.command[0])
        return buildtargets.runs_on(exe.suffix, build_target)


def _executable_flavor(path: Path) -> str:
    # The binary's own strings tell us which command line it speaks. Reading a
    # few megabytes once per run is cheaper than a probe run of an unknown program.
    data = path.read_bytes()[: 64 * 1024 * 1024]
    # Statically linked Google Benchmark has its flag names inside; a dynamically
    # linked one names its library (DT_NEEDED libbenchmark.so.N).
    if b"benchmark_format" in data or b"libbenchmark.so" in data:
        return "gbench"
    if b"--time-limit" in data and b"benchlab" in data:
        return "benchlab"
    return "foreign"


def _is_executable(path: Path) -> bool:
    return path.is_file() and (os.access(path, os.X_OK) or path.suffix in buildtargets.SUFFIXES)


def _from_file(path: Path) -> Target | None:
    if path.suffix in SOURCE_SUFFIXES:
        return Target(name=path.stem, kind="source", path=path.resolve())
    if _is_executable(path):
        name = path.stem if path.suffix in buildtargets.SUFFIXES else path.name  # sum.wasm is sum
        return Target(name=name, kind="executable", path=path.resolve())
    return None


#: The Lind runner's description of a test: a `// DESCRIPTION: text` line of its source.
_DESCRIPTION = re.compile(r"^[ \t]*//[ \t]*DESCRIPTION:[ \t]*(.*)$", re.M)
#: The longest description kept: a line for a person, not a document.
MAX_DESCRIPTION_CHARS = 300


def descriptions(targets: list[Target]) -> dict[str, str]:
    """{target name: description} of the sources with a `// DESCRIPTION:` line (the first one),
    as the Lind runner shows them beside its table."""
    found = {}
    for target in targets:
        if target.kind != "source":
            continue
        match = _DESCRIPTION.search(target.path.read_text(errors="replace"))
        if match and match.group(1).strip():
            found[target.name] = match.group(1).strip()[:MAX_DESCRIPTION_CHARS]
    return found


#: Every documented way of writing a program's entry point (include/benchlab.h, docs/cli.md
#: "Targets"): a C file of a directory with none of them is a helper of its programs.
ENTRY_POINTS = ("main()", "BL_MAIN()", "BL_MAIN_COUNTERS(...)", "BL_MAIN_AS(...)")
_ENTRY = re.compile(r"\b(?:main|BL_MAIN|BL_MAIN_COUNTERS|BL_MAIN_AS)\s*\(")
#: Comments, string and character literals: text, not code (a "main(" in a message defines nothing).
_NOT_CODE = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)


def _defines_main(source: Path) -> bool:
    return bool(_ENTRY.search(_NOT_CODE.sub(" ", source.read_text(errors="replace"))))


def entry_points_text() -> str:
    """The documented entry points, as a message lists them."""
    return ", ".join(ENTRY_POINTS[:-1]) + " or " + ENTRY_POINTS[-1]


def _from_directory(directory: Path, config: Config | None = None) -> list[Target]:
    found = [_from_file(path) for path in sorted(directory.iterdir()) if path.is_file()]
    shared = _shared_sources(directory, config)
    return _attach_companions([target for target in found if target is not None and target.path not in shared],
                              shared)


def _shared_sources(directory: Path, config: Config | None) -> tuple[Path, ...]:
    """The sources `build.shared` of benchlab.toml names in `directory`: compiled into each of its programs."""
    if config is None:
        return ()
    here = directory.resolve()
    found = []
    for name in config.build.shared:
        path = config.root / name
        if not path.is_file():
            raise UserError(f"{config.path.name if config.path else 'benchlab.toml'}: build.shared: '{name}' is not a file",
                            "name C sources relative to the project root, e.g. shared = [\"tests/benchmarks/bench.c\"]")
        if path.resolve().parent == here:
            found.append(path.resolve())
    return tuple(found)


def _attach_companions(targets: list[Target], shared: tuple[Path, ...] = ()) -> list[Target]:
    """Fold C files without an entry point (ENTRY_POINTS) into the programs they belong to.

    A multi-file program is named by a shared stem: two_files_b.c (no main) joins
    every program of its directory whose name starts with "two_files" (two_files_a.c).
    A file without main() whose stem names no program is a directory's helpers (the Lind
    runner's bench.c, which it compiles into every test): it joins every program there,
    as do the files `build.shared` names. Where `build.shared` names a directory's
    helpers, nothing there is guessed: every other source is a program.
    """
    sources = [t for t in targets if t.kind == "source"]
    companions = [] if shared else [t for t in sources if not _defines_main(t.path)]
    programs = [t for t in sources if t not in companions]
    result = []
    for target in targets:
        if target in companions:
            continue
        if target.kind == "source":
            guessed = tuple(c.path for c in companions if _joins(c, target, programs))
            target = dataclasses.replace(target, companions=guessed + shared, guessed=guessed)
        result.append(target)
    return result


def _stem(companion: Target) -> str:
    return companion.name.rpartition("_")[0] or companion.name


def _joins(companion: Target, program: Target, programs: list[Target]) -> bool:
    """Whether `companion` (no main) is part of `program`: their names share its stem, or
    it shares a stem with no program of the directory (then it is every program's)."""
    stem = _stem(companion)
    return program.name.startswith(stem) or not any(p.name.startswith(stem) for p in programs)


def suite_directories(config: Config) -> list[Path]:
    """The suites of benchlab.toml's run.suites, else every directory of the project's suites/."""
    if config.suites:
        return [config.root / suite for suite in config.suites]
    suites = config.root / "suites"
    if not suites.is_dir():
        return []
    return [suites, *sorted(d for d in suites.iterdir() if d.is_dir())]


def default_targets(config: Config) -> list[Target]:
    targets: list[Target] = []
    for entry in suite_directories(config):
        if entry.is_dir():
            targets.extend(_from_directory(entry, config))
        elif entry.is_file() and (target := _from_file(entry)):
            targets.append(target)
        else:
            raise UserError(f"{config.path.name if config.path else 'benchlab.toml'}: run.suites: "
                            f"'{entry.relative_to(config.root)}' does not exist",
                            "list existing suite directories or files")
    targets.extend(Target(name=w.name, kind="workload", workload=w) for w in config.workloads.values())
    return targets


def resolve_targets(arguments: list[str], config: Config) -> list[Target]:
    if not arguments:
        targets = default_targets(config)
        if not targets:
            raise UserError("nothing to run: no targets given, no run.suites in benchlab.toml and no suites/ directory",
                            "give a suite directory, a C file or an executable: benchlab run suites/sys")
        return _unique(targets)
    targets: list[Target] = []
    unmatched: list[str] = []
    for argument in arguments:
        found = _resolve_one(argument, config)
        targets.extend(found)
        if not found:
            unmatched.append(argument)
    if unmatched:
        places = ", ".join(str(_display(d, config)) for d in suite_directories(config)) or "the current directory"
        what = ", ".join(f"'{a}'" for a in unmatched)
        if not targets:
            raise UserError(f"no benchmark matches {what}",
                            f"give a suite directory, a C file, an executable, a workload name, or a prefix of a file in {places}")
        # As the Lind runner does: `run fs_ imfs_` runs what matches; a prefix of nothing is said, not fatal.
        print(f"warning: no benchmark matches {what} (no file in {places} starts with it): left out",
              file=sys.stderr)
    return _unique(targets)


def _resolve_one(argument: str, config: Config) -> list[Target]:
    """The targets `argument` names; [] for a prefix that matches no file."""
    if argument in config.workloads:
        return [Target(name=argument, kind="workload", workload=config.workloads[argument])]
    path = Path(argument)
    if path.is_dir():
        found = _from_directory(path, config)
        if not found:
            raise UserError(f"{argument} contains no C sources or executables", "give a suite directory such as suites/sys")
        return found
    if path.is_file():
        target = _from_file(path)
        if target is None:
            raise UserError(f"{argument} is neither a C source (.c) nor an executable", "chmod +x it, or give a .c file")
        if target.kind == "source":
            return _source_in_directory(argument, target, config)
        return [target]
    return _by_prefix(argument, config)


def _source_in_directory(argument: str, target: Target, config: Config) -> list[Target]:
    """A C file as the program of its directory it is: with its companions when it is the main
    file of a multi-file program; the programs it is part of when it is a helper (said)."""
    directory = _from_directory(target.path.parent, config)
    found = next((t for t in directory if t.path == target.path), None)
    if found is not None:
        return [found]
    owners = [t for t in directory if target.path in t.companions]
    if not owners:  # built alone, as it was given
        return [target]
    print(f"note: {argument} defines no entry point ({entry_points_text()}): it is compiled into "
          f"{', '.join(t.path.name for t in owners)}, which {'runs' if len(owners) == 1 else 'run'} instead",
          file=sys.stderr)
    return owners


def _by_prefix(prefix: str, config: Config) -> list[Target]:
    path = Path(prefix)
    if path.parent != Path(".") and path.parent.is_dir():
        directories = [path.parent]
        prefix = path.name
    else:
        directories = [d for d in suite_directories(config) if d.is_dir()] or [Path(".")]
    found = []
    for directory in directories:
        found.extend(t for t in _from_directory(directory, config) if t.path and t.path.name.startswith(prefix))
    return found


def _display(directory: Path, config: Config) -> Path:
    try:
        return directory.relative_to(config.root)
    except ValueError:
        return directory


def _unique(targets: list[Target]) -> list[Target]:
    seen: set = set()
    result = []
    for target in targets:
        key = target.path or target.name
        if key not in seen:
            seen.add(key)
            result.append(target)
    return result
