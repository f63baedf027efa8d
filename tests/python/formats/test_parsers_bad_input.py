"""Bad output from a binary is a warning naming the binary and the line, never a traceback,
and never a stored NaN, infinity or negative count (issue 11, items 4, 5 and 12)."""
import math

import pytest

from benchlab.formats.parsers import detect, parse_output
from benchlab.formats.parsers.base import MAX_WARNINGS, problems

RESULT = '{"type":"result","bench":"a","param":null,"iterations":10,"samples":[1.0,2.0,3.0]%s}'
GBENCH = '{"context":{},"benchmarks":[%s]}'
GOOD_GBENCH_ENTRY = '{"name":"BM_ok","run_type":"iteration","iterations":10,"real_time":5,"cpu_time":4,"time_unit":"ns"}'

# (input, the one warning it must give): the exact inputs of issue 11 that crashed or were stored.
CASES = {
    "lind field over 4,300 digits": (
        "Read\t" + "9" * 4400 + "\t10\t5\n",
        "b: line 1 is not valid lind output (param must be a 64-bit integer, got '999999999999999999999999999999999999...), "
        "ignored: " + repr("Read\t" + "9" * 112 + "...")),
    "lind 1e999": ("Read\t1\t10\t1e999\n",
                   "b: line 1 is not valid lind output (avg_ns must be a finite number, got '1e999'), "
                   "ignored: 'Read\\t1\\t10\\t1e999'"),
    "negative lind average": ("Read\t1\t10\t-5\n",
                              "b: line 1 is not valid lind output (avg_ns must be >= 0, got '-5'), ignored: 'Read\\t1\\t10\\t-5'"),
    "zero lind loops": ("Read\t1\t0\t5\n",
                        "b: line 1 is not valid lind output (loops must be a whole number >= 1, got '0'), "
                        "ignored: 'Read\\t1\\t0\\t5'"),
    "jsonl iterations -5": (RESULT % ',"iterations":-5',
                            "b: line 1 is not valid jsonl output (bad result record: iterations must be a whole number "
                            ">= 1, got -5), ignored: " + repr(RESULT % ',"iterations":-5')),
    "jsonl iterations 1e999": (RESULT % ',"iterations":1e999',
                               "b: line 1 is not valid jsonl output (bad result record: iterations must be a whole "
                               "number >= 1, got inf), ignored: " + repr(RESULT % ',"iterations":1e999')),
    "jsonl non-integer param": ('{"type":"result","bench":"a","param":1.5,"samples":[1.0]}',
                                "b: line 1 is not valid jsonl output (bad result record: param must be a 64-bit integer, "
                                "got 1.5), ignored: '{\"type\":\"result\",\"bench\":\"a\",\"param\":1.5,\"samples\":[1.0]}'"),
    "jsonl throughput ops [1]": (
        '{"type":"throughput","target":"t","threads":2,"throughput":5.0,"ops":[1]}',
        "b: line 1 is not valid jsonl output (bad throughput record: \"ops\" is not a list of objects), ignored: "
        "'{\"type\":\"throughput\",\"target\":\"t\",\"threads\":2,\"throughput\":5.0,\"ops\":[1]}'"),
    "jsonl zero threads": (
        '{"type":"throughput","target":"t","threads":0,"throughput":5.0}',
        "b: line 1 is not valid jsonl output (bad throughput record: threads must be a whole number >= 1, got 0), "
        "ignored: '{\"type\":\"throughput\",\"target\":\"t\",\"threads\":0,\"throughput\":5.0}'"),
    "csb throughput_min=nan": ("num_threads=2;algo_name=x;throughput_min=nan;\n",
                               "b: line 1 is not valid csb output (throughput_min must be a finite number, got 'nan'), "
                               "ignored: 'num_threads=2;algo_name=x;throughput_min=nan;'"),
    "csb zero threads": ("num_threads=0;algo_name=x;throughput_min=5;\n",
                         "b: line 1 is not valid csb output (num_threads must be a whole number >= 1, got '0'), "
                         "ignored: 'num_threads=0;algo_name=x;throughput_min=5;'"),
    # Issue 31: str.strip() takes \x1c-\x1f for blanks, int() does not: a ValueError, the whole run lost.
    **{f"csb threads after \\x{code:x}": (
        f"num_threads={chr(code)}2;algo_name=x;throughput_min=5;\n",
        f"b: line 1 is not valid csb output (num_threads must be a whole number >= 1, got '\\x{code:x}2'), "
        f"ignored: 'num_threads=\\x{code:x}2;algo_name=x;throughput_min=5;'") for code in range(0x1c, 0x20)},
    "lind param in Arabic-Indic digits": ("Read\t\u0661\t10\t5\n",
                                          "b: line 1 is not valid lind output (param must be a 64-bit integer, "
                                          "got '\u0661'), ignored: 'Read\\t\u0661\\t10\\t5'"),
    "b63 400-digit iteration count": ("a,time," + "9" * 400 + ",100\n",
                                      "b: line 1 is not valid b63csv output (iterations must be a whole number >= 1, "
                                      "got '999999999999999999999999999999999999...), ignored: 'a,time," + "9" * 110 + "...'"),
    "gbench NaN real_time": (
        GBENCH % '{"name":"BM_x","iterations":1,"real_time":NaN,"cpu_time":1}',
        "b: Google Benchmark entry 0 ('BM_x') is not valid (real_time must be a finite number, got nan), ignored"),
    "gbench iterations 1e999": (
        GBENCH % '{"name":"BM_x","iterations":1e999,"real_time":1,"cpu_time":1}',
        "b: Google Benchmark entry 0 ('BM_x') is not valid (iterations must be a whole number >= 1, got inf), ignored"),
    "gbench benchmarks 5": ('{"context":{},"benchmarks":5}',
                            "b: Google Benchmark \"benchmarks\" is 5, not a list; no results read"),
    "gbench nested 100,000 deep": (
        '{"context":{},"benchmarks":' + "[" * 100_000 + "]" * 100_000 + "}",
        "b: Google Benchmark output is not valid JSON (maximum recursion depth exceeded while decoding a JSON array "
        "from a unicode string); no results read"),
}


