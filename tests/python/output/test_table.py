"""The cross-platform table: ratios to the first platform and visible uncertainty."""
import csv
import io
import json

import numpy as np

from benchlab.output.exporters import EXPORTERS
from benchlab.records import NOT_BUILT, Fault, Record
from benchlab.output.figures import MARK_NOISY, MARK_OVERLAP, format_value
from benchlab.output.scaling import scaling
from benchlab.output.table import SPREAD_NONE, Table


def tight(center: float, n: int = 30) -> list[float]:
    """Samples within +-0.5% of center: a CI far narrower than the noise threshold."""
    return list(center * (1 + np.linspace(-0.005, 0.005, n)))


def record(platform, median, bench="Read", param=1, samples=None, iterations=1000):
    return Record(bench=bench, param=param, samples=samples or tight(median), iterations=iterations,
                  platform=platform, binary="fs_read")


def test_cells_show_median_and_ratio_to_the_first_platform_like_the_seed_runner():
    report = Table(["linux", "lind"], [record("linux", 214), record("lind", 414)], [])
    [row] = report.rows
    assert row.cells["linux"].text == "214"
    assert row.cells["lind"].text == "414 (1.935)"
    assert row.iterations == 1000


def test_overlapping_intervals_are_marked_not_significant():
    report = Table(["a", "b"], [record("a", 100), record("b", 100.2)], [])
    assert report.rows[0].cells["b"].marks == MARK_OVERLAP
    assert report.rows[0].cells["b"].text == "100 (1.002)~"


def test_few_samples_or_a_wide_interval_is_marked_uncertain():
    single = record("a", 240, samples=[240.0])           # a lind line: one number, no spread known
    wide = record("b", 300, samples=list(np.linspace(200, 400, 30)))
    report = Table(["a", "b"], [single, wide], [])
    cells = report.rows[0].cells
    assert cells["a"].marks == MARK_NOISY and cells["b"].marks == MARK_NOISY
    assert "uncertain" in EXPORTERS["table"](report)


def test_rows_are_per_test_and_param_and_missing_cells_are_dashes():
    report = Table(["a", "b"], [record("a", 10, param=1), record("a", 20, param=2), record("b", 30, param=2)], [])
    assert [(r.param, r.cells["b"].text) for r in report.rows] == [(1, "-"), (2, "30 (1.500)")]


