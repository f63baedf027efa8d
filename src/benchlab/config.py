"""`benchlab.toml`: the project's suites, platforms, build settings and workloads.

Read with tomllib and checked key by key, so that a typo is one clear error that
names the file, the key and the fix, instead of a setting silently ignored.
"""
from __future__ import annotations

import dataclasses
import math
import random
from pathlib import Path
from typing import Any

from benchlab import buildtargets, deterministic
from benchlab.errors import UserError, show
from benchlab import percent
from benchlab.limits import limit
from benchlab.records import printable
from benchlab import runflags
from benchlab.runflags import BY_CONFIG_KEY, RunFlag

CONFIG_NAME = "benchlab.toml"
DEFAULT_TIMEOUT_S = 300.0
DEFAULT_WORKLOAD_RUNS = 3
DEFAULT_WORKLOAD_WARMUPS = 1
#: Longest timeout we can wait for (31 years; Python's waits overflow near 292 years).
MAX_TIMEOUT_S = 1e9
#: The header's bound of --time-limit (BL__MAX_TIME_LIMIT_S; > 0 too).
MAX_TIME_LIMIT_S = limit("MAX_TIME_LIMIT_S")
#: The largest --seed (`ab`'s and `calibrate`'s too): the header reads it as an unsigned 64-bit number.
MAX_SEED = runflags.MAX_SEED
#: A seed nobody chose is drawn below this: any seed works, a short one is easier to type back.
DRAWN_SEED_LIMIT = 2**31


def draw_seed() -> int:
    """The seed of a run, ab or calibration that was given none (reported, so it can be repeated)."""
    return random.randrange(DRAWN_SEED_LIMIT)
#: A workload's runs and warm-ups: as many as the header's samples at most.
MAX_WORKLOAD_RUNS = 1_000_000


@dataclasses.dataclass
class BuildSettings:
    """`[build]`: each build target's compiler and flags (the keys its row in buildtargets.py names)."""

    cc: str = "cc"
    cflags: list[str] = dataclasses.field(default_factory=lambda: ["-O2"])
    wasm_cc: str = "clang"
    wasm_cflags: list[str] = dataclasses.field(default_factory=lambda: ["-O2"])
    #: Include directories, relative to the project root.
    include: list[str] = dataclasses.field(default_factory=lambda: ["include"])
    #: Libraries for native links (the threaded mode needs pthreads).
    libs: list[str] = dataclasses.field(default_factory=lambda: ["-lm", "-lpthread"])
    #: Sources (relative to the project root) compiled into every program of their directory
    #: and never run as programs themselves: helpers such as the Lind runner's bench.c.
    shared: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class PlatformSpec:
    """How to launch a binary: an argv template, never a shell string."""

    name: str
    command: list[str]
    build: str = "native"
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Layers in front of `command`, outermost first, e.g. a sandbox then a grate.
    launchers: list[list[str]] = dataclasses.field(default_factory=list)
    description: str = ""


@dataclasses.dataclass
class Workload:
    """A whole command timed from the outside, like hyperfine or the hot-path pipeline."""

    name: str
    command: list[str]
    runs: int = DEFAULT_WORKLOAD_RUNS
    warmups: int = DEFAULT_WORKLOAD_WARMUPS


@dataclasses.dataclass
class Config:
    root: Path
    path: Path | None = None
    suites: list[str] = dataclasses.field(default_factory=list)
    platforms: list[str] = dataclasses.field(default_factory=list)
    timeout: float = DEFAULT_TIMEOUT_S
    processes: int | None = None
    #: [run]'s keys of the flags that reach the binary (runflags.py: samples, time_limit, seed),
    #: by their RunOptions field: what `run` gives the binary when its option is not given
    run_flags: dict[str, Any] = dataclasses.field(default_factory=dict)
    db: str | None = None
    build: BuildSettings = dataclasses.field(default_factory=BuildSettings)
    user_platforms: dict[str, PlatformSpec] = dataclasses.field(default_factory=dict)
    workloads: dict[str, Workload] = dataclasses.field(default_factory=dict)
    #: [compare]: below this fraction a change is "no change" (noise_floor, in percent in the file)
    noise_floor: float = 0.01
    #: [compare.noise_floors] and [gate.max_regression]: per benchmark name, as fractions
    noise_floors: dict[str, float] = dataclasses.field(default_factory=dict)
    max_regressions: dict[str, float] = dataclasses.field(default_factory=dict)
    #: [gate.counter_thresholds]: per deterministic counter (instructions, estimated-cycles), as fractions:
    #: what `gate --judge counts` judges each at (a benchmark's [gate.max_regression] wins)
    counter_thresholds: dict[str, float] = dataclasses.field(default_factory=dict)
    #: [gate] calibrate: whether the first gate on a machine measures its prior (benchlab calibrate)
    gate_calibrates: bool = True

    @property
    def state_dir(self) -> Path:
        """Where builds, scratch files and the default database live."""
        return self.root / ".benchlab"