@pytest.mark.parametrize("text, warning", CASES.values(), ids=CASES.keys())
def test_each_bad_value_is_one_warning_and_no_record(text, warning):
    parsed = parse_output(text, "b")
    assert parsed.records == []
    assert parsed.warnings == [warning]


@pytest.mark.parametrize("missing", ["real_time", "cpu_time", "name", "iterations"])
def test_gbench_entry_missing_a_field_is_skipped_and_the_others_kept(missing):
    entry = {"name": '"BM_x"', "iterations": "10", "real_time": "5", "cpu_time": "4"}
    del entry[missing]
    bad = "{" + ",".join(f'"{k}":{v}' for k, v in entry.items()) + "}"
    parsed = parse_output(GBENCH % f"{bad},{GOOD_GBENCH_ENTRY},5,\"x\"", "b")
    assert [(r.bench, r.counter, r.samples) for r in parsed.records] == [
        ("BM_ok", "time", [5.0]), ("BM_ok", "cpu_time", [4.0])]
    assert len(parsed.warnings) == 3
    assert parsed.warnings[0].startswith("b: Google Benchmark entry 0 ")
    assert parsed.warnings[1:] == ["b: Google Benchmark entry 2 is not valid (not an object: 5), ignored",
                                   "b: Google Benchmark entry 3 is not valid (not an object: 'x'), ignored"]


@pytest.mark.parametrize("median", ["{}", '"fast"', "[1,2]", "true"])
def test_a_binarys_own_median_of_the_wrong_type_is_left_out_and_the_record_kept(median):
    parsed = parse_output(RESULT % f',"median":{median}', "b")
    [record] = parsed.records
    assert record.median == 2.0 and "median" not in record.reported
    assert parsed.warnings == [f"b: line 1: median must be a number, got {parse_value(median)!r}; "
                               "the binary's median is left out"]


def parse_value(text):
    import json
    return json.loads(text)


def test_jsonl_integer_too_large_for_a_float_leaves_that_sample_out():
    parsed = parse_output(RESULT.replace("[1.0,2.0,3.0]", "[1.0," + "9" * 400 + ",3.0]") % "", "b")
    [record] = parsed.records
    assert record.samples == [1.0, 3.0] and record.sample_iterations is None
    assert parsed.warnings == ["b: line 1: samples[1] must be a finite number, got " + "9" * 37 + "...; that sample is left out"]


def test_null_and_non_finite_samples_drop_their_sample_iterations_too():
    line = ('{"type":"result","bench":"a","param":null,"iterations":10,"samples":[1.0,null,NaN,4.0],'
            '"sample_iterations":[10,11,12,13]}')
    [record] = parse_output(line, "b").records
    assert record.samples == [1.0, 4.0] and record.sample_iterations == [10, 13]


def test_junk_sample_iterations_are_dropped_and_the_samples_kept():
    parsed = parse_output(RESULT % ',"sample_iterations":["x",1,1]', "b")
    [record] = parsed.records
    assert record.sample_iterations is None and record.samples == [1.0, 2.0, 3.0]
    assert parsed.warnings == ["b: line 1: sample_iterations[] must be a whole number >= 1, got 'x'; "
                               "the samples are kept without it"]


