"""benchlab: build, run and compare small-cost benchmarks across platforms.

The command is `benchlab` (benchlab.cli). For scripts, the small public API is the
data model, the parsers and the statistics listed in __all__.
"""

#: The header is the one place the version is written (BENCHLAB_VERSION): the command,
#: the package's metadata (pyproject.toml reads this attribute) and the report say what
#: the C library says, so a run's context names one version for both halves.
#: (benchlab/bundled.py: where a checkout and a wheel keep the header.) Read on first use
#: (__getattr__): importing the package costs nothing, so the command's entry point
#: (start.py) handles Ctrl-C and SIGTERM from its first milliseconds (issue 37).
_VERSION_LINE = rb'^#define BENCHLAB_VERSION "([^"]+)"'


def _header_version(path=None) -> str:
    """BENCHLAB_VERSION of the header this package was installed with (it is near the top:
    a few KB are read)."""
    import re
    from benchlab.bundled import HEADER
    path = HEADER if path is None else path
    try:
        with path.open("rb") as header:
            found = re.search(_VERSION_LINE, header.read(16384), re.MULTILINE)
    except OSError as exc:
        raise ImportError(f"benchlab needs the benchlab.h it was installed with ({path}: {exc.strerror}); "
                          f"reinstall benchlab (a wheel carries benchlab/include/benchlab.h), or in a "
                          f"checkout restore include/benchlab.h") from None
    if found is None:
        raise ImportError(f"{path} defines no BENCHLAB_VERSION in its first 16 KB")
    return found.group(1).decode()


__all__ = ["__version__", "Record", "Fault", "parse_output", "summarize", "ratio_with_ci", "run_wasi"]


def __getattr__(name):
    # Lazy, so that `python -m benchlab.wasi` does not import numpy and SQLAlchemy.
    if name == "__version__":
        globals()["__version__"] = version = _header_version()
        return version
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
        from benchlab.wasi import run_wasi
        return run_wasi
    raise AttributeError(f"module 'benchlab' has no attribute {name!r}")
