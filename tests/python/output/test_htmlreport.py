"""benchlab.output.htmlreport without a browser: the page's numbers are `show`'s and `compare`'s,
every chart spec is valid plotly, user text is escaped, change points land where the level
moved. tests/python/output/test_htmlreport_browser.py opens the page in Chromium."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from html import escape as html_escape
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

import benchlab
from benchlab.errors import UserError
from benchlab.output.htmlreport import build, charts, page
from benchlab.records import Record
from benchlab.output.table import Table
from benchlab.storage.store import open_store
from report_data import HOSTILE_NAMES, history, store_run, suite_run
from conftest import REPO



@pytest.fixture
def store(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'results.db'}")
    yield store
    store.close()


def write_report(store, tmp_path, *runs, baseline=None) -> Path:
    return build(store, list(runs), baseline, tmp_path / "report")


def pages_of(index: Path) -> list[Path]:
    """index.html first, then every page it links to, as written."""
    return [index, *sorted(p for p in index.parent.glob("*.html") if p.name != "index.html")]


def all_html(index: Path) -> str:
    return "\n".join(path.read_text() for path in pages_of(index))


def page_specs(path: Path) -> dict:
    found = re.search(r'<script id="benchlab-charts" type="application/json">(.*?)</script>', path.read_text(), re.S)
    return json.loads(found.group(1))


def trace(spec: dict, name: str) -> dict | None:
    """A chart's trace by its name (None if it has none of that name)."""
    return next((t for t in spec["data"] if t.get("name") == name), None)


def change_chart(specs: dict) -> dict:
    return next(spec for spec in specs.values() if trace(spec, "change"))


def chart_specs(index: Path) -> dict:
    """Every chart of the report, from every page, by id."""
    return {chart_id: spec for path in pages_of(index) for chart_id, spec in page_specs(path).items()}


def test_every_chart_is_a_valid_plotly_figure(store, tmp_path):
    history(store)
    specs = chart_specs(write_report(store, tmp_path))
    assert len(specs) >= 8
    for spec in specs.values():
        go.Figure(spec)  # raises on a property plotly does not know, or a value of the wrong type


def test_the_page_holds_the_table_of_show_and_its_figures(store, tmp_path):
    # Enough earlier runs of the machine that `show` widens the intervals by their spread.
    run_id = history(store)[-1]
    index = write_report(store, tmp_path)
    run, records, faults = store.load_run(run_id)
    levels = store.run_levels(run_id, run["context"])
    assert levels, "the test needs a run level, as show gives it after enough earlier runs"
    shown = Table(platforms=run["platforms"], records=records, faults=faults, history=levels)
    html = (index.parent / f"run-{run_id}.html").read_text()
    for row in shown.rows:
        for cell in row.cells.values():
            assert f"<td>{html_escape(cell.text)}</td>" in html
    # Each distribution chart's diamond is the figure show prints, with its interval, on each platform.
    diamonds = {(trace["xaxis"], trace["y"][0], trace["error_y"]["array"][0])
                for spec in chart_specs(index).values() for trace in spec["data"] if trace.get("name") == "figure"}
    figures = {(("x" if p == "native" else "x2"), row.cells[p].record.median,
                row.cells[p].record.summary["median_ci"][1] - row.cells[p].record.median)
               for row in shown.rows if row.kind != "workload" and row.counter == "time"
               for p in ("native", "wasm")}
    assert diamonds == figures


def test_user_text_is_escaped_in_the_page_and_in_the_charts_json(store, tmp_path):
    store_run(store, suite_run(), ["native", "wasm"], "ab" * 20, "2026-11-20T09:00:00Z")
    index = write_report(store, tmp_path)
    html = all_html(index)
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&#34;quotes&#34; &amp; ampersands" in html
    for path in pages_of(index):  # the charts' JSON, report.js, and plotly.js where there are charts
        assert path.read_text().count("<script") == (3 if page_specs(path) else 2), path.name
    # In plotly's text the name is an entity-escaped string (plotly reads tags in text).
    titles = json.dumps(chart_specs(index))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in titles and "<script>" not in titles


