"""The common data model: what every parser produces and every exporter reads."""
from __future__ import annotations

import dataclasses
from typing import Any

from benchlab import stats


@dataclasses.dataclass
class Record:
    """One (benchmark, param, counter) result of one binary on one platform.

    `samples` are per-iteration values in `unit`, in the order taken; `summary` is
    always recomputed in Python from them (see stats.py), never copied from the
    binary, so that every format is summarised by the same definitions. A benchlab
    time record (schema 2) has its samples as measured and, in `overhead_samples`, the
    empty loop's sample of each round: the summary's figures are after subtracting it
    round by round, as the header's are.
    """

    bench: str
    param: int | None
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
        if not self.summary and self.samples:
            self.summary = stats.summarize(self.samples, self.overhead_samples)

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

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Record":
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})


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

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Fault":
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})
