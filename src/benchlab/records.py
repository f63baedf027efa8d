"""The common data model: what every parser produces and every exporter reads."""
from __future__ import annotations

import dataclasses
import math
import re
import sys
from typing import Any, NamedTuple

#: What no database text column can hold: a lone surrogate (JSON's "\ud800", a file name's
#: undecodable byte) is not valid UTF-8, and PostgreSQL's text has no NUL.
_UNSTORABLE = re.compile(r"[\ud800-\udfff\x00]")
#: The fields of a record or failure that are stored as text.
NAME_FIELDS = ("bench", "param_name", "counter", "unit", "platform", "binary", "format")
#: Names already warned about in this process: N processes of one binary say it once.
_warned: set[str] = set()


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return "\\0" if code == 0 else f"\\u{code:04x}"  # \0 as the store writes a failure's NUL


def storable(text: str) -> str:
    """`text` with what a database cannot store written as an escape (\\ud800, \\0).

    An escape rather than U+FFFD keeps two such names apart (\\ud800 and \\udc00 are
    different benchmarks); every other character is kept exactly."""
    return _UNSTORABLE.sub(_escape, text)


def storable_name(what: str, text: str | None) -> str | None:
    """`text` made storable; a name that had to change is warned about once, as stored."""
    if text is None or not isinstance(text, str) or _UNSTORABLE.search(text) is None:
        return text
    fixed = storable(text)
    if fixed not in _warned:
        _warned.add(fixed)
        print(f"warning: {what} '{printable(fixed)}' had characters no database can store (a lone "
              "surrogate or NUL): stored with them escaped as shown", file=sys.stderr)
    return fixed


def printable(text: Any) -> str:
    """`text` as a terminal, a table row or a page shows it safely: every character that is
    not printable (C0 and C1 controls such as ESC, line and paragraph separators, bidi
    overrides such as U+202E, other invisible format characters, lone surrogates) written
    as its escape (\\x1b, \\u2028, \\U000e0001), as Python's repr writes them.

    For display only: the store keeps names exactly; every printer of a name goes
    through here, so a name cannot move the cursor, recolour a terminal, break a row in
    two or reverse the text after it."""
    text = "" if text is None else str(text)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _char_escape(char) for char in text)


#: What separates the lines and columns of output: kept by printable_text.
_LAYOUT = re.compile(r"(\r\n|\n|\t)")
#: Text that needs no look at each character: printable ASCII, newlines and tabs.
_PLAIN = re.compile(r"[\n\t\x20-\x7e]*")


def printable_text(text: str) -> str:
    """Whole output (many lines) as printable() shows each name: its newlines, CRLFs and
    tabs kept, every other character that is not printable escaped. What the `benchlab`
    command writes to stdout and stderr goes through here (cli.TerminalSafe), so a name
    printed by any command cannot drive the terminal, whichever code printed it."""
    if _PLAIN.fullmatch(text):
        return text
    return "".join(piece if index % 2 else printable(piece) for index, piece in enumerate(_LAYOUT.split(text)))


#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection"): = + - @,
#: and a tab or carriage return before them.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: A number as CSV writes one (-1.5, +3, -2e-05): a spreadsheet reads it as the number.
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def spreadsheet_cell(text: str) -> str:
    """A text cell of a CSV export that no spreadsheet runs as a formula: one that starts
    as a formula does gets a single quote in front (OWASP's rule); a number stays a number."""
    return "'" + text if _quoted(text) else text


def from_spreadsheet_cell(text: str) -> str:
    """The text spreadsheet_cell wrote `text` for (an import of benchlab's own CSV export)."""
    return text[1:] if text.startswith("'") and _quoted(text[1:]) else text


def _quoted(text: str) -> bool:
    # A name that already starts with a quote before a formula gets one more, so that
    # reading it back takes off exactly what was added.
    if text.startswith("'"):
        return _quoted(text[1:])
    return text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text)


#: The escapes everyone reads at sight, as repr writes them.
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _char_escape(char: str) -> str:
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _storable_fields(item: Any) -> None:
    for field in NAME_FIELDS:
        if hasattr(item, field):
            setattr(item, field, storable_name(field, getattr(item, field)))
    if isinstance(getattr(item, "param", None), str):  # a text parameter is a name too, stored as shown
        item.param = storable_name("param", item.param)


_CHUNKS = re.compile(r"(\d+)")