def test_json_in_a_script_element_cannot_end_it():
    encoded = page.script_json({"name": "</script><script>alert(1)</script>", "amp": "&", "line": "\u2028"})
    assert "<" not in encoded and ">" not in encoded and "&" not in encoded and "\u2028" not in encoded
    assert json.loads(encoded) == {"name": "</script><script>alert(1)</script>", "amp": "&", "line": "\u2028"}
    assert page.script_json({"y": [1.0, float("nan"), float("inf")]}) == '{"y":[1.0,null,null]}'


def test_change_points_are_marked_at_the_first_run_of_the_new_level(store, tmp_path):
    ids = history(store, runs=8, shift_at=5)
    specs = chart_specs(write_report(store, tmp_path))
    marks = [trace for spec in specs.values() for trace in spec["data"] if trace.get("name", "").endswith("change points")]
    assert marks, "no change point marked"
    assert {run for trace in marks for run in trace["customdata"]} == {ids[5]}
    trend = next(spec for spec in specs.values() if any(t.get("name", "").endswith("change points") for t in spec["data"]))
    hover = trend["data"][0]
    assert "commit %{customdata[1]}" in hover["hovertemplate"] and "host %{customdata[2]}" in hover["hovertemplate"]
    assert [row[0] for row in hover["customdata"]] == ids  # the profile runs have no figures
    assert hover["customdata"][0][1] == "00" + "ab" * 4


def test_sections_and_what_is_left_out(store, tmp_path):
    store_run(store, suite_run(hostile=False), ["native"], "ab" * 20, "2026-11-20T09:00:00Z")
    index = write_report(store, tmp_path)
    html = index.read_text()
    assert "Run 1: sys, every benchmark&#39;s samples" in all_html(index)
    assert ("Not shown: changes (nothing to compare with: give --baseline NAME or two runs, or store another run); "
            "platform ratios of run 1 (one platform); scaling of run 1 (no --sweep)") in html
    assert "history (run 1 is the only stored run of its machine" in html


def test_against_a_baseline_the_changes_are_compares(store, tmp_path):
    from report_data import earlier_runs
    # Earlier runs of the same code first, as a user's store has them: without them (and without
    # a machine prior) a rerun of 3 processes may move as far as one, and +10% is not decided.
    earlier_runs(store, lambda seed: suite_run(seed=seed, hostile=False))
    first = store_run(store, suite_run(hostile=False), ["native", "wasm"], "ab" * 20, "2026-11-20T09:00:00Z")
    second = store_run(store, suite_run(110.0, hostile=False), ["native", "wasm"], "cd" * 20, "2026-11-21T09:00:00Z")
    store.save_baseline("nightly", first)
    index = write_report(store, tmp_path, "latest", baseline="nightly")
    html = index.read_text()
    assert f"Run {second} against baseline nightly (run {first})" in html and f'href="changes-{second}.html"' in html
    change = trace(change_chart(chart_specs(index)), "change")
    assert all(9 < x < 11 for x in change["x"])  # +10%, as the levels were made
    assert set(change["marker"]["color"]) == {"#d62728"}  # slower, every one


def test_profile_buckets_are_shares_per_run_and_their_change(store, tmp_path):
    history(store)
    specs = chart_specs(write_report(store, tmp_path))
    shares = next(spec for spec in specs.values() if spec["layout"].get("barmode") == "stack")
    by_bucket = {trace["name"]: trace["x"] for trace in shares["data"]}
    assert by_bucket == {"deflate": [60.0, 50.0], "&lt;script&gt;alert(1)&lt;/script&gt;": [10.0, 20.0],
                         "other": [30.0, 30.0]}
    change = next(spec for spec in specs.values() if "percentage points" in json.dumps(spec["layout"]))
    assert dict(zip(change["data"][0]["y"], change["data"][0]["x"])) == {
        "deflate": -10.0, "&lt;script&gt;alert(1)&lt;/script&gt;": 10.0, "other": 0.0}


