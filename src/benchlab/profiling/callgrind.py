"""Valgrind's callgrind: its command line and its files, for both of benchlab's uses.

callgrind executes a program on a simulated CPU and counts every instruction (Ir) per
function, and per call from one function to another, so the same program with the same
input gives the same counts run after run. Its files are read here directly (valgrind's
"Callgrind Format Specification"): `valgrind_argv` builds the command line and
`read_file` reads one file, for

- `benchlab profile --instructions` (profiling/session.py): every function's own
  instructions and each call's, from the files of the whole process tree (`read_counts`),
  folded into buckets;
- the `callgrind` platform, below: the totals of one dump per region (`read_dump`).

Instructions per iteration of a benchlab binary's benchmarks, the `callgrind` platform
(docs/counters.md, "Instruction counts without a PMU"):
    python -m benchlab.callgrind [--iterations N] [--cache-sim | --no-cache-sim] EXE [ARG ...]

It runs EXE under callgrind with BL_CALLGRIND=N in its environment. The header then
times nothing: it runs each selected benchmark in three regions, calls of
`bl__callgrind_region` (include/benchlab.h, section I18): a warm-up at N iterations,
then N, then 2N, printing one `callgrind_region` line after each. Callgrind counts only inside that function
(`--collect-atstart=no --toggle-collect=`) and writes one dump as it returns
(`--dump-after=`), so dump k is region k. Each benchmark's figure is

    (Ir(2N) - Ir(N)) / N

instructions per iteration: what a call costs once (the call, the body's prologue,
BL_SUSPEND blocks outside its loop) is in both regions and cancels exactly. Callgrind
simulates one CPU and counts every instruction it runs, so the figure is the same on
every run: a record says `"deterministic": true`, and compare gives its ratio an
interval of zero width.

Callgrind also simulates the caches (`--cache-sim=yes`, of one fixed geometry: the same
figures on every machine) and counts the system calls (`--collect-systime=yes`), so a
second counter, `estimated-cycles`, sees what instructions alone do not: the misses,
weighted as KCachegrind's cycle estimation weighs them (ESTIMATED_CYCLES), and every record
says how many system calls an iteration makes (`system_calls`), the work callgrind does
not count (the kernel's).

What we print is the binary's jsonl with the region lines replaced by result records
(counters `instructions` and `estimated-cycles`; with --cache-sim also the simulated
`I1-misses`, `D1-misses` and `LL-misses`; with --no-cache-sim `instructions` alone), so
every reader of benchlab's jsonl takes it as it is. The binary's exit status becomes
ours; a mismatch between regions and dumps is exit 1 with a message.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from benchlab import deterministic
from benchlab.errors import UserError

#: Iterations of the shorter region by default. Callgrind runs code ~50x slower than the
#: CPU, and the figure is exact at any N for a body whose cost per iteration is steady:
#: 1000 keeps suites/calls under a second per process, and averages bodies whose cost
#: varies a little from one iteration to the next (an allocator's occasional refill).
DEFAULT_ITERATIONS = 1000
#: The header's region function: callgrind's --dump-after matches this exact name.
REGION_FUNCTION = "bl__callgrind_region"
#: The environment variable that switches the header to instruction regions.
ENVIRONMENT = "BL_CALLGRIND"
#: The header's BL__MAX_CALLGRIND_ITERATIONS.
MAX_ITERATIONS = 1_000_000_000
INSTALL_HINT = "apt-get install valgrind"
#: Every file callgrind writes is named OUT_PREFIX.PID (a process's last dump), or .PID.N
#: (its N-th dump of --dump-after): %p, so that a child the program forks (an IPC round
#: trip, a launcher) writes files of its own pid.
OUT_PREFIX = "callgrind.out"

#: Estimated cycles from callgrind's events: KCachegrind's "Cycle Estimation" (CEst =
#: Ir + 10 Bm + 10 L1m + 20 Ge + 100 LLm, its libviews/globalconfig.cpp), less the branch
#: (Bm) and bus (Ge) terms, which need --branch-sim and --collect-bus. An instruction costs
#: 1, an L1 miss 10 more, a last-level miss 100 more on top of its L1 miss: 110 in all.
ESTIMATED_CYCLES = {"Ir": 1, "I1mr": 10, "D1mr": 10, "D1mw": 10, "ILmr": 100, "DLmr": 100, "DLmw": 100}
#: Counters from callgrind's events: name -> (unit, weight of each event summed).
COUNTERS = {deterministic.INSTRUCTIONS: ("instructions", {"Ir": 1})}
CYCLE_COUNTERS = {deterministic.ESTIMATED_CYCLES: ("cycles", ESTIMATED_CYCLES)}
CACHE_COUNTERS = {
    "I1-misses": ("misses", {"I1mr": 1}),
    "D1-misses": ("misses", {"D1mr": 1, "D1mw": 1}),
    "LL-misses": ("misses", {"ILmr": 1, "DLmr": 1, "DLmw": 1}),
}
#: The simulated caches, the same on every machine (callgrind would otherwise take this
#: CPU's, and a count would differ between two hosted runners of different CPUs): 32 KiB
#: 8-way L1s and an 8 MiB 16-way last level, 64-byte lines, a common x86-64 server's.
CACHE_GEOMETRY = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64")
#: callgrind's sysCount: the system calls made while it counted.
SYSTEM_CALLS_EVENT = "sysCount"
#: What valgrind says on stderr, even with --quiet, when it sees an L3 cache: the geometry above
#: replaces what it found, so it is not the user's to read.
_CACHE_WARNING = re.compile(r"^--\d+-- warning: (L3 cache found|specified LL cache|simulated LL cache)")


class CallgrindError(Exception):
    """Callgrind's output does not say what the regions cost; the message says why."""


