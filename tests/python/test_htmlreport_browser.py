"""The report opened from disk in real headless Chromium (Debian's, driven by Playwright):
it loads with no console error or warning, asks for nothing but its own files, draws every
chart, shows hostile benchmark names as text and runs none of them, and a screenshot is taken.

Chromium is a Debian package that scripts/setup.sh installs; without it these tests fail
saying so, rather than skip: a report nobody opened is not tested."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from benchlab.htmlreport import build
from benchlab.store import Store
from report_data import HOSTILE_NAMES, history

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
    kept = Path(__file__).parent.parent.parent / ".benchlab" / "report-screenshot.png"
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