def test_a_sweep_is_throughput_and_linearity_against_the_swept_value(store, tmp_path):
    history(store)
    specs = chart_specs(write_report(store, tmp_path))
    sweep = next(spec for spec in specs.values() if spec["layout"].get("yaxis2", {}).get("title", {}).get("text") == "linearity")
    throughput, linearity = sweep["data"]
    assert throughput["x"] == linearity["x"] == [1, 2, 4]
    assert throughput["y"] == pytest.approx([1e6, 1e6 * 2 ** 0.8, 1e6 * 4 ** 0.8])
    assert linearity["y"] == pytest.approx([1.0, 2 ** 0.8 / 2, 4 ** 0.8 / 4])
    assert sweep["layout"]["xaxis"]["tickvals"] == [1, 2, 4]


def test_an_instance_sweep_is_the_copies_summed_and_each_copy_a_box(store, tmp_path):
    def copy(count, index, value, process):
        return Record(bench="b", param=None, counter="throughput", unit="ops/s", samples=[value, value * 1.01],
                      platform="native", binary="b", sweep={"flag": "instances", "value": str(count)},
                      reported={"copy": index, "instances": count, "window_s": [0.0, 1.0], "process": process})
    records = [copy(1, 0, 100.0, p) for p in (0, 1)] + [copy(2, k, 90.0, p) for p in (0, 1) for k in (0, 1)]
    store_run(store, records, ["native"], "ab" * 20, "2026-11-20T09:00:00Z")
    specs = chart_specs(write_report(store, tmp_path))
    sweep = next(spec for spec in specs.values() if spec["layout"].get("yaxis2", {}).get("title", {}).get("text") == "linearity")
    throughput, linearity = sweep["data"]
    assert throughput["y"] == pytest.approx([100.5, 180.9])
    assert [data[0] for data in throughput["customdata"]] == pytest.approx([100.5, 90.45])  # one copy's, in the hover
    assert linearity["y"] == pytest.approx([1.0, 0.9])
    boxes = [t["x"][0] for spec in specs.values() for t in spec["data"] if t["type"] == "box"]
    assert boxes == ["p0 c0", "p1 c0", "p0 c0", "p0 c1", "p1 c0", "p1 c1"]


def test_a_write_that_fails_leaves_the_earlier_report_and_no_temporary_directory(store, tmp_path, monkeypatch):
    store_run(store, suite_run(hostile=False), ["native"], "ab" * 20, "2026-11-20T09:00:00Z")
    index = write_report(store, tmp_path)
    earlier = index.read_text()

    def full_disk(directory, context):
        (directory / "index.html").write_text("half")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(page, "write", full_disk)
    with pytest.raises(UserError, match="cannot write the report into .*report: No space left on device"):
        write_report(store, tmp_path)
    assert index.read_text() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "results.db", "results.db-shm", "results.db-wal"]


def test_the_version_is_the_headers_in_the_command_the_package_and_the_report(store, tmp_path):
    # The macro as a C compiler sees it, the one place the version is written.
    preprocessed = subprocess.run(["cc", "-E", "-P", f"-I{REPO / 'include'}", "-"], capture_output=True, text=True,
                                  input='#include "benchlab.h"\nbenchlab_version_is BENCHLAB_VERSION\n', check=True)
    macro = re.search(r'^benchlab_version_is "([^"]+)"$', preprocessed.stdout, re.M).group(1)
    command = subprocess.run([sys.executable, "-m", "benchlab", "--version"], capture_output=True, text=True,
                             check=True)
    store_run(store, suite_run(hostile=False), ["native"], "ab" * 20, "2026-11-20T09:00:00Z")
    html = write_report(store, tmp_path).read_text()
    assert command.stdout == f"benchlab, version {macro}\n"
    assert benchlab.__version__ == macro
    assert f'<meta name="generator" content="benchlab {macro}">' in html and f"by benchlab {macro}." in html