# -- validation helpers -------------------------------------------------------------------

class _Checker:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, key: str, what: str, fix: str) -> UserError:
        return UserError(f"{self.path.name}: {key}: {what}", fix)

    def known_keys(self, table: dict, allowed: tuple[str, ...], prefix: str) -> None:
        for key in table:
            if key not in allowed:
                import difflib  # here: only a config with a typo needs it

                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"did you mean '{prefix}{close[0]}'?" if close else ""
                valid = ", ".join(allowed)
                fix = f"{hint + ' ' if hint else ''}valid keys in [{prefix.rstrip('.') or 'top level'}]: {valid}"
                raise self.fail(f"{prefix}{key}", "unknown key", fix)

    def table(self, value: Any, key: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a table, got {_kind(value)}", f"write it as [{key}]")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {_kind(value)}", f'write {key.rsplit(".", 1)[-1]} = "..."')
        self.no_nul(value, key)
        return value

    def strings(self, value: Any, key: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, f"must be a list of strings, got {_kind(value)}",
                            f'write {key.rsplit(".", 1)[-1]} = ["...", "..."]')
        for index, item in enumerate(value):
            self.no_nul(item, f"{key}[{index}]")
        return value

    def no_nul(self, value: str, key: str) -> None:
        # No program can receive a NUL byte in an argument or the environment (C strings end there).
        if "\0" in value:
            raise self.fail(key, "contains a NUL character (\\u0000)", "remove it: arguments and environment "
                            "variables of a program cannot hold one")

    def number(self, value: Any, key: str, *, integer: bool = False, minimum: float = 0,
               maximum: float | None = None, above: bool = False) -> float:
        """A number in [minimum, maximum] (or > minimum when `above`), finite: inf and nan are TOML floats too."""
        ok = isinstance(value, int) if integer else isinstance(value, (int, float))
        if ok and not isinstance(value, bool):
            ok = (math.isfinite(value) and (value > minimum if above else value >= minimum)
                  and (maximum is None or value <= maximum))
        if not ok:
            kind = "a whole number" if integer else "a number"
            bound = f"> {minimum:g}" if above else f">= {minimum:g}"
            if maximum is not None:
                bound += f" and <= {maximum:g}"
            example = 1 if above or minimum < 1 else minimum
            raise self.fail(key, f"must be {kind} {bound}, got {show(value)}",
                            f"write {key.rsplit('.', 1)[-1]} = {example:g}")
        return value


def _kind(value: Any) -> str:
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


# -- loading --------------------------------------------------------------------------------

def find_config(start: Path) -> Path | None:
    """benchlab.toml in `start` or the nearest parent directory, like git finds .git."""
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None = None, cwd: Path | None = None) -> Config:
    """The config at `path`, or found from `cwd`; defaults when there is none."""
    cwd = (cwd or Path.cwd()).resolve()
    if path is None:
        path = find_config(cwd)
        if path is None:
            return Config(root=cwd)
    try:
        path = Path(path).resolve()
        found = path.is_file()
    except OSError as exc:  # a name too long (ENAMETOOLONG), a loop of links (ELOOP)
        raise UserError(f"--config {printable(str(path))}: {exc.strerror}",
                        "give the path of an existing benchlab.toml") from None
    if not found:
        raise UserError(f"config file {printable(str(path))} does not exist", "give an existing file to --config")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}", "check the file's permissions") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path.name}: not UTF-8 text (byte {exc.start})", "save it as UTF-8, as TOML requires") from None
    return parse_text(text, path)


def parse_text(text: str, path: Path) -> Config:
    """The config in `text`, as if read from `path` (its directory is the project root)."""
    import tomllib  # here: a project without benchlab.toml never needs it

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path.name}: invalid TOML: {exc}", "fix the syntax at that line") from None
    except RecursionError:
        raise UserError(f"{path.name}: invalid TOML: arrays or tables nested too deeply",
                        "flatten the nesting") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise UserError(f"{path.name}: invalid TOML: {exc}", "fix that value") from None
    return _parse(data, path)


