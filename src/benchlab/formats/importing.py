"""A results file read whole and checked whole, for `benchlab import`: all or nothing.

`benchlab run` reads a binary's output leniently (a bad line is a warning, the others
are kept), because the run already happened and its good results are worth keeping.
An import is the opposite case: the file is all there is, so a corrupt, truncated or
misnamed file must not become a run that silently lacks part of it. The same parsers
read it (one module per format in parsers/), given a `Parsed` whose first warning
stops the import with that warning as the error: the file, the line (or, in a JSON
document, the entry's path) and what is wrong. Nothing is stored until the whole file
has been read this way (cli/import_.py).
"""
from __future__ import annotations

import dataclasses
import datetime
import gzip
import hashlib
import io
import json
import os
import re
import shlex
import zlib
from pathlib import Path
from typing import Any

from benchlab.formats import registry as formats
from benchlab.errors import UserError
from benchlab.formats.parsers.base import BadValue, Parsed, name, problems, show, whole
from benchlab.records import FAILED, FAULT_KINDS, NOT_BUILT, Fault, Record, missing_units

_ROWS = formats.used_by(formats.IMPORT)
#: The formats an import reads, as --format names them (benchlab.formats.registry): the JSON documents,
#: read whole and recognised by their shape, then the formats of lines, in the order a first
#: line is tried.
FORMAT_NAMES = [row.name for row in _ROWS]

#: The platform of results whose file does not name one: they ran directly on the machine,
#: as `benchlab run`'s `native` platform runs its binaries.
DEFAULT_PLATFORM = "native"
NOTHING_IMPORTED = "nothing was imported"

#: The most text an import reads: the file, or what a gzip file expands to. A 1 MB gzip
#: file can expand to gigabytes, and the text and its records are held in memory (six
#: times the text, measured), so a file beyond it is refused rather than read.
DEFAULT_MAX_BYTES = 256 * 2**20
#: Raises (or lowers) DEFAULT_MAX_BYTES, as `import --max-size` does: bytes, or with K, M, G.
MAX_BYTES_VARIABLE = "BENCHLAB_IMPORT_MAX_BYTES"
_SIZE = re.compile(r"(\d+)\s*([kmgt]?)(?:i?b)?", re.IGNORECASE)
#: The most results (records) an import holds. A result costs about 1.7 KB of memory
#: while it is read and stored (its samples, their statistics, its row), whatever the
#: line it came from: a short-line format (a `lind` line is ~25 bytes) reached 70 times
#: its text (a 60 MB file, 2.4 million results, over 4 GB), so bytes alone do not bound
#: an import. 800,000 results is about 1.4 GB, what 256 MiB of text was meant to cost.
DEFAULT_MAX_RECORDS = 800_000
#: Raises (or lowers) DEFAULT_MAX_RECORDS, as `import --max-records` does.
MAX_RECORDS_VARIABLE = "BENCHLAB_IMPORT_MAX_RECORDS"
#: A file is read, and gzip decompressed, a piece at a time, so that a file over the limit
#: costs no more than the limit (and a limit of petabytes no allocation of that size).
_CHUNK = 2**20


@dataclasses.dataclass
class Imported:
    """A file's results as a run to store: its records and failures, platforms and context."""

    path: str
    format: str
    records: list[Record]
    faults: list[Fault]
    platforms: list[str]
    context: dict[str, Any]
    #: Units ({binary, platform, sweep}) of the context's plan that finished (an exported run's).
    units: list[dict[str, Any]] = dataclasses.field(default_factory=list)


class _Problem(Exception):
    """The first thing wrong with the file: the import stops there (`fix`: how to mend it, when known)."""

    def __init__(self, what: str, fix: str | None = None):
        super().__init__(what)
        self.fix = fix


class _Strict(Parsed):
    """A Parsed whose first warning is the end of the import."""

    def warn(self, message: str) -> None:
        raise _Problem(_as_error(message))

    def fail(self, binary: str, bench: str, message: str) -> None:
        # A benchmark the file reports as failed is part of the results, not a fault of the file.
        self.failures.append((bench, message))


#: How the parsers say what `run` does after a bad value (it goes on without it). In an
#: import nothing goes on, so the message ends at what is wrong.
_LENIENT_ENDINGS = re.compile(
    r"(, ignored|; (that sample is left out|the samples are kept without it|the figures are left as measured"
    r"|the binary's \w+ is left out|no results read|results may be misread \(.*\)))$")