def test_a_box_has_whiskers_at_tukeys_fences_points_beyond_and_counts_what_is_far_out():
    # 1..20, then 40 (beyond 1.5 IQR: a point) and a preemption of 100,000 (beyond 3 IQR: counted).
    values = np.array([*range(1, 21), 40.0, 100_000.0])
    found = charts.box_stats(values, clamp=False)
    q1, q3 = found.box["q1"], found.box["q3"]
    assert (q1, q3) == (6.25, 16.75)  # type 7, as stats.py
    assert found.box["lowerfence"] == 1 and found.box["upperfence"] == 20  # the furthest samples within 1.5 IQR
    assert found.outliers == [40.0] and (found.far_out, found.furthest) == (1, 100_000.0)
    assert charts.box_stats(np.array([-2.0, 1.0, 2.0, 3.0]), clamp=True).box["lowerfence"] == 0.0


def test_the_raw_figure_is_an_open_diamond_beside_each_figure(store, tmp_path):
    # Issue 20: raw beside subtracted. report_data's bodies are many times their empty loop
    # of 2 ns, so none of it comes off (loop_share 0) and the two diamonds coincide; a body
    # of 2.5 empty loops has all of it off, and its raw diamond sits 2 ns above the figure.
    from report_data import time_records
    short = [Record(bench="call", param=None, samples=[r.samples[i] - 97.0 for i in range(20)],
                    overhead_samples=r.overhead_samples, iterations=1000, platform="native", binary="sys",
                    format="jsonl", reported=r.reported) for r in time_records("call", "native", 100.0)]
    run_id = store_run(store, time_records("getpid", "native", 100.0) + short, ["native"], "abc", "2026-11-24T10:00:00Z")
    specs = chart_specs(write_report(store, tmp_path, str(run_id)))
    diamonds = sorted((by_name["figure"]["y"][0], by_name["raw"]["y"][0]) for by_name in (
        {trace.get("name"): trace for trace in spec["data"]} for spec in specs.values()) if "raw" in by_name)
    run, records, faults = store.load_run(run_id)
    rows = {row.test: row.cells["native"].record for row in Table(["native"], records, faults).rows}
    call, getpid = ((rows[b].median, rows[b].summary["raw_median"]) for b in ("call", "getpid"))
    assert diamonds == [call, getpid]
    assert getpid[0] == getpid[1] and rows["getpid"].summary["loop_share"] == 0.0
    assert call[1] - call[0] == pytest.approx(2.0, abs=0.01) and rows["call"].summary["loop_share"] == 1.0


def test_the_runs_contention_is_one_sentence_under_its_table():
    from benchlab.output.htmlreport.sections import _contention_sentence

    def process(k, delay, preempted, left_out):
        record = Record(bench="b", param=None, samples=[1.0, 1.1, 1.2], platform="native", binary="x")
        record.reported.update(process=k, preempted=preempted, left_out=left_out, involuntary_switches=preempted,
                               run_delay_ns=delay, sampled_ns=1000.0)
        return record

    processes = [process(0, 100.0, 3, 3), process(1, 50.0, 1, 0)]
    assert _contention_sentence([(processes[0], processes)]) == (
        " Contention: this run waited for a CPU 7.5% of its sampling time; 4 rounds were preempted, 3 of them left "
        "out of the figures (docs/formats.md, \"Contention\"); benchlab stats shows them per figure.")
    unmeasured = Record(bench="b", param=None, samples=[1.0], platform="wasm", binary="x")
    assert _contention_sentence([(unmeasured, [unmeasured])]) == ""


# -- the summary (index.html) and the pages it links to -----------------------------------------

