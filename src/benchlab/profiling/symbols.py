"""What perf could not name: the samples that stay addresses, and why their file has no names.

A program without a symbol table is still worth profiling. perf names an address from
the file's .symtab, from separate debug symbols (Debian's -dbgsym packages:
/usr/lib/debug/.build-id/xx/yyyy.debug, found by the file's build id), and from its
exported dynamic symbols (.dynsym: python3.11 exports 1,473 functions); the libraries'
and the kernel's samples have names of their own. So a stripped `gzip` or `python3.11`
is profiled, and afterwards the share of samples that stayed raw addresses is said, with
the files they fell in and what would name them. Only section and note headers are read.
"""
from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path

DEBUG_ROOT = Path("/usr/lib/debug/.build-id")
_SHT_SYMTAB, _SHT_NOTE = 2, 7
_NT_GNU_BUILD_ID = 3
#: Below this share of unnamed samples (a JIT's stub, a vDSO page) there is nothing to say.
UNRESOLVED_WARN_SHARE = 0.01
#: Files named in the warning, the largest shares first.
UNRESOLVED_SHOWN = 3


def has_symbols(program: Path) -> bool | None:
    """Whether an ELF file has a symbol table (its own .symtab, or installed debug symbols);
    None when it is not an ELF file (a wasm module, a script, perf's [kernel.kallsyms])."""
    sections = _sections(program)
    if sections is None:
        return None
    if any(kind == _SHT_SYMTAB for kind, _, _ in sections):
        return True
    build_id = _build_id(program, sections)
    return bool(build_id) and (DEBUG_ROOT / build_id[:2] / f"{build_id[2:]}.debug").is_file()


def unresolved_warning(shown: str, total: int, unresolved: Counter) -> str | None:
    """One line on the samples perf left as addresses ({dso: samples}), or None when they are
    too few to matter: how many, in which files, and what would name them."""
    missing = sum(unresolved.values())
    if total <= 0 or missing < UNRESOLVED_WARN_SHARE * total:
        return None
    files = []
    for dso, samples in unresolved.most_common(UNRESOLVED_SHOWN):
        stripped = has_symbols(Path(dso)) is False
        files.append(f"{dso} {100 * samples / total:.1f}%{' (stripped)' if stripped else ''}")
    more = len(unresolved) - UNRESOLVED_SHOWN
    where = ", ".join(files) + (f" and {more} more" if more > 0 else "")
    return (f"{shown}: {100 * missing / total:.1f}% of the {total:,} samples have no symbol, only an address "
            f"(in {where}): a bucket by file still counts them, a bucket by symbol cannot name them (install "
            "its debug symbols, Debian's PACKAGE-dbgsym, or build it with symbols: no -s, no strip)")


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
