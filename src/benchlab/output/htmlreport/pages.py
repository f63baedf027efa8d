"""The report's pages: the summary (index.html) and the pages it links to.

One page would be one scroll of tens of thousands of pixels (a chart per benchmark, twice:
its samples and its history). So each section is a page of its own, and a section of one
chart per benchmark (samples, history) is a page per program, cut into pages of at most
CHARTS_PER_PAGE charts. File names are made of ids and a program's name reduced to safe
characters, never the name as given.
"""
from __future__ import annotations

import dataclasses
import re

from benchlab.output.htmlreport.sections import Section

#: Charts on one page at most: about 400 px each, so a page is a few screens, not dozens.
CHARTS_PER_PAGE = 16
#: Characters of a program's name kept in a file name.
SLUG_CHARS = 40


@dataclasses.dataclass
class Page:
    file: str
    title: str
    #: The heading it is listed under in every page's navigation ("Run 12", "History", ...).
    group: str
    sections: list[Section]

    @property
    def charts(self) -> int:
        return sum(len(section.charts) for section in self.sections)


def slug(name: str) -> str:
    """A program's name as part of a file name: letters, digits, `_`, `-` and `.` only."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:SLUG_CHARS].strip("._") or "program"


def per_program(stem: str, group: str, found: list[Section]) -> list[Page]:
    """A page per program's section, each cut into pages of CHARTS_PER_PAGE charts."""
    pages = []
    for index, section in enumerate(found, 1):
        name = section.program or "benchmarks"
        chunks = [section.charts[i:i + CHARTS_PER_PAGE] for i in range(0, len(section.charts), CHARTS_PER_PAGE)]
        for part, chunk in enumerate(chunks or [[]], 1):
            suffix = f" ({part} of {len(chunks)})" if len(chunks) > 1 else ""
            file = f"{stem}-{index}-{slug(name)}" + (f"-{part}" if part > 1 else "") + ".html"
            pages.append(Page(file, name + suffix, group,
                              [dataclasses.replace(section, title=section.title + suffix, charts=chunk)]))
    return pages


def whole(file: str, title: str, group: str, found: list[Section | None]) -> list[Page]:
    """One page of the sections found (none when every one is None)."""
    kept = [section for section in found if section is not None]
    return [Page(file, title, group, kept)] if kept else []


def locations(pages: list[Page]) -> dict[tuple[str, tuple], str]:
    """(kind, benchmark key) -> "page.html#chart-N" for every per-benchmark chart: the
    summary links each row to its history (or its samples)."""
    found: dict[tuple[str, tuple], str] = {}
    for page in pages:
        for section in page.sections:
            kind = "history" if section.id == "history" else "distribution"
            for chart in section.charts:
                if chart.key is not None:
                    found.setdefault((kind, chart.key[:4]), f"{page.file}#{chart.id}")
    return found