def _as_error(message: str) -> str:
    message = message.replace(" output (", " (", 1).replace("), ignored: ", "): ", 1)
    return _LENIENT_ENDINGS.sub("", message)


def max_bytes(given: str | None) -> int:
    """The import's size limit: `given` (--max-size), else $BENCHLAB_IMPORT_MAX_BYTES, else DEFAULT_MAX_BYTES."""
    if given is not None:
        return _size(given, "--max-size")
    variable = os.environ.get(MAX_BYTES_VARIABLE)
    return _size(variable, MAX_BYTES_VARIABLE) if variable else DEFAULT_MAX_BYTES


def max_records(given: str | None) -> int:
    """The import's limit of results: `given` (--max-records), else $BENCHLAB_IMPORT_MAX_RECORDS, else the default."""
    text, what = (given, "--max-records") if given is not None else (os.environ.get(MAX_RECORDS_VARIABLE),
                                                                         MAX_RECORDS_VARIABLE)
    if not text:
        return DEFAULT_MAX_RECORDS
    if not text.strip().isdigit() or int(text) == 0:
        raise UserError(f"{what} {text!r} is not a count of results", "give a whole number, e.g. 2000000")
    return int(text)


def _too_many(label: str, limit: int, where: str) -> "_Problem":
    return _Problem(f"{label} has more than {limit:,} results{where}, the most an import holds in memory "
                    "(about 1.7 KB each)",
                    f"{NOTHING_IMPORTED}; if the machine has the memory, raise the limit with --max-records N "
                    f"or {MAX_RECORDS_VARIABLE}=N, or split the file")


def _size(text: str, what: str) -> int:
    """Bytes from '268435456', '256M', '256MiB', '1G' (K, M, G, T are powers of 1024)."""
    match = _SIZE.fullmatch(text.strip())
    if not match or int(match.group(1)) == 0:
        raise UserError(f"{what} {text!r} is not a size", "give bytes, or a number with K, M or G, e.g. 512M or 2G")
    return int(match.group(1)) * 1024 ** ("", "k", "m", "g", "t").index(match.group(2).lower())


def size_text(size: int) -> str:
    """256 MiB, 1 GiB, 1000 bytes: a size as the limit's error shows it."""
    for unit, power in (("GiB", 3), ("MiB", 2), ("KiB", 1)):
        if size % 1024 ** power == 0:
            return f"{size // 1024 ** power} {unit}"
    return f"{size} bytes"


def read_results(path: str, file_format: str | None = None, platform: str | None = None,
                 limit: int | None = None, records: int | None = None) -> Imported:
    """Every result of the file at `path` (its format detected when not given), or a UserError.
    `limit`: the most bytes of text read (default: max_bytes, $BENCHLAB_IMPORT_MAX_BYTES or 256 MiB);
    `records`: the most results (default: max_records, $BENCHLAB_IMPORT_MAX_RECORDS or 800,000)."""
    limit = max_bytes(None) if limit is None else limit
    records = max_records(None) if records is None else records
    raw = _read_bytes(path, limit)
    text, compressed = _decode(path, raw, limit)
    if not text.strip():
        raise UserError(f"{path} is empty", f"{NOTHING_IMPORTED}; give a results file")
    document = None
    if file_format is None:
        file_format, document = _detect(path, text)
    parsed = _Strict()
    row = formats.BY_NAME[file_format]
    parser = formats.parser(file_format, formats.IMPORT)
    try:
        if row.document:
            if document is None:
                document = _load_json(path, text)
            if not parser.sniff_object(document):
                raise _Problem(f"{path} is not {row.shape}")
            parser.parse_object(document, path, parsed)
        else:
            _read_lines(parser, text, path, parsed, row.newline_ends, records)
        if len(parsed.records) > records:
            raise _too_many(path, records, "")
    except _Problem as problem:
        raise UserError(str(problem), problem.fix or _fix(text, file_format)) from None
    if parsed.platforms is not None:
        parsed.platforms = tuple(parsed.platforms)
    if not parsed.records and not parsed.failures:
        raise UserError(f"{path} has no results ({file_format})", f"{NOTHING_IMPORTED}; is it the right file?")
    for record in parsed.records:
        found = problems(record)
        if found:  # every parser keeps these invariants; a record that does not is a bug of ours
            raise UserError(f"{path}: {record.bench}: a record with a bad {', '.join(found)} "
                            "(a benchlab parser bug: please report it)", NOTHING_IMPORTED)
    return _as_run(path, raw, compressed, row, parser.name, parsed, platform)