def _parse(data: dict, path: Path) -> Config:
    check = _Checker(path)
    config = Config(root=path.parent, path=path)
    check.known_keys(data, ("run", "build", "platforms", "workloads", "compare", "gate"), "")

    run = check.table(data.get("run", {}), "run")
    check.known_keys(run, ("suites", "platforms", "timeout", *BY_CONFIG_KEY, "db", "processes"), "run.")
    if "suites" in run:
        config.suites = check.strings(run["suites"], "run.suites")
    if "platforms" in run:
        config.platforms = check.strings(run["platforms"], "run.platforms")
    if "timeout" in run:
        config.timeout = float(check.number(run["timeout"], "run.timeout", minimum=0.001, maximum=MAX_TIMEOUT_S))
    if "processes" in run:
        config.processes = int(check.number(run["processes"], "run.processes", integer=True, minimum=1))
    for key, flag in BY_CONFIG_KEY.items():  # the run flags' keys (runflags.py)
        if key in run:
            config.run_flags[flag.field] = _run_flag(check, flag, run[key], f"run.{key}")
    if "db" in run:
        config.db = check.string(run["db"], "run.db")

    build = check.table(data.get("build", {}), "build")
    check.known_keys(build, tuple(f.name for f in dataclasses.fields(BuildSettings)), "build.")
    for key in (target.compiler for target in buildtargets.TARGETS):
        if key in build:
            setattr(config.build, key, check.string(build[key], f"build.{key}"))
    for key in (*(target.flags for target in buildtargets.TARGETS), "include", "libs", "shared"):
        if key in build:
            setattr(config.build, key, check.strings(build[key], f"build.{key}"))

    platforms = check.table(data.get("platforms", {}), "platforms")
    for name, spec in platforms.items():
        _check_name(check, name, "platforms")
        config.user_platforms[name] = _parse_platform(check, name, spec)

    workloads = check.table(data.get("workloads", {}), "workloads")
    for name, spec in workloads.items():
        _check_name(check, name, "workloads")
        config.workloads[name] = _parse_workload(check, name, spec)

    compare = check.table(data.get("compare", {}), "compare")
    check.known_keys(compare, ("noise_floor", "noise_floors"), "compare.")
    if "noise_floor" in compare:
        config.noise_floor = _percentage(check, compare["noise_floor"], "compare.noise_floor")
    config.noise_floors = _percentages(check, compare.get("noise_floors", {}), "compare.noise_floors")
    gate = check.table(data.get("gate", {}), "gate")
    check.known_keys(gate, ("max_regression", "calibrate", "counter_thresholds"), "gate.")
    config.max_regressions = _percentages(check, gate.get("max_regression", {}), "gate.max_regression")
    config.counter_thresholds = _counter_thresholds(check, gate.get("counter_thresholds", {}))
    if not isinstance(gate.get("calibrate", True), bool):
        raise check.fail("gate.calibrate", f"must be true or false, got {show(gate['calibrate'])}", "write calibrate = false")
    config.gate_calibrates = gate.get("calibrate", True)
    return config


def _run_flag(check: _Checker, flag: RunFlag, value: Any, key: str) -> Any:
    """A [run] key of a run flag, a number checked within its option's bounds (the rows with a
    key are numbers: tests/python/test_runflags.py)."""
    number = check.number(value, key, integer=flag.kind == runflags.WHOLE, minimum=flag.minimum or 0,
                          maximum=flag.maximum, above=flag.above)
    return int(number) if flag.kind == runflags.WHOLE else float(number)


def _percentages(check: _Checker, table: Any, key: str) -> dict[str, float]:
    """A table of benchmark name = percent, as fractions: `[compare.noise_floors]` `getpid = 5`."""
    return {name: _percentage(check, value, f"{key}.{name}") for name, value in check.table(table, key).items()}


def _counter_thresholds(check: _Checker, table: Any) -> dict[str, float]:
    """`[gate.counter_thresholds]`: a deterministic counter's name = percent, as fractions,
    under the counter's own name (`estimated_cycles` is `estimated-cycles`)."""
    thresholds = {}
    for name, value in check.table(table, "gate.counter_thresholds").items():
        key = f"gate.counter_thresholds.{name}"
        counter = deterministic.counter_name(name)
        if counter is None:
            raise check.fail(key, "is not a deterministic counter",
                             f"name one of {', '.join(deterministic.COUNTERS)}, e.g. instructions = 1")
        thresholds[counter] = _percentage(check, value, key)
    return thresholds


