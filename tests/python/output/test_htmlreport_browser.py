"""The report opened from disk in real headless Chromium (Debian's, driven by Playwright):
every page loads with no console error or warning, asks for nothing but its own files, draws
every chart, shows hostile benchmark names as text and runs none of them; every chart kind's
axes are read back as plotly drew them; the summary's verdicts are on the first screen of
four stores (one run; a baseline and a regression; profiles; many runs), photographed.

Chromium is a Debian package that scripts/setup.sh installs; without it these tests fail
saying so, rather than skip: a report nobody opened is not tested."""
from __future__ import annotations

import json
import random
import re
import shutil
import time
from pathlib import Path

import pytest

from benchlab.output.htmlreport import build
from benchlab.records import Record
from benchlab.storage.store import open_store
from report_data import (HOSTILE_NAMES, baseline_and_regression, history, profile_run, profiles_last, store_run,
                         suite_run, workload_records)
from conftest import REPO

CHROMIUM = "/usr/bin/chromium"
#: Seconds to wait for every chart to be drawn: generous, for a CI machine under load.
DRAW_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: the report's tests need Debian's chromium (bash scripts/setup.sh installs "
                    "it, or apt-get install chromium)", pytrace=False)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def report(tmp_path) -> Path:
    store = open_store(f"sqlite:///{tmp_path / 'results.db'}")
    history(store)  # runs 1-10: 8 with a level shift, hostile names, workloads, a sweep; 2 profiles
    index = build(store, ["latest"], None, tmp_path / "report")
    store.close()
    return index


def wait_until(page, expression: str, timeout_s: float = DRAW_TIMEOUT_S) -> None:
    """Poll with page.evaluate: the page's Content-Security-Policy forbids the eval that
    Playwright's wait_for_function uses."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"not true after {timeout_s} s: {expression}")
        time.sleep(0.05)


def pages_of(index: Path) -> list[Path]:
    return [index, *sorted(p for p in index.parent.glob("*.html") if p.name != "index.html")]


#: The tallest a page of the report may be at 1280 px wide: a few screens, not one scroll of 28,000 px.
MAX_PAGE_PX = 8000


def open_drawn(browser, path: Path):
    """A page with `path` loaded and every chart drawn; its console messages, requests and dialogs."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    seen = {"messages": [], "requests": [], "dialogs": []}
    page.on("console", lambda message: seen["messages"].append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: seen["messages"].append(f"pageerror: {error}"))
    page.on("request", lambda request: seen["requests"].append(request.url))
    page.on("dialog", lambda dialog: (seen["dialogs"].append(dialog.message), dialog.dismiss()))
    page.goto(path.as_uri())
    wait_until(page, "window.benchlab && window.benchlab.allDrawnMs !== null")
    return page, seen


def test_every_page_loads_offline_draws_every_chart_and_runs_no_injected_script(browser, report, tmp_path):
    charts, texts, in_charts = 0, [], 0
    for path in pages_of(report):
        page, seen = open_drawn(browser, path)
        state = page.evaluate("window.benchlab")
        assert state["drawn"] == state["charts"] and state["failed"] == 0, path.name
        charts += state["charts"]
        undrawn = page.evaluate("Array.from(document.querySelectorAll('.chart'))"
                                ".filter(e => !e.querySelector('svg.main-svg')).map(e => e.id)")
        assert undrawn == []
        assert [m for m in seen["messages"] if m.split(":")[0] in ("error", "warning", "pageerror")] == []
        assert [url for url in seen["requests"] if not url.startswith("file://")] == []
        assert seen["dialogs"] == []
        # The charts' JSON, report.js, and plotly.js where there are charts to draw.
        assert page.evaluate("document.scripts.length") == (3 if state["charts"] else 2), path.name
        assert page.evaluate("document.documentElement.scrollHeight") <= MAX_PAGE_PX, path.name
        # Every link of the navigation (and of the summary) leads to a page of the report.
        links = page.evaluate("Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))")
        assert all((report.parent / link.split("#")[0]).is_file() for link in links), links
        texts.append(page.inner_text("body"))
        # In the charts too: the ratio chart's axis labels show the name as written.
        in_charts += page.evaluate("Array.from(document.querySelectorAll('.chart text'))"
                                   ".filter(t => t.textContent === '<script>alert(1)</script>').length")
        page.close()
    assert charts >= 10 and in_charts > 0
    assert all(name in "\n".join(texts) for name in HOSTILE_NAMES)


