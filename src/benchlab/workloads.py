"""Whole-command workloads, timed from the outside as the hot-path pipeline does.

Each workload runs W warm-up times (discarded: caches, page cache, JITs) and then
R measured times; each measured run is one sample of wall, user and sys seconds and
max RSS, from the kernel's accounting of the finished child (os.wait4).
"""
from __future__ import annotations

import shutil

from benchlab.config import Workload
from benchlab.platforms import Platform
from benchlab.process import Outcome, run_process
from benchlab.records import Fault, Record

#: (counter, unit, how to read it from an Outcome). user seconds first: the
#: hot-path pipeline found it the stable metric, wall time being noisy under load.
MEASURES = (
    ("user", "s", lambda o: o.user_s),
    ("sys", "s", lambda o: o.sys_s),
    ("wall", "s", lambda o: o.wall_s),
    ("max_rss", "KiB", lambda o: float(o.max_rss_kib)),
)


def run_workload(workload: Workload, platform: Platform, *, timeout: float, scratch: str,
                 root: str) -> tuple[list[Record], list[Fault]]:
    program = shutil.which(workload.command[0]) or workload.command[0]
    argv = platform.argv(program, workload.command[1:], scratch, root)
    measured: list[Outcome] = []
    for index in range(workload.warmups + workload.runs):
        outcome = run_process(argv, env=platform.environment(), cwd=scratch, timeout=timeout)
        if not outcome.ok:
            phase = "warm-up" if index < workload.warmups else "run"
            fault = Fault(binary=workload.name, platform=platform.name,
                          reason=f"{outcome.reason()} ({phase} {index + 1})", stderr_tail=outcome.stderr_tail())
            return [], [fault]
        if index >= workload.warmups:
            measured.append(outcome)
    records = [
        Record(bench=workload.name, param=None, counter=counter, unit=unit, iterations=1,
               samples=[read(o) for o in measured], platform=platform.name, binary=workload.name,
               format="workload", reported={"argv": argv, "warmups": workload.warmups, "runs": workload.runs})
        for counter, unit, read in MEASURES
    ]
    return records, []
