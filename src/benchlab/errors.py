"""The one user-error type and the exit codes of the `benchlab` command.

Every mistake a user can fix (a bad flag, a config key, a missing toolchain) is
raised as `UserError` and printed once, at the entry point, as
`error: <what> (<how to fix>)`. Anything else is a bug and keeps its traceback.
"""
from __future__ import annotations

import enum
from typing import Any


class ExitCode(enum.IntEnum):
    """Exit statuses, distinct so that scripts and CI can tell them apart."""

    OK = 0
    #: A benchmark crashed, exited non-zero, timed out, failed to build, or printed nothing.
    BENCHMARK_FAILURE = 1
    #: Bad command line, bad `benchlab.toml`, missing toolchain, unknown run id.
    USAGE_ERROR = 2
    #: `benchlab gate`, `benchlab ab --max-regression`: a regression beyond the threshold.
    REGRESSION = 3
    #: `benchlab gate`, `benchlab ab --max-regression`: nothing slower for sure, but a row's
    #: interval reaches both sides of the threshold: undecided, never a pass
    #: (`--inconclusive=pass` turns it into 0).
    INCONCLUSIVE = 4
    #: `benchlab gate --baseline NAME`: no baseline NAME exists yet (a CI store's first job):
    #: nothing was judged; neither a pass nor a usage error (saving one is the fix).
    NO_BASELINE = 5
    #: Interrupted by Ctrl-C (128 + SIGINT, as shells report it).
    INTERRUPTED = 130


class UserError(Exception):
    """A problem the user can fix; `what` says what is wrong, `fix` how to fix it."""

    def __init__(self, what: str, fix: str | None = None):
        super().__init__(what)
        self.what = what
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.what} ({self.fix})" if self.fix else self.what


def missing_extra(need: str, extra: str) -> UserError:
    """`need` ("running wasm") needs a package that an extra of benchlab's installs
    (pyproject.toml's optional dependencies): a native, SQLite-only install has none of them."""
    return UserError(f"{need} needs benchlab's {extra} extra, which is not installed",
                     f"pip install 'benchlab[{extra}]'")


class Interrupted(Exception):
    """Ctrl-C or SIGTERM during a run, after the run was closed cleanly; the message says what was kept."""


class StoreFailed(UserError):
    """A write to the database failed (a full disk, a read-only file): the run can go on in memory.

    Here rather than in store.py, so that `benchlab run --no-store` never imports
    SQLAlchemy (a third of a second at start-up)."""


def show(value: Any) -> str:
    """A value for a message: short, and safe for integers too long to print."""
    try:
        text = repr(value)
    except ValueError:
        return "an integer too long to print"
    return text if len(text) <= 40 else text[:37] + "..."
