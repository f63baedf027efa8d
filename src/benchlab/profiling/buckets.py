"""Buckets: named groups of symbols, and a profile folded into them.

A buckets file is TOML with one table, `[buckets]`: each key a bucket's name, each
value a list of patterns. A pattern is a regular expression over symbol names
(`"^xdb::main"`), or an inline table `{ symbol = "...", dso = "..." }` whose given
keys must all match (`{ dso = "libc\\.so" }` is everything in libc). A symbol goes to
the first bucket, in file order, with a pattern that matches it anywhere (a search), so
a narrow bucket written before a wide one keeps its symbols; what no bucket takes is
"other". Without a buckets file every DSO is a bucket of its own, as
`perf report --sort dso` groups them.

Patterns are Google's RE2 (the `google-re2` wheel), not Python's `re`: RE2 matches in
time linear in the symbol's length whatever the pattern, so no pattern can hang a
profile on a long C++ symbol (`(a+)+$` backtracks for minutes in `re`), and its
limits (a repeat of at most 1000, a program of at most 8 MiB) are compile errors, not
crashes. What RE2 lacks (backreferences, look-around, possessive repeats, `\\Z`) is a
compile error naming the bucket and the pattern (docs/cli.md, Buckets).
"""
from __future__ import annotations

import dataclasses
import functools
import os
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable

import re2

from benchlab.errors import UserError
from benchlab.records import printable

#: The bucket of every symbol no pattern matches; a name the file cannot use.
OTHER = "other"
#: Symbols listed under each bucket in the table and stored with the run.
TOP_SYMBOLS = 5
#: Keys an inline-table pattern may have.
PATTERN_KEYS = ("symbol", "dso")

#: A pattern shown in an error is cut to this many characters (5,000 nested groups are 10 kB).
MAX_SHOWN_PATTERN = 80


def _utf8(text: str) -> bytes:
    """Patterns and symbols are matched as UTF-8 bytes: a symbol read with an undecodable
    byte (a lone surrogate from surrogateescape) still matches, by its other characters."""
    return text.encode("utf-8", "surrogateescape")


@dataclasses.dataclass(frozen=True)
class Pattern:
    symbol: Any | None  # compiled RE2 regexes (re2._Regexp)
    dso: Any | None

    def matches(self, symbol: str, dso: str) -> bool:
        return ((self.symbol is None or self.symbol.search(_utf8(symbol)) is not None)
                and (self.dso is None or self.dso.search(_utf8(dso)) is not None))


@dataclasses.dataclass(frozen=True)
class Bucket:
    name: str
    patterns: tuple[Pattern, ...]


class Buckets:
    """The buckets of a file, in file order; or, with none, one bucket per DSO."""

    def __init__(self, buckets: list[Bucket], spec: dict[str, Any] | None):
        self.buckets = buckets
        #: The file's [buckets] table as written, stored with the run.
        self.spec = spec
        # Profiles repeat the same few thousand symbols in every sample: classify each once.
        self.classify = functools.lru_cache(maxsize=None)(self._classify)

    @property
    def by_dso(self) -> bool:
        return self.spec is None

    def names(self) -> list[str]:
        return [bucket.name for bucket in self.buckets]

    def _classify(self, symbol: str, dso: str) -> str:
        if self.by_dso:
            return os.path.basename(dso) or OTHER
        for bucket in self.buckets:
            if any(pattern.matches(symbol, dso) for pattern in bucket.patterns):
                return bucket.name
        return OTHER


def by_dso() -> Buckets:
    return Buckets([], None)


def load_buckets(path: str | Path) -> Buckets:
    """The buckets of a TOML file, every name, type and regex checked: one UserError each."""
    path = Path(path)
    try:
        document = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"--buckets {path}: no such file", "give the path of a TOML buckets file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--buckets {path} cannot be read: {getattr(exc, 'strerror', None) or exc}",
                        "give a readable UTF-8 TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path} is not valid TOML: {exc}", "fix the file (see docs/cli.md, Buckets)") from None
    unknown = sorted(set(document) - {"buckets"})
    if unknown:
        raise UserError(f"{path}: unknown key '{printable(unknown[0])}'",
                        "a buckets file has one table, [buckets]: NAME = [\"regex\", ...]")
    table = document.get("buckets")
    if not isinstance(table, dict) or not table:
        raise UserError(f"{path}: no [buckets] table, or an empty one",
                        "add e.g. [buckets] then dispatch = [\"^xdb::main\", \"decode\"]")
    buckets = [_bucket(path, name, value) for name, value in table.items()]
    return Buckets(buckets, table)


def _bucket(path: Path, name: str, value: Any) -> Bucket:
    where = printable(f"{path}: buckets.{name}")  # a name with a newline or ESC: one line, shown escaped
    if name == OTHER:
        raise UserError(f"{where}: '{OTHER}' is the bucket of what no pattern matches",
                        "give this bucket another name")
    if not name.strip() or len(name) > 255:
        raise UserError(f"{where}: a bucket's name must be 1 to 255 characters, not blank", "rename it")
    if not isinstance(value, list) or not value:
        raise UserError(f"{where} must be a non-empty list of regular expressions (got {_type(value)})",
                        f'write {printable(name)} = ["regex", ...]')
    return Bucket(name, tuple(_pattern(f"{where}[{index}]", item) for index, item in enumerate(value)))


