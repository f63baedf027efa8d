"""What `ab` measures: two programs A and B, or, with `--rev R1 --rev R2`, the programs two
git revisions of one or more TARGETs have in common, each revision checked out in a
temporary worktree (removed afterwards, on Ctrl-C and SIGTERM too) and built with the build
cache. Every program both revisions have is a pair (ab.py), all of them measured in the
same rounds.
"""
from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Iterator

from benchlab.config import Config
from benchlab.errors import UserError
from benchlab.measuring.ab import Pair
from benchlab.measuring.platforms import Platform
from benchlab.measuring.recording import sigterm_as_interrupt
from benchlab.measuring.runner import Unit
from benchlab.measuring.targets import Target, resolve_targets


@contextlib.contextmanager
def worktrees(root: Path, revisions: tuple[str, str]) -> Iterator[list[Path]]:
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


def revision_pairs(config: Config, relative: list[Path], trees: tuple[Path, Path], revisions: tuple[str, str],
                   platform: Platform, warn: Callable[[str], None]) -> list[Pair]:
    """A pair per program that both revisions' TARGETs (paths within the project) have, by
    name; a program only one revision has is left out, and `warn` says so."""
    sides = [_programs(config, [str(tree / path) for path in relative]) for tree in trees]
    names = [name for name in sides[0] if name in sides[1]]
    if not names:
        raise UserError(f"{' '.join(map(str, relative))} has no program in common between {revisions[0]} and "
                        f"{revisions[1]}", "give suite directories or files that exist in both revisions")
    for rev, side, other in ((revisions[0], sides[0], sides[1]), (revisions[1], sides[1], sides[0])):
        alone = [name for name in side if name not in other]
        if alone:
            warn(f"warning: only {rev} has {', '.join(alone)}: left out")
    return [Pair(name, Unit(sides[0][name], platform), Unit(sides[1][name], platform)) for name in names]


def relative_path(root: Path, argument: str) -> Path:
    """A TARGET's path within the project, which each revision's worktree has at the same place."""
    try:
        return Path(argument).resolve().relative_to(root.resolve())
    except ValueError:
        raise UserError(f"--rev: {argument} is outside the project {root}",
                        "give a suite directory or file of the project, whose revisions --rev checks out") from None


def program_pair(config: Config, a: str, b: str, platform: Platform) -> Pair:
    """A and B, two executables or two C sources, as one pair named after A."""
    first, second = _single(a, config), _single(b, config)
    return Pair(first.name, Unit(first, platform), Unit(second, platform))


def _programs(config: Config, arguments: list[str]) -> dict[str, Target]:
    """The programs the arguments name, by name: two of one name could not be paired."""
    programs: dict[str, Target] = {}
    for target in resolve_targets(arguments, config):
        if target.name in programs:
            raise UserError(f"two programs are named {target.name} ({programs[target.name].path} and {target.path}): "
                            "ab pairs A's and B's programs by name", "give the TARGETs in separate runs of ab")
        programs[target.name] = target
    return programs


def _single(argument: str, config: Config) -> Target:
    targets = resolve_targets([argument], config)
    if len(targets) != 1 or targets[0].kind == "workload":
        raise UserError(f"{argument} is not one program", "give two executables or two C sources, or --rev twice")
    return targets[0]