def test_the_default_run_is_the_latest_with_measurements_not_a_later_profile(store, tmp_path):
    from report_data import profiles_last
    ids = profiles_last(store)  # four measured runs (and two profiles among them), then a profile
    index = write_report(store, tmp_path)
    html = index.read_text()
    assert "<h1>benchlab report: run 6</h1>" in html and ids[3] == 6 and ids[4] == 7
    assert "Run 6 is the latest run with measurements; the runs after it (up to run 7) are profiles" in html
    assert "Run 6 against run 5, the previous run of this machine" in html
    # The profile after it is still on the page: its move from the profile before is summarized.
    shares = next(spec for spec in chart_specs(index).values() if spec["layout"].get("barmode") == "stack")
    assert shares["data"][0]["y"][-1].startswith("run 7 ")
    assert "run 4 \u2192 run 7" in html  # the profiles of history() are runs 2 and 4


def test_the_summary_counts_the_gates_verdicts_and_lists_what_regressed(store, tmp_path):
    from benchlab.statistics.compare import compare
    from report_data import baseline_and_regression
    first, second = baseline_and_regression(store)
    index = write_report(store, tmp_path, baseline="main")
    html = index.read_text()
    run_b = store.load_run(second)
    found = compare(store.load_run(first)[1], run_b[1],
                    levels=store.run_levels(second, run_b[0]["context"]))
    counts = {v: sum(1 for c in found if c.verdict == v) for v in ("slower", "not slower", "inconclusive")}
    assert counts == {"slower": 4, "not slower": 2, "inconclusive": 4}  # as regression_records made them
    tiles = re.findall(r'<span class="count">(\d+)</span><span class="word">([^<]*)</span>', html)
    assert tiles == [("4", "slower"), ("4", "inconclusive"), ("2", "not slower, of which 2 faster")]
    lists = re.findall(r'<h4><span class="mark ([a-z-]+)"></span>[^(]*\((\d+)\)</h4>', html)
    assert lists == [("slower", "4"), ("inconclusive", "4"), ("faster", "2")]
    slower = html[html.index("Slower (4)"):html.index("Inconclusive")]
    # The largest change first, each linked to its history chart, on a page that exists.
    names = re.findall(r'<a href="(history-[^"#]+)#(chart-\d+)">([^<]+)</a></td><td>(\w+)</td><td class="change">([^<]+)<',
                       slower)
    assert [(name, platform) for _, _, name, platform, _ in names] == [
        ("tiny_call", "wasm"), ("tiny_call", "native"), ("sys_close", "wasm"), ("sys_close", "native")]
    assert all(f'id="{chart}"' in (index.parent / page).read_text() for page, chart, *_ in names)
    assert names[0][4].startswith("+1,7") and "ipc_pipe" in html[html.index("Inconclusive"):]


def test_the_change_axis_shows_the_noise_band_and_marks_the_rows_beyond_it(store, tmp_path):
    from report_data import baseline_and_regression, earlier_runs, regression_records
    # Earlier runs of the same code first, as a user's store has them: without them (and without
    # a machine prior) the intervals of 3 processes reach as far as one process, +-10%.
    earlier_runs(store, regression_records)
    baseline_and_regression(store)  # tiny_call 19x slower among rows within 20%
    spec = change_chart(chart_specs(write_report(store, tmp_path, baseline="main")))
    low, high = spec["layout"]["xaxis"]["range"]
    assert -45 < low < -20 and 20 < high < 60  # not to +1,800%
    band = spec["layout"]["shapes"][0]
    assert (band["x0"], band["x1"]) == (-1.0, 1.0) and (band["x1"] - band["x0"]) / (high - low) > 0.03
    beyond = trace(spec, "beyond the axis")
    assert len(beyond["x"]) == 2
    assert all(low < x < high for x in beyond["x"]) and all(t.startswith("+1,7") for t in beyond["text"])
    assert set(beyond["marker"]["symbol"]) == {"triangle-right"}
    change = trace(spec, "change")
    clipped = [i for i, x in enumerate(change["x"]) if x > high]
    assert len(clipped) == 2 and all(change["error_x"]["array"][i] == 0 for i in clipped)


