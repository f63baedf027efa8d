"""`benchlab ab`'s flow, out of the command: two builds measured in alternating processes,
paired by round, and (with --max-regression) judged. The command (cli/ab.py) reads the
flags, prints and exits, as the gate's does (gate.py).

The steps, in order:
1. **The request checked** before anything runs: the platform available here, two programs
   or two revisions and their TARGETs, two CPUs for --duet.
2. **The pairs** (measuring/revisions.py): A and B, or every program both revisions have,
   each revision checked out in a temporary worktree; every side built before the rounds.
3. **The time limit** checked against the least time the rounds a verdict needs take.
4. **The rounds** (measuring/ab.py): short processes, interleaved in a random order each
   round; with --max-regression a row is measured until decided, else until every interval
   is within --precision, or the time is out.
5. **The judgment** (judgment.py): each row at its own noise floor and threshold
   (thresholds.py: a benchmark's `[compare.noise_floors]` and `[gate.max_regression]` win
   over --noise-floor and --max-regression, as for compare and the gate).
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Any, Callable, ContextManager

from benchlab.config import Config, draw_seed
from benchlab.errors import UserError
from benchlab.judging.judgment import judge, remeasure_advice
from benchlab.judging.thresholds import Thresholds
from benchlab.measuring import revisions
from benchlab.measuring.ab import (PROCESS_TIME_LIMIT_S, ABResult, ABRun, Pair, check_time_limit, default_time_limit,
                                   no_display)
from benchlab.measuring.build import BuildFailed, Builder
from benchlab.measuring.platforms import Platform, resolve_platforms
from benchlab.measuring.runner import RunOptions, Runner
from benchlab.statistics.answer import Answer


@dataclasses.dataclass(frozen=True)
class Request:
    """What `ab` is asked: the command's arguments and flags."""
    #: A and B, or with `revisions` the TARGETs (suite directories or files) of both.
    programs: tuple[str, ...]
    #: --rev twice: the two git revisions; () for two programs.
    revisions: tuple[str, ...] = ()
    platform: str = "native"
    #: --precision, percent: without a threshold, rounds stop once every interval is within it.
    precision: float = 1.0
    #: --time, seconds of rounds; None: default_time_limit of the pairs.
    time_limit: float | None = None
    max_rounds: int = 1000
    duet: bool = False
    #: --max-regression, percent; None: nothing judged. A benchmark's own [gate.max_regression] wins.
    max_regression: float | None = None
    #: --inconclusive: "fail" or "pass".
    inconclusive: str = "fail"
    #: --noise-floor, percent; None: benchlab.toml's. A benchmark's own [compare.noise_floors] wins.
    floor: float | None = None
    #: --seed of the round order; None: drawn.
    seed: int | None = None
    #: --arg: extra arguments for every benchmark binary.
    extra_args: tuple[str, ...] = ()


@dataclasses.dataclass
class Listener:
    """What `ab` says while it works: each a callback the command gives; by default silent."""
    #: A line of what it does (the command's notes, which --quiet silences).
    note: Callable[[str], None] = lambda _: None
    #: A line that is always said: a program left out, a process's failure.
    warn: Callable[[str], None] = lambda _: None
    #: The rounds' progress display for (a time limit, the most rounds): a context manager whose
    #: value has `line(text)` and `round_done(rounds)` (output/progress.py's Progress).
    rounds: Callable[[float, int], ContextManager[Any]] = no_display


