"""Which sources a build target cannot build at all, and the fault that says so.

A source that does not compile is a failure of that benchmark (exit status 1), except
where the platform lacks what the source is written against: wasi-libc has no threads,
so a C file that includes <pthread.h> (or C11's <threads.h>), itself or through a header
of its own directory, does not compile for wasm32-wasi however correct it is. Its cells
on a wasm platform are then `-` with that reason, like a benchmark a binary leaves out
for a platform, and the rest of the run decides the exit status. The rule applies only
once the compiler has failed: a toolchain that does build the source (wasi-threads)
runs it as any other.

The fault says so in its kind (records.NOT_BUILT), which the table, the exit status and the
report read; its reason (starting with NOT_BUILT_REASON) is only the text shown in the cell.
"""
from __future__ import annotations

import re
from pathlib import Path

from benchlab import buildtargets

#: How a "not buildable here" fault's reason starts (then the build target).
NOT_BUILT_REASON = "not built for "
_THREAD_HEADER = re.compile(r"^\s*#\s*include\s*<(pthread|threads)\.h>", re.MULTILINE)
_LOCAL_HEADER = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def unbuildable_reason(sources: list[Path], target: str) -> str | None:
    """Why `sources`, which failed to compile for `target`, cannot be built there at all;
    None when the failure is the source's own (a fault of the benchmark). A target without
    threads (buildtargets.py: wasi-libc has no pthreads, docs/threads.md) cannot build a
    source that includes <pthread.h>."""
    row = buildtargets.BY_NAME.get(target)
    if row is None or not row.no_threads:
        return None
    header = _thread_header(sources)
    if header is None:
        return None
    return f"{NOT_BUILT_REASON}{target}: includes <{header}> ({row.no_threads})"


def _thread_header(sources: list[Path]) -> str | None:
    """<pthread.h> or <threads.h> when a source, or a header of its own directory it
    includes (recursively), includes it."""
    seen: set[Path] = set()
    pending = list(sources)
    while pending:
        path = pending.pop()
        if path in seen or path.name == "benchlab.h" or not path.is_file():
            continue  # benchlab.h includes <pthread.h> only where there are threads
        seen.add(path)
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        found = _THREAD_HEADER.search(text)
        if found:
            return f"{found.group(1)}.h"
        pending += [path.parent / name for name in _LOCAL_HEADER.findall(text)]
    return None
