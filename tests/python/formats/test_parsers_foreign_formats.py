"""Formats of other tools: Google Benchmark (generated here), B63, CSB, lind, junk."""
import subprocess

import pytest

from benchlab.formats.parsers import detect, parse_output

def test_google_benchmark_json_repetitions_become_samples(gbench_binary):
    text = subprocess.run([str(gbench_binary), "--benchmark_format=json", "--benchmark_repetitions=3",
                           "--benchmark_min_time=0.01"], capture_output=True, text=True, check=True).stdout
    assert detect(text).name == "gbench"
    parsed = parse_output(text, "gb")
    assert parsed.warnings == []
    times = {(r.bench, r.param): r for r in parsed.records if r.counter == "time"}
    assert set(times) == {("BM_memset", 64), ("BM_memset", 1024), ("BM_empty", None)}
    for record in times.values():
        # three repetitions, aggregates (mean/median/stddev entries) skipped
        assert len(record.samples) == 3 and record.unit == "ns"
        assert record.iterations > 0
    assert times[("BM_memset", 1024)].median > times[("BM_empty", None)].median


def test_google_benchmark_time_units_are_converted_to_ns():
    text = ('{"context": {}, "benchmarks": [{"name": "BM_x", "run_type": "iteration", "iterations": 10,'
            ' "real_time": 1.5, "cpu_time": 1.0, "time_unit": "us"}]}')
    [time, cpu] = parse_output(text, "x").records
    assert time.samples == [1500.0] and cpu.samples == [1000.0]


def test_b63_plaintext_lines_are_per_epoch_samples():
    # B63's documented plaintext output (examples/baseline.c, abridged)
    text = "basic,time,16777215,233781738\nbasic,time,16777215,228961470\nbasic_half,time,33554431,227525646\n"
    assert detect(text).name == "b63csv"
    records = {r.bench: r for r in parse_output(text, "bm").records}
    assert records["basic"].samples == pytest.approx([233781738 / 16777215, 228961470 / 16777215])
    assert records["basic_half"].iterations == 33554431
    assert records["basic"].param is None


@pytest.mark.parametrize("delimiter", [";", "\t", " ", "|"])
def test_b63_lines_with_another_delimiter_are_read_in_their_five_field_form(delimiter):
    # B63's `-d DELIM` (examples/baseline.c run with -d ';'): the same five fields
    lines = [["basic", "time", "2097151", "73938407", "35.256597"],
             ["basic", "time", "2097151", "50888939", "24.265749"],
             ["basic_half", "lpe:cycles", "4194303", "61752", "0.014723"]]
    text = "".join(delimiter.join(fields) + "\n" for fields in lines)
    assert detect(text).name == "b63csv"
    parsed = parse_output(text, "bm")
    assert parsed.warnings == []
    records = {(r.bench, r.counter): r for r in parsed.records}
    assert records[("basic", "time")].samples == pytest.approx([73938407 / 2097151, 50888939 / 2097151])
    assert records[("basic_half", "lpe:cycles")].unit == "events"


def test_a_delimited_b63_line_whose_fifth_field_disagrees_is_a_warning():
    parsed = parse_output("a;time;10;100;10.000000\na;time;10;100;99.000000\n", "bm")
    assert [r.samples for r in parsed.records] == [[10.0]]
    assert parsed.warnings == ["bm: line 2 is not valid b63csv output (per-iteration 99 is not value / iterations "
                               "(10.000000)), ignored: 'a;time;10;100;99.000000'"]


def test_four_tab_separated_fields_stay_a_lind_line():
    assert detect("Read\t1\t1000000\t240\n").name == "lind"


def test_csb_line_gives_throughput_and_latency_in_ns():
    # CSB's documented bm_empty output, abridged to the keys we read
    text = ("num_threads=12;init_sz=0;max_noise=0;duration=1;op0_dist=1024;algo_name=bm_empty;"
            "op0_nop_count=301374035;op0_nop_avg=111.47;univ_count=301374035;throughput_max=301356.86886647;"
            "throughput_min=297071.55882159;ticks_to_ms=3792322;max_rss_kb=2508;\n")
    assert detect(text).name == "csb"
    records = {r.counter: r for r in parse_output(text, "csb").records}
    throughput = records["throughput"]
    assert (throughput.bench, throughput.param, throughput.param_name) == ("bm_empty", 12, "threads")
    assert throughput.median == pytest.approx(297071.55882159) and throughput.unit == "ops/ms"
    latency = records["latency:op0_nop"]
    assert latency.median == pytest.approx(111.47 * 1e6 / 3792322) and latency.unit == "ns"
    assert throughput.reported["max_rss_kb"] == "2508"


def test_lind_lines_and_a_bad_line_become_a_warning_naming_binary_and_line():
    text = "Read\t1\t1000000\t240\nRead\t1024\t1000000\t252\noops this is not a result\nRead\t4096\t1000\t267\n"
    parsed = parse_output(text, "fs_read")
    assert [(r.bench, r.param, r.median) for r in parsed.records] == [
        ("Read", 1, 240.0), ("Read", 1024, 252.0), ("Read", 4096, 267.0)]
    assert parsed.warnings == [
        "fs_read: line 3 is not valid lind output (want test<TAB>param<TAB>loops<TAB>avg_ns), "
        "ignored: 'oops this is not a result'"]


def test_truncated_jsonl_line_is_a_warning_and_other_records_are_kept():
    good = ('{"type":"result","bench":"a","param":null,"counter":"time","unit":"ns","iterations":10,'
            '"samples":[1.0,2.0,3.0]}')
    parsed = parse_output('{"type":"context","schema":1}\n' + good + '\n{"type":"result","bench":"b","sam\n', "prog")
    assert [r.bench for r in parsed.records] == ["a"]
    assert len(parsed.warnings) == 1 and parsed.warnings[0].startswith("prog: line 3 is not valid jsonl output")


def test_null_samples_are_dropped_not_read_as_zero():
    line = '{"type":"result","bench":"a","param":null,"samples":[1.0,null,3.0]}'
    [record] = parse_output(line, "p").records
    assert record.samples == [1.0, 3.0]


def test_unknown_output_is_one_warning_and_no_records():
    parsed = parse_output("hello world\n", "mystery")
    assert parsed.records == []
    assert parsed.warnings == ["mystery: output is in no known format (gbench, jsonl, csb, b63csv, lind, b63-interactive), "
                               "ignored; first line: 'hello world'"]