# -- the command line --------------------------------------------------------------------------

def valgrind_argv(argv: list[str], out_dir: str | Path, *, collect: Iterable[str] = (), dump_after: str | None = None,
                  cache_sim: bool | None = None, trace_children: bool = False, plain: bool = False,
                  system_calls: bool = False, valgrind: str = "valgrind") -> list[str]:
    """valgrind's command line for running `argv` under callgrind, its files in `out_dir`.

    collect: functions to count inside (and below) only, nothing before the first, e.g. a
        benchmark's body, leaving out start-up and the harness around it;
    dump_after: a function after each return of which callgrind writes a dump (.PID.N);
    cache_sim: simulate the caches (True: of CACHE_GEOMETRY), or say it is off (False); None leaves it out;
    system_calls: count the system calls too (sysCount);
    trace_children: follow exec'd programs (a launcher, a shell);
    plain: names and positions uncompressed, no per-instruction costs: small files to read."""
    toggles = [f"--toggle-collect={name}" for name in collect]
    return [valgrind, "--tool=callgrind", "--quiet", f"--callgrind-out-file={os.path.join(out_dir, OUT_PREFIX)}.%p",
            *(["--trace-children=yes"] if trace_children else []),
            *(["--compress-strings=no", "--compress-pos=no", "--dump-instr=no"] if plain else []),
            *(["--collect-atstart=no", *toggles] if toggles else []),
            *([f"--dump-after={dump_after}"] if dump_after else []),
            *([f"--cache-sim={'yes' if cache_sim else 'no'}"] if cache_sim is not None else []),
            *(CACHE_GEOMETRY if cache_sim else ()),
            *(["--collect-systime=yes"] if system_calls else []),
            "--", *argv]


def check_callgrind() -> None:
    """`profile --instructions` needs valgrind: a UserError when it is not installed."""
    if shutil.which("valgrind") is None:
        raise UserError("valgrind (for callgrind's instruction counts) is not installed",
                        f"{INSTALL_HINT}, or leave out --instructions to sample with perf")


# -- its files ------------------------------------------------------------------------------------