def test_hovering_a_trend_point_names_its_run_date_commit_and_host(browser, report):
    page, _ = open_drawn(browser, next(report.parent.glob("history-*.html")))
    chart = page.locator("#history .chart").first
    chart.scroll_into_view_if_needed()
    point = chart.locator(".scatterlayer .trace").first.locator("path.point").last
    box = point.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    chart_id = chart.get_attribute("id")
    wait_until(page, f"document.querySelector('#{chart_id} .hoverlayer .hovertext') !== null", 10)
    hover = page.evaluate(f"document.querySelector('#{chart_id} .hoverlayer').textContent")
    assert "run 10" in hover and "commit 07abababab" in hover and "host " in hover and "2026" in hover
    page.close()


# -- what each chart draws: axis ranges read from plotly, a screenshot of every chart --------------

#: Where every chart's screenshot is kept, for a person to look at after the run.
CHART_SHOTS = REPO / ".benchlab" / "report-charts"


def spiky_records() -> list[Record]:
    """One run as the issue found them: 1 ns boxes with 90-180 us preemptions among their
    samples; a throughput and a latency of 3 processes that disagree, so that their rerun
    interval reaches below 0; the latency's processes 200x apart."""
    rng = random.Random(18)
    records = []
    for platform, level in (("native", 1.0), ("wasm", 1200.0)):
        for process in range(3):
            samples = [level * (1 + rng.gauss(0, 0.1)) + 0.3 for _ in range(200)]
            for index in (17, 90, 151):  # preemptions: 90,000 to 180,000 ns
                samples[index] = rng.uniform(90_000, 180_000)
            samples[60] = level * 1.35 + 0.3  # a mild outlier: beyond 1.5 IQR, within 3
            records.append(Record(bench="tiny_call", param=None, samples=samples, iterations=100_000,
                                  overhead_samples=[0.3 + rng.gauss(0, 0.01) for _ in range(200)],
                                  platform=platform, binary="calls", format="jsonl", reported={"process": process}))
    for counter, unit, levels in (("throughput", "ops/s", (1e6, 5e6, 9e6)), ("latency:op0", "ns", (20, 400, 4000))):
        for process, level in enumerate(levels):
            records.append(Record(bench="hash_map", param=None, counter=counter, unit=unit, iterations=1,
                                  samples=[level * (1 + rng.gauss(0, 0.02)) for _ in range(10)], platform="native",
                                  binary="hash_map", format="jsonl", reported={"process": process}))
    return records


@pytest.fixture
def spiky_report(tmp_path) -> Path:
    store = open_store(f"sqlite:///{tmp_path / 'spiky.db'}")
    # Eight buckets: a legend of two rows or more, which must not land on the axis title.
    profile_run(store, {f"bucket number {i}": 12.5 for i in range(8)}, "2026-11-24T12:40:00Z")
    store_run(store, spiky_records() + workload_records(), ["native", "wasm"], "ef" * 20, "2026-11-24T12:44:38.9995Z")
    index = build(store, ["latest"], None, tmp_path / "spiky")
    store.close()
    return index


#: Per chart: its section, spec, every axis as plotly drew it, the tick labels of its x axes,
#: and the boxes of its legend and axis titles (page coordinates).
DRAWN = """() => Array.from(document.querySelectorAll('.chart')).map(gd => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const axes = {};
  for (const name of Object.keys(gd._fullLayout).filter(k => /^[xy]axis[0-9]*$/.test(k))) {
    const axis = gd._fullLayout[name];
    axes[name] = {type: axis.type, range: axis.range.slice(), title: axis.title.text || ''};
  }
  const legend = gd.querySelector('.legend');
  const lines = t => { const parts = Array.from(t.querySelectorAll('tspan.line')).map(l => l.textContent);
                       return parts.length ? parts : [t.textContent]; };
  return {id: gd.id, section: gd.closest('section').id, axes: axes,
          xticks: Array.from(gd.querySelectorAll('.xtick text, .x2tick text')).map(lines),
          yticks: Array.from(gd.querySelectorAll('.ytick text')).map(t => t.textContent),
          legend: legend && gd._fullLayout.showlegend ? box(legend) : null,
          legendText: Array.from(gd.querySelectorAll('.legend .legendtext')).map(t => t.textContent),
          plot: box(gd.querySelector('.nsewdrag') || gd),
          shapes: Array.from(gd.querySelectorAll('.shapelayer path')).map(box),
          errorbars: gd.querySelectorAll('.errorbar').length,
          points: Array.from(gd.querySelectorAll('.scatterlayer .trace')).map(t =>
                    Array.from(t.querySelectorAll('path.point')).map(box)),
          titles: Array.from(gd.querySelectorAll('.g-xtitle, .g-ytitle, .g-x2title, .g-y2title'))
                       .filter(t => t.textContent).map(box)};
})"""