@pytest.mark.parametrize("text", [
    '{"type":"result","samples":' + "[" * 100_000,          # jsonl detection and parse
    '{"type":"context","schema":1}\n{"type":"result","samples":' + "[" * 100_000,
    "[" * 100_000,
    '{"type":"context","schema":1}\n{"type":"result","bench":"a","samples":[' + "9" * 5000 + "]}",  # the handler's own crash
])
def test_deep_nesting_and_over_long_numbers_are_warnings(text):
    parsed = parse_output(text, "b")
    assert parsed.records == [] and len(parsed.warnings) == 1


def test_jsonl_error_handler_names_a_too_long_number():
    text = '{"type":"context","schema":1}\n{"type":"result","bench":"a","samples":[' + "9" * 5000 + "]}"
    [warning] = parse_output(text, "b").warnings
    assert warning.startswith("b: line 2 is not valid jsonl output (not JSON: Exceeds the limit (4300 digits)")


def test_b63_non_numeric_value_on_a_later_line_keeps_the_first():
    parsed = parse_output("a,time,10,100\na,time,10,abc\n", "b")
    assert [(r.bench, r.samples) for r in parsed.records] == [("a", [10.0])]
    assert parsed.warnings == ["b: line 2 is not valid b63csv output (iterations or value is not a number), "
                               "ignored: 'a,time,10,abc'"]


def test_b63_huge_field_and_bare_carriage_return_are_line_warnings():
    # A bare \r ends a line (as in a file read with universal newlines), even inside quotes.
    text = "a,time,10,100\n" + "b" * 140_000 + ",time,10,100\n" + 'a,time,10,120\r"x\ry",time,10,5\n'
    parsed = parse_output(text, "b")
    assert [(r.bench, r.samples) for r in parsed.records] == [("a", [10.0, 12.0]), ('y"', [0.5])]
    assert parsed.warnings == [
        "b: line 2 is not valid b63csv output (quoted or malformed fields), ignored: " + repr("b" * 117 + "..."),
        "b: line 4 is not valid b63csv output (1 fields, want 4 or 5), ignored: '\"x'"]


def test_detection_looks_past_junk_and_keeps_every_valid_line():
    text = "starting up\n" * 3 + "Read\t1\t10\t5\n" + "more junk\n" + "Read\t2\t10\t6\n"
    assert detect(text).name == "lind"
    parsed = parse_output(text, "b")
    assert [(r.param, r.median) for r in parsed.records] == [(1, 5.0), (2, 6.0)]
    assert parsed.warnings == [
        "b: line 1 is in no known format, ignored: 'starting up'",
        "b: line 2 is in no known format, ignored: 'starting up'",
        "b: line 3 is in no known format, ignored: 'starting up'",
        "b: line 5 is not valid lind output (want test<TAB>param<TAB>loops<TAB>avg_ns), ignored: 'more junk'"]


def test_lines_of_two_formats_in_one_output_are_all_kept():
    text = "Read\t1\t10\t5\nnum_threads=2;algo_name=h;throughput_min=7;\nRead\t2\t10\t6\n"
    records = parse_output(text, "b").records
    assert [(r.format, r.bench, r.param) for r in records] == [("lind", "Read", 1), ("csb", "h", 2), ("lind", "Read", 2)]


def test_warnings_are_capped_and_summarised():
    text = "Read\t1\t10\t5\n" + "junk\n" * 1000 + "Read\t2\t10\t6\n"
    parsed = parse_output(text, "b")
    assert len(parsed.records) == 2
    assert len(parsed.warnings) == MAX_WARNINGS + 1
    assert parsed.warnings[-1] == f"b: 990 more warnings like these not shown (the first {MAX_WARNINGS} are)"


def test_every_record_of_the_cases_keeps_the_invariants():
    for text, _ in CASES.values():
        for record in parse_output(text, "b").records:
            assert problems(record) == []
            assert all(math.isfinite(x) for x in record.samples)


def test_a_csb_operation_name_too_long_to_store_is_a_warning_and_the_rest_is_kept():
    # Found by the long fuzz run of the csb parser: a 300-digit operation number.
    line = ("num_threads=2;algo_name=x;throughput_min=5;univ_count=5;ticks_to_ms=1000000;"
            "op" + "9" * 300 + "_nop_avg=3;op0_a_avg=4;\n")
    parsed = parse_output(line, "bm")
    assert sorted(r.counter for r in parsed.records) == ["latency:op0_a", "throughput"]
    assert len(parsed.warnings) == 1 and "operation name must be 1 to 255 printable characters" in parsed.warnings[0]
