"""Which binaries the gate may execute: those this machine's `benchlab run` ran, recorded
outside any database.

`gate` runs again a baseline's kept binaries (their content stored in the database) and
the candidate run's binary (a path and sha256 in its stored context). A sha256 stored
beside the content it describes proves nothing: whoever can write the database (a shared
PostgreSQL, a CI cache, a results.db copied from elsewhere) could otherwise make every
later gate, on every machine reading it, execute what they stored (issue 31). So
`benchlab run` records the sha256 of each binary it runs, with the path it ran it at, in a
file of this user's (`trust_file()`: the user's cache, never the project or the store),
and the gate executes only content whose sha256 is in it, and reads the candidate only
from a path recorded with that sha256 (a stored path pointed at a copy someone else can
rewrite is refused, issue 37); any other is judged on stored figures, and the gate says
why, unless the user says `--trust-stored-binaries` (docs/cli.md, "Baselines").

The file is read only when it is a regular file of at most MAX_TRUST_FILE_BYTES that
belongs to this user and no one else may write to it; a FIFO or a device there never
blocks (opened non-blocking, checked before it is read).
"""
from __future__ import annotations

import dataclasses
import json
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
#: The largest record read (a line is about 100 bytes: some 160,000 binaries run); a larger
#: file is refused whole, never read into memory.
MAX_TRUST_FILE_BYTES = 16 * 2**20

_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclasses.dataclass(frozen=True)
class Trusted:
    """What this user's `benchlab run` recorded: the sha256s of the binaries it ran, and the
    (sha256, absolute path) of each where it ran it; `problem` says why the record could not
    be read (it is then empty)."""
    digests: frozenset[str] = frozenset()
    paths: frozenset[tuple[str, str]] = frozenset()
    problem: str | None = None


def trust_file() -> Path:
    """This user's record of the binaries `benchlab run` ran here."""
    if os.environ.get(TRUST_FILE_VARIABLE):
        return Path(os.environ[TRUST_FILE_VARIABLE])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / TRUST_FILE_NAME


def record(binaries: Iterable[tuple[str, str | None]]) -> str | None:
    """Add binaries ran here, as (sha256, path), to this user's record; why it could not be
    written, or None. A failure costs only a later gate's re-measurement of them, never the run."""
    known = trusted()
    if known.problem:
        return f"cannot record the binaries it ran: {known.problem}"
    new = sorted({(digest, _absolute(path)) for digest, path in binaries if _SHA256.fullmatch(digest or "")}
                 - {(digest, path) for digest, path in known.paths})
    if not new:
        return None
    path = trust_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Non-blocking: a FIFO put there since it was read fails at once (no reader) or is refused below.
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
        with os.fdopen(descriptor, "a", encoding="ascii") as file:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return f"cannot record the binaries it ran in {path}: not a regular file (remove it)"
            file.write("".join(_line(digest, where) for digest, where in new))  # one append: lines never mix
    except OSError as exc:
        return f"cannot record the binaries it ran in {path}: {exc.strerror}"
    return None


def trusted() -> Trusted:
    """What this user's `benchlab run` recorded; nothing when the file is missing, and nothing
    with the reason when it is not a regular file, too large, or another user could write it."""
    path = trust_file()
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return Trusted()
    except OSError as exc:
        return Trusted(problem=f"{path} cannot be read ({exc.strerror}): remove it or give {TRUST_FILE_VARIABLE} another file")
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return Trusted(problem=f"{path} is not a regular file: remove it (benchlab run writes it anew)")
        if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return Trusted(problem=f"{path} may be written by another user: not believed (make it yours, mode 600)")
        if info.st_size > MAX_TRUST_FILE_BYTES:
            return Trusted(problem=(f"{path} holds {info.st_size} bytes, more than the {MAX_TRUST_FILE_BYTES} read: "
                                    "remove it (benchlab run records the binaries it runs anew)"))
        with os.fdopen(os.dup(descriptor), "rb") as file:
            text = file.read(MAX_TRUST_FILE_BYTES + 1).decode("ascii", errors="replace")
    finally:
        os.close(descriptor)
    return _parsed(text)


def _parsed(text: str) -> Trusted:
    """The record's lines: `SHA256 "PATH"` (the path a JSON string), or `SHA256` alone (a record
    written before paths were: its content may run, from no stored path)."""
    digests, paths = set(), set()
    for line in text.splitlines():
        digest, _, where = line.strip().partition(" ")
        if not _SHA256.fullmatch(digest):
            continue
        digests.add(digest)
        try:
            where = json.loads(where) if where else None
        except ValueError:
            continue
        if isinstance(where, str):
            paths.add((digest, where))
    return Trusted(frozenset(digests), frozenset(paths))


def _line(digest: str, path: str | None) -> str:
    # JSON with ensure_ascii: any path (a newline, a non-UTF-8 byte as a surrogate) stays on one ASCII line
    return f"{digest} {json.dumps(path)}\n" if path else f"{digest}\n"


def _absolute(path: str | os.PathLike | None) -> str | None:
    return os.path.abspath(path) if path else None


def untrusted_reason(what: str, digest: str | None, known: Trusted) -> str | None:
    """Why `what` (content with sha256 `digest`) is not executed, or None when this machine recorded it."""
    if digest in known.digests:
        return None
    return (f"{what} (sha256 {str(digest)[:12]}...) was not run by benchlab run on this machine "
            f"({_where(known)}): not executed, since whoever can write the store could have put it there "
            f"(give {TRUST_FLAG} to run it anyway)")


def untrusted_path_reason(what: str, path: str, digest: str | None, known: Trusted) -> str | None:
    """Why the file at `path`, stored as sha256 `digest`, is not read to be executed; None when
    this machine's `benchlab run` ran that content at that path."""
    if (digest, _absolute(path)) in known.paths:
        return None
    return (f"{what} {path} (sha256 {str(digest)[:12]}...) is not a path benchlab run on this machine ran that "
            f"binary at ({_where(known)}): not executed, since whoever can write the store could have pointed it "
            f"at a file they can change (give {TRUST_FLAG} to run it anyway)")


def _where(known: Trusted) -> str:
    return known.problem or f"not in {trust_file()}"