def param_order(param: int | str | None) -> tuple:
    """A sort key of parameters: none first, then numbers in numeric order, then text, whose
    numbers are in numeric order too: (STREAM, 4096) before (STREAM, 10240)."""
    if param is None:
        return (0, ())
    if isinstance(param, int):
        return (1, ((param, ""),))
    return (2, tuple((int(chunk), "") if chunk.isdigit() else (-1, chunk) for chunk in _CHUNKS.split(param) if chunk))


def in_param_order(records: list["Record"]) -> list["Record"]:
    """Records grouped by test in the order the tests first appear, each test's in parameter order."""
    first = {}
    for record in records:
        first.setdefault(record.bench, len(first))
    return sorted(records, key=lambda record: (first[record.bench], param_order(record.param)))


class Interval(NamedTuple):
    """A figure's 99% interval (formats.md's `median_ci`), in the figure's unit: a pair, so
    that `low, high = interval` reads it and JSON writes it as the stored `[low, high]`."""

    low: float
    high: float


class Summary(NamedTuple):
    """A record's figures, typed: what `Record.summary` stores as a dict (formats.md's
    names, written by stats.summarize for one process and by statistics/combine.py for
    several), read here once so that no reader spells a key. None: the record does not
    have that figure (a foreign format's record, one process, nothing subtracted).
    Immutable, and a NamedTuple made once per record (Record.figures) rather than a frozen
    dataclass made per read: on `benchlab show` of 12,500 rows the dataclass cost 8 us a
    figure read (13% of the command's CPU), this 3.8 us a record (6%)."""

    #: Samples (of every process of a combined figure).
    n: int | None = None
    median: float | None = None
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    stddev: float | None = None
    p75: float | None = None
    p90: float | None = None
    p99: float | None = None
    mad: float | None = None
    #: The median's interval (`median_ci`): within one process, or of a rerun (`ci_scope` says).
    interval: Interval | None = None
    ci_level: float | None = None
    #: What the interval covers: "within this run", or a rerun of as many processes.
    ci_scope: str | None = None
    outliers_low: int | None = None
    outliers_high: int | None = None
    #: Whether the interval reaches zero once the empty loop's cost is subtracted; None for a
    #: record that says nothing of it (no empty loop was subtracted from its samples).
    zero: bool | None = None
    #: The median and its interval (`raw_median_ci`) before the empty loop's cost was subtracted.
    raw_median: float | None = None
    raw_interval: Interval | None = None
    #: The empty loop's median, and the share of it subtracted (stats.loop_share).
    overhead: float | None = None
    loop_share: float | None = None
    #: The processes a combined figure is the mean of (statistics/combine.py); 1 for one process.
    processes: int = 1
    process_medians: tuple[float, ...] = ()
    #: Indexes into process_medians of the processes left out of the figure as outliers.
    outlier_processes: tuple[int, ...] = ()
    #: Indexes into process_medians of the processes left out of the figure because most of
    #: their rounds were preempted and kept (statistics/contention.py, mostly_preempted).
    preempted_processes: tuple[int, ...] = ()
    #: Most rounds of (most of) its processes were preempted: the figure is the busy machine's,
    #: and its interval reaches down to what the unpreempted rounds showed (formats.md, "Contention").
    busy: bool = False
    between_sd: float | None = None
    between_cv: float | None = None
    #: The processes' own intervals do not all overlap.
    disagree: bool = False
    #: The processes fall into two modes (statistics/modes.py): ((median, share), ...), low first.
    modes: tuple[tuple[float, float], ...] = ()
    #: Where the spread between runs came from (earlier runs, or the machine prior), its size
    #: relative to the figure, and how many earlier runs gave it.
    noise_source: str | None = None
    run_sd: float | None = None
    earlier_runs: int | None = None

    @classmethod
    def of(cls, stored: dict[str, Any]) -> "Summary":
        """From the stored dict form; a key absent or null leaves the field's default, a key
        that is no figure (a newer version's) is left out."""
        values = {FIELD_OF[key]: value for key, value in stored.items() if key in FIELD_OF and value is not None}
        for name, read in _READ_AS.items():
            if name in values:
                values[name] = read(values[name])
        return cls(**values)

    @property
    def share_subtracted(self) -> float:
        """The share of the empty loop's cost subtracted (stats.loop_share): all of it where
        the record does not say."""
        return 1.0 if self.loop_share is None else self.loop_share


