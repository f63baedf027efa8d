"""The pages: index.html (the summary) and each page it links to, from Jinja2 templates
(autoescaped) that share one layout and navigation (base.html.j2), plotly.js and report.js
beside them; each page holds the JSON of its own charts only.

Nothing in them reaches the network: plotly.js is a copy kept in this package, the scripts
are files beside the page, and a Content-Security-Policy forbids any connection, so a page
opened from disk or mailed as a folder shows the same.

The copy is plotly.js's own cartesian bundle (npm's plotly.js-cartesian-dist-min, MIT,
LICENSE beside it; the same release the plotly Python package bundles in full): scatter,
bar and box traces, all the charts draw, in 1.5 MB instead of 4.8. The page cannot draw
before the browser has parsed the whole script, and on a 2-core VM parsing the full
bundle took most of its load time (docs/cli.md, *benchlab report*).
"""
from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

from benchlab.output.exporters.json import finite
from benchlab.records import printable

#: Files written beside index.html (the scripts the page loads).
PLOTLY_JS = "plotly.min.js"
REPORT_JS = "report.js"
#: The stamp that tells a directory holds a benchlab report, so that --out may replace it.
STAMP = ".benchlab-report"

#: Characters that could end the <script> element holding the charts' JSON, or confuse an
#: HTML parser inside it, written as JSON escapes (JSON.parse reads them back as they were).
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: Any) -> str:
    """JSON safe inside <script type="application/json">: a name holding `</script>` cannot end it.
    NaN and infinities (a linearity with no reference) become null, a gap in plotly's lines:
    JSON has no word for them, and JSON.parse would refuse the page's data."""
    encoded = json.dumps(finite(value), separators=(",", ":"), allow_nan=False)
    for character, escape in _SCRIPT_ESCAPES.items():
        encoded = encoded.replace(character, escape)
    return encoded


def _environment():
    # Imported here: every benchlab command imports the CLI, and only this one needs Jinja2.
    import jinja2
    loader = jinja2.PackageLoader("benchlab.output.htmlreport", "templates")
    # Autoescape everything: benchmark names, hosts and commands are user input.
    # finalize: every text shown with its control characters escaped (records.printable), so
    # that a name's U+202E cannot reverse a table row; the charts' JSON (Markup) is left alone.
    return jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, finalize=_printable)


def _printable(value):
    from markupsafe import Markup
    return printable(value) if isinstance(value, str) and not isinstance(value, Markup) else value


#: The bundle kept in this package (see the module's docstring), written as PLOTLY_JS.
PLOTLY_BUNDLE = "plotly-cartesian.min.js"


def plotly_js_path() -> Path:
    """plotly.js's cartesian bundle as this package keeps it."""
    path = Path(str(resources.files("benchlab.output.htmlreport") / "static" / PLOTLY_BUNDLE))
    if not path.is_file():
        from benchlab.errors import UserError
        raise UserError(f"benchlab's copy of plotly.js is missing ({path})",
                        "reinstall benchlab: bash scripts/setup.sh, or pip install --force-reinstall benchlab")
    return path


def write(directory: Path, context: dict[str, Any]) -> Path:
    """Write index.html (the summary), every page it links to, and the scripts into
    `directory` (which exists and is empty)."""
    environment = _environment()
    pages = context["pages"]
    groups = list(_groups(pages).items())
    common = {**context, "groups": groups}
    index = directory / "index.html"
    _render(environment, "index.html.j2", index, {**common, "current": None}, [])
    for page in pages:
        charts = [chart for section in page.sections for chart in section.charts]
        _render(environment, "page.html.j2", directory / page.file, {**common, "current": page}, charts)
    runs = {"file": RUNS_PAGE, "group": "Runs", "title": "Runs"}
    _render(environment, "runs.html.j2", directory / RUNS_PAGE, {**common, "current": runs}, [])
    shutil.copyfile(plotly_js_path(), directory / PLOTLY_JS)
    report_js = resources.files("benchlab.output.htmlreport") / "static" / REPORT_JS
    (directory / REPORT_JS).write_text(report_js.read_text(encoding="utf-8"), encoding="utf-8")
    (directory / STAMP).write_text("written by benchlab report; the directory may be replaced by the next one\n")
    return index


#: The page listing every run the report draws on.
RUNS_PAGE = "runs.html"


def _groups(pages) -> dict[str, list]:
    """Pages by their navigation heading, in the order they were made."""
    groups: dict[str, list] = {}
    for page in pages:
        groups.setdefault(page.group, []).append(page)
    return groups


def _render(environment, template: str, path: Path, context: dict[str, Any], charts: list) -> None:
    specs = {chart.id: chart.spec() for chart in charts}
    html = environment.get_template(template).render(**context, charts_json=script_json(specs),
                                                     has_charts=bool(specs))
    path.write_text(html, encoding="utf-8")