class Counts:
    """What callgrind files say: each event's total, and the instructions (the first event,
    Ir) per function ((symbol, object)) and per call (caller, callee): its inclusive cost."""

    def __init__(self) -> None:
        #: The event names of the file read last, and its own totals as written ("totals:", else
        #: "summary:"; None when it has neither): read_dump checks and names them.
        self.events: list[str] | None = None
        self.totals: list[str] | None = None
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


#: A compressed name: "(id) name" where it is first given, "(id)" after (--compress-strings=yes,
#: callgrind's default). Objects, files and functions are numbered apart.
_COMPRESSED = re.compile(r"^\((\d+)\)(?: (.*))?$")
_NAME_KINDS = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
               "fn": "fn", "cfn": "fn"}


def parse(lines: Iterable[str], counts: Counts | None = None) -> Counts:
    """One callgrind file, added to `counts` (a new Counts when None).

    A cost line belongs to the current function (fn=), except the line right after calls=,
    which is the inclusive cost of that call to cfn= (in cob=, else the current object)."""
    counts = Counts() if counts is None else counts
    names: dict[tuple[str, str], str] = {}
    positions = 1
    totals: list[str] | None = None
    summary: list[str] | None = None
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
        if key in _NAME_KINDS:
            value = _name(names, _NAME_KINDS[key], value)
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
        elif line.startswith("events:"):
            counts.events = line.split(":", 1)[1].split()
        elif line.startswith("totals:"):
            totals = line.split(":", 1)[1].split()
        elif line.startswith("summary:"):
            summary = line.split(":", 1)[1].split()
    counts.totals = totals if totals is not None else summary
    return counts


def _name(names: dict[tuple[str, str], str], kind: str, value: str) -> str:
    match = _COMPRESSED.match(value)
    if not match:
        return value
    if match.group(2) is not None:
        names[(kind, match.group(1))] = match.group(2)
    return names.get((kind, match.group(1)), value)


def _first_event(line: str, positions: int) -> int:
    fields = line.split()
    if len(fields) <= positions:
        return 0  # a position without costs: 0 of every event
    return int(fields[positions])


def read_file(path: Path, counts: Counts | None = None) -> Counts:
    with open(path, encoding="utf-8", errors="replace") as lines:
        return parse(lines, counts)


def read_counts(out_dir: Path) -> Counts:
    """Every callgrind file in out_dir (one per process, children included), summed."""
    counts = Counts()
    for path in sorted(out_dir.glob(f"{OUT_PREFIX}.*")):
        read_file(path, counts)
    return counts


def read_dump(path: Path) -> dict[str, int]:
    """The totals of one callgrind dump, by event name (Ir, and with --cache-sim D1mr, ...)."""
    counts = read_file(path)
    events, values = counts.events, counts.totals
    if events is None or values is None:
        raise CallgrindError(f"{path.name} is not a callgrind dump: no 'events:' and 'totals:' lines")
    if len(values) > len(events) or not all(v.isdigit() for v in values):
        raise CallgrindError(f"{path.name}: totals {' '.join(values)!r} do not match events {' '.join(events)!r}")
    # callgrind leaves out trailing zeros of a cost line
    return {event: int(values[i]) if i < len(values) else 0 for i, event in enumerate(events)}


def dump_files(out_dir: Path, pid: int) -> list[Path]:
    """Process `pid`'s dumps in the order written (callgrind.out.PID.1, .2, ...); not the
    final one at exit (callgrind.out.PID), which holds what ran after the last region."""
    pattern = re.compile(rf"{re.escape(OUT_PREFIX)}\.{pid}\.(\d+)$")
    numbered = [(int(m.group(1)), p) for p in out_dir.iterdir() if (m := pattern.match(p.name))]
    return [p for _, p in sorted(numbered)]


# -- the `callgrind` platform: instructions per iteration ---------------------------------------

