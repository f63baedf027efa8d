"""benchlab: build, run and compare small-cost benchmarks across platforms.

The command is `benchlab` (benchlab.cli). For scripts, the small public API is the
data model, the parsers and the statistics listed in __all__.
"""

import re as _re
from pathlib import Path as _Path

from benchlab.bundled import HEADER as _HEADER

#: The header is the one place the version is written (BENCHLAB_VERSION): the command,
#: the package's metadata (pyproject.toml reads this attribute) and the report say what
#: the C library says, so a run's context names one version for both halves.
#: (benchlab/bundled.py: where a checkout and a wheel keep the header.)
_VERSION_LINE = _re.compile(rb'^#define BENCHLAB_VERSION "([^"]+)"', _re.MULTILINE)


def _header_version(path: _Path = _HEADER) -> str:
    """BENCHLAB_VERSION of the header this package was installed with (it is near the top:
    a few KB are read)."""
    try:
        with path.open("rb") as header:
            found = _VERSION_LINE.search(header.read(16384))
    except OSError as exc:
        raise ImportError(f"benchlab needs the benchlab.h it was installed with ({path}: {exc.strerror}); "
                          f"reinstall benchlab (a wheel carries benchlab/include/benchlab.h), or in a "
                          f"checkout restore include/benchlab.h") from None
    if found is None:
        raise ImportError(f"{path} defines no BENCHLAB_VERSION in its first 16 KB")
    return found.group(1).decode()


__version__ = _header_version()

__all__ = ["__version__", "Record", "Fault", "parse_output", "summarize", "ratio_with_ci", "run_wasi"]


def __getattr__(name):
    # Lazy, so that `python -m benchlab.wasi` does not import numpy and SQLAlchemy.
    if name in ("Record", "Fault"):
        from benchlab import records
        return getattr(records, name)
    if name == "parse_output":
        from benchlab.formats.parsers import parse_output
        return parse_output
    if name in ("summarize", "ratio_with_ci"):
        from benchlab import stats
        return getattr(stats, name)
    if name == "run_wasi":
        from benchlab.measuring.wasi import run_wasi
        return run_wasi
    raise AttributeError(f"module 'benchlab' has no attribute {name!r}")
