"""The answer of `gate` and `ab --max-regression` as data: the judgment over the rows'
verdicts (`Judgment`), what a CI job is shown of it (`Answer`), and a row's verdict against
its threshold in words (`row_answer`).

Here, below the layers that use them: judging/judgment.py reaches the judgment and
judging/gate.py the answer; output/comparisons.py, output/junit.py and output/ci.py
render them, and need import nothing of judging/ to do so.
"""
from __future__ import annotations

import dataclasses

from benchlab.errors import ExitCode
from benchlab.statistics.compare import INCONCLUSIVE, SLOWER, Comparison, row_name


@dataclasses.dataclass
class Judgment:
    slower: list[Comparison]
    undecided: list[Comparison]
    exit_code: ExitCode
    #: What the command says on stderr, in order.
    lines: list[str]


@dataclasses.dataclass
class Answer:
    """What `gate` or `ab` concluded, as a CI job shows it (its summary, a pull-request
    comment, JUnit XML): the rows, the judgment, and how the rows were measured."""
    #: "gate" or "ab".
    command: str
    #: What was held against what, in a line: "run 3 against baseline 'main' (run 1)".
    subject: str
    a_label: str
    b_label: str
    comparisons: list[Comparison]
    #: None: `ab` without --max-regression, which measures and judges nothing.
    judgment: Judgment | None
    #: --inconclusive: "fail" (an undecided row fails) or "pass".
    inconclusive: str = "fail"
    differences: list[str] = dataclasses.field(default_factory=list)
    #: How rows were measured, where it is not the same for all: "stored figures for x: why".
    notes: list[str] = dataclasses.field(default_factory=list)
    #: What the measuring took (the rounds of ab or of the gate's re-measurement); 0 for stored figures.
    seconds: float = 0.0

    @property
    def heading(self) -> str:
        """The answer in one line: the judgment's last line, or what ab did without one."""
        if self.judgment is None:
            return f"{self.command} measured {len(self.comparisons)} row(s), judged none (no --max-regression)"
        return self.judgment.lines[-1]

    @property
    def no_baseline(self) -> bool:
        """A gate whose baseline does not exist yet: nothing judged (exit 5)."""
        return self.judgment is not None and self.judgment.exit_code == ExitCode.NO_BASELINE


def row_answer(c: Comparison) -> str:
    """What a row's verdict says against its threshold: `1.0998x [1.05, 1.15], more than 2%
    slower`, `... reaches both sides of 1.02`, `... not slower than 2%`."""
    if not c.defined:
        return f"no ratio: B/A ({c.b:.4g} / {c.a:.4g}) is not a finite number, so nothing is judged"
    if c.verdict == SLOWER:
        return f"{ratio_text(c)}, more than {threshold_text(c)} slower" + (f" ({c.cause})" if c.cause else "")
    if c.verdict == INCONCLUSIVE:
        return f"{ratio_text(c)} reaches both sides of {c.limit:.4g}"
    return f"{ratio_text(c)}, not slower than {threshold_text(c)}"


def row_label(c: Comparison) -> str:
    """A row as the answer's lines name it: `Read/1 on native`."""
    return f"{row_name(c.key)} on {c.platform}"


def ratio_text(c: Comparison) -> str:
    if not c.defined:
        return "no ratio"
    interval = "an uninformative interval" if shown_uninformative(c) else f"[{c.low:.4f}, {c.high:.4f}]"
    return f"{c.ratio:.4f}x {interval}"


def shown_uninformative(c: Comparison) -> bool:
    """Whether a row's interval is said to be "uninformative" rather than given: wider than
    the figure (Comparison.uninformative) and reaching both sides of the threshold, so it
    bounds nothing and decides nothing: the row is inconclusive, as the word says. As wide
    but wholly on one side ([1.5, 12] for a B/A of 6) it decides, and its bounds show why."""
    return c.uninformative and c.verdict == INCONCLUSIVE


def threshold_text(c: Comparison) -> str:
    return f"{100 * (c.limit - 1):g}%"
