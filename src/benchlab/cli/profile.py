"""`benchlab profile`: where a benchmark or a workload spends its time, folded into named buckets.

TARGET is what `run` takes (a C file, an executable, a workload name), or a command
after `--`. The profile is taken with perf (cpu-clock samples) or, with
--instructions, callgrind (instruction counts), folded into the buckets of --buckets,
printed and stored with a run of its own, which `compare` and `gate --bucket` read.
"""
from __future__ import annotations

import dataclasses
import shutil
import tempfile
import sys
from pathlib import Path

import click

from benchlab.profiling import callgrind
from benchlab.measuring import context as run_context
from benchlab.measuring.build import BuildFailed, Builder
from benchlab.cli.common import FiniteFloatRange, config_of, db_option, kept, open_store
from benchlab.config import MAX_TIME_LIMIT_S, MAX_TIMEOUT_S, Config
from benchlab.errors import ExitCode, UserError
from benchlab.formats.registry import PROFILE_FORMATS
from benchlab.paths import check_output_file, write_regular_file
from benchlab.limits import limit
from benchlab.measuring.platforms import Platform, resolve_platforms
from benchlab.measuring.process import run_process
from benchlab.profiling import perf
from benchlab.profiling.buckets import Buckets, by_dso, load_buckets
from benchlab.output.fitting import terminal_width
from benchlab.output.profiles import profile_json, profile_table
from benchlab.profiling.session import Plan, Profile, profile_with_callgrind, profile_with_perf
from benchlab.profiling.symbols import unresolved_warning
from benchlab.measuring.targets import Target, resolve_targets
from benchlab.measuring.workloads import ProgramProblem, resolve_program

#: Seconds each series of a benchlab binary samples (the benchmark, its baseline and the
#: empty loop each get this much, in rounds): 1 s is 4000 perf samples of the body.
DEFAULT_TIME_LIMIT_S = 1.0
#: perf's default call graph: DWARF unwinding is right for any code with unwind tables; frame
#: pointers miss the caller of every leaf function (gcc 12 sets up no frame in a leaf even
#: with -fno-omit-frame-pointer), but take 8 KiB less per sample: --call-graph fp for long runs.
DEFAULT_CALL_GRAPH = "dwarf"
#: Flags added to the compiler's for a profiled C source: symbols and line tables (-g),
#: and frame pointers so that `--call-graph fp` walks the program's own stacks.
PROFILE_CFLAGS = ["-g", "-fno-omit-frame-pointer"]


@click.command("profile")
@click.argument("targets", nargs=-1, metavar="TARGET | -- COMMAND...")
@click.option("--buckets", "buckets_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="TOML file: [buckets] NAME = [\"regex\", ...] (default: one bucket per DSO).")
@click.option("--platform", "-p", "platform_names", multiple=True, metavar="NAME",
              help="Platform to profile on (repeatable; default native). A benchlab binary must run directly.")
@click.option("--instructions", is_flag=True,
              help="Count instructions under valgrind's callgrind (deterministic) instead of sampling with perf.")
@click.option("--call-graph", type=click.Choice(perf.CALL_GRAPHS),
              help="perf's call graphs, for inclusive shares: dwarf (default), fp (cheaper), none. Benchmarks always use dwarf.")
@click.option("--filter", "filter_text", metavar="TEXT", help="The benchmark of a benchlab binary to profile (a substring of NAME or NAME/PARAM=V).")
@click.option("--time-limit", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIME_LIMIT_S), metavar="S",
              help=f"Sampling seconds per series of a benchlab binary (default {DEFAULT_TIME_LIMIT_S:g}).")
@click.option("--timeout", type=FiniteFloatRange(min=0, min_open=True, max=MAX_TIMEOUT_S), metavar="S",
              help="Kill the profiled command after S seconds (default: run.timeout, else 300).")
@click.option("--arg", "extra_args", multiple=True, metavar="ARG", help="Extra argument for the target.")
@click.option("--format", "output_format", type=click.Choice(PROFILE_FORMATS), default=PROFILE_FORMATS[0],
              help="What to print: table (default) or json.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the profile to FILE (json when it ends in .json or with --format json).")
