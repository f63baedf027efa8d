"""The table of a comparison (`compare`, `gate`, `ab`): one row per figure, its ratio B/A,
the 99% interval and one of three verdicts (statistics/compare.py), in text, markdown or
json, with the lines that say what the intervals rest on and what is still undecided.

And the answer of `gate` and `ab` (statistics/answer.py's `Answer`): what the gate prints on
stdout (`answer_text`), and a Markdown document for a CI job's summary and a pull-request
comment (`summary_markdown`); output/junit.py writes the same answer as JUnit XML.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterable

from benchlab.output.exporters.json import document_text
from benchlab.output.fitting import MIN_GAP, Column, Narrower, fit, wrapped
from benchlab.output.figures import UNINFORMATIVE_WORD
from benchlab.statistics.compare import (
    CODE_CHANGED, FASTER, INCONCLUSIVE, MACHINE_CHANGED, NOT_SLOWER, SLOWER, VERDICTS, WITHIN_ONE_PROCESS,
    Comparison, geometric_mean, row_name)
from benchlab.records import printable
from benchlab.statistics.answer import Answer, row_answer, row_label, shown_uninformative


#: The B/A and interval cells of a row whose B/A is no finite number (Comparison.defined).
NO_FIGURE = "-"


def interval_text(c: Comparison) -> str:
    """`[low, high]`, or "uninformative" for an interval wider than the figure that reaches
    both sides of the threshold (statistics/answer.py, shown_uninformative), "-" without one."""
    if not c.defined:
        return NO_FIGURE
    return UNINFORMATIVE_WORD if shown_uninformative(c) else f"[{c.low:.4f}, {c.high:.4f}]"


def ratio_cell(c: Comparison) -> str:
    return f"{c.ratio:.4f}" if c.defined else NO_FIGURE


def verdict_text(c: Comparison) -> str:
    return (c.verdict + (f" ({FASTER})" if c.faster else "")
            + (" (1 process)" if c.scope == WITHIN_ONE_PROCESS else "") + (f": {c.cause}" if c.cause else ""))


def summary_line(comparisons: list[Comparison]) -> str:
    counts = {verdict: sum(1 for c in comparisons if c.verdict == verdict) for verdict in VERDICTS}
    faster = sum(1 for c in comparisons if c.faster)
    gmean = geometric_mean(comparisons)
    return (f"{len(comparisons)} compared: {counts[SLOWER]} {SLOWER}, {counts[NOT_SLOWER]} {NOT_SLOWER} "
            f"({faster} {FASTER}), {counts[INCONCLUSIVE]} {INCONCLUSIVE}; geometric mean of B/A "
            + (f"{gmean:.4f}" if gmean else "-"))


def as_json(c: Comparison) -> dict:
    """One row as `--format json` writes it: the interval's numbers for programs, and
    `uninformative` true where they bound nothing (the text says the word instead)."""
    return {"test": c.key[0], "param": c.key[1], "counter": c.key[2], "sweep": c.key[3], "platform": c.platform,
            "program": c.program,
            "unit": c.unit, "a": c.a, "b": c.b, "ratio": c.ratio,
            "ratio_ci": [c.low, c.high], "uninformative": c.uninformative,
            "verdict": c.verdict, "faster": c.faster, "threshold": c.limit - 1, "noise_floor": c.floor,
            "interval": c.scope, "processes": list(c.processes), "deterministic": c.deterministic,
            "cause": c.cause, **({"rounds": {"a": c.rounds[0], "b": c.rounds[1]}} if c.rounds is not None else {}),
            **({"judged_on": c.judged_on, "judged_on_reason": c.judged_on_reason} if c.judged_on else {})}


def judged_text(c: Comparison) -> str:
    """What `gate --judge counts` judged the row on: counts, or time and why."""
    return f"{c.judged_on} ({c.judged_on_reason})" if c.judged_on_reason else (c.judged_on or "")


def render(comparisons: list[Comparison], a_label: str, b_label: str, output_format: str,
           differences: Iterable[str] = (), width: int | None = None) -> str:
    """The comparison as text, markdown or json (a document with every row); the text within
    `width` columns when given (a terminal's: output/fitting.py)."""
    differences = list(differences)
    if output_format == "json":
        return document_text({"a": a_label, "b": b_label, "context_differences": differences,
                              "geometric_mean": geometric_mean(comparisons),
                              "verdicts": {verdict: sum(1 for c in comparisons if c.verdict == verdict)
                                           for verdict in VERDICTS},
                              "comparisons": [as_json(c) for c in comparisons]}, indent=1)
    markdown = output_format == "markdown"
    # In Markdown a name is a code span, any other outside text escaped (markdown_code, markdown_text)
    name_of, text_of = (markdown_code, markdown_text) if markdown else (str, str)
    names = shown_names(comparisons)
    rows = [(name_of(name), text_of(c.platform), f"{c.a:.4g}", f"{c.b:.4g}", ratio_cell(c), interval_text(c),
             verdict_text(c)) for name, c in zip(names, comparisons)]
    heads = ("TEST", "PLATFORM", f"A ({text_of(a_label)})", f"B ({text_of(b_label)})", "B/A", "99% interval", "VERDICT")
    if any(c.judged_on for c in comparisons):  # gate --judge counts: the basis of each row
        rows = [(*row, text_of(judged_text(c))) for row, c in zip(rows, comparisons)]
        heads = (*heads, "JUDGED ON")
    lines = []
    if differences:
        lines.append("the two runs differ in: " + "; ".join(map(text_of, differences)))
    if markdown:
        return "\n".join(_markdown(lines, heads, rows, note_lines(comparisons, markdown_code))) + "\n"
    lines += text_table(heads, rows, comparisons, width, (a_label, b_label))
    return "\n".join(wrapped(lines + note_lines(comparisons), width, "    ")) + "\n"


def shown_names(comparisons: list[Comparison]) -> list[str]:
    """Each row's name as the table shows it: `bench/param`, and its program first
    (`read.sh: Read/1`) where two programs of one `ab` or gate give a row of the same name
    on the same platform, which would otherwise read as one row twice."""
    seen: dict[tuple, set] = {}
    for c in comparisons:
        seen.setdefault((c.key, c.platform), set()).add(c.program)
    return [f"{printable(c.program)}: {row_name(c.key)}" if len(seen[(c.key, c.platform)]) > 1 else row_name(c.key)
            for c in comparisons]


def _markdown(differences: list[str], heads: tuple[str, ...], rows: list[tuple[str, ...]], notes: list[str]) -> list[str]:
    """The table in GitHub-flavoured Markdown (a `|` in a name escaped: it would end its cell),
    the notes under it as a list: lines of text would run into one paragraph."""
    def line(values) -> str:
        return "| " + " | ".join(value.replace("|", "\\|") for value in values) + " |"
    lines = [*differences, ""] if differences else []
    lines += [line(heads), "|" + "---|" * len(heads), *(line(row) for row in rows), ""]
    return lines + [f"- {note}" for note in notes]


def note_lines(comparisons: list[Comparison], name_of: Callable[[str], str] = str) -> list[str]:
    """The lines under the table: the verdicts counted, what the intervals rest on, what the
    verdicts and marks mean; each row named as `name_of` writes it (Markdown: a code span)."""
    lines = [summary_line(comparisons)]
    lines.extend(error_term_lines(comparisons, name_of))
    thresholds = sorted({round(100 * (c.limit - 1), 6) for c in comparisons})
    if thresholds:
        lines.append(f"verdicts at {', '.join(f'{t:g}%' for t in thresholds)}: {SLOWER} = the whole interval above "
                     f"1 + threshold, {NOT_SLOWER} = at or below it, {INCONCLUSIVE} = across it")
    if any(c.scope == WITHIN_ONE_PROCESS for c in comparisons):
        lines.append("(1 process): a side has one process per benchmark; its interval cannot see what changes "
                     "between runs (CPU, layout, the machine's phase): rerun with benchlab run --processes N")
    if any(c.cause for c in comparisons):
        lines.append(f"{CODE_CHANGED}: the benchmark's instruction count moved too; {MACHINE_CHANGED}: its time "
                     "moved beyond the noise while its instruction count did not")
    if not all(c.defined for c in comparisons):
        lines.append(f"{NO_FIGURE}: B/A is not a finite number (one figure is too large or too small for the "
                     f"other), so the row is {INCONCLUSIVE}; check the two figures")
    return lines


def error_term_lines(comparisons: list[Comparison], name_of: Callable[[str], str] = str) -> list[str]:
    """What each row's interval rests on (its method): one line when all rows share it,
    else a line per error term naming its rows."""
    by_scope: dict[str, list[str]] = {}
    for c in comparisons:
        by_scope.setdefault(c.scope, []).append(name_of(row_label(c)))
    if len(by_scope) == 1:
        return [f"error term: {next(iter(by_scope))}"]
    return [f"error term {scope}: {', '.join(rows)}" for scope, rows in by_scope.items()]


def text_table(heads: tuple[str, ...], rows: list[tuple[str, ...]], comparisons: list[Comparison],
               width: int | None, labels: tuple[str, str]) -> list[str]:
    """The text table within `width` (fitting.py): the name, B/A, its interval and the verdict
    stay. A and B are named in the note instead of their headings, then hidden; then the
    platform when every row has the same; then the verdicts' causes and "(1 process)" (the
    lines under the table explain them); the name is cut last."""
    columns = [Column(head, [row[index] for row in rows], cut=index == 0) for index, head in enumerate(heads)]
    named = [label if label.startswith(f"{side}: ") else f"{side} is {label}" for side, label in zip("AB", labels)]
    steps = [Narrower(", ".join(named),
                      {2: dataclasses.replace(columns[2], heading="A"), 3: dataclasses.replace(columns[3], heading="B")}),
             Narrower("A and B hidden", {2: None, 3: None})]
    platforms = {c.platform for c in comparisons}
    if len(platforms) == 1:
        steps.append(Narrower(f"PLATFORM hidden (all {next(iter(platforms))})", {1: None}))
    verdicts = [c.verdict + (f" ({FASTER})" if c.faster else "") for c in comparisons]
    steps.append(Narrower("verdicts' notes left out", {6: Column(heads[6], verdicts)}))
    if len(heads) > 7:
        steps.append(Narrower("JUDGED ON's reasons left out", {7: Column(heads[7], [c.judged_on for c in comparisons])}))
    fitted = fit(columns, steps, width, gap=MIN_GAP)
    return [*fitted.lines(rule=False), *fitted.note_lines()]


def answer_text(answer: Answer, output_format: str, width: int | None = None) -> str:
    """What the gate prints on stdout: the comparison (`render`); for a baseline that does
    not exist yet nothing, or under json a document that says so and holds no rows."""
    if not answer.no_baseline:
        return render(answer.comparisons, answer.a_label, answer.b_label, output_format, answer.differences,
                      width=width)
    if output_format != "json":
        return ""
    return document_text({"a": answer.a_label, "b": answer.b_label, "no_baseline": True, "comparisons": [],
                          "verdicts": {verdict: 0 for verdict in VERDICTS}}, indent=1)


def summary_markdown(answer: Answer) -> str:
    """The answer as Markdown: a heading that says it, what was compared, the table and its
    notes, then the lines that decided it (the rows named, what would decide the undecided).
    Names are code spans, other outside text escaped: a benchmark named `</details>`,
    `![x](http://...)` or `@team` shows as those characters, never as HTML, an image or a
    mention (GitHub renders a pull request's comment and a job's summary)."""
    lines = [f"### benchlab {markdown_text(answer.heading)}", "", markdown_text(answer.subject), ""]
    if answer.comparisons:
        lines.append(render(answer.comparisons, answer.a_label, answer.b_label, "markdown", answer.differences))
    # the gate's notes name programs and paths within free text: each note a code span whole
    said = judgment_markdown(answer) + [markdown_code(line) for line in answer.notes]
    if said:
        lines += [*(f"- {line}" for line in said), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def judgment_markdown(answer: Answer) -> list[str]:
    """The judgment's lines but its last (the heading) in Markdown: each slower and each
    undecided row named as a code span, in the order judgment.judge writes them, then the
    rest (what would decide the undecided rows) escaped."""
    if answer.judgment is None:
        return []
    judgment = answer.judgment
    named = [("regression", c) for c in judgment.slower] + [("inconclusive", c) for c in judgment.undecided]
    if answer.no_baseline:
        named = []
    lines = [f"{word}: {markdown_code(row_label(c))}: {row_answer(c)}" for word, c in named]
    return lines + [markdown_text(line) for line in judgment.lines[len(named):-1]]


#: What GitHub-flavoured Markdown could read as markup anywhere in a line: emphasis, links
#: and images, HTML and entities, strikethrough, an escape; and at its start a heading or a
#: list. (A `|` is escaped where the text is a table cell: _markdown.)
_MARKUP = re.compile(r"([\\`*_\[\]<>&!~])|^([#+=-])")


def markdown_text(text: str) -> str:
    """Outside text (a path, a label) in Markdown: every character that could be markup
    backslash-escaped, so that it shows as written. For names use markdown_code: text
    filters (@mentions, #references) skip code alone."""
    return _MARKUP.sub(lambda found: "\\" + found.group(0), printable(text))


def markdown_code(text: str) -> str:
    """A name as a Markdown code span: literal whatever it holds (no emphasis, link, image,
    HTML or @mention). Fenced by one backtick more than its longest run of backticks, with
    a space inside each fence where it starts or ends with a backtick or a space
    (CommonMark 6.1 strips one); a `|` is escaped where the span is a table cell (_markdown)."""
    text = printable(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