def split_output(text: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The binary's lines other than regions (context, warnings), and its regions in order."""
    others, regions = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith('{"type":"callgrind_region"'):
            try:
                region = json.loads(stripped)
            except ValueError:
                raise CallgrindError(f"a region line is not JSON: {stripped[:200]}") from None
            if not isinstance(region.get("iterations"), int) or not isinstance(region.get("bench"), str):
                raise CallgrindError(f"a region line lacks bench or iterations: {stripped[:200]}")
            regions.append(region)
        else:
            others.append(line)
    return others, regions


def counters_of(cache_sim: bool, misses: bool = False) -> dict[str, tuple[str, dict[str, int]]]:
    """The counters a run gives: instructions; with the caches simulated estimated-cycles,
    and the misses themselves when asked for."""
    return {**COUNTERS, **(CYCLE_COUNTERS if cache_sim else {}), **(CACHE_COUNTERS if cache_sim and misses else {})}


def weighted(cost: dict[str, int], weights: dict[str, int]) -> int:
    """A counter's total in one dump: its events' totals, weighted (ESTIMATED_CYCLES) or summed."""
    return sum(weight * cost.get(event, 0) for event, weight in weights.items())


def result_records(regions: list[dict[str, Any]], costs: list[dict[str, int]], cache_sim: bool,
                   misses: bool = False) -> list[dict]:
    """One result record per benchmark and counter from its two measured regions (N, then
    2N); the warm-up regions' dumps are skipped. With `cache_sim`, estimated-cycles too, and
    the misses with `misses`."""
    if len(regions) != len(costs):
        raise CallgrindError(f"{len(costs)} dumps for {len(regions)} regions")
    measured = [(r, c) for r, c in zip(regions, costs) if r.get("warm_up") is not True]
    regions, costs = [r for r, _ in measured], [c for _, c in measured]
    counters = counters_of(cache_sim, misses)
    records = []
    for index in range(0, len(regions) - 1, 2):
        short, long = regions[index], regions[index + 1]
        same = all(short.get(k) == long.get(k) for k in ("bench", "param", "param_name"))
        n = short["iterations"]
        if not same or n < 1 or long["iterations"] != 2 * n:
            raise CallgrindError(f"regions {index + 1} and {index + 2} are not one benchmark at N and 2N: "
                                 f"{json.dumps(short)} / {json.dumps(long)}")
        problem = None
        if short.get("suspends") != long.get("suspends"):
            problem = (f"BL_SUSPEND inside the loop ({short.get('suspends')} blocks at {n} iterations, "
                       f"{long.get('suspends')} at {2 * n}): callgrind would count the suspended code too "
                       "(move the suspended work out of the loop to count instructions)")
        calls = _system_calls(costs[index], costs[index + 1], n)
        for name, (unit, weights) in counters.items():
            a, b = weighted(costs[index], weights), weighted(costs[index + 1], weights)
            record: dict[str, Any] = {
                "type": "result", "bench": short["bench"], "param": short.get("param"),
                "param_name": short.get("param_name"), "counter": name, "unit": unit,
                "source": _source(name), "pass": "callgrind", "per_iteration": True, "deterministic": True,
                **({"system_calls": calls} if calls is not None else {})}
            reason = problem or (None if b >= a else
                                 f"fewer {name} at {2 * n} iterations ({b}) than at {n} ({a}): the body's cost "
                                 "per iteration is not steady")
            if reason:
                record.update(supported=False, reason=reason, samples=[], sample_iterations=[])
            else:
                record.update(supported=True, iterations=n, sample_iterations=[n], samples=[(b - a) / n],
                              region_totals=[a, b])
            records.append(record)
    return records


def _source(counter: str) -> str:
    if counter in CYCLE_COUNTERS:
        return ("callgrind --cache-sim=yes (simulated caches): Ir + 10 (I1mr + D1mr + D1mw) "
                "+ 100 (ILmr + DLmr + DLmw)")
    return "callgrind" + (" --cache-sim=yes (simulated caches)" if counter in CACHE_COUNTERS else "")


def _system_calls(short: dict[str, int], long: dict[str, int], n: int) -> float | None:
    """System calls per iteration, by the same difference; None when callgrind did not count them."""
    if SYSTEM_CALLS_EVENT not in short or SYSTEM_CALLS_EVENT not in long:
        return None
    return max(0, long[SYSTEM_CALLS_EVENT] - short[SYSTEM_CALLS_EVENT]) / n


def run(exe: str, args: list[str], iterations: int = DEFAULT_ITERATIONS, cache_sim: bool = True,
        valgrind: str = "valgrind", out=sys.stdout, err=sys.stderr, misses: bool = False) -> int:
    """Run EXE under callgrind and print its jsonl with the instruction records; its exit status."""
    program = shutil.which(valgrind)
    if program is None:
        print(f"benchlab.profiling.callgrind: '{valgrind}' is not on PATH (fix: {INSTALL_HINT})", file=err)
        return 127
    with tempfile.TemporaryDirectory(prefix="benchlab-callgrind-") as out_dir:
        env = {**os.environ, ENVIRONMENT: str(iterations)}
        argv = valgrind_argv([exe, *args], out_dir, collect=[REGION_FUNCTION], dump_after=REGION_FUNCTION,
                             cache_sim=cache_sim, system_calls=True, valgrind=program)
        child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL)
        stdout, stderr = child.communicate()
        text = stdout.decode("utf-8", errors="replace")
        status = child.returncode
        _pass_on(stderr.decode("utf-8", errors="replace"), err)
        others, regions = split_output(text)
        if status != 0:
            # what the binary said, less the regions (no dump can be trusted): its fault is the exit status
            out.write("".join(line + "\n" for line in others))
            out.flush()
            return status if status > 0 else 128 - status
        try:
            costs = [read_dump(p) for p in dump_files(Path(out_dir), child.pid)]
            if not regions:
                if any('"type":"result"' in line for line in others):
                    raise CallgrindError(f"{exe} measured time instead of printing instruction regions: its "
                                         f"benchlab.h predates {ENVIRONMENT} (rebuild it against this checkout's "
                                         "include/benchlab.h)")
                out.write(text)  # nothing selected (or not a benchlab binary): as it is
                return status
            if not costs:
                raise CallgrindError(
                    f"callgrind wrote no dump for the {len(regions)} regions of {exe}: it found no function named "
                    f"{REGION_FUNCTION} (a stripped binary? build without -s and without strip)")
            records = result_records(regions, costs, cache_sim, misses)
        except CallgrindError as error:
            print(f"benchlab.profiling.callgrind: {error}", file=err)
            return 1
    for line in others:
        if line.startswith('{"type":"context"'):
            context = json.loads(line)
            context["instruction_regions"] = {"tool": "callgrind", "iterations": iterations, "cache_sim": cache_sim,
                                              **({"caches": list(CACHE_GEOMETRY)} if cache_sim else {})}
            line = json.dumps(context, separators=(",", ":"))
        out.write(line + "\n")
    for record in records:
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
    out.flush()
    return 0


def _pass_on(stderr: str, err) -> None:
    """What the program and valgrind said on stderr, less valgrind's note on the caches it found."""
    kept = [line for line in stderr.splitlines(keepends=True) if not _CACHE_WARNING.match(line)]
    if kept:
        err.write("".join(kept))
        err.flush()


def _iterations(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_ITERATIONS:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_ITERATIONS} (got {text!r})")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchlab.callgrind", description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=_iterations, default=DEFAULT_ITERATIONS, metavar="N",
                        help=f"iterations of the shorter region (default {DEFAULT_ITERATIONS}); the other has 2N")
    caches = parser.add_mutually_exclusive_group()
    caches.add_argument("--cache-sim", action="store_true",
                        help="also the simulated I1, D1 and last-level cache misses per iteration")
    caches.add_argument("--no-cache-sim", action="store_true",
                        help="instructions alone: no cache simulation, so no estimated-cycles")
    parser.add_argument("--valgrind", default="valgrind", help="the valgrind program (default: valgrind on PATH)")
    parser.add_argument("exe")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    return run(options.exe, options.args, options.iterations, not options.no_cache_sim, options.valgrind,
               misses=options.cache_sim)


if __name__ == "__main__":
    sys.exit(main())
