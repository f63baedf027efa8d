"""How long the report of a real run of the suites takes to open in headless Chromium.

Builds `benchlab report` of a stored run, then opens its summary (index.html) and its page of
the most charts from disk LOADS times each, each in a fresh browser context (no cache carried
over), and prints per load and as the median over loads, all in milliseconds from the start
of navigation:

    load event     the page and its scripts (plotly.js, 1.5 MB, on pages with charts) parsed and run
    first screen   the charts in the first 1280x900 view drawn: what a reader sees
    all charts     every chart drawn (the others are drawn one per task after the first screen)

and the CPU time Chromium's processes spent until the page load and until all charts: on
a machine shared with other work the wall times grow with the load, the CPU time much
less, so it tells what a quiet machine would show. The figure to reach (issue 10) is a
page load under 2 s: the later of the load event and the first screen. A benchmark, not
a test: it prints figures and exits 0 whatever they are.

    .venv/bin/python bench/report_load.py                      # runs suites/calls and suites/sys on native
                                                               # and wasm into a scratch database first
    .venv/bin/python bench/report_load.py --db URL [RUN]       # the report of a run already stored
    .venv/bin/python bench/report_load.py --quick              # a shorter run of the suites (3 processes)
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(__file__))
from compare_gbench import scratch_project  # noqa: E402  (bench/ is not a package)

BENCHLAB = os.path.abspath(".venv/bin/benchlab")
CHROMIUM = "/usr/bin/chromium"
SUITES = ["suites/calls", "suites/sys"]
PLATFORMS = ["native", "wasm"]
#: Loads measured: the median of 5 is robust to one slow load.
LOADS = 5
VIEWPORT = {"width": 1280, "height": 900}
#: A run of the suites that is short but real: every benchmark, every process.
QUICK_FLAGS = ["--processes", "3", "--samples", "10", "--time-limit", "0.2"]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def store_suite_run(db_url: str, quick: bool) -> None:
    """`benchlab run` of the suites on native and wasm, stored in `db_url`, in a scratch project."""
    project = scratch_project("bench-report-")
    try:
        for suite in SUITES:
            shutil.copytree(suite, Path(project) / suite)
        command = [BENCHLAB, "run", *SUITES, *sum((["--platform", p] for p in PLATFORMS), []), "--db", db_url,
                   *(QUICK_FLAGS if quick else [])]
        log("storing a run: " + " ".join(command[1:]))
        subprocess.run(command, cwd=project, check=False, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(project, ignore_errors=True)


def build_report(db_url: str, run: str | None, out: Path) -> Path:
    result = subprocess.run([BENCHLAB, "report", *([run] if run else []), "--db", db_url, "--out", str(out)],
                            check=True, capture_output=True, text=True)
    return Path(result.stdout.strip())


def wait_until(page, expression: str, timeout_s: float = 120) -> None:
    # Polled: the page's Content-Security-Policy forbids the eval of Playwright's wait_for_function.
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        time.sleep(0.01)


def descendants_cpu_s() -> dict[int, float]:
    """CPU seconds (user + system) of every process below this one: Playwright's driver and
    the Chromium it started (browser, renderer, GPU and utility processes)."""
    parents, cpu = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        parents[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    mine = {os.getpid()}
    for _ in range(10):  # a few generations deep: python -> node driver -> chromium -> its children
        mine |= {pid for pid, parent in parents.items() if parent in mine}
    return {pid: cpu[pid] for pid in mine if pid != os.getpid()}


def cpu_since(before: dict[int, float]) -> float:
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in descendants_cpu_s().items())


LOADED = ("window.benchlab && window.benchlab.firstScreenMs !== null "
          "&& performance.getEntriesByType('navigation')[0].loadEventEnd > 0")


def measure(browser, index: Path, screenshot: Path | None) -> dict[str, float]:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    before = descendants_cpu_s()
    page.goto(index.as_uri())
    wait_until(page, LOADED)
    cpu_loaded = cpu_since(before)
    wait_until(page, "window.benchlab.allDrawnMs !== null")
    cpu_all = cpu_since(before)
    figures = page.evaluate("({load: performance.getEntriesByType('navigation')[0].loadEventEnd, "
                            "first: window.benchlab.firstScreenMs, all: window.benchlab.allDrawnMs, "
                            "charts: window.benchlab.charts, failed: window.benchlab.failed})")
    if screenshot is not None:
        page.screenshot(path=str(screenshot), full_page=True)
    context.close()
    figures["page load"] = max(figures["load"], figures["first"])
    figures["cpu load"], figures["cpu all"] = 1000 * cpu_loaded, 1000 * cpu_all
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", nargs="?", help="the stored run to report (default: the report's, the latest "
                                               "with measurements)")
    parser.add_argument("--db", help="a database with the run (default: a scratch one, filled by a run of the suites)")
    parser.add_argument("--quick", action="store_true", help="a shorter run of the suites (3 processes, 10 samples)")
    parser.add_argument("--loads", type=int, default=LOADS)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-report-load-"))
    db_url = args.db or f"sqlite:///{scratch / 'results.db'}"
    if not args.db:
        store_suite_run(db_url, args.quick)
    index = build_report(db_url, args.run, scratch / "report")
    # The summary (index.html), and the page of the most charts: the slowest a reader opens.
    for page in (index, heaviest_page(index)):
        report_loads(page, scratch / f"{page.stem}.png", args.loads)


def heaviest_page(index: Path) -> Path:
    return max(index.parent.glob("*.html"), key=lambda page: page.read_text().count('class="chart"'))


def report_loads(index: Path, screenshot: Path, count: int) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        loads = [measure(browser, index, screenshot if i == 0 else None) for i in range(count)]
        browser.close()
    print(f"page: {index} ({loads[0]['charts']} charts, {loads[0]['failed']} failed)")
    print(f"screenshot: {screenshot}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    columns = ("load", "first", "all", "page load", "cpu load", "cpu all")
    print(f"{'load':>6} {'load event':>11} {'first screen':>13} {'all charts':>11} {'page load':>10} "
          f"{'CPU to load':>12} {'CPU to all':>11}  (ms)")
    rows = [(str(number), figures) for number, figures in enumerate(loads, start=1)]
    rows.append(("median", {key: statistics.median(f[key] for f in loads) for key in columns}))
    for label, figures in rows:
        print(f"{label:>6} " + " ".join(f"{figures[key]:>{width}.0f}" for key, width in zip(columns, (11, 13, 11, 10, 12, 11))))
    median = rows[-1][1]
    print(f"page load {median['page load'] / 1000:.2f} s (median of {len(loads)}; the later of the load event and "
          f"the first screen of charts drawn), Chromium's CPU time to it {median['cpu load'] / 1000:.2f} s")


if __name__ == "__main__":
    main()
