"""The verdicts of `gate` and `ab` as JUnit XML (`--junit FILE`), for the test widgets of CI
(GitLab's `artifacts:reports:junit`, GitHub's test-report actions, Jenkins).

One <testcase> per row of the comparison, named as the table names it (`Read/1 on
native`), its classname the program it comes from. What the command's answer counts as
failing fails: a slower row is a <failure type="slower">; an inconclusive row is a
<failure type="inconclusive"> under `--inconclusive=fail` (the default: undecided is never
a pass) and <skipped> under `--inconclusive=pass`; a row not slower passes. A gate with no
baseline yet has one skipped test case that says so. Each failure's message is the line the
command prints for the row; the table itself is the suite's <system-out>.

The layout is the one Jenkins' junit-10.xsd describes and the widgets read:
<testsuites name tests failures errors time> around one <testsuite name tests failures errors
skipped time timestamp hostname> with <properties>, the test cases and <system-out>.
"""
from __future__ import annotations

import socket
import xml.etree.ElementTree as ElementTree
from datetime import datetime, timezone

from benchlab.output import comparisons
from benchlab.records import printable
from benchlab.statistics.answer import Answer, row_answer
from benchlab.statistics.compare import INCONCLUSIVE, SLOWER, Comparison, row_name


def render(answer: Answer, now: datetime | None = None) -> str:
    """The whole document; `now` (UTC) is the suite's timestamp (the clock, unless given)."""
    cases = [_case(answer, c) for c in answer.comparisons] or [_no_rows_case(answer)]
    failures = sum(1 for case in cases if case.find("failure") is not None)
    skipped = sum(1 for case in cases if case.find("skipped") is not None)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0"}
    seconds = f"{answer.seconds:.3f}"
    suites = ElementTree.Element("testsuites", {"name": f"benchlab {answer.command}", **counts, "time": seconds})
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%S")
    suite = ElementTree.SubElement(suites, "testsuite", {
        "name": printable(f"benchlab {answer.command}: {answer.subject}"), **counts, "skipped": str(skipped),
        "time": seconds, "timestamp": stamp, "hostname": printable(socket.gethostname())})
    properties = ElementTree.SubElement(suite, "properties")
    for name, value in _properties(answer):
        ElementTree.SubElement(properties, "property", {"name": name, "value": value})
    suite.extend(cases)
    if answer.comparisons:
        ElementTree.SubElement(suite, "system-out").text = comparisons.render(
            answer.comparisons, answer.a_label, answer.b_label, "table", answer.differences)
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"


def _properties(answer: Answer) -> list[tuple[str, str]]:
    answered = [("answer", printable(answer.heading)), ("inconclusive", answer.inconclusive)]
    if any(c.judged_on for c in answer.comparisons):
        answered.append(("judge", "counts"))
    thresholds = sorted({f"{100 * (c.limit - 1):g}%" for c in answer.comparisons})
    return answered + ([("thresholds", ", ".join(thresholds))] if thresholds else [])


def _case(answer: Answer, c: Comparison) -> ElementTree.Element:
    case = ElementTree.Element("testcase", {"name": f"{row_name(c.key)} on {printable(c.platform)}",
                                            "classname": printable(c.program or answer.command), "time": "0"})
    message = row_answer(c)
    if c.verdict == SLOWER:
        _child(case, "failure", message, SLOWER, c)
    elif c.verdict == INCONCLUSIVE and answer.inconclusive == "fail":
        _child(case, "failure", message, INCONCLUSIVE, c)
    elif c.verdict == INCONCLUSIVE:
        _child(case, "skipped", f"{message} (accepted by --inconclusive=pass)", INCONCLUSIVE, c)
    if c.judged_on:  # gate --judge counts: what the row was judged on
        ElementTree.SubElement(case, "system-out").text = f"judged on {comparisons.judged_text(c)}"
    return case


def _child(case: ElementTree.Element, tag: str, message: str, kind: str, c: Comparison) -> None:
    element = ElementTree.SubElement(case, tag, {"message": message, "type": kind})
    element.text = (f"B/A {comparisons.ratio_cell(c)}, 99% interval {comparisons.interval_text(c)}, A {c.a:.4g} {c.unit}, "
                    f"B {c.b:.4g} {c.unit}; error term: {c.scope}")


def _no_rows_case(answer: Answer) -> ElementTree.Element:
    """A gate with no baseline yet (or nothing compared): one skipped case that says why, so
    that a widget shows the note rather than "no tests found"."""
    case = ElementTree.Element("testcase", {"name": "baseline", "classname": answer.command, "time": "0"})
    lines = answer.judgment.lines if answer.judgment else [answer.heading]
    skipped = ElementTree.SubElement(case, "skipped", {"message": printable(lines[0]), "type": "no baseline"})
    skipped.text = "\n".join(printable(line) for line in lines)
    return case
