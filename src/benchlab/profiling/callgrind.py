"""Counting instructions with valgrind's callgrind: deterministic, where perf cannot
sample or when asked (`--instructions`).

callgrind executes the program on a simulated CPU and counts every instruction (Ir)
per function, and per call from one function to another, so the same program with the
same input gives the same counts run after run. Its files are read here directly
(docs: valgrind's "Callgrind Format Specification"), written uncompressed.
"""
from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

from benchlab.errors import UserError

OUT_PREFIX = "callgrind.out"


def check_callgrind() -> None:
    if shutil.which("valgrind") is None:
        raise UserError("valgrind (for callgrind's instruction counts) is not installed",
                        "apt-get install valgrind, or leave out --instructions to sample with perf")


def record_argv(out_dir: Path, argv: list[str], collect: list[str] | None = None) -> list[str]:
    """callgrind's command line. `collect`: functions to count inside (and below) only,
    e.g. a benchmark's body, leaving out start-up and the harness around it."""
    toggles = [f"--toggle-collect={name}" for name in collect or []]
    return ["valgrind", "--quiet", "--tool=callgrind", f"--callgrind-out-file={out_dir}/{OUT_PREFIX}.%p",
            "--trace-children=yes", "--compress-strings=no", "--compress-pos=no", "--dump-instr=no",
            *(["--collect-atstart=no"] if toggles else []), *toggles, "--", *argv]


class Counts:
    """Instructions per function ((symbol, object)) and per call (caller, callee): its inclusive cost."""

    def __init__(self) -> None:
        self.self_costs: Counter = Counter()
        self.calls: Counter = Counter()

    @property
    def total(self) -> int:
        return sum(self.self_costs.values())

    def inclusive(self, members) -> int:
        """Instructions in the functions for which `members(location)` holds, and in what they
        call outside them. Exact for a call tree; a call that leaves the group and comes back
        (A -> B -> A) is counted twice, as callgrind's own inclusive costs count recursion."""
        own = sum(cost for location, cost in self.self_costs.items() if members(location))
        below = sum(cost for (caller, callee), cost in self.calls.items() if members(caller) and not members(callee))
        return own + below


def read_counts(out_dir: Path) -> Counts:
    """Every callgrind file in out_dir (one per process, children included), summed."""
    counts = Counts()
    for path in sorted(out_dir.glob(f"{OUT_PREFIX}.*")):
        with path.open(errors="replace") as lines:
            parse(lines, counts)
    return counts


def parse(lines, counts: Counts) -> Counts:
    """One callgrind file (uncompressed names and positions, Ir first among its events).

    A cost line belongs to the current function (fn=), except the line right after
    calls=, which is the inclusive cost of that call to cfn= (in cob=, else the current
    object)."""
    positions = 1
    obj = ""
    function: tuple[str, str] | None = None
    callee_obj: str | None = None
    callee: tuple[str, str] | None = None
    pending_call = False
    for raw in lines:
        line = raw.rstrip("\n")
        if not line or line[0] == "#":
            continue
        if line[0].isdigit() or line[0] in "+-*":
            cost = _first_event(line, positions)
            if pending_call and function and callee:
                counts.calls[(function, callee)] += cost
                pending_call, callee_obj = False, None
            elif function:
                counts.self_costs[function] += cost
            continue
        key, _, value = line.partition("=")
        if key == "ob":
            obj = value
        elif key == "fn":
            function = (value, obj)
        elif key == "cob":
            callee_obj = value
        elif key == "cfn":
            callee = (value, callee_obj if callee_obj is not None else obj)
        elif key == "calls":
            pending_call = True
        elif line.startswith("positions:"):
            positions = len(line.split(":", 1)[1].split())
    return counts


def _first_event(line: str, positions: int) -> int:
    fields = line.split()
    if len(fields) <= positions:
        return 0  # a position without costs: 0 of every event
    return int(fields[positions])