@click.option("--keep-data", "keep_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Keep what perf or callgrind recorded in DIR/PLATFORM/ (perf.data, callgrind.out.PID), for "
                   "perf report or callgrind_annotate.")
@db_option
@click.option("--no-store", is_flag=True, help="Do not keep this profile in the database.")
@click.pass_context
def command(context: click.Context, targets: tuple[str, ...], buckets_path: str | None,
            platform_names: tuple[str, ...], instructions: bool, call_graph: str | None, filter_text: str | None,
            time_limit: float | None, timeout: float | None, extra_args: tuple[str, ...], output_format: str,
            out_path: str | None, keep_dir: str | None, db_url: str | None, no_store: bool) -> int:
    """Profile TARGET (a C file, an executable, a workload name) or the COMMAND after --,
    fold its samples into the buckets of --buckets, print bucket shares and their top
    symbols, and store them as a run for `benchlab compare` and `benchlab gate --bucket`."""
    config = config_of(context)
    argv = context.obj.get("argv", ["benchlab", "profile", *targets]) if context.obj else ["benchlab", "profile"]
    # Everything is checked before anything runs: buckets, --out, the profiler, platforms, the target.
    buckets = load_buckets(buckets_path) if buckets_path else by_dso()
    _check_out(out_path)
    _check_keep(keep_dir)
    if instructions and call_graph:
        raise UserError("--call-graph is perf's; callgrind records every call", "leave out --call-graph or --instructions")
    event = None
    if instructions:
        callgrind.check_callgrind()
    else:
        event = perf.check_perf()
    platforms = resolve_platforms(list(platform_names) or ["native"], config)
    for platform in platforms:
        _check_platform(platform)
    command_given = "--" in argv[argv.index("profile") + 1:] if "profile" in argv else len(targets) > 1
    target = _target(list(targets), command_given, config)
    store = None if no_store else open_store(config, db_url)
    options = _Options(filter_text, time_limit or DEFAULT_TIME_LIMIT_S, timeout or config.timeout, list(extra_args),
                       "none" if instructions else call_graph, keep_dir)
    profiles, body = _profile_all(config, target, platforms, buckets, event, options)
    _warn_unresolved(profiles)
    info = _profile_info(target, buckets, buckets_path, profiles, body, event, options, instructions)
    rows = [row for p in profiles for row in p.rows()]
    run_id = _store(store, config, platforms, argv, info, rows) if store else None
    if run_id is not None:
        kept(context, f"the profile is stored as run {run_id} (benchlab show {run_id})")
    text = profile_json(info, rows, run_id) if output_format == "json" else \
        profile_table(info, rows, run_id, terminal_width(sys.stdout))
    click.echo(text, nl=False)
    if out_path:
        as_json = output_format == "json" or out_path.lower().endswith(".json")
        write_regular_file("--out", Path(out_path), (profile_json if as_json else profile_table)(info, rows, run_id))
    return ExitCode.OK


@dataclasses.dataclass
class _Options:
    filter_text: str | None
    time_limit: float
    timeout: float
    extra_args: list[str]
    call_graph: str | None
    keep_dir: str | None = None


def _check_out(out_path: str | None) -> None:
    if out_path is None:
        return
    check_output_file("--out", out_path, "profile.json")


def _check_keep(keep_dir: str | None) -> None:
    if keep_dir is None:
        return
    path = Path(keep_dir)
    if path.exists() and not path.is_dir():
        raise UserError(f"--keep-data {keep_dir} is a file", "give a directory")
    if not path.exists() and not path.parent.is_dir():
        raise UserError(f"--keep-data {keep_dir}: the directory {path.parent} does not exist",
                        "create it first, or give another path")


def _check_platform(platform: Platform) -> None:
    platform.check_available()
    if platform.is_remote:
        raise UserError(f"platform '{platform.name}' runs on another host over ssh: perf and callgrind profile "
                        "local processes", "profile on that host, or choose a local platform")


# -- the target ----------------------------------------------------------------------------


