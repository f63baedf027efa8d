"""benchlab: build, run and compare small-cost benchmarks across platforms.

The command is `benchlab` (benchlab.cli). For scripts, the small public API is the
data model, the parsers and the statistics listed in __all__.
"""

__version__ = "0.1.0"

__all__ = ["__version__", "Record", "Fault", "parse_output", "summarize", "ratio_with_ci", "run_wasi"]


def __getattr__(name):
    # Lazy, so that `python -m benchlab.wasi` does not import numpy and SQLAlchemy.
    if name in ("Record", "Fault"):
        from benchlab import records
        return getattr(records, name)
    if name == "parse_output":
        from benchlab.parsers import parse_output
        return parse_output
    if name in ("summarize", "ratio_with_ci"):
        from benchlab import stats
        return getattr(stats, name)
    if name == "run_wasi":
        from benchlab.wasi import run_wasi
        return run_wasi
    raise AttributeError(f"module 'benchlab' has no attribute {name!r}")