def kind_of(chart: dict, spec: dict) -> str:
    section = chart["section"].split("-")[0]
    if section == "profiles":
        return "bucket shares" if spec["layout"].get("barmode") == "stack" else "bucket changes"
    return {"run": "distribution", "ratios": "ratios", "changes": "changes", "sweeps": "scaling",
            "history": "trend", "workloads": "workload"}[section]


def draw(browser, index: Path, shots: str) -> list[tuple[str, dict, dict]]:
    """(kind, drawn, spec) of every chart of every page, each chart's screenshot kept."""
    found = []
    CHART_SHOTS.mkdir(parents=True, exist_ok=True)
    for path in pages_of(index):
        page, _ = open_drawn(browser, path)
        assert page.evaluate("window.benchlab.failed") == 0
        specs = json.loads(page.inner_text("#benchlab-charts"))
        for chart in page.evaluate(DRAWN):
            kind = kind_of(chart, specs[chart["id"]])
            shot = CHART_SHOTS / f"{shots}-{chart['id']}-{kind.replace(' ', '-')}.png"
            page.locator(f"#{chart['id']}").screenshot(path=str(shot))
            assert shot.stat().st_size > 5_000
            found.append((kind, chart, specs[chart["id"]]))
        page.close()
    return found


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def panel_values(spec: dict, yaxis: str) -> list[float]:
    """Every value a distribution panel draws: whiskers, outlier points, the figure's interval."""
    trace_axis = "y" + yaxis.removeprefix("yaxis")
    values = []
    for trace in spec["data"]:
        if trace.get("yaxis", "y") != trace_axis:
            continue
        if trace["type"] == "box":
            values += [trace["lowerfence"][0], trace["upperfence"][0]]
        else:
            values += trace["y"]
            if "error_y" in trace:
                values += [trace["y"][0] - trace["error_y"]["arrayminus"][0], trace["y"][0] + trace["error_y"]["array"][0]]
    return values


def check_value_axes(kind: str, chart: dict, spec: dict) -> None:
    """No time, rate, count or ratio axis below 0: linear from 0 up, or logarithmic."""
    for name, axis in chart["axes"].items():
        value_axis = name.startswith("y") and kind not in ("changes", "bucket changes", "bucket shares")
        if value_axis and axis["type"] == "linear":
            assert axis["range"][0] >= 0, (kind, chart["id"], name, axis)
        if value_axis and axis["type"] == "log":
            assert kind in ("ratios", "distribution", "trend"), (kind, name)


def check_distribution(chart: dict, spec: dict) -> None:
    """Each panel runs from its lowest to its highest drawn value (with plotly's padding),
    not to a preemption beyond them; a panel spanning over 100x is logarithmic."""
    for name, axis in chart["axes"].items():
        if not name.startswith("y"):
            continue
        values = panel_values(spec, name)
        if axis["type"] == "linear":
            assert 0 <= axis["range"][0] and axis["range"][1] < 1.5 * max(values), (chart["id"], name, axis, values)
        else:  # within a factor of 2 of the values drawn, not 1e-48 for an interval down to 0
            low, high = (10 ** v for v in axis["range"])
            assert min(v for v in values if v > 0) / 2 < low and high < 2 * max(values), (chart["id"], name, axis)
        positive = [v for v in values if v > 0]  # an interval clamped at 0 does not keep a panel linear
        assert (axis["type"] == "log") == (max(positive) / min(positive) > 100), (name, axis, values)


