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
from benchlab.storage.store import Store
from report_data import HOSTILE_NAMES, history, store_run, suite_run
from conftest import REPO



@pytest.fixture
def store(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'results.db'}")
    yield store
    store.close()


def write_report(store, tmp_path, *runs, baseline=None) -> Path:
    return build(store, list(runs), baseline, tmp_path / "report", floors={}, default_floor=0.01)


def chart_specs(index: Path) -> dict:
    text = index.read_text()
    found = re.search(r'<script id="benchlab-charts" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


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
    html = index.read_text()
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
    html = index.read_text()
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&#34;quotes&#34; &amp; ampersands" in html
    assert html.count("<script") == 3  # the charts' JSON, plotly.js and report.js
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
    html = write_report(store, tmp_path).read_text()
    assert "Run 1: every benchmark" in html
    assert "Not shown: platform ratios of run 1 (one platform); scaling of run 1 (no --sweep)" in html
    assert "history (run 1 is the only stored run of its machine" in html


def test_against_a_baseline_the_changes_are_compares(store, tmp_path):
    first = store_run(store, suite_run(hostile=False), ["native", "wasm"], "ab" * 20, "2026-11-20T09:00:00Z")
    store_run(store, suite_run(110.0, hostile=False), ["native", "wasm"], "cd" * 20, "2026-11-21T09:00:00Z")
    store.save_baseline("nightly", first)
    index = write_report(store, tmp_path, "latest", baseline="nightly")
    html = index.read_text()
    assert "Run 2 against baseline nightly (run 1)" in html
    change = next(spec for spec in chart_specs(index).values() if spec["data"][0].get("name") == "change")
    assert all(9 < x < 11 for x in change["data"][0]["x"])  # +10%, as the levels were made
    assert set(change["data"][0]["marker"]["color"]) == {"#d62728"}  # slower, every one


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
    assert throughput["y"] == pytest.approx([100.5, 180.9]) and throughput["customdata"] == pytest.approx([100.5, 90.45])
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