def test_the_change_axis_keeps_every_row_when_none_is_far_out():
    from benchlab.statistics.compare import Comparison
    def row(ratio):
        return Comparison(("b", None, "time", None), "native", "ns", 100.0, 100.0 * ratio, ratio, ratio * 0.97,
                          ratio * 1.03, 0.01, "between processes", (3, 3))
    rows = [row(r) for r in (1.10, 1.12, 0.95)]
    axis = charts.change_axis(rows, 0.01)
    assert not any(axis.clipped(100 * (c.ratio - 1)) for c in rows)
    assert axis.low < -100 * (1 - 0.95 * 0.97) and axis.high > 100 * (1.12 * 1.03 - 1)
    quiet = charts.change_axis([row(1.002)], 0.01)  # at least five noise floors either side
    assert quiet.low <= -5 and 5 <= quiet.high < 6 and charts.change_axis([], 0.01).low <= -5


def test_ratio_bars_grow_from_one_and_their_axis_names_the_platforms(store, tmp_path):
    history(store)
    spec = next(spec for spec in chart_specs(write_report(store, tmp_path)).values()
                if spec["layout"]["yaxis"].get("ticktext", [""])[0].endswith("\u00d7"))
    bars = spec["data"][0]
    assert bars["name"] == "wasm \u00f7 native" and bars["base"] == 1
    assert [1 + y for y in bars["y"]] == pytest.approx([c[0] for c in bars["customdata"]])
    assert all(2.9 < 1 + y < 3.1 for y in bars["y"])  # wasm was made 3x native
    axis = spec["layout"]["yaxis"]
    assert axis["type"] == "log" and axis["title"]["text"].startswith("wasm \u00f7 native")
    low, high = (10 ** v for v in axis["range"])
    assert 0.9 < low < 1 and 3.1 < high < 4  # from just under 1, not 0.01
    assert axis["ticktext"] == [f"{v:g}\u00d7" for v in axis["tickvals"]] and 1 in axis["tickvals"]


@pytest.mark.parametrize("low, high, ticks", [
    (0.3, 50, [0.5, 1, 2, 5, 10, 20, 50]), (0.9, 1.1, [0.9, 1, 1.1]), (0.97, 1.03, [0.98, 1, 1.02]),
    (1, 1.3, [1, 1.1, 1.2, 1.3]), (0.01, 1.2, [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1])])
def test_ratio_ticks_are_the_sparsest_readable_set(low, high, ticks):
    assert charts.ratio_ticks(low, high) == ticks


def test_each_run_on_a_trend_axis_is_named_with_its_commit(store, tmp_path):
    ids = history(store)
    trend = next(spec for spec in chart_specs(write_report(store, tmp_path)).values()
                 if spec["layout"]["xaxis"].get("categoryarray"))
    assert trend["layout"]["xaxis"]["categoryarray"] == [f"run {i}<br>{i - 1 - (i > 2) - (i > 3):02d}ababa"
                                                         for i in ids]
    marks = next(t for t in trend["data"] if t["name"].endswith("change points"))
    assert len(marks["text"]) == 1 and re.fullmatch(r"\+(9\.[5-9]|10\.[0-4])% at 05ababa", marks["text"][0])