def _read_bytes(path: str, limit: int) -> bytearray:
    raw = bytearray()
    try:
        with open(path, "rb") as file:
            while chunk := file.read(_CHUNK):
                raw += chunk
                if len(raw) > limit:  # and no more: a device such as /dev/zero never ends
                    raise _too_large(f"{path} is larger than {size_text(limit)}")
    except FileNotFoundError:
        raise UserError(f"cannot read {path}: no such file", "give the path of a results file") from None
    except IsADirectoryError:
        raise UserError(f"cannot read {path}: it is a directory", "give the path of a results file") from None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}", "check the path and its permissions") from None
    return raw


def _too_large(what: str) -> UserError:
    return UserError(f"{what}, the most an import reads",
                     f"{NOTHING_IMPORTED}; if it is a results file that large, raise the limit with --max-size SIZE "
                     f"or {MAX_BYTES_VARIABLE}=SIZE, e.g. 1G")


def _decode(path: str, raw: bytearray, limit: int) -> tuple[str, bool]:
    """The file's text, gunzipped first when it is gzip (pyperf and pyperformance write .json.gz)."""
    compressed = raw[:2] == b"\x1f\x8b"
    if compressed:
        raw = _gunzip(path, raw, limit)
    try:
        return raw.decode("utf-8"), compressed
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise UserError(f"{path}: line {line} is not UTF-8 text (byte {exc.start}: {bytes(raw[exc.start:exc.start + 1])!r})",
                        f"{NOTHING_IMPORTED}; is it a results file?") from None


def _gunzip(path: str, raw: bytearray, limit: int) -> bytearray:
    """What a gzip file expands to, a piece at a time: refused as soon as it passes `limit`."""
    text = bytearray()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
            while chunk := stream.read(_CHUNK):
                text += chunk
                if len(text) > limit:
                    raise _too_large(f"{path} expands to more than {size_text(limit)} (gzip)")
    except (OSError, EOFError, zlib.error) as exc:
        raise UserError(f"{path}: a gzip file that does not decompress ({exc})",
                        f"{NOTHING_IMPORTED}; is it truncated?") from None
    return text


