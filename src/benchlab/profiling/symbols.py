"""Does a program have symbols? A profile of a stripped binary is a list of addresses,
and folding addresses into named buckets puts everything in "other": better one error
before the run than a meaningless profile after it.

An ELF file has symbols when it has a .symtab section, or when separate debug symbols
are installed for it (Debian's -dbgsym packages: /usr/lib/debug/.build-id/xx/yyyy.debug,
found by the file's build id). Only the section and note headers are read.
"""
from __future__ import annotations

import shutil
import struct
from pathlib import Path

from benchlab.errors import UserError

DEBUG_ROOT = Path("/usr/lib/debug/.build-id")
_SHT_SYMTAB, _SHT_NOTE = 2, 7
_NT_GNU_BUILD_ID = 3


def program_of(argv0: str) -> Path | None:
    """The file argv0 runs: a path, or a name on PATH; for a `#!` script, its interpreter."""
    found = shutil.which(argv0) if "/" not in argv0 else argv0
    if found is None or not Path(found).is_file():
        return None
    path = Path(found).resolve()  # the file itself: python3 is a link to python3.11
    with path.open("rb") as handle:
        start = handle.read(256)
    if start.startswith(b"#!"):
        words = start[2:].split(b"\n", 1)[0].decode(errors="replace").split()
        if not words:
            return None
        if Path(words[0]).name == "env" and len(words) > 1:
            return program_of(words[1])
        return program_of(words[0])
    return path


def check_symbols(program: Path, shown: str) -> None:
    """A UserError when `program` is an ELF file without symbols and none are installed."""
    sections = _sections(program)
    if sections is None:
        return  # not ELF (a wasm module, a shell built-in's script...): nothing to say in advance
    if any(kind == _SHT_SYMTAB for kind, _, _ in sections):
        return
    build_id = _build_id(program, sections)
    if build_id and (DEBUG_ROOT / build_id[:2] / f"{build_id[2:]}.debug").is_file():
        return
    named = shown if shown == str(program) else f"{shown} ({program})"
    raise UserError(f"{named} has no symbols (it is stripped): its profile would be addresses only",
                    "build it with symbols (no -s, no strip; -g helps), or install its debug symbols "
                    "(Debian: the PACKAGE-dbgsym package from the debian-debug archive)")


def _sections(path: Path) -> list[tuple[int, int, int]] | None:
    """(type, offset, size) of each section of an ELF file; None when it is not one."""
    try:
        with path.open("rb") as handle:
            ident = handle.read(64)
            if len(ident) < 52 or ident[:4] != b"\x7fELF":
                return None
            bits64, order = ident[4] == 2, "<" if ident[5] == 1 else ">"
            if bits64:
                shoff, = struct.unpack_from(order + "Q", ident, 0x28)
                entsize, count = struct.unpack_from(order + "HH", ident, 0x3A)
            else:
                shoff, = struct.unpack_from(order + "I", ident, 0x20)
                entsize, count = struct.unpack_from(order + "HH", ident, 0x2E)
            handle.seek(shoff)
            table = handle.read(entsize * count)
    except OSError:
        return None
    layout = order + ("IIQQQQ" if bits64 else "IIIIII")
    result = []
    for index in range(len(table) // entsize if entsize else 0):
        _, kind, _, _, offset, size = struct.unpack_from(layout, table, index * entsize)
        result.append((kind, offset, size))
    return result


def _build_id(path: Path, sections: list[tuple[int, int, int]]) -> str | None:
    with path.open("rb") as handle:
        for kind, offset, size in sections:
            if kind != _SHT_NOTE:
                continue
            handle.seek(offset)
            notes = handle.read(size)
            at = 0
            while at + 12 <= len(notes):
                namesz, descsz, note_type = struct.unpack_from("<III", notes, at)
                name_at = at + 12
                desc_at = name_at + (namesz + 3) // 4 * 4
                if note_type == _NT_GNU_BUILD_ID and notes[name_at:name_at + namesz] == b"GNU\0":
                    return notes[desc_at:desc_at + descsz].hex()
                at = desc_at + (descsz + 3) // 4 * 4
    return None
