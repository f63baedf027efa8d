"""The report opened from disk in real headless Chromium (Debian's, driven by Playwright):
it loads with no console error or warning, asks for nothing but its own files, draws every
chart, shows hostile benchmark names as text and runs none of them, and a screenshot is taken.

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
from benchlab.storage.store import Store
from report_data import HOSTILE_NAMES, history, profile_run, store_run, workload_records
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
    store = Store(f"sqlite:///{tmp_path / 'results.db'}")
    history(store)  # runs 1-10: 8 with a level shift, hostile names, workloads, a sweep; 2 profiles
    index = build(store, ["latest"], None, tmp_path / "report", floors={}, default_floor=0.01)
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


def test_the_page_loads_offline_draws_every_chart_and_runs_no_injected_script(browser, report, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    messages, requests, dialogs = [], [], []
    page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: messages.append(f"pageerror: {error}"))
    page.on("request", lambda request: requests.append(request.url))
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(report.as_uri())
    wait_until(page, "window.benchlab && window.benchlab.allDrawnMs !== null")

    state = page.evaluate("window.benchlab")
    assert state["charts"] >= 10 and state["drawn"] == state["charts"] and state["failed"] == 0
    undrawn = page.evaluate("Array.from(document.querySelectorAll('.chart'))"
                            ".filter(e => !e.querySelector('svg.main-svg')).map(e => e.id)")
    assert undrawn == []
    assert [m for m in messages if m.split(":")[0] in ("error", "warning", "pageerror")] == []
    assert [url for url in requests if not url.startswith("file://")] == []
    assert dialogs == []
    assert page.evaluate("document.scripts.length") == 3
    body = page.inner_text("body")
    for name in HOSTILE_NAMES:
        assert name in body
    # In the charts too: the trend chart's title and its axis labels show the name as written.
    assert page.evaluate("Array.from(document.querySelectorAll('.chart text'))"
                         ".some(t => t.textContent === '<script>alert(1)</script>')")

    screenshot = tmp_path / "report.png"
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.stat().st_size > 50_000
    kept = REPO / ".benchlab" / "report-screenshot.png"
    kept.parent.mkdir(exist_ok=True)
    shutil.copyfile(screenshot, kept)  # for a person to look at after the run
    page.close()


def test_hovering_a_trend_point_names_its_run_date_commit_and_host(browser, report):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(report.as_uri())
    wait_until(page, "window.benchlab && window.benchlab.allDrawnMs !== null")
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
    store = Store(f"sqlite:///{tmp_path / 'spiky.db'}")
    # Eight buckets: a legend of two rows or more, which must not land on the axis title.
    profile_run(store, {f"bucket number {i}": 12.5 for i in range(8)}, "2026-11-24T12:40:00Z")
    store_run(store, spiky_records() + workload_records(), ["native", "wasm"], "ef" * 20, "2026-11-24T12:44:38.9995Z")
    index = build(store, ["latest"], None, tmp_path / "spiky", floors={}, default_floor=0.01)
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
  return {id: gd.id, section: gd.closest('section').id, axes: axes,
          xticks: Array.from(gd.querySelectorAll('.xtick text, .x2tick text')).map(t => t.textContent),
          legend: legend && gd._fullLayout.showlegend ? box(legend) : null,
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
    """(kind, drawn, spec) of every chart of the page, each chart's screenshot kept."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(index.as_uri())
    wait_until(page, "window.benchlab && window.benchlab.allDrawnMs !== null")
    assert page.evaluate("window.benchlab.failed") == 0
    specs = json.loads(page.inner_text("#benchlab-charts"))
    found = []
    CHART_SHOTS.mkdir(parents=True, exist_ok=True)
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


def test_every_chart_type_draws_readable_non_negative_axes_and_legends_clear_of_titles(browser, report, spiky_report):
    drawn = draw(browser, report, "history") + draw(browser, spiky_report, "one-run")
    kinds = {kind for kind, _, _ in drawn}
    assert kinds == {"distribution", "ratios", "changes", "scaling", "trend", "workload", "bucket shares",
                     "bucket changes"}
    for kind, chart, spec in drawn:
        check_value_axes(kind, chart, spec)
        if kind == "distribution":
            check_distribution(chart, spec)
        if kind in ("trend", "workload"):
            # Runs are categories: one run (or runs seconds apart) has no ticks like 12:44:38.9995.
            assert chart["axes"]["xaxis"]["type"] == "category"
            assert chart["xticks"] and all(re.fullmatch(r"run \d+", tick) for tick in chart["xticks"]), chart["xticks"]
        if chart["legend"]:
            assert not any(overlaps(chart["legend"], title) for title in chart["titles"]), (kind, chart["id"])


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
