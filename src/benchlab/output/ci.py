"""What `gate` and `ab` give a CI job besides their table (docs/ci.md): the answer in
Markdown for a pull-request comment (`--summary FILE`) and for the job's summary page
(appended to the file `$GITHUB_STEP_SUMMARY` names, when GitHub Actions sets it), and the
verdicts as JUnit XML for test widgets (`--junit FILE`).

Every path is checked before anything runs (paths.py), and written once the answer is
known, before the command exits with it: a job that fails on the answer has its comment
and its report first. The options that name the files are cli/common.py's.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from benchlab.errors import UserError
from benchlab.output import junit
from benchlab.output.comparisons import summary_markdown
from benchlab.paths import check_output_file, shown_path, write_regular_file
from benchlab.statistics.answer import Answer

#: The variable GitHub Actions sets to the file of a step's summary (Markdown, appended to).
STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


@dataclasses.dataclass
class Outputs:
    """Where the answer goes besides stdout: each None when not asked for."""
    summary: Path | None
    junit: Path | None
    step_summary: Path | None

    @classmethod
    def checked(cls, summary_path: str | None, junit_path: str | None) -> "Outputs":
        """The files, each checked as --out is (a regular file in a directory that exists and
        can be written), before anything runs."""
        step_summary = os.environ.get(STEP_SUMMARY) or None
        for option, path, example in (("--summary", summary_path, "comment.md"), ("--junit", junit_path, "junit.xml"),
                                      (f"${STEP_SUMMARY}", step_summary, "summary.md")):
            if path is not None:
                check_output_file(option, path, example)
        return cls(*(Path(path) if path is not None else None for path in (summary_path, junit_path, step_summary)))

    def write(self, answer: Answer) -> None:
        markdown = summary_markdown(answer) if self.summary or self.step_summary else ""
        if self.summary:
            write_regular_file("--summary", self.summary, markdown)
        if self.step_summary:
            _append(self.step_summary, markdown)
        if self.junit:
            write_regular_file("--junit", self.junit, junit.render(answer))


def _append(path: Path, text: str) -> None:
    """Appended, as every step of a job appends its part of the summary page."""
    try:
        with open(path, "a") as stream:
            stream.write(text + "\n")
    except OSError as exc:
        raise UserError(f"cannot append to ${STEP_SUMMARY} {shown_path(path)}: {exc.strerror}",
                        f"unset {STEP_SUMMARY} or point it at a writable file") from None
