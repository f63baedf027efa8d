"""`benchlab ab A B`: two builds in alternating processes, paired by round (benchlab.measuring.ab).

A and B are two executables or two C sources, or, with `--rev R1 --rev R2`, two git
revisions of one or more TARGETs (suite directories or files), each revision checked out
in a temporary worktree and built with the build cache; every program both revisions
have is a pair, all of them measured in the same rounds.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from benchlab.config import MAX_SEED, draw_seed
from benchlab.measuring.ab import PROCESS_TIME_LIMIT_S, ABRun, Pair, check_time_limit, default_time_limit
from benchlab.measuring.build import BuildFailed, Builder
from benchlab.measuring.recording import sigterm_as_interrupt
from benchlab.judging.judgment import INCONCLUSIVE_POLICIES, judge, remeasure_advice
from benchlab.judging.thresholds import Thresholds
from benchlab.cli.common import (FiniteFloatRange, config_of, junit_option, note, quiet_option, rounds_progress,
                                 rounds_time_option, summary_option)
from benchlab.errors import ExitCode, UserError
from benchlab.output.ci import Outputs
from benchlab.output.comparisons import render
from benchlab.statistics.answer import Answer
from benchlab.output.fitting import terminal_width
from benchlab.percent import Percent
from benchlab.measuring.platforms import resolve_platforms
from benchlab.measuring.runner import RunOptions, Runner, Unit
from benchlab.measuring.targets import Target, resolve_targets


@contextlib.contextmanager
def worktrees(root: Path, revisions: tuple[str, str]):
    """Each revision checked out (detached) in a temporary worktree, removed afterwards:
    also on Ctrl-C and on SIGTERM (a CI job cancelled), which is raised as Ctrl-C is."""
    for rev in revisions:
        found = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        if found.returncode != 0:
            raise UserError(f"--rev {rev}: no such git revision in {root}", "give a branch, tag or commit: --rev main")
    with sigterm_as_interrupt():
        base = Path(tempfile.mkdtemp(prefix="benchlab-ab-"))
        paths = []
        try:
            for side, rev in zip("ab", revisions):
                path = base / side
                added = _git(root, "worktree", "add", "--detach", "--quiet", str(path), rev)
                if added.returncode != 0:
                    said = (added.stderr.strip().splitlines() or [f"exit status {added.returncode}"])[-1]
                    raise UserError(f"--rev {rev}: git worktree add failed: {said}",
                                    "run `git worktree prune` and check the repository, or give two programs A B")
                paths.append(path)
            yield paths
        finally:
            for path in paths:
                _git(root, "worktree", "remove", "--force", str(path))
            shutil.rmtree(base, ignore_errors=True)


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    """git -C ROOT ARGS, its output captured; git missing is one error, not a traceback."""
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, errors="replace")
    except OSError as exc:
        raise UserError(f"--rev needs git, which cannot run here: {exc.strerror}",
                        "install git (apt-get install git), or give two programs A B") from None


def revision_pairs(config, relative: list[Path], trees: tuple[Path, Path], revisions: tuple[str, str],
                   platform) -> list[Pair]:
    """A pair per program that both revisions' TARGETs (paths within the project) have, by
    name; a program only one revision has is left out, and said."""
    sides = [_programs(config, [str(tree / path) for path in relative]) for tree in trees]
    names = [name for name in sides[0] if name in sides[1]]
    if not names:
        raise UserError(f"{' '.join(map(str, relative))} has no program in common between {revisions[0]} and "
                        f"{revisions[1]}", "give suite directories or files that exist in both revisions")
    for rev, side, other in ((revisions[0], sides[0], sides[1]), (revisions[1], sides[1], sides[0])):
        alone = [name for name in side if name not in other]
        if alone:
            click.echo(f"warning: only {rev} has {', '.join(alone)}: left out", err=True)
    return [Pair(name, Unit(sides[0][name], platform), Unit(sides[1][name], platform)) for name in names]


def relative_path(root: Path, argument: str) -> Path:
    """A TARGET's path within the project, which each revision's worktree has at the same place."""
    try:
        return Path(argument).resolve().relative_to(root.resolve())
    except ValueError:
        raise UserError(f"--rev: {argument} is outside the project {root}",
                        "give a suite directory or file of the project, whose revisions --rev checks out") from None


def _programs(config, arguments: list[str]) -> dict[str, Target]:
    """The programs the arguments name, by name: two of one name could not be paired."""
    programs: dict[str, Target] = {}
    for target in resolve_targets(arguments, config):
        if target.name in programs:
            raise UserError(f"two programs are named {target.name} ({programs[target.name].path} and {target.path}): "
                            "ab pairs A's and B's programs by name", "give the TARGETs in separate runs of ab")
        programs[target.name] = target
    return programs


def _single(argument: str, config) -> Target:
    targets = resolve_targets([argument], config)
    if len(targets) != 1 or targets[0].kind == "workload":
        raise UserError(f"{argument} is not one program", "give two executables or two C sources, or --rev twice")
    return targets[0]


@click.command("ab")
@click.argument("programs", nargs=-1, metavar="A B | --rev R1 --rev R2 TARGET...")
@click.option("--rev", "revs", multiple=True, metavar="REV",
              help="A git revision; give two, and one or more TARGETs (suite directories or files).")
@click.option("--platform", "platform_name", default="native", metavar="NAME", help="Where to run (default native).")
@click.option("--precision", type=FiniteFloatRange(min=0.01, max=100), default=1.0, metavar="PCT",
              help="Without --max-regression: stop once every ratio's 99% interval is within +-PCT% (default 1). "
                   "With it, a row is measured until it is decided or the time is out.")
@rounds_time_option("Stop after S seconds of rounds in any case (default: 10 s per program, at least 30; builds "
                    "come before, not counted). (--time-limit, its old spelling, still works.)", maximum=1e6)
@click.option("--max-rounds", type=click.IntRange(min=2, max=100000), default=1000, metavar="N")
@click.option("--duet", is_flag=True, help="Run A and B at the same time, one per CPU, swapping CPUs each round.")
@click.option("--max-regression", type=Percent(), metavar="PCT",
              help="Judge B against A: exit 3 when a row is slower by more than PCT% with 99% confidence, 4 when "
                   "one is undecided (see --inconclusive); rows decided early are measured no more.")
@click.option("--inconclusive", type=click.Choice(INCONCLUSIVE_POLICIES), default="fail", show_default=True,
              help="With --max-regression: what an undecided row does, fail (exit 4) or pass (exit 0).")
@click.option("--noise-floor", "floor", type=Percent(), metavar="PCT",
              help="Slowdowns below PCT% are 'not slower' (default: compare.noise_floor, 1).")
@click.option("--format", "output_format", type=click.Choice(["table", "markdown", "json"]), default="table")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), metavar="N", help="Seed of the round order.")
@click.option("--arg", "extra_args", multiple=True, metavar="ARG", help="Extra argument for every benchmark binary.")
@summary_option
@junit_option
@quiet_option
@click.pass_context
def command(context: click.Context, programs: tuple[str, ...], revs: tuple[str, ...], platform_name: str,
            precision: float, time_limit: float | None, max_rounds: int, duet: bool, max_regression: float | None,
            inconclusive: str, floor: float | None, output_format: str, seed: int | None,
            extra_args: tuple[str, ...], summary_path: str | None, junit_path: str | None, quiet: bool) -> int:
    """Run A and B in alternating processes, in a random order each round, and report per
    benchmark the ratio B/A with a 99% interval from the paired rounds, and a verdict:
    slower, not slower, or inconclusive."""
    config = config_of(context)
    [platform] = resolve_platforms([platform_name], config)
    platform.check_available()
    if revs and (len(revs) != 2 or not programs):
        raise UserError("--rev needs two revisions and one or more TARGETs",
                        "write: benchlab ab --rev main --rev HEAD suites/calls")
    if not revs and len(programs) != 2:
        raise UserError("ab needs two programs A and B", "write: benchlab ab a.c b.c, or --rev R1 --rev R2 TARGET")
    if duet and len(os.sched_getaffinity(0)) < 2:
        raise UserError("--duet needs two CPUs to run A and B on", "run without --duet on this machine")
    if junit_path and max_regression is None:
        raise UserError("--junit needs --max-regression: JUnit records passes and failures, and without a threshold "
                        "ab judges nothing", "give --max-regression PCT, e.g. --max-regression 2%")
    outputs = Outputs.checked(summary_path, junit_path)
    relative = [relative_path(config.root, argument) for argument in programs] if revs else []
    seed = seed if seed is not None else draw_seed()
    # Short processes, many rounds (PROCESS_TIME_LIMIT_S), unless the user's --arg sets the time limit.
    own_limit = any(arg.startswith("--time-limit") for arg in extra_args)
    options = RunOptions(timeout=config.timeout, seed=seed, extra_args=extra_args,
                         time_limit=None if own_limit else PROCESS_TIME_LIMIT_S)
    runner = Runner(config, [platform], options, Builder(config), lambda m: note(f"warning: {m}"))
    with contextlib.ExitStack() as stack:
        if revs:
            trees = stack.enter_context(worktrees(config.root, (revs[0], revs[1])))
            pairs = revision_pairs(config, relative, (trees[0], trees[1]), (revs[0], revs[1]), platform)
            labels = revs
        else:
            a, b = _single(programs[0], config), _single(programs[1], config)
            pairs = [Pair(a.name, Unit(a, platform), Unit(b, platform))]
            labels = programs
        for pair, side in ((p, s) for p in pairs for s in (p.a, p.b)):
            built = runner.executable(side)
            if isinstance(built, BuildFailed):
                raise UserError(f"{side.target.path} does not build for {built.target}: "
                                f"{(built.stderr.strip().splitlines() or ['?'])[-1]}", "fix the build, or compare other revisions")
        if time_limit is None:
            time_limit = default_time_limit(len(pairs))
        check_time_limit(time_limit, [0] * len(pairs), flag="--time")
        floor_fraction = (floor / 100) if floor is not None else config.noise_floor
        threshold = max_regression / 100 if max_regression is not None else None
        note(f"{len(pairs)} program(s), A and B interleaved: at most {time_limit:g} s of rounds (--time), "
             "the builds done before")
        with rounds_progress(time_limit, max_rounds, quiet) as progress:
            result = ABRun(runner, pairs, seed=seed, precision=precision / 100, time_limit=time_limit,
                           max_rounds=max_rounds, duet=duet, floor_of=lambda _: floor_fraction,
                           decided=Thresholds(floor_fraction, threshold).decider() if threshold is not None else None,
                           progress=progress.line, on_round=progress.round_done).run()
    if result.faults:
        for fault in result.faults:
            click.echo(f"{fault.binary}: {fault.reason}", err=True)
        raise UserError("a process of A or B failed", "fix it, then run ab again")
    for c in result.comparisons:
        c.threshold = threshold
    a_label, b_label = f"A: {labels[0]}", f"B: {labels[1]}"
    click.echo(render(result.comparisons, a_label, b_label, output_format, width=terminal_width(sys.stdout)), nl=False)
    rounds = f"{result.rounds} rounds of A and B{' at once (duet)' if duet else ''} in {result.seconds:.1f} s, seed {seed}"
    note(rounds)
    judgment = None
    if threshold is not None:
        judgment = judge(result.comparisons, command="ab", inconclusive=inconclusive,
                         advice=lambda _: remeasure_advice(result.rounds, result.seconds, time_limit))
        for line in judgment.lines:
            click.echo(line, err=True)
    subject = f"{b_label} against {a_label}, {len(pairs)} program(s)"
    outputs.write(Answer("ab", subject, a_label, b_label, result.comparisons, judgment, inconclusive,
                         notes=[rounds], seconds=result.seconds))
    return judgment.exit_code if judgment is not None else ExitCode.OK