def _load_json(path: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        ends = "; the file ends there: is it truncated?" if exc.pos >= len(text.rstrip()) else ""
        raise _Problem(f"{path}: line {exc.lineno} column {exc.colno} is not valid JSON ({exc.msg}){ends}")
    except (ValueError, RecursionError) as exc:  # a number too long to convert, nesting too deep
        raise _Problem(f"{path}: not valid JSON ({exc or 'nested too deeply'})")


def _first_line(text: str) -> str:
    return next((line.strip() for line in io.StringIO(text, newline=None) if line.strip()), "")


def _recognises(row: formats.Format, line: str) -> bool:
    return formats.parser(row.name, formats.IMPORT).sniff(line)


def _detect(path: str, text: str) -> tuple[str, Any]:
    """The file's format (and, for a JSON document, the document), or a UserError."""
    first = _first_line(text)
    documents = [row for row in _ROWS if row.document]
    lines = [row for row in _ROWS if not row.document]
    # A jsonl file of one line is also a JSON document: the line format is tried first.
    for row in lines:
        if row.json_lines and _recognises(row, first):
            return row.name, None
    if first.startswith(("{", "[")):
        try:
            document = _load_json(path, text)
        except _Problem as problem:
            raise UserError(str(problem), NOTHING_IMPORTED) from None
        for row in documents:
            if formats.parser(row.name, formats.IMPORT).sniff_object(document):
                return row.name, document
        json_lines = " and ".join(f"benchlab {row.name}" for row in lines if row.json_lines)
        raise UserError(f"{path}: a JSON document of no format benchlab imports",
                        f"{NOTHING_IMPORTED}; it reads {', '.join(row.shape for row in documents)}, and {json_lines}")
    for row in lines:
        if _recognises(row, first):
            return row.name, None
    shown = first if len(first) <= 80 else first[:77] + "..."
    raise UserError(f"{path}: no format benchlab imports starts like this: {shown!r}",
                    f"{NOTHING_IMPORTED}; give --format ({', '.join(FORMAT_NAMES)}) if it is one of them")


def _fix(text: str, file_format: str) -> str:
    """How to fix a file that did not read as `file_format`: another format, when it looks like one
    (not one that `--format file_format` reads too: then the file's fault is its own)."""
    try:
        guess, _ = _detect("", text)
    except UserError:
        guess = None
    if guess is not None and guess != file_format and guess not in formats.BY_NAME[file_format].also_reads:
        return f"{NOTHING_IMPORTED}; the file looks like {guess}: give --format {guess}"
    return f"{NOTHING_IMPORTED}; fix the file, or give --format if it is in another format"


def _read_lines(parser, text: str, label: str, parsed: Parsed, newline_ends: bool = False,
                most: int = DEFAULT_MAX_RECORDS) -> None:
    """Every non-blank line through one format's session: one that is not of the format is an error.

    With `newline_ends` (formats.Format.newline_ends), a last line without its newline is an error too:
    the file was cut, perhaps within the line's last number."""
    session = parser.session(label, parsed)
    for number, raw in enumerate(io.StringIO(text, newline=None), start=1):  # \r ends a line, as in run
        line = raw.strip()
        cut = newline_ends and not raw.endswith(("\n", "\r"))
        try:
            if line and not session.feed(number, line):
                session.reject(number, line)
        except _Problem as problem:
            if cut:
                raise _Problem(f"{problem}; the file ends there, without a newline: is it truncated?") from None
            raise
        if len(parsed.records) > most:  # refused as soon as it passes, not after gigabytes of records
            raise _too_many(label, most, f" by line {number}")
        if line and cut:
            raise _Problem(f"{label}: line {number} does not end in a newline, so the file may have been cut "
                           "within it (a number cut short reads as a smaller one)",
                           f"{NOTHING_IMPORTED}; if the file is whole, end it with a newline: echo >> {shlex.quote(label)}")
    session.finish()


def _as_run(path: str, raw: bytes, compressed: bool, row: formats.Format, parser_name: str, parsed: Parsed,
            platform: str | None) -> Imported:
    """Records with a platform and a binary each, and the run's context (the file's own, and where it came from).
    A record's `format` is the parser's name, as `run` stores it: every csv layout's is b63csv."""
    file_format = row.name
    records = parsed.records
    unnamed = [r for r in records if not r.platform]
    if platform is not None:
        try:
            name(platform, "--platform")
        except BadValue as bad:
            raise UserError(str(bad), "give a platform name such as native or wasm") from None
        if not unnamed:
            named = sorted({r.platform for r in records})
            raise UserError(f"--platform {platform}: {path} names the platform of every result "
                            f"({', '.join(named)})", "leave --platform out: it is for files that do not name one")
    for record in unnamed:
        record.platform = platform or DEFAULT_PLATFORM
    binary = Path(path).name[:255] or "imported"
    for record in records:
        record.binary = record.binary or binary
        record.format = record.format or parser_name
    faults = [Fault(binary=binary, platform=platform or DEFAULT_PLATFORM, reason=f"{bench}: {message}")
              for bench, message in dict.fromkeys(parsed.failures)]  # once per benchmark, not per repetition
    imported = {"path": str(Path(path).resolve()), "sha256": hashlib.sha256(raw).hexdigest(), "bytes": len(raw),
                "format": file_format, "gzip": compressed,
                "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")}
    source = parsed.context if isinstance(parsed.context, dict) else None
    exported = source.get("run") if file_format == "jsonl" and source else None
    if isinstance(exported, dict) and isinstance(exported.get("context"), dict):
        context, exported_faults, order, units = _exported_run(path, exported, imported)
        faults.extend(exported_faults)
    else:
        fields = dict(row.context_fields)
        metadata = (source or {}).get("metadata") if file_format == "pyperf" else source
        lifted = {ours: metadata[theirs] for ours, theirs in fields.items()
                  if isinstance(metadata, dict) and isinstance(metadata.get(theirs), (str, int, float))}
        context, order, units = {**lifted, "imported": imported, "source": source}, parsed.platforms, []
        if parsed.descriptions:
            context["descriptions"] = parsed.descriptions  # shown under the table, as `run` shows a source's
    return Imported(path=path, format=file_format, records=records, faults=faults,
                    platforms=_platforms(records, faults, order), context=context, units=units)


