"""One run: every target on every platform (and every sweep value), as a matrix, in
several processes each.

A unit is one (target, platform, sweep value). The run's session (session.py) runs every
unit in N fresh processes, in N rounds; each round runs every unit once, in an order
shuffled from the run's seed (randomized multiple interleaved trials: Abedi and Brecht,
"Conducting repeatable experiments in highly variable cloud computing environments",
ICPE 2017), so that load that comes and goes hits every unit alike. Each process gets
its own environment size and stack offset (layout randomization, see `layout_env`).
Each finished process is handed back at once, which is how storage commits completed
measurements one by one. Workloads time themselves over several runs and run in the
first round only.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import os
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

from benchlab import limits
from benchlab.statistics import noise
from benchlab.measuring.build import BuildFailed, Builder
from benchlab.measuring.buildable import unbuildable_reason
from benchlab.config import Config
from benchlab.errors import UserError
from benchlab.measuring.instances import INSTANCES, Copy, check_values, copy_fault_reason, run_together
from benchlab.formats.parsers import Parsed, parse_stream
from benchlab.measuring.platforms import Platform
from benchlab.measuring.process import STDERR_TAIL_LINES, byte_amount, run_process
from benchlab.records import NOT_BUILT, Fault, Record
from benchlab.runflags import RUN_FLAGS
from benchlab.measuring.targets import Target, entry_points_text
from benchlab.measuring.workloads import run_workload

#: A binary's own median may differ from ours by its print precision, not more.
MEDIAN_AGREEMENT_REL = 1e-4
MEDIAN_AGREEMENT_ABS = 1e-3

#: Processes per binary by default (bench/README.md, "Defaults", has the figures behind it).
DEFAULT_PROCESSES = 5
#: Layout randomization: each process's environment grows by 0..ENV_PAD_MAX bytes and
#: its stack starts 0..STACK_OFFSET_MAX bytes lower (in steps of 16, the ABI's stack
#: alignment): together they move where every local variable and environment string
#: lands, which moves small figures by a few percent (Mytkowicz et al., ASPLOS 2009).
ENV_PAD_MAX = 4096
STACK_OFFSET_MAX = 4096
#: The variable that carries the padding; its value means nothing.
ENV_PAD_VARIABLE = "BENCHLAB_LAYOUT_PAD"

#: Sweep names that mean a flag other than --NAME=V. `threads` is the threaded
#: mode's thread count, spelled -t=T as in the scalability skeleton, and --threads=T to a
#: benchlab program: every program takes that long form, whatever its dialect, where CSB's
#: -t=T is an error in one without threaded targets. `instances` is no flag at all: N
#: copies of the binary at once (instances.py).
SWEEP_ALIASES = {"threads": "-t"}
BENCHLAB_SWEEP_ALIASES = {"threads": "--threads"}


@dataclasses.dataclass(frozen=True)
class Sweep:
    name: str
    values: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> "Sweep":
        name, sep, values = text.partition("=")
        items = tuple(v.strip() for v in values.split(",") if v.strip())
        if not sep or not name.strip() or not items:
            raise UserError(f"--sweep {text!r} is not FLAG=V1,V2,...", "write e.g. --sweep threads=1,2,4")
        if name.strip() == INSTANCES:
            items = check_values(items)
        twice = next((value for index, value in enumerate(items) if value in items[:index]), None)
        if twice is not None:  # a value twice would run twice and show as one row of both
            raise UserError(f"--sweep {text.strip()}: {twice} is given twice", "give each value once")
        return cls(name.strip(), items)

    @property
    def instances(self) -> bool:
        """True for `instances`: copies of the binary at once, not a flag it is given."""
        return self.name == INSTANCES

    def argument(self, value: str, flavor: str | None = None) -> str:
        aliases = BENCHLAB_SWEEP_ALIASES if flavor == "benchlab" else SWEEP_ALIASES
        flag = self.name if self.name.startswith("-") else aliases.get(self.name, f"--{self.name}")
        return f"{flag}={value}"


@dataclasses.dataclass
class RunOptions:
    """What every process of a run is given. Every field but timeout, extra_args, sweep and the
    two of the layout is a row of runflags.RUN_FLAGS, which the binary's argv is made from
    (tests/python/test_runflags.py checks that each row has its field here)."""

    timeout: float
    seed: int
    samples: int | None = None
    time_limit: float | None = None
    filters: tuple[str, ...] = ()
    counters: str | None = None
    extra_args: tuple[str, ...] = ()
    sweep: Sweep | None = None
    precision: float | None = None
    schedule: str | None = None
    subtract: bool = True
    randomize_layout: bool = True
    spread_cpus: bool = True


@dataclasses.dataclass
class Unit:
    target: Target
    platform: Platform
    sweep_value: str | None = None
    #: Its place in the plan: tables list results in this order, whatever order ran them.
    index: int = 0

    @property
    def label(self) -> str:
        suffix = f" {self.sweep_value}" if self.sweep_value is not None else ""
        return f"{self.target.name} on {self.platform.name}{suffix}"


@dataclasses.dataclass
class UnitResult:
    unit: Unit
    records: list[Record] = dataclasses.field(default_factory=list)
    faults: list[Fault] = dataclasses.field(default_factory=list)
    context: dict[str, Any] | None = None
    #: Which of the run's processes of this unit (0..N-1); None when the run has one.
    process: int | None = None
    #: The binary has no benchmark matching --filter (not a failure; see `no_match`).
    filtered_out: bool = False


def layout_env(rng: random.Random) -> dict[str, str]:
    """A random environment size and stack offset for one process (see ENV_PAD_MAX)."""
    return {ENV_PAD_VARIABLE: "x" * rng.randrange(ENV_PAD_MAX + 1),
            "BL_STACK_OFFSET": str(16 * rng.randrange(STACK_OFFSET_MAX // 16))}


def benchmark_arguments(flavor: str, options: RunOptions) -> list[str]:
    """Flags for a binary that speaks `flavor`; a foreign binary gets only the user's."""
    args: list[str] = []
    if flavor == "benchlab":
        args.append("--format=jsonl")
        for flag in RUN_FLAGS:  # runflags.py: each row's value as the binary reads it
            args.extend(flag.arguments(getattr(options, flag.field)))
    elif flavor == "gbench":
        args.append("--benchmark_format=json")
        if options.samples is not None:
            args.append(f"--benchmark_repetitions={options.samples}")
        if options.filters:
            args.append("--benchmark_filter=" + "|".join(options.filters))
    return [*args, *options.extra_args]


