"""Which binaries the gate may execute: those this machine's `benchlab run` ran, recorded
outside any database.

`gate` runs again a baseline's kept binaries (their content stored in the database) and
the candidate run's binary (a path and sha256 in its stored context). A sha256 stored
beside the content it describes proves nothing: whoever can write the database (a shared
PostgreSQL, a CI cache, a results.db copied from elsewhere) could otherwise make every
later gate, on every machine reading it, execute what they stored (issue 31). So
`benchlab run` records the sha256 of each binary it runs in a file of this user's
(`trust_file()`: the user's cache, never the project or the store), and the gate executes
only binaries whose sha256 is in it; any other is judged on stored figures, and the gate
says why, unless the user says `--trust-stored-binaries` (docs/cli.md, "Baselines").

The file is read only when it belongs to this user and no one else may write to it.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Iterable

#: Where the record lives under the user's cache directory ($XDG_CACHE_HOME, else ~/.cache).
TRUST_FILE_NAME = Path("benchlab") / "trusted-binaries"
#: Names another file for the record (the tests' own, a CI job's cache that outlives the job).
TRUST_FILE_VARIABLE = "BENCHLAB_TRUST_FILE"
#: How to run a binary this machine did not record, said wherever one is refused.
TRUST_FLAG = "--trust-stored-binaries"

_SHA256 = re.compile(r"[0-9a-f]{64}")


def trust_file() -> Path:
    """This user's record of the binaries `benchlab run` ran here."""
    if os.environ.get(TRUST_FILE_VARIABLE):
        return Path(os.environ[TRUST_FILE_VARIABLE])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / TRUST_FILE_NAME


def record(digests: Iterable[str]) -> str | None:
    """Add binaries' sha256s to this user's record; why it could not be written, or None.
    A failure costs only a later gate's re-measurement of them, never the run."""
    new = sorted({digest for digest in digests if _SHA256.fullmatch(digest or "")} - trusted())
    if not new:
        return None
    path = trust_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "a", encoding="ascii") as file:
            file.write("".join(f"{digest}\n" for digest in new))  # one append: concurrent runs do not mix lines
    except OSError as exc:
        return f"cannot record the binaries it ran in {path}: {exc.strerror}"
    return None


def trusted() -> set[str]:
    """The sha256s this user's `benchlab run` recorded; none when the file is missing or
    another user could have written it."""
    path = trust_file()
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(descriptor, encoding="ascii", errors="replace") as file:
            info = os.fstat(file.fileno())
            if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return set()
            return {line.strip() for line in file if _SHA256.fullmatch(line.strip())}
    except OSError:  # missing, a directory, unreadable: nothing recorded
        return set()


def untrusted_reason(what: str, digest: str | None, trusted_digests: set[str]) -> str | None:
    """Why `what` (a binary with sha256 `digest`) is not executed, or None when this machine recorded it."""
    if digest in trusted_digests:
        return None
    return (f"{what} (sha256 {str(digest)[:12]}...) was not run by benchlab run on this machine "
            f"(not in {trust_file()}): not executed, since whoever can write the store could have put it there "
            f"(give {TRUST_FLAG} to run it anyway)")