def check_ratios(chart: dict, spec: dict) -> None:
    """Bars from 1 on a log axis that holds 1 and runs no further than twice past the bars and
    their intervals (not from 0.01), ticks that read as ratios, the platforms named."""
    axis = chart["axes"]["yaxis"]
    assert axis["type"] == "log" and axis["range"][0] < 0 < axis["range"][1], axis
    ends = [1 + y for trace in spec["data"] for y in trace["y"]]
    for trace in spec["data"]:
        assert trace["base"] == 1
        ends += [1 + y + up for y, up in zip(trace["y"], trace["error_y"]["array"])]
        ends += [1 + y - down for y, down in zip(trace["y"], trace["error_y"]["arrayminus"])]
    low, high = (10 ** v for v in axis["range"])
    assert min([1.0, *ends]) / 2 < low and high < 2 * max([1.0, *ends]), (axis, min(ends), max(ends))
    assert chart["yticks"] and all(re.fullmatch(r"\d+(\.\d+)?\u00d7", tick) for tick in chart["yticks"]), chart["yticks"]
    assert "1\u00d7" in chart["yticks"]
    assert chart["legendText"] and all(" \u00f7 " in name for name in chart["legendText"]), chart["legendText"]


def check_changes(chart: dict, spec: dict) -> None:
    """The axis as change_axis set it, the noise band a visible strip of it, the rows beyond the
    axis drawn inside it as arrows, and no other point outside."""
    axis = chart["axes"]["xaxis"]
    assert axis["range"] == pytest.approx(spec["layout"]["xaxis"]["range"])
    left, top, right, bottom = chart["plot"]
    band = spec["layout"]["shapes"][0]
    drawn_band = chart["shapes"][0]
    assert drawn_band[2] - drawn_band[0] >= 8, drawn_band  # px: the band is seen, not a hairline
    assert (band["x1"] - band["x0"]) / (axis["range"][1] - axis["range"][0]) > 0.015
    low, high = axis["range"]
    names = [t["name"] for t in spec["data"]]  # every trace a scatter: drawn in this order
    beyond = [x for x in spec["data"][names.index("change")]["x"] if not low < x < high]
    arrows = spec["data"][names.index("beyond the axis")]["x"] if "beyond the axis" in names else []
    assert len(beyond) == len(arrows) and all(low < x < high for x in arrows)
    drawn_arrows = chart["points"][names.index("beyond the axis")] if arrows else []
    assert len(drawn_arrows) == len(arrows)
    assert all(left <= (p[0] + p[2]) / 2 <= right for p in drawn_arrows), (chart["plot"], drawn_arrows)


def check_run_ticks(chart: dict) -> None:
    """Runs are categories, each tick its run and commit: one run (or runs seconds apart) has no
    ticks like 12:44:38.9995, and a step names the commit it came with."""
    assert chart["axes"]["xaxis"]["type"] == "category"
    assert chart["xticks"], chart["id"]
    for lines in chart["xticks"]:
        assert len(lines) == 2 and re.fullmatch(r"run \d+", lines[0]), lines
        assert re.fullmatch(r"[0-9a-f]{7}\+?|no commit", lines[1]), lines


@pytest.fixture
def regression_report(tmp_path) -> Path:
    store = open_store(f"sqlite:///{tmp_path / 'regression.db'}")
    baseline_and_regression(store)
    index = build(store, ["latest"], "main", tmp_path / "regression")
    store.close()
    return index


def test_every_chart_type_draws_readable_axes_and_legends_clear_of_titles(browser, report, spiky_report,
                                                                          regression_report):
    drawn = (draw(browser, report, "history") + draw(browser, spiky_report, "one-run")
             + draw(browser, regression_report, "regression"))
    kinds = {kind for kind, _, _ in drawn}
    assert kinds == {"distribution", "ratios", "changes", "scaling", "trend", "workload", "bucket shares",
                     "bucket changes"}
    for kind, chart, spec in drawn:
        check_value_axes(kind, chart, spec)
        if kind == "distribution":
            check_distribution(chart, spec)
        if kind == "ratios":
            check_ratios(chart, spec)
        if kind == "changes":
            check_changes(chart, spec)
        if kind in ("trend", "workload"):
            check_run_ticks(chart)
        if kind == "bucket changes":  # perf's samples: each move with its interval of sampling noise
            assert "error_x" in spec["data"][0] and chart["errorbars"] > 0
        if chart["legend"]:
            assert not any(overlaps(chart["legend"], title) for title in chart["titles"]), (kind, chart["id"])
    clipped = [spec for kind, _, spec in drawn if kind == "changes"
               and any(t["name"] == "beyond the axis" for t in spec["data"])]
    assert clipped, "the regression store's 19x row must be drawn beyond the axis"


