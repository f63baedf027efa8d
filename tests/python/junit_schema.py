"""Jenkins' junit-10.xsd (jenkinsci/xunit-plugin), the JUnit layout CI widgets read (GitLab's
artifacts:reports:junit, GitHub's test-report actions), as checks on a parsed document: each
element where the schema allows it, with the attributes it allows and requires, and times
of its SUREFIRE_TIME pattern. Plus what a widget adds up: the counts agree with the cases."""
from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

#: element -> (attributes allowed, attributes required, children allowed)
SCHEMA = {
    "testsuites": ({"name", "time", "tests", "failures", "errors"}, set(), {"testsuite"}),
    "testsuite": ({"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id",
                   "package", "file", "log", "url"}, {"name", "tests", "failures", "errors"},
                  {"testsuite", "properties", "testcase", "system-out", "system-err"}),
    "properties": (set(), set(), {"property"}),
    "property": ({"name", "value"}, {"name", "value"}, set()),
    "testcase": ({"name", "time", "classname", "group"}, {"name"},
                 {"skipped", "error", "failure", "system-out", "system-err"}),
    "failure": ({"type", "message"}, set(), set()),
    "error": ({"type", "message"}, set(), set()),
    "skipped": ({"type", "message"}, set(), set()),
    "system-out": (set(), set(), set()),
    "system-err": (set(), set(), set()),
}
SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?")


def _check(element: ElementTree.Element) -> None:
    allowed, required, children = SCHEMA[element.tag]
    assert set(element.attrib) <= allowed, (element.tag, set(element.attrib) - allowed)
    assert required <= set(element.attrib), (element.tag, required - set(element.attrib))
    if "time" in element.attrib and element.tag != "testcase":
        assert SUREFIRE_TIME.fullmatch(element.get("time")), element.get("time")
    for child in element:
        assert child.tag in children, (element.tag, child.tag)
        _check(child)


def read_junit(path: Path) -> ElementTree.Element:
    """The <testsuites> of a file valid by junit-10.xsd whose counts add up."""
    text = path.read_text()
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ElementTree.fromstring(text)
    assert root.tag == "testsuites"
    _check(root)
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == sum(case.find("failure") is not None for case in cases)
        assert int(suite.get("skipped")) == sum(case.find("skipped") is not None for case in cases)
        assert suite.get("errors") == "0"
    assert int(root.get("tests")) == sum(int(suite.get("tests")) for suite in root.iter("testsuite"))
    return root


def verdicts(root: ElementTree.Element) -> dict[str, str]:
    """{test case name: "failure:slower" | "skipped:inconclusive" | "passed"}."""
    found = {}
    for case in root.iter("testcase"):
        # the outcome, not a case's <system-out> (gate --judge counts: what it was judged on)
        outcome = next((child for child in case if child.tag in ("failure", "skipped", "error")), None)
        found[case.get("name")] = "passed" if outcome is None else f"{outcome.tag}:{outcome.get('type')}"
    return found