def process_seed(run_seed: int, process: int | None) -> int:
    """The seed the run's `process`-th process is given (--seed=N): its own, drawn from the
    run's by splitmix64, so that a figure whose work depends on bl_seed() (seeded inputs, a
    random mix of operations) varies between a run's processes as it does between runs,
    and the run's interval covers a rerun's other seeds (issue 38: with one seed for all
    five processes, identical code read 70.6 and 79.7 ns in two runs, each +-1.2%). The same
    run seed gives the same seeds again; `ab` and the gate run A and B of one round as the
    same process, so both get one seed and it cancels in their ratio. None: the run's seed.
    63 bits, so that it is stored and exported as the whole number it is (a record's
    `reported` holds signed 64-bit integers)."""
    if process is None:
        return run_seed
    z = (run_seed + (process + 1) * 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return (z ^ (z >> 31)) >> 1


_MASK64 = (1 << 64) - 1


def measurement_settings(options: RunOptions) -> dict[str, Any]:
    """The settings given for how each process measures (absent: the header's default), which
    move a figure without changing the code: part of its identity for the history (noise.py)."""
    return {flag.field: getattr(options, flag.field) for flag in RUN_FLAGS
            if flag.setting and flag.given(getattr(options, flag.field))}


class Runner:
    def __init__(self, config: Config, platforms: list[Platform], options: RunOptions, builder: Builder,
                 warn: Callable[[str], None]):
        self.config = config
        self.platforms = platforms
        self.options = options
        self.builder = builder
        self.warn = warn
        self._builds: dict[tuple[Path, str], Path | BuildFailed] = {}
        #: The builds whose failure a process has reported (the first of their unit's).
        self._failures_reported: set[tuple[Path, str]] = set()
        self._layout_rng = random.Random(options.seed ^ 0x5EED)
        #: What the results read so far hold (Record.held_bytes), against limits.MAX_RUN_RESULT_BYTES.
        self.held_bytes = 0
        #: Set once a process's results were cut at that limit: a session runs no further process.
        self.full = False

    def plan(self, targets: list[Target]) -> list[Unit]:
        sweep_values: list[str | None] = list(self.options.sweep.values) if self.options.sweep else [None]
        units = []
        for target in targets:
            for platform in self.platforms:
                if not target.runs_on(platform.build):
                    continue
                values = [None] if target.kind == "workload" else sweep_values
                units.extend(Unit(target, platform, value) for value in values)
        for index, unit in enumerate(units):
            unit.index = index
        return units

    def run_unit(self, unit: Unit, process: int | None = None, cpu: int | None = None,
                 filters: tuple[str, ...] | None = None) -> UnitResult:
        """One process of `unit` (the `process`-th of the run's, when it has several);
        on CPU `cpu` only when given (duet benchmarking, benchlab.measuring.ab); only the
        benchmarks `filters` select when given (the undecided ones of `ab` and the gate)."""
        result = UnitResult(unit, process=process)
        scratch_root = self.config.state_dir / "scratch"
        scratch_root.mkdir(parents=True, exist_ok=True)
        scratch = tempfile.mkdtemp(prefix=f"{unit.target.name}-", dir=scratch_root)
        try:
            if unit.target.kind == "workload":
                result.records, result.faults = run_workload(
                    unit.target.workload, unit.platform, timeout=self.options.timeout,
                    scratch=scratch, root=str(self.config.root), launcher=self.builder.measure_launcher())
                self.held_bytes += sum(record.held_bytes for record in result.records)  # a few runs' times
            else:
                layout = {}  # the copies of --sweep instances each draw their own (_run_copies)
                if self.copies(unit):
                    self._run_copies(unit, result, scratch, process)
                else:
                    if self.options.randomize_layout and process is not None:
                        layout = layout_env(self._layout_rng)
                    if cpu is None and process is not None and self.options.spread_cpus and self._spreads(unit):
                        cpu, layout = self._start_cpu(process), {**layout, "BL_RELEASE_CPUS": self._cpu_list}
                    self._run_binary(unit, result, scratch, layout, cpu, filters, process)
                for record in result.records:
                    if process is not None:
                        record.reported["process"] = process
                    if unit.target.flavor == "benchlab":
                        record.reported["seed"] = process_seed(self.options.seed, process)
                    if ENV_PAD_VARIABLE in layout:
                        record.reported.update(env_pad=len(layout[ENV_PAD_VARIABLE]),
                                               stack_offset=int(layout["BL_STACK_OFFSET"]))
                    if "BL_RELEASE_CPUS" in layout:
                        record.reported["start_cpu"] = cpu
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        sweep = {"flag": self.options.sweep.name, "value": unit.sweep_value} if unit.sweep_value is not None else None
        for record in result.records:
            record.reported["unit"] = unit.index  # the table's order is the plan's (combine.figures)
        for item in (*result.records, *result.faults):
            item.platform = unit.platform.name
            item.binary = unit.target.name
            # A source the platform cannot build is so at every sweep value: one row says it.
            item.sweep = None if isinstance(item, Fault) and item.kind == NOT_BUILT else sweep
        for fault in result.faults:
            fault.process = process
        return result

    @functools.cached_property
    def _cpus(self) -> list[int]:
        return sorted(os.sched_getaffinity(0))

    @property
    def _cpu_list(self) -> str:
        return ",".join(map(str, self._cpus))

    def _start_cpu(self, process: int) -> int:
        """The CPU process k of a run starts on: each in turn, so a run meets every CPU's
        state (the header then releases the pin: BL_RELEASE_CPUS)."""
        return self._cpus[process % len(self._cpus)]

    def _spreads(self, unit: Unit) -> bool:
        """Only a benchlab binary run natively releases the pin; under a launcher (a wasm
        runtime's threads, qemu) or a foreign binary, the pin would stay and change what
        is measured."""
        return (len(self._cpus) > 1 and unit.target.flavor == "benchlab" and not unit.platform.spec.launchers
                and unit.platform.build == "native" and unit.platform.spec.command[:1] == ["{exe}"])

    def copies(self, unit: Unit) -> int | None:
        """How many copies of `unit` run at once (`--sweep instances=N`), or None."""
        sweep = self.options.sweep
        if sweep is None or not sweep.instances or unit.sweep_value is None or unit.target.kind == "workload":
            return None
        return int(unit.sweep_value)

    def _run_copies(self, unit: Unit, result: UnitResult, scratch: str, process: int | None) -> None:
        """N copies of the unit's binary at once, behind a start gate (instances.py).

        Every copy gets the same arguments, its own scratch directory, layout and output
        file; a benchlab binary run natively starts copy k on the next CPU in turn (as
        processes are spread: `_start_cpu`), then the header releases the pin. Each
        record says which copy measured it (`copy`), of how many (`instances`), what the
        kernel accounted for that copy (`copy_rusage`) and when it ran (`window_s`,
        seconds after the release). When a copy fails, its fault names it, and every
        record of the others is kept, marked `incomplete`: their sum is not of N copies.
        """
        count = self.copies(unit)
        exe = self._built(unit, result)
        if exe is None:
            return
        launcher = self.builder.measure_launcher()
        if not isinstance(launcher, Path):
            raise UserError(f"--sweep instances needs benchlab's start gate, the measure launcher: {launcher}",
                            "install a C compiler (apt-get install build-essential)")
        with contextlib.ExitStack() as files:
            copies, layouts, cpus = self._copy_commands(unit, exe, scratch, process, count, files)
            together = run_together(copies, launcher, self.options.timeout)
            failed = []
            for index, (copy, outcome) in enumerate(zip(copies, together.outcomes)):
                label = self._binary_label(unit)  # not per copy: N copies' same warning is said once
                parsed, head = self._read(copy.stdout, label)
                for warning in parsed.warnings + escaped_warnings(label, outcome):
                    self.warn(warning)
                self._check_reported_medians(label, parsed.records)
                reason = self._fault_reason(unit, outcome, parsed)
                if reason == "filtered out":
                    result.filtered_out = True
                elif reason is not None:
                    tail = outcome.stderr_tail() or (head if reason == "printed no results" else [])
                    result.faults.append(Fault(unit.target.name, unit.platform.name,
                                               copy_fault_reason(index, count, reason), tail, copy=index))
                    failed.append(index)
                if result.context is None:
                    result.context = parsed.context
                for record in parsed.records:
                    record.reported.update(copy=index, instances=count, window_s=together.window(index),
                                           copy_rusage={"user_s": outcome.user_s, "sys_s": outcome.sys_s,
                                                        "max_rss_kib": outcome.max_rss_kib, "wall_s": outcome.wall_s})
                    if ENV_PAD_VARIABLE in layouts[index]:
                        record.reported.update(env_pad=len(layouts[index][ENV_PAD_VARIABLE]),
                                               stack_offset=int(layouts[index]["BL_STACK_OFFSET"]))
                    if cpus[index] is not None:
                        record.reported["start_cpu"] = cpus[index]
                result.records.extend(parsed.records)
            if failed:
                for record in result.records:
                    record.reported.update(incomplete=True, failed_copies=failed)

    def _copy_commands(self, unit: Unit, exe: Path, scratch: str, process: int | None, count: int,
                       files: contextlib.ExitStack) -> tuple[list[Copy], list[dict[str, str]], list[int | None]]:
        """Each copy's command, layout and start CPU (None: the OS places it)."""
        args = benchmark_arguments(unit.target.flavor,
                                   dataclasses.replace(self.options, seed=process_seed(self.options.seed, process)))
        spread = self.options.spread_cpus and self._spreads(unit)
        copies, layouts, cpus = [], [], []
        for index in range(count):
            directory = os.path.join(scratch, f"copy{index}")
            os.mkdir(directory)
            layout = layout_env(self._layout_rng) if self.options.randomize_layout and process is not None else {}
            cpu = self._start_cpu((process or 0) + index) if spread else None
            argv = unit.platform.argv(str(exe), args, directory, str(self.config.root))
            if cpu is not None:
                layout["BL_RELEASE_CPUS"] = self._cpu_list
                argv = ["taskset", "--cpu-list", str(cpu), *argv]
            copies.append(Copy(argv, {**unit.platform.environment(), **layout}, directory,
                               files.enter_context(tempfile.TemporaryFile())))
            layouts.append(layout)
            cpus.append(cpu)
        return copies, layouts, cpus

    def _fault_reason(self, unit: Unit, outcome, parsed: Parsed) -> str | None:
        """Why one process of the unit's binary failed; "filtered out" when --filter left it nothing."""
        if no_match(unit.target.flavor, self.options, outcome, parsed):
            return "filtered out"
        if parsed.parser_error is not None:
            return parsed.parser_error
        if parsed.truncated is not None:
            return self._truncated(parsed)
        if not outcome.ok:
            return outcome.reason()
        if not parsed.records and parsed.context is None:
            return "printed no results"
        return None

    def _binary_label(self, unit: Unit) -> str:
        return unit.target.name if len(self.platforms) == 1 else f"{unit.target.name} ({unit.platform.name})"

    def known_build_failure(self, unit: Unit) -> bool:
        """Whether the unit's source already failed to compile in this run and a process
        said so: its other processes have nothing to run (the failure is reported once,
        with the first)."""
        return unit.target.kind != "executable" and (unit.target.path, unit.platform.build) in self._failures_reported

    def build_all(self, units: list[Unit]) -> None:
        """Every unit's build (and the workload launcher, for a workload), before anything
        is measured: a session's time budget counts from after them (session.py). A source
        that does not compile is kept as its failure, reported by its first process."""
        for unit in units:
            if unit.target.kind == "workload":
                self.builder.measure_launcher()
            else:
                self.executable(unit)

    def executable(self, unit: Unit) -> Path | BuildFailed:
        target = unit.target
        if target.kind == "executable":
            return target.path
        key = (target.path, unit.platform.build)
        if key not in self._builds:
            try:
                self._builds[key] = self.builder.build(target.path, unit.platform.build, target.companions)
            except BuildFailed as failure:
                self._builds[key] = failure
        return self._builds[key]

    def _built(self, unit: Unit, result: UnitResult) -> Path | None:
        """The unit's binary; None when its source does not compile: the fault added to `result`
        and remembered, so that its other processes skip it (known_build_failure)."""
        exe = self.executable(unit)
        if isinstance(exe, BuildFailed):
            result.faults.append(_build_fault(unit, exe))
            self._failures_reported.add((unit.target.path, unit.platform.build))
            return None
        return exe

    def code_identity(self, unit: Unit, platform_info: dict[str, Any]) -> dict[str, Any] | None:
        """What `unit` ran, for the run's context `code` (noise.py, "The code"): its identity,
        and the binary's sha256, path and flavor (a baseline keeps that file: `baseline
        save`); None for a source that did not build."""
        platform_info = _without_own_python_path(platform_info)
        if unit.target.kind == "workload":
            command = unit.target.workload.command
            program = shutil.which(command[0]) if command else None
            binary_id = noise.code_id(json.dumps(command), {}, {"program": noise.file_sha256(Path(program))
                                                                if program else None})
            return {"id": noise.code_id(binary_id, platform_info, {}), "flavor": "workload"}
        exe = self.executable(unit)
        if isinstance(exe, BuildFailed) or not Path(exe).is_file():
            return None
        digest = noise.file_sha256(Path(exe))
        flags = {"args": list(self.options.extra_args), "subtract": self.options.subtract}
        settings = measurement_settings(self.options)
        # Settings join the identity only when given, so that default runs keep the ids they had.
        identity = noise.code_id(digest, platform_info, {**flags, "settings": settings} if settings else flags)
        return {"id": identity, "sha256": digest, "path": str(exe), "flavor": unit.target.flavor, "flags": flags,
                **({"settings": settings} if settings else {})}

    def _run_binary(self, unit: Unit, result: UnitResult, scratch: str, layout: dict[str, str],
                    cpu: int | None = None, filters: tuple[str, ...] | None = None, process: int | None = None) -> None:
        exe = self._built(unit, result)
        if exe is None:
            return
        options = dataclasses.replace(self.options, seed=process_seed(self.options.seed, process),
                                      filters=self.options.filters if filters is None else filters)
        args = benchmark_arguments(unit.target.flavor, options)
        if unit.sweep_value is not None:
            args.append(self.options.sweep.argument(unit.sweep_value, unit.target.flavor))
        argv = unit.platform.argv(str(exe), args, scratch, str(self.config.root))
        if cpu is not None:
            argv = ["taskset", "--cpu-list", str(cpu), *argv]  # util-linux: the process and its children
        binary = unit.target.name if len(self.platforms) == 1 else f"{unit.target.name} ({unit.platform.name})"
        with tempfile.TemporaryFile() as stdout:
            outcome = run_process(argv, env={**unit.platform.environment(), **layout}, cwd=scratch,
                                  timeout=self.options.timeout, stdout=stdout, max_output_bytes=limits.MAX_OUTPUT_BYTES)
            parsed, head = self._read(stdout, binary)
        for warning in parsed.warnings + machine_warnings(outcome.stderr) + escaped_warnings(binary, outcome):
            self.warn(warning)
        self._check_reported_medians(binary, parsed.records)
        result.records = parsed.records
        result.context = parsed.context
        if no_match(unit.target.flavor, options, outcome, parsed):
            result.filtered_out = True
        elif parsed.parser_error is not None:
            result.faults.append(Fault(unit.target.name, unit.platform.name, parsed.parser_error, head))
        elif parsed.truncated is not None:
            result.faults.append(Fault(unit.target.name, unit.platform.name, self._truncated(parsed), head))
        elif not outcome.ok:
            result.faults.append(Fault(unit.target.name, unit.platform.name, outcome.reason(), outcome.stderr_tail()))
        elif not parsed.records and parsed.context is None:
            # Nothing we understand at all. (A benchlab binary that prints only its
            # context defines no benchmark for this platform, e.g. geteuid on WASI:
            # that is not a failure, its row just stays empty.)
            tail = outcome.stderr_tail() or head
            result.faults.append(Fault(unit.target.name, unit.platform.name, "printed no results", tail))

    def _read(self, stdout, binary: str) -> tuple[Parsed, list[str]]:
        """read_output within what the run's results may still hold (limits.MAX_RUN_RESULT_BYTES)."""
        parsed, head = read_output(stdout, binary, max_bytes=max(0, limits.MAX_RUN_RESULT_BYTES - self.held_bytes))
        self.held_bytes += parsed.held_bytes
        self.full = self.full or parsed.truncated_held
        return parsed, head

    def _truncated(self, parsed: Parsed) -> str:
        if not parsed.truncated_held:
            return f"{parsed.truncated} (the limit is MAX_OUTPUT_RECORDS in benchlab/limits.py)"
        return (f"the run's results reached {byte_amount(limits.MAX_RUN_RESULT_BYTES)} in memory, the limit of a "
                "run in all its processes (MAX_RUN_RESULT_BYTES in benchlab/limits.py): this process's results past "
                "it were not read, and no further process runs (run fewer processes or benchmarks: "
                "--processes, --filter)")

    def _check_reported_medians(self, binary: str, records: list[Record]) -> None:
        """Warn when the binary's median is not the median of the samples it printed."""
        for record in records:
            theirs, ours = record.reported.get("median"), record.median
            if not isinstance(theirs, (int, float)) or ours is None:
                continue
            if abs(theirs - ours) > max(MEDIAN_AGREEMENT_ABS, MEDIAN_AGREEMENT_REL * abs(ours)):
                self.warn(f"{binary}: {record.bench}: the binary reports median {theirs:g} but its samples "
                          f"give {ours:g}; using {ours:g} (a header/Python statistics mismatch: please report it)")


#: How the header starts a warning about the machine or the build (bl__warn_machine):
#: a frequency governor other than performance, turbo or boost on, no optimization.
MACHINE_WARNING = "benchlab: warning: "


def escaped_warnings(binary: str, outcome) -> list[str]:
    """What to say of processes the binary left running outside its process group (process.py)."""
    if not outcome.escaped:
        return []
    return [f"{binary}: {outcome.escaped} process(es) it started left its process group (setsid or setpgid) and "
            "outlived it: benchlab killed them (a benchmark's helpers should end with it)"]


def machine_warnings(stderr: str) -> list[str]:
    """The header's warnings about the machine, which `benchlab run` passes on (once each)."""
    return [line[len(MACHINE_WARNING):] for line in stderr.splitlines() if line.startswith(MACHINE_WARNING)]


def _build_fault(unit: Unit, failure: BuildFailed) -> Fault:
    """A compile failure; or, for a source the platform cannot build at all (threads on
    wasm32-wasi: buildable.py), the `-` cell's reason, which does not fail the run."""
    reason = unbuildable_reason([failure.source, *unit.target.companions], failure.target)
    if reason is not None:
        return Fault(unit.target.name, unit.platform.name, reason, [], kind=NOT_BUILT)
    tail = [line for line in failure.stderr.splitlines() if line.strip()][-STDERR_TAIL_LINES:]
    return Fault(unit.target.name, unit.platform.name, f"does not compile for {failure.target}{_helpers_note(unit)}",
                 tail)


def _helpers_note(unit: Unit) -> str:
    """Which files benchlab guessed were part of the program (targets.py), and how to say
    otherwise: a wrong guess fails the link (`multiple definition of main`) of every program."""
    guessed = unit.target.guessed
    if not guessed:
        return ""
    names = ", ".join(path.name for path in guessed)
    return (f" with {names} compiled in as {'a helper' if len(guessed) == 1 else 'helpers'}: no entry point found in "
            f"{'it' if len(guessed) == 1 else 'them'} ({entry_points_text()}); a program of its own needs one of "
            "these, and build.shared in benchlab.toml names a directory's helpers instead of this guess")


#: What the header (include/benchlab.h) and Google Benchmark say on stderr when no
#: benchmark of theirs matches the filter; the header then exits 2, Google Benchmark 0.
NO_MATCH_MESSAGES = {"benchlab": "no benchmark matches --filter", "gbench": "Failed to match any benchmarks"}


def no_match(flavor: str, options: RunOptions, outcome, parsed: Parsed) -> bool:
    """True when a binary ran no benchmark because none matches --filter: not a failure, as
    long as some other binary has one (a filter that matches nothing anywhere is one error)."""
    message = NO_MATCH_MESSAGES.get(flavor)
    if not options.filters or message is None or parsed.records or outcome.timed_out:
        return False
    return outcome.exit_status in (0, 2) and message in outcome.stderr


#: A file's line ends, as the parsers read it (universal newlines), and the blanks around a line.
_LINE_ENDS = re.compile(r"\r\n|\r|\n")
_BLANKS = " \t\f\v"


def read_output(stdout, binary: str, max_bytes: int | None = None) -> tuple[Parsed, list[str]]:
    """Parse a binary's stdout file as a stream (it may be huge); also its first lines, for a fault.

    At most limits.MAX_OUTPUT_BYTES of it are read, and no line longer than
    MAX_OUTPUT_LINE_CHARS is held (a warning says how many were skipped). A parser that
    fails on it (a bug of ours) costs this process's results, never the run's: the
    returned Parsed's `parser_error` says so, and the runner makes it the process's fault;
    so is reading stopped past limits.MAX_OUTPUT_RECORDS results, or once the results hold
    `max_bytes` in memory (`truncated`)."""
    stdout.seek(0)
    # Split where the parsers do (a file's line ends), not at \x1c-\x1e as str.splitlines would.
    text = stdout.read(64 * 1024).decode(errors="replace")
    head = [line.strip(_BLANKS) for line in _LINE_ENDS.split(text) if line.strip(_BLANKS)]
    stdout.seek(0)
    text = io.TextIOWrapper(stdout, encoding="utf-8", errors="replace", newline=None)
    skipped = [0]
    try:
        parsed = parse_stream(bounded_lines(text, limits.MAX_OUTPUT_BYTES, limits.MAX_OUTPUT_LINE_CHARS, skipped),
                              binary, max_records=limits.MAX_OUTPUT_RECORDS, max_bytes=max_bytes)
    except Exception as error:  # noqa: BLE001 - one binary's output must not cost the whole run
        parsed = Parsed(parser_error=f"its output broke benchlab's parser ({type(error).__name__}: {error}; "
                                     "a benchlab bug: please report it with the output)")
    finally:
        text.detach()  # the caller closes the file
    if skipped[0]:
        parsed.warnings.append(f"{binary}: {skipped[0]} lines longer than "
                               f"{byte_amount(limits.MAX_OUTPUT_LINE_CHARS)} ignored")
    return parsed, head[:STDERR_TAIL_LINES]


def bounded_lines(text: io.TextIOBase, max_chars: int, max_line: int, skipped: list[int]) -> Iterator[str]:
    """The lines of `text` up to `max_chars` characters in all; a line over `max_line`
    characters is read past in pieces, never held, and counted in skipped[0]."""
    left = max_chars
    while left > 0:
        line = text.readline(min(max_line + 1, left))
        if not line:
            return
        left -= len(line)
        if len(line) > max_line and not line.endswith("\n"):
            skipped[0] += 1
            while left > 0 and line and not line.endswith("\n"):
                line = text.readline(min(max_line, left))
                left -= len(line)
            continue
        yield line


#: benchlab's own interpreter in a code identity (the wasm and callgrind platforms run
#: `python -m benchlab.wasi`): its path is where a virtual environment happens to be, each CI
#: job's own, not what runs; the runner's version is in the platform's `version`.
OWN_PYTHON = "{python}"


def _without_own_python_path(platform_info: dict[str, Any]) -> dict[str, Any]:
    """The platform's launch template with sys.executable named OWN_PYTHON, so that identical
    code run from two virtual environments has one identity."""
    def named(element: Any) -> Any:
        return OWN_PYTHON if element == sys.executable else element

    portable = dict(platform_info)
    if isinstance(portable.get("command"), list):
        portable["command"] = [named(element) for element in portable["command"]]
    if isinstance(portable.get("launchers"), list):
        portable["launchers"] = [[named(element) for element in launcher] if isinstance(launcher, list) else launcher
                                 for launcher in portable["launchers"]]
    return portable