def _exported_run(path: str, exported: dict, imported: dict) -> tuple[dict, list[Fault], Any, list[dict]]:
    """benchlab's own export: the run's context as it was stored, its failures, its platforms'
    order, and the units of its plan that finished (all but the missing ones, so that `show`
    of the import says what `show` of the run said). What `runs` and `show` will read of the
    context is checked here, not found wrong by them later."""
    context = {**exported["context"], "imported": imported}
    plan = _units(path, context.get("plan"), "run.context.plan")
    missing = _units(path, exported.get("missing"), "run.missing") or []
    git = context.get("git")
    if git is not None and not (isinstance(git, dict) and isinstance(git.get("commit"), (str, type(None)))):
        raise UserError(f"{path}: context record: run.context.git must be an object with a commit, got {show(git)}",
                        NOTHING_IMPORTED)
    units = missing_units(plan, missing) if plan is not None else []
    return context, _exported_faults(path, exported.get("faults")), exported.get("platforms"), units


def _units(path: str, units: Any, what: str) -> list[dict[str, Any]] | None:
    """A list of units ({binary, platform, sweep}) as the store keeps them, or None when absent."""
    if units is None:
        return None
    if not isinstance(units, list) or not all(
            isinstance(u, dict) and isinstance(u.get("binary"), str) and isinstance(u.get("platform"), str)
            and isinstance(u.get("sweep"), (str, int, float, type(None))) for u in units):
        raise UserError(f"{path}: context record: {what} must be a list of units (binary, platform, sweep), got {show(units)}",
                        NOTHING_IMPORTED)
    return [{"binary": u["binary"], "platform": u["platform"], "sweep": u.get("sweep")} for u in units]


def _exported_faults(path: str, faults: Any) -> list[Fault]:
    if faults is None:
        return []
    if not isinstance(faults, list) or not all(isinstance(f, dict) for f in faults):
        raise UserError(f"{path}: context record: run.faults must be a list of objects, got {show(faults)}", NOTHING_IMPORTED)
    try:
        return [_exported_fault(f) for f in faults]
    except BadValue as bad:
        raise UserError(f"{path}: context record: run.faults: {bad}", NOTHING_IMPORTED) from None


def _exported_fault(fault: dict[str, Any]) -> Fault:
    """One fault of an export: its kind and copy as written, or, in an export from before
    faults had them (no `kind`), as its reason says them."""
    reason = str(fault.get("reason") or "no reason given")
    if "kind" in fault:
        kind, copy = fault["kind"], fault.get("copy")
    else:
        kind, copy = kind_and_copy_of_old_fault(reason)
    if kind not in FAULT_KINDS:
        raise BadValue(f"fault kind must be one of {', '.join(FAULT_KINDS)}, got {show(kind)}")
    return Fault(binary=name(fault.get("binary"), "fault binary"), platform=name(fault.get("platform"), "fault platform"),
                 reason=reason, stderr_tail=[str(line) for line in fault.get("stderr_tail") or []],
                 sweep=fault.get("sweep"), kind=kind, copy=None if copy is None else whole(copy, "fault copy", minimum=0))


#: How an export from before faults had a kind and a copy (benchlab up to issue 30) said
#: them, in the reason alone: a platform its source cannot be built for, and which copy of
#: an `instances` sweep failed. Frozen here, as those files wrote them: what a run writes
#: today is measuring/buildable.py's and measuring/instances.py's, and may change.
_OLD_REASON = re.compile(r"(?P<not_built>not built for )|copy (?P<copy>\d+) of \d+: ")


def kind_and_copy_of_old_fault(reason: str) -> tuple[str, int | None]:
    """The kind and copy of a fault from an export written before faults had them: the one
    place a file's fault is read for its meaning from its text (docs/formats.md, *jsonl*; the
    store's revision 0009 reads an older database's faults so, once, on its own)."""
    said = _OLD_REASON.match(reason)
    if said is None:
        return FAILED, None
    return (NOT_BUILT if said["not_built"] else FAILED), (int(said["copy"]) if said["copy"] else None)


def _platforms(records: list[Record], faults: list[Fault], order: Any) -> list[str]:
    """The run's platforms: the export's order, else the file's; a native one first (the
    reference of every ratio), as the Lind runner's table puts LINUX first."""
    seen = list(dict.fromkeys([*(r.platform for r in records), *(f.platform for f in faults)]))
    if isinstance(order, list):
        listed = [p for p in order if p in seen]
        return listed + [p for p in seen if p not in listed]
    if isinstance(order, tuple):  # every platform the file names, those that did not run too (Parsed.platforms)
        return _platforms(records, faults, None) + [p for p in order if p not in seen]
    native = [p for p in seen if p.lower() in ("native", "linux")]
    return native[:1] + [p for p in seen if p not in native[:1]]