@dataclasses.dataclass
class _Command:
    """The command after `--`, run as given in the current directory."""

    argv: list[str]

    @property
    def name(self) -> str:
        return Path(self.argv[0]).name


def _target(arguments: list[str], command_given: bool, config: Config) -> Target | _Command:
    if not arguments:
        raise UserError("nothing to profile", "give a target (benchlab profile bench.c) or a command after -- "
                                              "(benchlab profile --buckets b.toml -- ./emulator guest.elf)")
    if command_given:
        if shutil.which(arguments[0]) is None:
            raise UserError(f"{arguments[0]}: no such program", "give a path to an executable or a program on PATH")
        return _Command(arguments)
    if len(arguments) > 1:
        raise UserError(f"profile takes one target, got {len(arguments)}: {' '.join(arguments)}",
                        "profile one at a time, or put a command with its arguments after --")
    found = resolve_targets(arguments, config)
    if len(found) != 1:
        raise UserError(f"{arguments[0]} names {len(found)} programs ({', '.join(t.name for t in found[:5])}): "
                        "a profile is of one", "give one C file, executable or workload")
    return found[0]


def _plans(config: Config, target: Target | _Command, platform: Platform, options: _Options,
           scratch: str) -> Plan:
    """The argv to profile on `platform`, with the body to keep for a benchlab binary."""
    root = str(config.root)
    env = platform.environment()
    if isinstance(target, _Command):
        return Plan(target.name, platform.name, platform.argv(target.argv[0], target.argv[1:] + options.extra_args,
                                                              str(Path.cwd()), root), str(Path.cwd()), env)
    if target.kind == "workload":
        try:
            program = resolve_program(target.workload, platform, root)
        except ProgramProblem as problem:
            raise UserError(f"workload {target.name} cannot run: {problem}", "fix workloads in benchlab.toml") from None
        argv = platform.argv(program, target.workload.command[1:] + options.extra_args, scratch, root)
        return Plan(target.name, platform.name, argv, scratch, env)
    exe = _executable(config, target, platform)
    if target.flavor != "benchlab":
        return Plan(target.name, platform.name, platform.argv(str(exe), options.extra_args, scratch, root),
                    scratch, env)
    if platform.chain[0] != "{exe}":
        raise UserError(f"platform '{platform.name}' runs {target.name} through {platform.chain[0]}: a benchmark's "
                        "body can be found only in a binary that runs directly",
                        "profile benchlab binaries on native (or a platform whose command starts with {exe})")
    name, text = _benchmark(exe, target.name, options.filter_text)
    args = [f"--filter={text}", "--precision=0", f"--samples={int(limit('MAX_SAMPLES'))}",
            f"--time-limit={options.time_limit:g}", "--format=jsonl", *options.extra_args]
    return Plan(target.name, platform.name, platform.argv(str(exe), args, scratch, root), scratch,
                {**env, "BL_NO_WARN": "1"}, body=f"bl__body_{name}")


def _executable(config: Config, target: Target, platform: Platform) -> Path:
    if target.kind != "source":
        if not target.runs_on(platform.build):
            raise UserError(f"{target.name} is not built for platform '{platform.name}' ({platform.build})",
                            "choose a platform of its build target")
        return target.path
    build = dataclasses.replace(config.build, cflags=[*config.build.cflags, *PROFILE_CFLAGS])
    builder = Builder(dataclasses.replace(config, build=build))
    try:
        return builder.build(target.path, platform.build, target.companions)
    except BuildFailed as failure:
        tail = " | ".join(failure.stderr.strip().splitlines()[-3:])
        raise UserError(f"{target.path.name} does not compile: {tail}", "fix the source") from None