#: Summary fields stored under another name (formats.md's).
_STORED_AS = {"interval": "median_ci", "raw_interval": "raw_median_ci"}
#: Each stored summary key's Summary field: every key stats.summarize and statistics/combine.py
#: write is one (tests/python/test_records.py checks it), so no figure goes unread.
FIELD_OF = {_STORED_AS.get(name, name): name for name in Summary._fields}
#: Summary fields whose stored (JSON) form is a list.
_READ_AS = {"interval": Interval._make, "raw_interval": Interval._make, "process_medians": tuple,
            "outlier_processes": tuple, "preempted_processes": tuple, "modes": lambda modes: tuple(tuple(mode) for mode in modes)}


#: What a record holds in memory beside its values, and per value (a float and its list
#: slot), measured with tracemalloc on parsed jsonl records of 1 to 10,000 samples: 1.47 KB
#: for one sample, 9.2 KB for 111 (three lists: samples, overhead, iterations), 23 bytes a
#: value at 10,000.
HELD_RECORD_BYTES = 1500
HELD_VALUE_BYTES = 24


def finite_number(value: Any) -> bool:
    """A finite int or float, not a bool (JSON's true is Python's 1): what a figure read from
    a file or a store must be before any arithmetic meets it."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclasses.dataclass
class Record:
    """One (benchmark, param, counter) result of one binary on one platform.

    `samples` are per-iteration values in `unit`, in the order taken; `summary` is
    always recomputed in Python from them (see stats.py), never copied from the
    binary, so that every format is summarised by the same definitions. A benchlab
    time record (schema 2) has its samples as measured and, in `overhead_samples`, the
    empty loop's sample of each round: the summary's figures are after subtracting it
    round by round, as the header's are. `summary` is the stored (JSON) form; readers
    read `figures`, the same typed.
    """

    bench: str
    #: A number (a size, a count), or text where the benchmark has no number (Lind's `-`,
    #: `(STREAM, 1)`); text is never a decimal integer (parsers/base.py: param_value).
    param: int | str | None
    samples: list[float]
    counter: str = "time"
    unit: str = "ns"
    iterations: int | None = None
    param_name: str | None = None
    sample_iterations: list[int] | None = None
    #: What the binary said beyond its samples (its own statistics, ratio to its baseline, ...).
    reported: dict[str, Any] = dataclasses.field(default_factory=dict)
    platform: str = ""
    binary: str = ""
    format: str = ""
    #: {"flag": ..., "value": ...} when the record comes from one value of a --sweep.
    sweep: dict[str, Any] | None = None
    summary: dict[str, Any] = dataclasses.field(default_factory=dict)
    overhead_samples: list[float] | None = None

    def __post_init__(self) -> None:
        _storable_fields(self)  # one bad name must not lose a run's every record at the write
        if not self.summary and self.samples:
            from benchlab import stats
            self.summary = stats.summarize(self.samples, self.overhead_samples)
            self._widen_for_preempted()

    def _widen_for_preempted(self) -> None:
        """The header's widening of a series that kept its preempted rounds on a busy machine
        (bl__widen_for_preempted): the median's interval reaches `widened_to`, the median of
        the rounds that were not preempted (0 with none), which only the header could tell
        apart (formats.md, "Contention")."""
        reach = self.reported.get("widened_to")
        interval = self.summary.get("median_ci")
        if finite_number(reach) and interval:
            self.summary["median_ci"] = [min(interval[0], reach), max(interval[1], reach)]

    @property
    def held_bytes(self) -> int:
        """What the record holds in memory, estimated on the high side: the limit of a run's
        results (limits.MAX_RUN_RESULT_BYTES) counts this, since a record's samples, not
        their count, are what fill memory (issue 37: 9.2 KB for 111 samples, not 1.4 KB)."""
        values = len(self.samples) + len(self.overhead_samples or ()) + len(self.sample_iterations or ())
        return HELD_RECORD_BYTES + HELD_VALUE_BYTES * values

    @property
    def process(self) -> int | None:
        """Which of a run's processes (0..N-1) measured this record; None for a single process."""
        return self.reported.get("process")

    @property
    def key(self) -> tuple:
        """Rows of the cross-platform table: the same key on two platforms is one row."""
        sweep_value = self.sweep["value"] if self.sweep else None
        return (self.bench, self.param, self.counter, sweep_value)

    @property
    def median(self) -> float | None:
        return self.summary.get("median")

    @property
    def figures(self) -> Summary:
        """The summary's figures, typed. Read once per summary (a table asks each record
        several times): `summary` is replaced, never changed in place, once a record exists."""
        cached = self.__dict__.get("_figures")  # not a field: to_dict and == leave it out
        if cached is None or cached[0] is not self.summary:
            cached = self.__dict__["_figures"] = (self.summary, Summary.of(self.summary))
        return cached[1]

    @property
    def supported(self) -> bool:
        """False for a counter (or threaded target) the binary could not measure.

        Such a record has no samples and says why in `reason`; it is kept (in the
        table as `not supported: <reason>`, in json output and in the store), never
        read as zero. Kept in `reported` so that the store needs no extra column.
        """
        return self.reported.get("supported", True) is not False

    @property
    def reason(self) -> str | None:
        """Why an unsupported record could not be measured (the binary's words)."""
        if self.supported:
            return None
        return str(self.reported.get("reason") or "no reason given")

    @property
    def contention(self) -> Contention | None:
        """What the kernel said its samples lost to other tasks; None where nobody measured it."""
        return Contention.of(self.reported)

    @property
    def short_samples(self) -> bool:
        """The binary could not make its samples long against its timer (the machine was too busy
        to calibrate): each sample carries up to a tick of rounding."""
        return self.reported.get("short_samples") is True

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: A time record's fields that say what its samples lost to other tasks (formats.md,
#: "Contention"): absent in files from before them and in other tools' formats.
CONTENTION_FIELDS = ("preempted", "left_out", "involuntary_switches", "run_delay_ns", "sampled_ns")