def _percentage(check: _Checker, value: Any, key: str) -> float:
    """A percent as benchlab.percent reads it (5, or "0.5%"), as a fraction."""
    try:
        return percent.parse(value, key) / 100
    except percent.PercentError as error:
        raise check.fail(key, error.what.removeprefix(key + " "), f"write {key.rsplit('.', 1)[-1]} = 2, or \"0.5%\"") from None


def _check_name(check: _Checker, name: str, table: str) -> None:
    """A platform or workload name is a column heading, a row and part of a scratch directory's name."""
    if not name.strip() or any(c in name for c in "/\0") or any(ord(c) < 32 for c in name):
        raise check.fail(f"{table}.{name!r}", "is not a usable name (empty, or with '/' or control characters)",
                         f"name it with letters, digits, '-' or '_', e.g. [{table}.mine]")


#: Characters in a platform's name: what the store's columns hold on every engine.
MAX_PLATFORM_NAME = 255


def _parse_platform(check: _Checker, name: str, spec: Any) -> PlatformSpec:
    key = f"platforms.{name}"
    if len(name) > MAX_PLATFORM_NAME:
        # The store's platform columns hold 255 characters (PostgreSQL enforces it).
        raise check.fail(f"platforms.{name[:40]}...", f"the name is {len(name)} characters long",
                         f"name the platform in at most {MAX_PLATFORM_NAME} characters")
    spec = check.table(spec, key)
    check.known_keys(spec, ("command", "build", "env", "launchers", "description"), f"{key}.")
    if "command" not in spec:
        raise check.fail(f"{key}.command", "missing",
                         f'add command = ["{{exe}}", "{{args}}"], with a launcher in front if needed')
    command = check.strings(spec["command"], f"{key}.command")
    if "{exe}" not in command:
        raise check.fail(f"{key}.command", "has no \"{exe}\" element",
                         'add "{exe}" where the benchmark binary goes, e.g. ["qemu-aarch64", "{exe}", "{args}"]')
    build = check.string(spec.get("build", "native"), f"{key}.build")
    if build not in buildtargets.BY_NAME:
        raise check.fail(f"{key}.build", f"unknown build target {build!r}",
                         f"use one of: {', '.join(buildtargets.BY_NAME)}")
    env = check.table(spec.get("env", {}), f"{key}.env")
    for env_key, value in env.items():
        if not env_key or "=" in env_key or "\0" in env_key:
            raise check.fail(f"{key}.env", f"{env_key!r} is not an environment variable name (empty, or with '=' or NUL)",
                             'write env = { NAME = "value" }')
        check.string(value, f"{key}.env.{env_key}")
    launchers = spec.get("launchers", [])
    if not isinstance(launchers, list):
        raise check.fail(f"{key}.launchers", f"must be a list of argv lists, got {_kind(launchers)}",
                         'write launchers = [["sudo"], ["lind-boot", "grate.cwasm"]]')
    for index, launcher in enumerate(launchers):
        check.strings(launcher, f"{key}.launchers[{index}]")
    return PlatformSpec(name=name, command=command, build=build, env=dict(env), launchers=launchers,
                        description=check.string(spec.get("description", ""), f"{key}.description"))


def _parse_workload(check: _Checker, name: str, spec: Any) -> Workload:
    key = f"workloads.{name}"
    if isinstance(spec, list):
        spec = {"command": spec}
    spec = check.table(spec, key)
    check.known_keys(spec, ("command", "runs", "warmups"), f"{key}.")
    if "command" not in spec:
        raise check.fail(f"{key}.command", "missing", 'add command = ["program", "arg", ...]')
    command = check.strings(spec["command"], f"{key}.command")
    if not command:
        raise check.fail(f"{key}.command", "is empty", 'add command = ["program", "arg", ...]')
    return Workload(
        name=name, command=command,
        runs=int(check.number(spec.get("runs", DEFAULT_WORKLOAD_RUNS), f"{key}.runs", integer=True, minimum=1,
                              maximum=MAX_WORKLOAD_RUNS)),
        warmups=int(check.number(spec.get("warmups", DEFAULT_WORKLOAD_WARMUPS), f"{key}.warmups", integer=True,
                                 maximum=MAX_WORKLOAD_RUNS)),
    )