def _benchmark(exe: Path, shown: str, filter_text: str | None) -> tuple[str, str]:
    """The one benchmark of a benchlab binary to profile: (its name, the --filter to give)."""
    listed = run_process([str(exe), "--list"], timeout=60)
    if not listed.ok:
        raise UserError(f"{shown} --list {listed.reason()}", "run it alone to see why")
    instances = [line.strip() for line in listed.stdout.splitlines() if line.strip()]
    baseline = [i.removesuffix(" (baseline)") for i in instances if i.endswith(" (baseline)")]
    plain = [i for i in instances if not i.endswith(" (baseline)")]
    names = lambda found: sorted({i.split("/", 1)[0] for i in found})  # noqa: E731
    if filter_text is None:
        if len(names(plain)) == 1:
            return names(plain)[0], names(plain)[0]
        raise UserError(f"{shown} has {len(names(plain))} benchmarks ({', '.join(names(plain)) or 'none'}): "
                        "a profile is of one", "give --filter NAME")
    chosen = names([i for i in plain if filter_text in i]) or names([b for b in baseline if filter_text in b])
    if len(chosen) != 1:
        said = "matches no benchmark" if not chosen else f"matches {len(chosen)} benchmarks ({', '.join(chosen)})"
        raise UserError(f"--filter {filter_text!r} {said} of {shown}",
                        f"give a filter that selects one of: {', '.join(names(plain) + baseline)}")
    return chosen[0], filter_text


# -- running and storing -------------------------------------------------------------------


def _profile_all(config: Config, target, platforms: list[Platform], buckets: Buckets, event: str | None,
                 options: _Options) -> tuple[list[Profile], str | None]:
    scratch_root = config.state_dir / "scratch"
    scratch_root.mkdir(parents=True, exist_ok=True)
    profiles, body = [], None
    for platform in platforms:
        scratch = tempfile.mkdtemp(prefix="profile-", dir=scratch_root)
        try:
            plan = _plans(config, target, platform, options, scratch)
            body = plan.body
            workdir = Path(tempfile.mkdtemp(prefix="data-", dir=scratch))
            if event is None:
                profiles.append(profile_with_callgrind(plan, buckets, options.timeout, workdir))
            else:
                call_graph = _call_graph(plan.body, options)
                profiles.append(profile_with_perf(plan, buckets, event, call_graph, options.timeout, workdir))
            if options.keep_dir:
                shutil.copytree(workdir, Path(options.keep_dir) / platform.name, dirs_exist_ok=True)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return profiles, body


def _call_graph(body: str | None, options: _Options) -> str:
    """perf's call graph: always DWARF for a benchlab benchmark, whose samples are kept by
    the body's frame on their stack (frame pointers lose the frame of a leaf's caller)."""
    return "dwarf" if body else (options.call_graph or DEFAULT_CALL_GRAPH)


def _warn_unresolved(profiles: list[Profile]) -> None:
    """Say how much of each profile stayed addresses (a stripped program's own code): the
    profile is kept, and the rest of it (libraries, kernel, exported functions) is named."""
    for profile in profiles:
        warning = unresolved_warning(f"{profile.target} on {profile.platform}", profile.total, profile.unresolved)
        if warning:
            click.echo(f"warning: {warning}", err=True)


def _profile_info(target, buckets: Buckets, buckets_path: str | None, profiles: list[Profile], body: str | None,
                  event: str | None, options: _Options, instructions: bool) -> dict:
    """What the profile is, stored in the run's context as "profile"."""
    return {
        "target": target.name, "profiler": "callgrind" if instructions else "perf",
        "unit": "instructions" if instructions else "samples", "event": "Ir" if instructions else event,
        "period_ns": None if instructions else perf.PERIOD_NS,
        "call_graph": None if instructions else _call_graph(body, options),
        "body": body, "filter": options.filter_text,
        "buckets_file": buckets_path, "buckets": buckets.spec,
        "totals": {p.platform: {"total": p.total, "left_out": p.left_out, "unresolved": sum(p.unresolved.values())}
                   for p in profiles},
    }


def _store(store, config: Config, platforms: list[Platform], argv: list[str], info: dict, rows: list[dict]) -> int:
    context = run_context.collect(config, platforms, None, argv)
    context["profile"] = info
    run_id = store.begin_run(argv, [p.name for p in platforms], context)
    try:
        store.add_profile(run_id, rows)
    except (UserError, KeyboardInterrupt):  # Ctrl-C, SIGTERM: no run left begun and never finished
        store.delete_run(run_id)
        raise
    store.finish_run(run_id, "complete", ExitCode.OK)
    return run_id