def judge_ab(config: Config, request: Request, listener: Listener = Listener()) -> Answer:
    """Measure B against A in paired rounds: the rows, each at its floor and threshold, their
    judgment under --max-regression (None without), and a note of the rounds it took."""
    platform = checked_platform(config, request)
    seed = request.seed if request.seed is not None else draw_seed()
    thresholds = Thresholds.of(config, floor=request.floor, max_regression=request.max_regression)
    judging = request.max_regression is not None
    relative = [revisions.relative_path(config.root, argument) for argument in request.programs] \
        if request.revisions else []
    runner = Runner(config, [platform], run_options(config, request, seed), Builder(config),
                    lambda message: listener.note(f"warning: {message}"))
    with contextlib.ExitStack() as stack:
        if request.revisions:
            revs = (request.revisions[0], request.revisions[1])
            trees = stack.enter_context(revisions.worktrees(config.root, revs))
            pairs = revisions.revision_pairs(config, relative, (trees[0], trees[1]), revs, platform, listener.warn)
        else:
            pairs = [revisions.program_pair(config, request.programs[0], request.programs[1], platform)]
        build_all(runner, pairs)
        time_limit = request.time_limit if request.time_limit is not None else default_time_limit(len(pairs))
        check_time_limit(time_limit, [0] * len(pairs), flag="--time")
        listener.note(f"{len(pairs)} program(s), A and B interleaved: at most {time_limit:g} s of rounds (--time), "
                      "the builds done before")
        with listener.rounds(time_limit, request.max_rounds) as progress:
            result = ABRun(runner, pairs, seed=seed, precision=request.precision / 100, time_limit=time_limit,
                           max_rounds=request.max_rounds, duet=request.duet, floor_of=thresholds.floor_of,
                           decided=thresholds.decider() if judging else None,
                           progress=progress.line, on_round=progress.round_done).run()
    if result.faults:
        for fault in result.faults:
            listener.warn(f"{fault.binary}: {fault.reason}")
        raise UserError("a process of A or B failed", "fix it, then run ab again")
    return answer(request, result, thresholds.judge(result.comparisons), len(pairs), seed, time_limit)


def checked_platform(config: Config, request: Request) -> Platform:
    """The platform to run on, once the request is checked: everything that can be wrong
    with it is said before anything is built or run."""
    [platform] = resolve_platforms([request.platform], config)
    platform.check_available()
    if request.revisions and (len(request.revisions) != 2 or not request.programs):
        raise UserError("--rev needs two revisions and one or more TARGETs",
                        "write: benchlab ab --rev main --rev HEAD suites/calls")
    if not request.revisions and len(request.programs) != 2:
        raise UserError("ab needs two programs A and B", "write: benchlab ab a.c b.c, or --rev R1 --rev R2 TARGET")
    if request.duet and len(os.sched_getaffinity(0)) < 2:
        raise UserError("--duet needs two CPUs to run A and B on", "run without --duet on this machine")
    return platform


def run_options(config: Config, request: Request, seed: int) -> RunOptions:
    """Short processes, many rounds (PROCESS_TIME_LIMIT_S), unless the user's --arg sets the time limit."""
    own_limit = any(arg.startswith("--time-limit") for arg in request.extra_args)
    return RunOptions(timeout=config.timeout, seed=seed, extra_args=request.extra_args,
                      time_limit=None if own_limit else PROCESS_TIME_LIMIT_S)


def build_all(runner: Runner, pairs: list[Pair]) -> None:
    """Every side built before the rounds: a build that fails is an error, not a row."""
    for side in (side for pair in pairs for side in (pair.a, pair.b)):
        built = runner.executable(side)
        if isinstance(built, BuildFailed):
            raise UserError(f"{side.target.path} does not build for {built.target}: "
                            f"{(built.stderr.strip().splitlines() or ['?'])[-1]}",
                            "fix the build, or compare other revisions")


def answer(request: Request, result: ABResult, comparisons: list, programs: int, seed: int,
           time_limit: float) -> Answer:
    """The rows, their judgment (None without --max-regression) and how they were measured."""
    labels = request.revisions or request.programs
    a_label, b_label = f"A: {labels[0]}", f"B: {labels[1]}"
    rounds = (f"{result.rounds} rounds of A and B{' at once (duet)' if request.duet else ''} in "
              f"{result.seconds:.1f} s, seed {seed}")
    judgment = None
    if request.max_regression is not None:
        judgment = judge(comparisons, command="ab", inconclusive=request.inconclusive,
                         advice=lambda _: remeasure_advice(result.rounds, result.seconds, time_limit))
    return Answer("ab", f"{b_label} against {a_label}, {programs} program(s)", a_label, b_label, comparisons,
                  judgment, request.inconclusive, notes=[rounds], seconds=result.seconds)
