"""Whole-command workloads, timed from the outside as the hot-path pipeline does.

Each workload runs W warm-up times (discarded: caches, page cache, JITs) and then
R measured times; each measured run is one sample of wall, user and sys seconds and
max RSS, from the kernel's accounting of the finished command. The command runs
through the small `measure` launcher (measure.c), so that its max RSS is its own and
not that of the Python process it would otherwise be forked from.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from benchlab.config import Workload
from benchlab.measuring.platforms import Platform
from benchlab.measuring.process import Outcome, run_measured, run_process
from benchlab.records import Fault, Record

#: (counter, unit, how to read it from an Outcome). user seconds first: the
#: hot-path pipeline found it the stable metric, wall time being noisy under load.
MEASURES = (
    ("user", "s", lambda o: o.user_s),
    ("sys", "s", lambda o: o.sys_s),
    ("wall", "s", lambda o: o.wall_s),
    ("max_rss", "KiB", lambda o: float(o.max_rss_kib)),
)


class ProgramProblem(Exception):
    """The workload's program cannot run on this platform; the message says what to do."""


def resolve_program(workload: Workload, platform: Platform, root: str) -> str:
    """The program to launch: found on PATH or relative to the project root, checked for the platform.

    Resolved here rather than by the platform's launcher, which may say nothing useful
    (qemu-user exits 1 silently for a program it cannot find or a `#!` script).
    """
    program = workload.command[0]
    key = f"workloads.{workload.name}.command"
    if platform.is_remote:
        return program  # the remote side's PATH and files, not ours
    if "/" in program:
        path = Path(program) if os.path.isabs(program) else Path(root) / program
        if not path.is_file():
            raise ProgramProblem(f"{program} does not exist (relative paths are from the project root {root}; "
                                 f"fix {key})")
        found = str(path)
    else:
        found = shutil.which(program)
        if found is None:
            raise ProgramProblem(f"'{program}' is not on PATH (install it, or give its full path in {key})")
    if not platform.runs_scripts and _shebang(found) is not None:
        binary = _binary_on_path(os.path.basename(found))
        example = f", e.g. {binary}" if binary else ""
        raise ProgramProblem(f"{found} is a script ({_shebang(found)}) and {os.path.basename(platform.program())} "
                             f"runs only compiled programs (give the path of a binary in {key}{example})")
    return found


def _binary_on_path(name: str) -> str | None:
    """The first program called `name` on PATH that is not a script (pyenv's shims are scripts)."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK) and _shebang(candidate) is None:
            return candidate
    return None


def _shebang(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(128)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    return head.split(b"\n", 1)[0].decode(errors="replace").strip()


def run_workload(workload: Workload, platform: Platform, *, timeout: float, scratch: str,
                 root: str, launcher: Path | str | None = None) -> tuple[list[Record], list[Fault]]:
    """Warm-ups then measured runs; `launcher` is the measure program, or why there is none."""
    try:
        program = resolve_program(workload, platform, root)
    except ProgramProblem as problem:
        return [], [Fault(binary=workload.name, platform=platform.name, reason=f"cannot run: {problem}")]
    argv = platform.argv(program, workload.command[1:], scratch, root)
    measured: list[Outcome] = []
    for index in range(workload.warmups + workload.runs):
        # The command's output is discarded, as hyperfine does: only its cost is measured.
        if isinstance(launcher, Path):
            outcome = run_measured(argv, launcher, env=platform.environment(), cwd=scratch, timeout=timeout,
                                   stdout=subprocess.DEVNULL)
        else:
            outcome = run_process(argv, env=platform.environment(), cwd=scratch, timeout=timeout,
                                  stdout=subprocess.DEVNULL)
        if not outcome.ok:
            phase = "warm-up" if index < workload.warmups else "run"
            fault = Fault(binary=workload.name, platform=platform.name,
                          reason=f"{outcome.reason()} ({phase} {index + 1})", stderr_tail=outcome.stderr_tail())
            return [], [fault]
        if index >= workload.warmups:
            measured.append(outcome)
    reported = {"argv": argv, "warmups": workload.warmups, "runs": workload.runs}
    records = []
    for counter, unit, read in MEASURES:
        if counter == "max_rss" and not isinstance(launcher, Path):
            # Forked from this Python process, the command's peak would include ours: no figure
            # rather than a wrong one.
            why = launcher or "no workload launcher"
            records.append(Record(bench=workload.name, param=None, counter=counter, unit=unit, samples=[],
                                  platform=platform.name, binary=workload.name, format="workload",
                                  reported={**reported, "supported": False, "reason": why}))
            continue
        records.append(Record(bench=workload.name, param=None, counter=counter, unit=unit, iterations=1,
                              samples=[read(o) for o in measured], platform=platform.name, binary=workload.name,
                              format="workload", reported=reported))
    return records, []