def test_fault_rows_and_failures_section_in_table_and_markdown():
    report = Table(["native", "wasm"], [record("native", 10)],
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
    document = json.loads(EXPORTERS["json"](Table(["a"], [rec], [])))
    assert document["records"][0]["samples"] == rec.samples
    assert document["records"][0]["reported"]["ratio"] is None


def test_value_formatting():
    assert [format_value(v) for v in (214.4, 1234567.0, 12.345, 0.01234, None)] == [
        "214", "1234567", "12.3", "0.0123", "-"]


def unsupported(platform, counter="instructions", reason="perf_event_open: ENOENT, no PMU"):
    return Record(bench="Read", param=1, counter=counter, unit="instructions", samples=[], platform=platform,
                  binary="fs_read", reported={"supported": False, "reason": reason})


def test_unsupported_counter_cell_says_why_and_has_no_ratio_or_marks():
    supported = Record(bench="Read", param=1, counter="instructions", unit="instructions", samples=tight(500),
                       iterations=10, platform="b", binary="fs_read")
    report = Table(["a", "b"], [record("a", 10), unsupported("a"), supported], [])
    time_row, counter_row = report.rows
    assert (time_row.counter, counter_row.counter) == ("time", "instructions")
    assert counter_row.cells["a"].text == "not supported: perf_event_open: ENOENT, no PMU"
    assert counter_row.cells["b"].text == "500"      # no ratio to a figure that does not exist
    assert counter_row.iterations == 10
    table = EXPORTERS["table"](report)
    # in the human formats a long reason is a numbered footnote
    assert "not supported [1]" in table and "[1] not supported: perf_event_open: ENOENT, no PMU" in table
    markdown = EXPORTERS["markdown"](report).splitlines()
    assert "| Read | 1 | instructions | instructions | not supported [1] | 500 | 10 |" in markdown
    assert markdown[-1] == "- [1] not supported: perf_event_open: ENOENT, no PMU"


def test_unsupported_records_are_kept_in_json_and_csv():
    report = Table(["a"], [unsupported("a")], [])
    document = json.loads(EXPORTERS["json"](report))
    assert document["rows"][0]["cells"]["a"] == {"status": "unsupported", "reason": "perf_event_open: ENOENT, no PMU"}
    assert document["records"][0]["reported"]["supported"] is False and document["records"][0]["samples"] == []
    [row] = csv.DictReader(io.StringIO(EXPORTERS["csv"](report)))
    assert (row["test"], row["counter"], row["status"], row["median"]) == ("Read", "instructions", "unsupported", "")
    assert row["reason"] == "perf_event_open: ENOENT, no PMU"


def swept(counter, unit, threads, value, platform="native"):
    return Record(bench="hash_map", param=threads, param_name="threads", counter=counter, unit=unit,
                  samples=[value], platform=platform, binary="hash_map", sweep={"flag": "threads", "value": str(threads)})


def test_sweep_tables_are_made_of_throughput_and_time_only():
    records = []
    for threads, ops, latency in ((1, 20e6, 40.0), (2, 30e6, 60.0)):
        records += [swept("throughput", "ops/s", threads, ops), swept("latency:op0_lookup", "ns", threads, latency),
                    swept("task-clock", "ns", threads, latency)]
    report = Table(["native"], records, [])
    [(key, unit, curves)] = scaling(report)
    assert key == ("hash_map", None, "throughput") and unit == "ops/s"
    # linearity: throughput at N over N x throughput at 1
    assert [(p.value, p.throughput, p.linearity) for p in curves["native"]] == [(1, 20e6, 1.0), (2, 30e6, 0.75)]
    text = EXPORTERS["table"](report)
    assert text.count("linearity vs THREADS") == 1
    # the latency and counter records are rows of the main table
    assert {(row.counter, row.unit) for row in report.rows} == {
        ("throughput", "ops/s"), ("latency:op0_lookup", "ns"), ("task-clock", "ns")}


def test_sweep_table_of_mixed_throughput_units_is_in_ops_per_second():
    records = [swept("throughput", "ops/ms", 1, 100.0, "csb"), swept("throughput", "ops/ms", 2, 150.0, "csb"),
               swept("throughput", "ops/s", 1, 1e5, "ours"), swept("throughput", "ops/s", 2, 2e5, "ours")]
    [(_, unit, curves)] = scaling(Table(["csb", "ours"], records, []))
    assert unit == "ops/s"
    assert [(p.throughput, p.linearity) for p in curves["csb"]] == [(1e5, 1.0), (1.5e5, 0.75)]
    assert [(p.throughput, p.linearity) for p in curves["ours"]] == [(1e5, 1.0), (2e5, 1.0)]


def test_an_unsupported_throughput_makes_no_sweep_curve():
    records = [swept("throughput", "ops/s", 1, 1e6), swept("throughput", "ops/s", 2, 2e6)]
    for threads in (1, 2):
        records.append(Record(bench="hash_map", param=threads, param_name="threads", counter="throughput",
                              unit="ops/s", samples=[], platform="wasm", binary="hash_map",
                              reported={"supported": False, "reason": "no threads"},
                              sweep={"flag": "threads", "value": str(threads)}))
    [(_, _, curves)] = scaling(Table(["native", "wasm"], records, []))
    assert list(curves) == ["native"]


def test_the_same_test_from_two_binaries_on_one_platform_is_two_rows_never_one():
    native = record("native", 240, bench="Read")
    native.binary = "fs_read"
    sandbox_a = record("native", 451, bench="Read")
    sandbox_a.binary = "imfs_grate"
    again = record("native", 460, bench="Read")
    again.binary = "imfs_grate"        # the same binary printing the row twice
    on_wasm = record("wasm", 900, bench="Read")
    on_wasm.binary = "fs_read"
    report = Table(["native", "wasm"], [native, sandbox_a, again, on_wasm], [])
    assert [(row.binary, row.cells["native"].text, row.cells["wasm"].text) for row in report.rows] == [
        ("fs_read", "240", "900 (3.750)"), ("imfs_grate", "451", "-"), ("imfs_grate #2", "460", "-")]
    lines = EXPORTERS["table"](report).splitlines()
    assert lines[0].split() == ["TEST", "BINARY", "PARAM", "native", "(ns)", "wasm", "(ns)", "ITERATIONS"]
    assert [line.split()[:4] for line in lines[2:5]] == [
        ["Read", "fs_read", "1", "240"], ["Read", "imfs_grate", "1", "451"], ["Read", "imfs_grate", "#2", "1"]]
    rows = json.loads(EXPORTERS["json"](report))["rows"]
    assert [row["binary"] for row in rows] == ["fs_read", "imfs_grate", "imfs_grate #2"]


def workload(platform, samples, counter="user"):
    return Record(bench="gzip", param=None, counter=counter, unit="s", samples=samples, iterations=1,
                  platform=platform, binary="gzip", format="workload")


def test_workload_cells_show_the_range_of_their_runs_and_judge_by_it():
    tight_runs = workload("a", [0.50, 0.51, 0.505])
    wide_runs = workload("b", [0.5, 0.7, 0.6])
    report = Table(["a", "b"], [tight_runs, wide_runs], [])
    [row] = report.rows
    assert row.cells["a"].text == "0.505 [0.5–0.51]"            # 3 runs, no "?" when they agree
    # half the range is 17% of the median: uncertain; and the two ranges overlap
    assert row.cells["b"].text == "0.6 [0.5–0.7] (1.188)~?"
    assert row.iterations_label == "3 runs"
    legend = EXPORTERS["table"](report).splitlines()[-1]
    assert legend.startswith("[a–b]  a workload's fastest and slowest measured run")


def test_iterations_of_threaded_rows_are_operations():
    report = Table(["native"], [swept("throughput", "ops/s", 2, 1e6)], [])
    report.rows[0].iterations = 123456
    assert report.rows[0].iterations_label == "123456 ops"


def test_footnotes_number_each_reason_once():
    records = [unsupported("a", counter="instructions"), unsupported("a", counter="cycles"),
               unsupported("a", counter="allocs", reason="the program is not linked with jemalloc")]
    lines = EXPORTERS["table"](Table(["a"], records, [])).splitlines()
    assert [line.split()[-1] for line in lines[2:5]] == ["[1]", "[1]", "[2]"]
    assert lines[5:7] == ["[1] not supported: perf_event_open: ENOENT, no PMU",
                          "[2] not supported: the program is not linked with jemalloc"]
    # a short reason stays in its cell
    short = EXPORTERS["table"](Table(["a"], [unsupported("a", reason="no PMU")], [])).splitlines()
    assert short[2].endswith("not supported: no PMU") and len(short) == 3


def test_a_failed_process_counts_against_its_own_sweep_value_only():
    def at(threads, process):
        record = swept("throughput", "ops/s", threads, 1e6)
        record.reported["process"] = process
        return record
    records = [at(1, 0), at(1, 1), at(2, 1)]
    faults = [Fault("hash_map", "native", "killed by SIGSEGV", sweep={"flag": "threads", "value": "2"}, process=0),
              Fault("hash_map", "native", "exit status 1", sweep={"flag": "threads", "value": "4"}, process=0),
              Fault("hash_map", "native", "exit status 1", sweep={"flag": "threads", "value": "4"}, process=1)]
    report = Table(["native"], records, faults)
    cells = {row.sweep_value: row.cells["native"] for row in report.rows}
    assert cells["1"].failed_processes == 0 and "processes]" not in cells["1"].text
    assert cells["2"].text.endswith("[1 of 2 processes]")
    # every process at 4 threads failed: a FAILED row, although process 0 and 1 ran at 1 thread
    assert cells["4"].text == "FAILED: exit status 1"


def row_reads(rows: int, exporter: str, monkeypatch) -> int:
    """How many attributes of the report's rows `exporter` reads for a report of `rows` rows:
    a count of operations, not a time, so that the test does not depend on the machine."""
    from benchlab.output import table as table_module
    records = [Record(bench=f"b{i}", param=None, samples=[1.0 + i % 7, 2.0, 3.0], platform="native", binary="x")
               for i in range(rows)]
    report = Table(platforms=["native"], records=records, faults=[])
    reads = [0]
    original = table_module.Row.__getattribute__

    def counting(self, name):
        reads[0] += 1
        return original(self, name)

    monkeypatch.setattr(table_module.Row, "__getattribute__", counting)
    EXPORTERS[exporter](report)
    monkeypatch.setattr(table_module.Row, "__getattribute__", original)
    return reads[0]


def test_every_format_reads_each_row_a_fixed_number_of_times(monkeypatch):
    # Each row's cells asked whole-report questions (is there a sweep? a binary column?) that
    # read every row again: 12,500 rows took show 59 s. Linear: 4x the rows, 4x the reads.
    for exporter in EXPORTERS:
        small, large = row_reads(200, exporter, monkeypatch), row_reads(800, exporter, monkeypatch)
        assert large <= 4.2 * small, (exporter, small, large)


def test_percents_are_capped_and_an_interval_wider_than_its_figure_is_called_uninformative():
    from benchlab.output.figures import percent_text
    assert [percent_text(f) for f in (0, 9e-7, 1e-4, 0.021, 0.44, 1.0, 9.99, 310.0)] == [
        "0%", "<0.01%", "0.01%", "2.1%", "44%", "100%", "999%", ">1000%"]
    summary = {"median": 10.0, "median_ci": [0.0, 3100.0], "processes": 5, "n": 100}
    wide = Record(bench="wide", param=None, samples=[1.0], platform="native", summary=summary)
    tight = Record(bench="tight", param=None, samples=[1.0], platform="native",
                   summary={**summary, "median_ci": [9.99999, 10.00001]})
    table = EXPORTERS["table"](Table(platforms=["native"], records=[wide, tight], faults=[]))
    assert "10 uninformative?" in table and "10 +-<0.01%" in table and "e+0" not in table and ">1000%" not in table
    from benchlab.output.figures import half_width_text, interval_bounds_text
    assert [half_width_text(10.0, ci) for ci in ([9.0, 11.0], [0.5, 19.0], [0.0, 20.0], [5.0, 3.8e13])] == [
        "+-10%", "+-95%", "uninformative", "uninformative"]
    assert interval_bounds_text(10.0, [9.0, 11.0]) == "[9, 11]" and interval_bounds_text(10.0, [0, 3.8e13]) == \
        "uninformative"
    assert "uninformative  the interval is as wide as the figure or wider (+-100% or more" in table


def test_one_cell_status_decides_the_text_csv_and_json_alike():
    # Four cells, one of each status: a figure, an unsupported counter, a failed binary,
    # and nothing (the benchmark never ran on that platform).
    unsupported = Record(bench="Read", param=1, samples=[], platform="b", binary="fs_read",
                         reported={"supported": False, "reason": "no PMU"})
    table = Table(["a", "b", "c"], [record("a", 200), unsupported], [Fault("crash", "c", "exit status 3")])
    read, crash = table.rows
    assert [read.cells[p].status for p in "abc"] == ["ok", "unsupported", "empty"]
    assert [crash.cells[p].status for p in "abc"] == ["empty", "empty", "failed"]
    assert (read.cells["b"].text, read.cells["c"].text, crash.cells["c"].text) == (
        "not supported: no PMU", "-", "FAILED: exit status 3")
    rows = list(csv.DictReader(io.StringIO(EXPORTERS["csv"](table))))
    assert [(r["test"], r["platform"], r["status"], r["binary"], r["reason"]) for r in rows] == [
        ("Read", "a", "ok", "fs_read", ""), ("Read", "b", "unsupported", "fs_read", "no PMU"),
        ("crash", "c", "failed", "crash", "exit status 3")]
    cells = [row["cells"] for row in json.loads(EXPORTERS["json"](table))["rows"]]
    assert cells[0]["b"] == {"status": "unsupported", "reason": "no PMU"} and "c" not in cells[0]
    assert cells[1] == {"c": {"status": "failed", "reason": "exit status 3"}}
    assert cells[0]["a"]["status"] == "ok" and cells[0]["a"]["median"] == 200


def test_a_fault_is_a_dash_or_a_failure_by_its_kind_whatever_its_reason_says():
    # The words of a reason mean nothing: a NOT_BUILT fault is `-` however it is worded, and a
    # failure whose reason happens to start like one (a binary's own message) still fails.
    faults = [Fault("locked", "wasm", "needs threads", kind=NOT_BUILT),
              Fault("liar", "wasm", "not built for wasm32-wasi: a binary's own words", ["stderr line"])]
    report = Table(["native", "wasm"], [record("native", 10)], faults)
    cells = {row.test: row.cells["wasm"] for row in report.rows if row.failed}
    assert (cells["locked"].text, cells["locked"].shown(SPREAD_NONE)) == ("- (needs threads)", "-")
    assert (cells["liar"].text, cells["liar"].shown(SPREAD_NONE)) == (
        "FAILED: not built for wasm32-wasi: a binary's own words", "FAILED")
    table = EXPORTERS["table"](report)
    assert table.rstrip().endswith("failures:\nliar on wasm: not built for wasm32-wasi: a binary's own words\n"
                                   "    stderr line")
    # json and csv readers tell them apart by the cell's status, without reading text
    statuses = {row["test"]: row["cells"]["wasm"]["status"]
                for row in json.loads(EXPORTERS["json"](report))["rows"] if "wasm" in row["cells"]}
    assert statuses == {"locked": "not-built", "liar": "failed"}


def instance_copy(index: int, process: int) -> Record:
    return Record(bench="b", param=None, counter="throughput", unit="ops/s", samples=[100.0], platform="native",
                  binary="b", sweep={"flag": "instances", "value": "2"},
                  reported={"copy": index, "instances": 2, "window_s": [0.0, 1.0], "process": process})


def test_a_failed_copy_is_matched_to_the_records_by_its_copy_field_not_its_reason():
    # Process 0's copy 1 printed its record, then failed: its figure is among the cell's, so
    # the cell does not count it as a missing process. Its reason need not name the copy.
    records = [instance_copy(0, 0), instance_copy(1, 0), instance_copy(0, 1), instance_copy(1, 1)]
    sweep = {"flag": "instances", "value": "2"}
    after_printing = Fault("b", "native", "exit status 3", sweep=sweep, process=0, copy=1)
    whole_process = Fault("b", "native", "copy 1 of 2: says a copy, is of the process", sweep=sweep, process=0)
    [row] = Table(["native"], records, [after_printing]).rows
    assert row.cells["native"].failed_processes == 0
    [row] = Table(["native"], records, [whole_process]).rows
    assert row.cells["native"].failed_processes == 1 and row.cells["native"].text.endswith("processes]")


# -- intervals and marks carried into sweeps and ratios (issue 38) --------------------------------

def swept_samples(threads, samples, platform="native"):
    return Record(bench="hash_map", param=threads, param_name="threads", counter="throughput", unit="ops/s",
                  samples=list(samples), platform=platform, binary="hash_map",
                  sweep={"flag": "threads", "value": str(threads)})


def test_a_sweep_carries_each_throughputs_interval_and_a_linearity_interval_from_both():
    records = [swept_samples(1, tight(20e6)), swept_samples(2, tight(30e6))]
    [(_, _, curves)] = scaling(Table(["native"], records, []))
    one, two = curves["native"]
    for point, figure in ((one, records[0]), (two, records[1])):
        interval = figure.figures.interval
        assert (point.low, point.high) == (interval.low, interval.high)
    assert (one.linearity_low, one.linearity_high) == (1.0, 1.0)  # 1 by definition
    # log half-widths added in quadrature: wider than either side's, around 0.75
    w1 = max(np.log(one.high / one.throughput), np.log(one.throughput / one.low))
    w2 = max(np.log(two.high / two.throughput), np.log(two.throughput / two.low))
    assert two.linearity_high == __import__("pytest").approx(0.75 * np.exp(np.hypot(w1, w2)))
    assert two.linearity_low < 0.75 < two.linearity_high and np.hypot(w1, w2) > max(w1, w2)
    text = EXPORTERS["table"](Table(["native"], records, []))
    assert f"({two.linearity:.3f} [{two.linearity_low:.3f}, {two.linearity_high:.3f}])" in text


def test_a_linearity_from_wide_throughputs_says_uninformative_and_carries_their_marks():
    # the case issue 38 saw: a 0.084 linearity printed from throughputs of +-64-89%
    wide = [swept_samples(1, np.linspace(2e6, 20e6, 30)), swept_samples(2, np.linspace(0.2e6, 6e6, 30))]
    [(_, _, curves)] = scaling(Table(["native"], wide, []))
    two = curves["native"][1]
    assert MARK_NOISY in two.marks
    text = EXPORTERS["table"](Table(["native"], wide, []))
    assert "(linearity uninformative)?" in text


def test_a_time_figures_interval_is_inverted_into_throughput():
    record_ = Record(bench="b", param=None, samples=tight(100.0), platform="native", binary="b",
                     sweep={"flag": "threads", "value": "1"})
    from benchlab.output.scaling import throughput_interval
    low, high = throughput_interval(record_)
    interval = record_.figures.interval
    assert (low, high) == (1e9 / interval.high, 1e9 / interval.low)


def test_a_ratio_whose_interval_bounds_nothing_is_not_printed_as_exact():
    wide = record("qemu", 800, samples=[10.0] * 15 + [1600.0] * 15)  # a median interval of [10, 1600]
    report = Table(["native", "qemu"], [record("native", 200), wide], [])
    cell = report.rows[0].cells["qemu"]
    assert cell.ratio_uninformative and cell.text == "805 (ratio ?)~?"  # no digits of the ratio: 4.025
    assert "(ratio ?)  the ratio to the first platform has a 99% interval as wide" in EXPORTERS["table"](report)
    narrow = Table(["native", "qemu"], [record("native", 200), record("qemu", 800)], [])
    assert narrow.rows[0].cells["qemu"].text == "800 (4.000)"


def test_a_mostly_preempted_figure_is_marked_busy_with_a_legend():
    busy = record("native", 300)
    busy.reported.update(preempted=25, left_out=0, involuntary_switches=25, run_delay_ns=1e6, sampled_ns=2e6)
    report = Table(["native"], [busy], [])
    assert report.rows[0].cells["native"].marks.endswith("#")
    assert "#  busy: most rounds of its processes were preempted" in EXPORTERS["table"](report)


def test_processes_left_out_as_preempted_are_in_the_json_cell_and_under_the_table():
    def process(k, centre, preempted):
        r = record("native", centre, samples=tight(centre, 20))
        r.reported.update(process=k, preempted=preempted, left_out=0, involuntary_switches=preempted,
                          run_delay_ns=1e6, sampled_ns=2e6)
        return r
    records = [process(k, 297 + k, 1) for k in range(3)] + [process(3, 1500, 15), process(4, 1180, 18)]
    report = Table(["native"], records, [])
    [cell] = json.loads(EXPORTERS["json"](report))["rows"][0]["cells"].values()
    assert cell["preempted_processes"] == [3, 4] and cell["median"] == 298
    assert ("Read/1 on native: 2 of 5 processes left out of the figure (most of their rounds were preempted, "
            "so they measured the busy machine: 1500, 1180)") in EXPORTERS["table"](report)