def _pattern(where: str, item: Any) -> Pattern:
    if isinstance(item, str):
        return Pattern(_regex(where, item), None)
    if isinstance(item, dict):
        unknown = sorted(set(item) - set(PATTERN_KEYS))
        if unknown or not item:
            shown = f"unknown key '{printable(unknown[0])}'" if unknown else "an empty table"
            raise UserError(f"{where}: {shown}", "a pattern table has symbol and/or dso: { dso = \"libc\\\\.so\" }")
        for key in item:
            if not isinstance(item[key], str):
                raise UserError(f"{where}.{key} must be a string (got {_type(item[key])})", "quote the regex")
        return Pattern(*(_regex(f"{where}.{key}", item[key]) if key in item else None for key in PATTERN_KEYS))
    raise UserError(f"{where} must be a regular expression string or a table (got {_type(item)})",
                    "quote the regex")


def _regex(where: str, text: str) -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print its own line to stderr besides our error
    options.never_capture = True  # a bucket needs whether it matches, not groups: 5,000 of them cost seconds
    try:
        return re2.compile(_utf8(text), options)
    except re2.error as exc:
        raise UserError(f"{where}: {_shown(text)} is not a valid regular expression (RE2): {_reason(exc)}",
                        "fix the pattern: RE2 is Python's re without backreferences, look-around or possessive "
                        "repeats, with repeats up to {1000} and \\z for \\Z; escape . ( [ with a backslash") from None


def _shown(text: str) -> str:
    shown = text if len(text) <= MAX_SHOWN_PATTERN else text[:MAX_SHOWN_PATTERN] + "..."
    return "'" + printable(shown) + "'"


def _reason(exc: Exception) -> str:
    """RE2's words ("missing ): ^a("), its quote of the pattern cut as the pattern is."""
    reason = exc.args[0] if exc.args else ""
    reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    what, _, fragment = reason.partition(": ")
    return f"{what}: {_shown(fragment)[1:-1]}" if fragment else printable(what)


def _type(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


# -- folding --------------------------------------------------------------------------------


@dataclasses.dataclass
class Share:
    """One bucket's part of a profile: its weight (samples or instructions) and percent."""

    bucket: str
    kind: str  # "self" | "inclusive"
    samples: int
    share: float
    #: The bucket's heaviest symbols by self weight: {symbol, dso, samples, share}.
    top: list[dict[str, Any]] = dataclasses.field(default_factory=list)


def fold_self(costs: Counter, buckets: Buckets) -> list[Share]:
    """Self weights by (symbol, dso) folded into buckets, in the file's order, "other" last.

    Every location goes to exactly one bucket, so the shares add up to 100%."""
    total = sum(costs.values())
    per_bucket: dict[str, Counter] = {}
    for (symbol, dso), weight in costs.items():
        per_bucket.setdefault(buckets.classify(symbol, dso), Counter())[(symbol, dso)] += weight
    shares = []
    for name in _order(buckets, per_bucket):
        symbols = per_bucket.get(name, Counter())
        weight = sum(symbols.values())
        top = [{"symbol": symbol, "dso": dso, "samples": count, "share": _percent(count, total)}
               for (symbol, dso), count in sorted(symbols.items(), key=lambda item: (-item[1], item[0]))[:TOP_SYMBOLS]]
        shares.append(Share(name, "self", weight, _percent(weight, total), top))
    return shares


def fold_inclusive(total: int, inclusive: Callable[[str], int], buckets: Buckets, names: Iterable[str]) -> list[Share]:
    """Inclusive shares: `inclusive(bucket)` is the weight spent in the bucket or below it.
    They overlap (a sample inside dispatch called from main counts for both), so they do
    not add up to 100%."""
    return [Share(name, "inclusive", weight, _percent(weight, total))
            for name in names for weight in [min(total, inclusive(name))]]


def stack_inclusive(stacks: Counter, buckets: Buckets) -> dict[str, int]:
    """From call stacks (each a tuple of locations, leaf first, with its weight): the weight
    of the stacks that pass through each bucket, counted once per stack however often it
    appears in it (recursion)."""
    weights: Counter = Counter()
    for stack, weight in stacks.items():
        names = {buckets.classify(symbol, dso) for symbol, dso in stack}
        if not buckets.by_dso:
            # main() and _start are "other" in nearly every stack: "other" inclusive is the
            # stacks that pass through no named bucket at all, the time the buckets miss.
            names = (names - {OTHER}) or {OTHER}
        for name in names:
            weights[name] += weight
    return weights


def _order(buckets: Buckets, present: dict[str, Any]) -> list[str]:
    """The file's buckets in its order (each shown, even at 0%), then "other"; by DSO, heaviest first."""
    if buckets.by_dso:
        return sorted(present, key=lambda name: (-sum(present[name].values()), name))
    return [*buckets.names(), OTHER]


def _percent(part: int, total: int) -> float:
    return 100.0 * part / total if total else 0.0
