"""The limits of a benchmark program's flags, read from the header that defines them.

include/benchlab.h names each limit once ("#define BL__MIN_SAMPLES 3", section
"Limits and tunables"); the header's own checks and messages use those lines, and so
does `benchlab run`, which checks its flags before it builds or runs anything.
Reading them here, rather than writing the numbers again, keeps the two sides from
disagreeing (`benchlab run --samples 2` used to pass here and fail in the binary).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from benchlab.bundled import HEADER
from benchlab.errors import UserError

_DEFINE = re.compile(r"^#define BL__([A-Z0-9_]+) (-?[0-9]+(?:\.[0-9]+)?)\s*$", re.MULTILINE)


@functools.cache
def header_limits(path: Path = HEADER) -> dict[str, float]:
    """Every `#define BL__NAME number` of the header, by NAME."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read the header {path}: {exc.strerror}",
                        "benchlab needs the include/benchlab.h it was installed with") from None
    return {name: float(value) for name, value in _DEFINE.findall(text)}


def limit(name: str) -> float:
    """One limit, e.g. limit("MIN_SAMPLES") for BL__MIN_SAMPLES."""
    limits = header_limits()
    if name not in limits:
        raise KeyError(f"include/benchlab.h defines no BL__{name}")
    return limits[name]


# -- benchlab's own limits ----------------------------------------------------------------------
#
# What one benchmark process may print: `run` reads that much of its stdout and no more.
# A binary printing junk for 15 s wrote 4.5 GB, which took 5 minutes to parse, and one
# line of 2 GiB took 4.25 GB of memory (issue 31). A benchlab binary at the header's
# BL__MAX_SAMPLES prints some 20 MB per benchmark; a process past the limit is stopped
# and its run's fault says so, the other processes and binaries of the run are kept.

#: Bytes of stdout one process of a benchmark binary may print (docs/cli.md, "Limits").
MAX_OUTPUT_BYTES = 64 * 2**20
#: Characters of one line of it that are parsed; a longer line is skipped with a warning.
MAX_OUTPUT_LINE_CHARS = 32 * 2**20
#: Results (records) of one process that are read: each costs 1.5 KB in memory or more
#: (records.HELD_RECORD_BYTES), and short lines of distinct names (20 bytes each) made 100
#: times their size (issue 31). A benchlab binary prints one per benchmark, parameter and counter.
MAX_OUTPUT_RECORDS = 100_000
#: What the results of one run may hold in memory in all its processes, estimated as
#: Record.held_bytes: the limits above are per process, and five processes each within
#: them held 4.9 GB (issue 37). Past it the process's output is read no further, that is its
#: fault, and `run` starts no further process (what was measured so far is stored and shown).
#: A default run (5 processes) of 100 benchmarks at 1,000 samples each holds some 35 MB.
MAX_RUN_RESULT_BYTES = 512 * 2**20
