"""Sampling with Linux perf: `perf record` on the cpu-clock software event, read back
with `perf script`.

cpu-clock is a timer in the kernel, not a hardware counter, so it works in virtual
machines without a PMU (this project's VM has none). Each sample is taken after a
fixed PERIOD_NS of CPU time (`-c`), so every sample weighs the same and a bucket's
share of samples is its share of CPU time, the figure `perf report` prints.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

from benchlab.errors import UserError

#: /proc/sys/kernel/perf_event_paranoid; a module constant so that tests can fake the reading.
PARANOID_PATH = Path("/proc/sys/kernel/perf_event_paranoid")
#: CPU time between two samples: 250 us, 4000 samples per CPU-second, perf's default rate.
PERIOD_NS = 250_000
#: Bytes of user stack copied with each sample for DWARF unwinding: a benchmark body
#: with a 4 KiB buffer on its stack still unwinds up to the harness.
STACK_DUMP_BYTES = 8192
#: Call graphs perf can take: frame pointers (cheap; right only for code built with
#: them), DWARF (right for any code with unwind tables, ~8 KiB per sample), or none.
CALL_GRAPHS = ("fp", "dwarf", "none")
#: Linux capabilities that lift perf_event_paranoid's limits: CAP_SYS_ADMIN, CAP_PERFMON.
_PERF_CAPABILITIES = (21, 38)

_INSTALL = "apt-get install linux-perf"
_OR_CALLGRIND = "or give --instructions to count instructions under valgrind's callgrind instead"


def check_perf() -> str:
    """perf's event for this machine and user (`cpu-clock`, or `cpu-clock:u` without kernel
    samples), or a UserError saying why perf cannot sample here and what to change."""
    if shutil.which("perf") is None:
        raise UserError("perf (Linux's profiler) is not installed", f"{_INSTALL}, {_OR_CALLGRIND}")
    try:
        version = subprocess.run(["perf", "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"perf does not run: {exc}", f"{_INSTALL}, {_OR_CALLGRIND}") from None
    if version.returncode != 0:
        # Debian's /usr/bin/perf is a wrapper that fails when no perf matches the running kernel.
        said = (version.stderr or version.stdout).strip().splitlines()
        raise UserError(f"perf does not run: {said[0] if said else f'exit status {version.returncode}'}",
                        f"install the perf of the running kernel ({_INSTALL}), {_OR_CALLGRIND}")
    return event_for(paranoid_level(), privileged())


def paranoid_level() -> int:
    try:
        return int(PARANOID_PATH.read_text().strip())
    except FileNotFoundError:
        raise UserError(f"{PARANOID_PATH} does not exist: this kernel has no perf events",
                        f"use a kernel built with CONFIG_PERF_EVENTS, {_OR_CALLGRIND}") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read {PARANOID_PATH}: {exc}", _OR_CALLGRIND.removeprefix("or ")) from None


def privileged() -> bool:
    """Root, or a process with CAP_PERFMON or CAP_SYS_ADMIN: perf_event_paranoid does not apply."""
    if os.geteuid() == 0:
        return True
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    found = re.search(r"^CapEff:\s*([0-9a-fA-F]+)", status, re.M)
    effective = int(found.group(1), 16) if found else 0
    return any(effective >> bit & 1 for bit in _PERF_CAPABILITIES)


def event_for(paranoid: int, is_privileged: bool) -> str:
    """perf_event_paranoid (Documentation/admin-guide/sysctl/kernel.rst): 2 lets a user
    sample their own processes in user space only, 3 and more (Debian's patch) nothing."""
    if is_privileged or paranoid <= 1:
        return "cpu-clock"
    if paranoid == 2:
        return "cpu-clock:u"
    raise UserError(f"perf_event_paranoid is {paranoid} ({PARANOID_PATH}): this user may not sample processes",
                    "allow it with: sudo sysctl kernel.perf_event_paranoid=2 (user space only) or 1, or run as "
                    f"root, {_OR_CALLGRIND}")


def record_argv(data: Path, event: str, call_graph: str, argv: list[str]) -> list[str]:
    graph = {"fp": ["--call-graph", "fp"], "dwarf": ["--call-graph", f"dwarf,{STACK_DUMP_BYTES}"], "none": []}
    return ["perf", "record", "--quiet", "-e", event, "-c", str(PERIOD_NS), *graph[call_graph],
            "-o", str(data), "--", *argv]


def script_argv(data: Path) -> list[str]:
    # --no-inline: each address is the function it is in, as `perf report --sort sym` counts
    # it, not the functions inlined there.
    return ["perf", "script", "-i", str(data), "-F", "period,ip,sym,dso", "--no-inline"]


def read_stacks(data: Path) -> Counter:
    """The samples of a perf.data file: {stack: samples}, a stack a tuple of (symbol, dso), leaf first."""
    with subprocess.Popen(script_argv(data), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace") as child:
        stacks = parse_script(child.stdout)
        stderr = child.stderr.read()
    if child.returncode != 0:
        raise UserError(f"perf script could not read {data}: {stderr.strip()[-300:]}",
                        f"check that perf works (perf record -e cpu-clock true), {_OR_CALLGRIND}")
    return stacks


#: One frame: `ADDRESS SYMBOL (DSO)`. A C++ symbol can hold spaces and parentheses, so
#: the DSO is the last parenthesised part.
_FRAME = re.compile(r"^\s*([0-9a-f]+)\s+(.*?)\s+\(([^()]*)\)\s*$")
#: A sample's first line: its period, then (without a call graph) its one frame.
_HEADER = re.compile(r"^\s*(\d+)\s*(.*)$")


def parse_script(lines) -> Counter:
    """`perf script -F period,ip,sym,dso` output as {stack: samples}. A sample is a line
    with its period, then its call chain one frame per indented line (leaf first), or
    with a single frame on the same line when recorded without a call graph."""
    stacks: Counter = Counter()
    frames: list[tuple[str, str]] | None = None
    for line in lines:
        if not line.strip():
            continue
        if not line.startswith("\t"):
            if frames:
                stacks[tuple(frames)] += 1
            header = _HEADER.match(line)
            frames = [] if header else None
            if header and header.group(2):
                frames.append(_frame(header.group(2)))
        elif frames is not None:
            frames.append(_frame(line))
    if frames:
        stacks[tuple(frames)] += 1
    return stacks


#: What perf script writes for an address no symbol table covers.
UNKNOWN = "[unknown]"


def unresolved(stacks: Counter) -> Counter:
    """{dso: samples} of the samples whose own frame (the leaf) perf could not name: their
    address is in no symbol table it found (the file's own, its debug symbols', its
    exported dynamic symbols'). A bucket by file still counts them; one by symbol cannot."""
    found: Counter = Counter()
    for stack, weight in stacks.items():
        if stack and stack[0][0] == UNKNOWN:
            found[stack[0][1]] += weight
    return found


def _frame(text: str) -> tuple[str, str]:
    found = _FRAME.match(text)
    if not found:
        return (UNKNOWN, UNKNOWN)
    symbol = found.group(2)
    # perf writes unresolved addresses as [unknown]; keep the DSO, which a bucket can still match.
    return (symbol or UNKNOWN, found.group(3) or UNKNOWN)
