"""benchlab: build, run and compare small-cost benchmarks across platforms.

The command is `benchlab` (benchlab.cli). For scripts, the small public API is the
data model, the parsers and the statistics listed in __all__.
"""

#: The version is the header's BENCHLAB_VERSION, read on first use by bundled.version() (the
#: modules of the package ask it there: this module is the public API, above every layer;
#: docs/architecture.md, *Layers*). Importing the package costs nothing, so the command's
#: entry point (start.py) handles Ctrl-C and SIGTERM from its first milliseconds (issue 37).


__all__ = ["__version__", "Record", "Fault", "parse_output", "summarize", "ratio_with_ci", "run_wasi"]


def __getattr__(name):
    # Lazy, so that `python -m benchlab.wasi` does not import numpy and SQLAlchemy.
    if name == "__version__":
        from benchlab.bundled import version
        globals()["__version__"] = found = version()
        return found
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