@dataclasses.dataclass(frozen=True)
class Contention:
    """What the kernel said a time record's samples lost to other tasks: rounds preempted
    (and how many of them were left out of the samples), involuntary context switches, the
    time they waited for a CPU, and the wall time of all its samples. None: not known
    (a platform that cannot tell, or a record of several processes where one could not)."""

    preempted: int | None = None
    left_out: int | None = None
    involuntary_switches: int | None = None
    run_delay_ns: float | None = None
    sampled_ns: float | None = None

    @classmethod
    def of(cls, reported: dict[str, Any]) -> "Contention | None":
        """From a record's `reported`; None when it has none of the fields."""
        if not any(reported.get(field) is not None for field in CONTENTION_FIELDS):
            return None
        return cls(**{field: reported.get(field) for field in CONTENTION_FIELDS})

    @property
    def waited_share(self) -> float | None:
        """The share of its sampling time it waited for a CPU."""
        if self.run_delay_ns is None or not self.sampled_ns:
            return None
        return self.run_delay_ns / self.sampled_ns

    def fields(self) -> dict[str, Any]:
        return {field: getattr(self, field) for field in CONTENTION_FIELDS}


#: A fault's kinds: the binary ran (or was built) and failed there; or the platform is one
#: its source cannot be built for, by design (a `-` cell, not a failure).
FAILED = "failed"
NOT_BUILT = "not-built"
FAULT_KINDS = (FAILED, NOT_BUILT)


@dataclasses.dataclass
class Fault:
    """A binary that did not finish normally on one platform, and why."""

    binary: str
    platform: str
    reason: str  # e.g. "killed by SIGSEGV", "exit status 3", "timed out after 300 s"
    stderr_tail: list[str] = dataclasses.field(default_factory=list)
    sweep: dict[str, Any] | None = None
    #: Which of the run's processes failed (None when the run has one per binary).
    process: int | None = None
    #: FAILED or NOT_BUILT (FAULT_KINDS).
    kind: str = FAILED
    #: Which copy of an `instances` sweep failed, from 0 as its records' reported `copy` (None
    #: for a fault of a whole process).
    copy: int | None = None

    def __post_init__(self) -> None:
        _storable_fields(self)
        # a compiler's quote of a broken source (a NUL): stored as \0 without a warning, as before
        self.reason = storable(self.reason) if isinstance(self.reason, str) else self.reason

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def missing_units(plan: Any, done: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The planned units ({binary, platform, sweep}) not among those done; [] for runs without a plan."""
    if not isinstance(plan, list):
        return []
    finished = [(u["binary"], u["platform"], u.get("sweep")) for u in done]
    missing = []
    for unit in plan:
        key = (unit.get("binary"), unit.get("platform"), unit.get("sweep"))
        if key in finished:
            finished.remove(key)  # a unit planned twice must be done twice
        else:
            missing.append(unit)
    return missing
