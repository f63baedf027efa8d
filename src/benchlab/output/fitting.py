"""Tables that fit the terminal they are printed on, as hyperfine's and pytest's do.

A table is columns of text. On a terminal (or wherever COLUMNS is set) it must fit the
width: the command gives the ways to make it narrower in order of priority, the least
missed first (a column left out, a column's cells in a shorter form), and they are taken
one by one until it fits; as the last resort one column, the name, is cut with an
ellipsis. One line under the table says what was left out. A pipe or a file (no COLUMNS)
gets the whole table: there the table is data for whoever reads it.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import textwrap
from typing import TextIO

from rich.cells import cell_len

#: Between two columns, as rich's box.SIMPLE_HEAD tables have it (padding, the box's space, padding).
GAP = 3
#: Columns move this close before anything is left out: two spaces still part them.
MIN_GAP = 2
#: A cut column keeps at least this many characters (the ellipsis included): "fs_read_b…" still names a row.
MIN_CUT = 10
ELLIPSIS = "…"
#: What a note suggests when a narrower table left something out.
WIDEN = "widen the terminal or use --format json"


def terminal_width(stream: TextIO) -> int | None:
    """The width a table printed on `stream` must fit, or None for no limit. COLUMNS wins when
    it is set (as rich reads it: digits); else a terminal's own width; a pipe or a file has no
    width (rich would ask the other standard streams and fall back to 80: a table piped into a
    file must not depend on the terminal the command was typed in)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if not stream.isatty():
            return None
        return os.get_terminal_size(stream.fileno()).columns or None
    except (AttributeError, OSError, ValueError):  # a stream without a file descriptor: not a terminal
        return None


@dataclasses.dataclass
class Column:
    heading: str
    cells: list[str]
    right: bool = False  # figures are right-aligned
    #: The column the last resort cuts (to MIN_CUT at least) when leaving out is not enough.
    cut: bool = False

    @functools.cached_property
    def width(self) -> int:  # asked at every step of fit(): measured once (a column is not changed)
        return max([cell_len(self.heading), *(cell_len(cell) for cell in self.cells)])


@dataclasses.dataclass
class Narrower:
    """One way to make a table narrower: `changes` maps a column's index to its shorter
    form, or to None to leave it out; `said` is how the note names it ("ITERATIONS hidden").
    CUT, a step of its own, cuts the cut column there (else it is cut after every step)."""
    said: str
    changes: dict[int, Column | None]


#: The step that cuts the cut column (to MIN_CUT at most) before the steps after it are taken.
CUT = Narrower("cut", {})


@dataclasses.dataclass
class Fitted:
    """The columns a width leaves, and what was left out to get there."""
    columns: list[Column]
    left_out: list[str]
    width: int | None
    gap: int = GAP

    @property
    def total(self) -> int:
        return table_width(self.columns, self.gap)

    def lines(self, rule: bool = True) -> list[str]:
        """The heading, a rule under it (rich's SIMPLE_HEAD look) and the rows, aligned."""
        widths = [column.width for column in self.columns]
        space = " " * self.gap

        def line(values: list[str]) -> str:
            return space.join(_aligned(value, width, column.right)
                              for value, width, column in zip(values, widths, self.columns)).rstrip()

        rows = [list(values) for values in zip(*(column.cells for column in self.columns))]
        return [line([c.heading for c in self.columns]), *(["─" * self.total] if rule else []),
                *(line(values) for values in rows)]

    def note_lines(self, fix: str = WIDEN, indent: int = 0) -> list[str]:
        """`(at 80 columns: ITERATIONS hidden, cv left out; widen the terminal or use --format json)`,
        wrapped to the width; nothing when the whole table fits. `indent`: the columns left of
        the table, whose width is the terminal's less them."""
        if not self.left_out:
            return []
        note = f"(at {self.width + indent} columns: {', '.join(self.left_out)}; {fix})"
        return textwrap.wrap(note, self.width, break_on_hyphens=False) if self.width else [note]


def short_date(stored: str) -> str:
    """2026-11-26T07:22:46Z as 11-26 07:22, a date column's narrower form (a stored date is
    ISO 8601; anything else stays as it is)."""
    if len(stored) >= 16 and stored[10] == "T":
        return stored[5:16].replace("T", " ")
    return stored


def table_width(columns: list[Column], gap: int = GAP) -> int:
    return sum(column.width for column in columns) + gap * max(len(columns) - 1, 0)


def fit(columns: list[Column], narrower: list[Narrower], width: int | None, gap: int = GAP) -> Fitted:
    """`columns` within `width`: closer together, then each of `narrower` in turn until they
    fit, the cut column cut from CUT on (or at the end) by as much as is still over; all of
    them, `gap` apart, when `width` is None."""
    if width is None:
        return Fitted(list(columns), [], None, gap)
    close = min(gap, MIN_GAP)
    shown: dict[int, Column] = dict(enumerate(columns))
    said: list[str] = []
    cut_at = None  # where in `said` the cut is named, once CUT is reached

    def current() -> list[Column]:
        whole = list(shown.values())
        return whole if cut_at is None else _cut(whole, width, close)

    for step in [*narrower, CUT]:
        if table_width(current(), close) <= width:
            break
        if step is CUT:
            cut_at = len(said) if cut_at is None else cut_at
            continue
        before = dict(shown)
        for index, column in step.changes.items():
            if column is None:
                shown.pop(index, None)
            elif index in shown:
                shown[index] = column
        if shown != before:
            said.append(step.said)
    kept = current()
    names = cut_names(list(shown.values()), kept)
    if names:
        said.insert(cut_at, f"{names} cut")
    return Fitted(kept, said, width, gap if table_width(kept, gap) <= width else close)


def cut_names(before: list[Column], after: list[Column]) -> str:
    return ", ".join(old.heading for old, new in zip(before, after) if old is not new)


def _cut(columns: list[Column], width: int, gap: int) -> list[Column]:
    """The cut column shortened by what the table is over `width` (never under MIN_CUT)."""
    excess = table_width(columns, gap) - width
    result = list(columns)
    for index, column in enumerate(columns):
        if column.cut and column.width > MIN_CUT and excess > 0:
            keep = max(MIN_CUT, column.width - excess)
            result[index] = dataclasses.replace(column, heading=shortened(column.heading, keep),
                                                cells=[shortened(cell, keep) for cell in column.cells])
            break
    return result


def shortened(text: str, keep: int) -> str:
    """`text` within `keep` cells, its end replaced by … when it is longer."""
    if cell_len(text) <= keep:
        return text
    while cell_len(text) > keep - 1:
        text = text[:-1]
    return text + ELLIPSIS


def _aligned(value: str, width: int, right: bool) -> str:
    pad = " " * (width - cell_len(value))
    return pad + value if right else value + pad


def wrapped(lines: list[str], width: int | None, indent: str = "") -> list[str]:
    """Prose lines within `width`, each continued under `indent`; as they are without a width."""
    if width is None:
        return lines
    result = []
    for line in lines:
        if cell_len(line) <= width:
            result.append(line)
            continue
        lead = line[:len(line) - len(line.lstrip())]
        result.extend(textwrap.wrap(line, width, subsequent_indent=lead + indent, break_on_hyphens=False,
                                    break_long_words=True) or [""])
    return result
