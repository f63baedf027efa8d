"""The cross-platform table: ratios to the first platform and visible uncertainty."""
import json

import numpy as np

from benchlab.exporters import EXPORTERS
from benchlab.records import Fault, Record
from benchlab.report import MARK_NOISY, MARK_OVERLAP, Report, format_value


def tight(center: float, n: int = 30) -> list[float]:
    """Samples within +-0.5% of center: a CI far narrower than the noise threshold."""
    return list(center * (1 + np.linspace(-0.005, 0.005, n)))


def record(platform, median, bench="Read", param=1, samples=None, iterations=1000):
    return Record(bench=bench, param=param, samples=samples or tight(median), iterations=iterations,
                  platform=platform, binary="fs_read")


def test_cells_show_median_and_ratio_to_the_first_platform_like_the_seed_runner():
    report = Report(["linux", "lind"], [record("linux", 214), record("lind", 414)], [])
    [row] = report.rows
    assert row.cells["linux"].text == "214"
    assert row.cells["lind"].text == "414 (1.935)"
    assert row.iterations == 1000


def test_overlapping_intervals_are_marked_not_significant():
    report = Report(["a", "b"], [record("a", 100), record("b", 100.2)], [])
    assert report.rows[0].cells["b"].marks == MARK_OVERLAP
    assert report.rows[0].cells["b"].text == "100 (1.002)~"


def test_few_samples_or_a_wide_interval_is_marked_uncertain():
    single = record("a", 240, samples=[240.0])           # a lind line: one number, no spread known
    wide = record("b", 300, samples=list(np.linspace(200, 400, 30)))
    report = Report(["a", "b"], [single, wide], [])
    cells = report.rows[0].cells
    assert cells["a"].marks == MARK_NOISY and cells["b"].marks == MARK_NOISY
    assert "uncertain" in EXPORTERS["table"](report)


def test_rows_are_per_test_and_param_and_missing_cells_are_dashes():
    report = Report(["a", "b"], [record("a", 10, param=1), record("a", 20, param=2), record("b", 30, param=2)], [])
    assert [(r.param, r.cells["b"].text) for r in report.rows] == [(1, "-"), (2, "30 (1.500)")]


def test_fault_rows_and_failures_section_in_table_and_markdown():
    report = Report(["native", "wasm"], [record("native", 10)],
                    [Fault("fs_write", "wasm", "killed by SIGSEGV", ["segfault at 0"])])
    table = EXPORTERS["table"](report)
    assert "FAILED: killed by SIGSEGV" in table
    assert table.rstrip().endswith("failures:\nfs_write on wasm: killed by SIGSEGV\n    segfault at 0")
    markdown = EXPORTERS["markdown"](report).splitlines()
    assert markdown[0] == "| TEST | PARAM | native (ns) | wasm (ns) | ITERATIONS |"
    assert markdown[1] == "|---|---:|---:|---:|---:|"
    assert markdown[2] == "| Read | 1 | 10 | - | 1000 |"
    assert markdown[3] == "| fs_write |  | - | FAILED: killed by SIGSEGV |  |"


def test_json_has_records_with_samples_and_no_nan():
    rec = record("a", 10)
    rec.reported["ratio"] = float("nan")
    document = json.loads(EXPORTERS["json"](Report(["a"], [rec], [])))
    assert document["records"][0]["samples"] == rec.samples
    assert document["records"][0]["reported"]["ratio"] is None


def test_value_formatting():
    assert [format_value(v) for v in (214.4, 1234567.0, 12.345, 0.01234, None)] == [
        "214", "1234567", "12.3", "0.0123", "-"]