def test_preemptions_are_counted_not_drawn_and_intervals_stop_at_zero(browser, spiky_report):
    drawn = draw(browser, spiky_report, "spiky")
    charts = {spec["layout"]["yaxis"]["title"]["text"]: (chart, spec) for kind, chart, spec in drawn
              if kind == "distribution"}
    tiny, tiny_spec = charts["time (ns)"]
    assert [tiny["axes"][a]["type"] for a in ("yaxis", "yaxis2")] == ["linear", "linear"]
    assert tiny["axes"]["yaxis"]["range"][1] < 2 and tiny["axes"]["yaxis2"]["range"][1] < 2000
    for axis, trace_axis in (("yaxis", "y"), ("yaxis2", "y2")):  # each box a readable part of its panel
        low, high = tiny["axes"][axis]["range"]
        assert all((t["q3"][0] - t["q1"][0]) / (high - low) > 0.1 for t in tiny_spec["data"]
                   if t["type"] == "box" and t.get("yaxis", "y") == trace_axis)
    outliers = [t for t in tiny_spec["data"] if t["type"] == "scatter" and t["name"].endswith("beyond 1.5 IQR")]
    # Each process's planted 1.35x sample (and any beyond 1.5 IQR by chance) drawn; no preemption.
    assert len(outliers) == 6 and all(0 < len(t["y"]) < 6 and max(t["y"]) < 2000 for t in outliers)
    boxes = [t for t in tiny_spec["data"] if t["type"] == "box"]
    assert all("(3 beyond 3 IQR not drawn, the furthest 1" in t["name"] for t in boxes)
    throughput, _ = charts["throughput (ops/s)"]
    latency, _ = charts["latency:op0 (ns)"]
    assert throughput["axes"]["yaxis"]["type"] == "linear" and throughput["axes"]["yaxis"]["range"][0] >= 0
    assert latency["axes"]["yaxis"]["type"] == "log"  # 20 ns next to 4000 ns


# -- the first screen: the summary a reviewer reads, photographed for four stores -------------------

#: Where the first screens are kept, for a person to look at after the run.
FIRST_SCREENS = REPO / ".benchlab" / "report-screens"
VIEWPORT = {"width": 1280, "height": 900}


def one_run(store):
    store_run(store, suite_run(), ["native", "wasm"], "ab" * 20, "2026-11-20T09:00:00Z")


def many_runs(store):
    history(store, runs=30, shift_at=20)


#: store -> (how it is filled, --baseline, what must be on the first screen, by element id).
STORES = {
    "one-run": (one_run, None, ["verdicts-none", "history-summary", "platforms-summary"]),
    "baseline-and-regression": (baseline_and_regression, "main", ["verdicts-1", "history-summary"]),
    "profiles": (profiles_last, None, ["verdicts-1", "measured-summary", "history-summary", "profiles-summary"]),
    "many-runs": (many_runs, None, ["verdicts-1", "history-summary"]),
}


@pytest.mark.parametrize("name", list(STORES))
def test_the_first_screen_holds_the_verdicts_and_the_history(browser, tmp_path, name):
    fill, baseline, on_screen = STORES[name]
    store = open_store(f"sqlite:///{tmp_path / 'results.db'}")
    fill(store)
    index = build(store, [], baseline, tmp_path / "report")
    store.close()
    page, seen = open_drawn(browser, index)
    assert [m for m in seen["messages"] if m.split(":")[0] in ("error", "warning", "pageerror")] == []
    tops = page.evaluate("ids => ids.map(id => document.getElementById(id).getBoundingClientRect().top)", on_screen)
    assert all(top < VIEWPORT["height"] - 40 for top in tops), dict(zip(on_screen, tops))
    tiles = page.evaluate("Array.from(document.querySelectorAll('.tile')).map(t => t.innerText.replace(/\\n/g, ' '))")
    if name == "baseline-and-regression":
        assert tiles == ["4 slower", "4 inconclusive", "2 not slower, of which 2 faster"]
        first = page.locator(".list").first.locator("tr").nth(1)
        assert first.inner_text().split("\t")[:2] == ["tiny_call", "wasm"]
        assert first.bounding_box()["y"] < VIEWPORT["height"]
    if name == "one-run":
        assert tiles[0] == "6 figures measured in run 1"
    FIRST_SCREENS.mkdir(parents=True, exist_ok=True)
    shot = FIRST_SCREENS / f"{name}.png"
    page.screenshot(path=str(shot))  # the viewport: what a reviewer sees before scrolling
    assert shot.stat().st_size > 20_000
    page.close()