def test_profile_moves_carry_their_sampling_noise_and_counts_none(store, tmp_path):
    from benchlab.output.htmlreport import sections
    from benchlab.output.htmlreport.runs import StoredRun
    rows = lambda shares, total: [dict(kind="self", platform="native", bucket=b, share=s,  # noqa: E731
                                       samples=round(s * total / 100)) for b, s in shares.items()]
    perf = StoredRun({"id": 1, "context": {"profile": {"profiler": "perf"}}}, [], [])
    moves = sections.bucket_moves_with_noise(perf, rows({"a": 60.0, "b": 40.0}, 1000),
                                             perf, rows({"a": 50.0, "b": 50.0}, 4000))
    half = 100 * 2.5758293 * (0.6 * 0.4 / 1000 + 0.5 * 0.5 / 4000) ** 0.5
    assert [(m.bucket, m.change) for m in moves] == [("a", -10.0), ("b", 10.0)]
    assert moves[0].low == pytest.approx(-10 - half) and moves[0].high == pytest.approx(-10 + half)
    assert moves[0].beyond_noise and half == pytest.approx(4.48, abs=0.01)
    counted = StoredRun({"id": 2, "context": {"profile": {"profiler": "callgrind"}}}, [], [])
    exact = sections.bucket_moves_with_noise(counted, rows({"a": 60.0, "b": 40.0}, 10 ** 6),
                                             counted, rows({"a": 60.0, "b": 40.0}, 10 ** 6))
    assert [(m.low, m.high, m.beyond_noise) for m in exact] == [(None, None, False)] * 2


def test_a_program_of_many_benchmarks_is_cut_into_pages_named_safely(store, tmp_path):
    from benchlab.output.htmlreport.pages import CHARTS_PER_PAGE
    from report_data import time_records
    hostile = "../<b>evil</b> name"
    records = [r for k in range(CHARTS_PER_PAGE + 5) for r in time_records(f"op{k}", "native", 100.0, binary=hostile)]
    store_run(store, records, ["native"], "ab" * 20, "2026-11-20T09:00:00Z")
    index = write_report(store, tmp_path)
    pages = sorted(p.name for p in index.parent.glob("run-1-*.html"))
    assert pages == ["run-1-1-b_evil_b_name-2.html", "run-1-1-b_evil_b_name.html"]
    charts_per_page = [len(page_specs(index.parent / name)) for name in pages]
    assert sorted(charts_per_page) == [5, CHARTS_PER_PAGE]
    assert "(1 of 2)" in (index.parent / pages[1]).read_text()
    assert all(p.parent == index.parent for p in index.parent.rglob("*.html"))


def test_a_profile_named_as_the_run_or_the_baseline_is_no_comparison_and_no_error(store, tmp_path):
    from report_data import profiles_last
    profiles_last(store)  # runs 2, 4 and 7 are profiles
    store.save_baseline("profiled", 4)
    html = write_report(store, tmp_path, baseline="profiled").read_text()
    assert "<h2>Run 6 against baseline profiled (run 4)</h2>" in html
    assert "No benchmark in common: nothing to judge" in html and 'class="tile' not in html
    html = write_report(store, tmp_path, "7").read_text()
    assert "<h1>benchlab report: run 7</h1>" in html and "No benchmark in common" in html
    assert "run 4 \u2192 run 7" in html  # the profile itself: its move from the one before


def test_the_summary_counts_failures_by_the_faults_kind_not_their_words():
    from benchlab.output.htmlreport import summary
    from benchlab.output.htmlreport.runs import StoredRun
    from benchlab.records import NOT_BUILT, Fault
    faults = [Fault("locked", "wasm", "needs threads", kind=NOT_BUILT),
              Fault("liar", "wasm", "not built for wasm32-wasi: a binary's own words")]
    stored = StoredRun({"id": 1, "platforms": ["native", "wasm"]}, [], faults)
    assert summary.failures(stored) == ["liar on wasm: not built for wasm32-wasi: a binary's own words"]
    assert summary.measured(stored).failed == 1


def test_no_history_says_why_and_never_that_a_run_of_three_is_the_only_one(store, tmp_path):
    # issue 37: "No history: run 3 is the only stored run" beside "Run 3 against run 2"
    from report_data import workload_records
    for index in range(3):
        store_run(store, workload_records(1.0 + 0.01 * index), ["native"], "ab" * 20, f"2026-11-2{index}T09:00:00Z")
    html = write_report(store, tmp_path, "2", "3").read_text()
    assert "Run 3 against run 2" in html
    assert "only stored run" not in html
    assert ("No history: run 3 measured workloads only, whose runs on its machine are under Workloads and "
            "profiles.") in html
