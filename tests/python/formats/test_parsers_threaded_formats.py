"""The threaded mode's outputs (docs/threads.md): the jsonl `throughput` record and our
csb line, parsed from the project's own suites/concurrency programs run for 0.2 s."""
import json

import pytest

from benchlab.formats.parsers import detect, parse_output
from conftest import SHORT_DURATION, run_binary


@pytest.fixture(scope="module")
def hash_map_jsonl(concurrency_binaries):
    return run_binary(concurrency_binaries["hash_map"], "-t=2", SHORT_DURATION, "--seed=3", "--format=jsonl")


def raw_throughput(text):
    [raw] = [json.loads(line) for line in text.splitlines() if json.loads(line)["type"] == "throughput"]
    return raw


def test_throughput_record_becomes_a_throughput_record_in_ops_per_second(hash_map_jsonl):
    assert detect(hash_map_jsonl).name == "jsonl"
    parsed = parse_output(hash_map_jsonl, "hash_map")
    assert parsed.warnings == []
    raw = raw_throughput(hash_map_jsonl)
    throughput = next(r for r in parsed.records if r.counter == "throughput")
    assert (throughput.bench, throughput.param, throughput.param_name) == ("hash_map", 2, "threads")
    assert throughput.unit == "ops/s" and throughput.supported
    # the header's headline figure: the sum of each thread's own rate
    assert throughput.samples == [raw["throughput"]]
    assert throughput.median == pytest.approx(sum(t["throughput"] for t in raw["per_thread"]), rel=1e-6)
    assert throughput.iterations == raw["all"]["count"] == sum(t["ops"] for t in raw["per_thread"])
    # everything else is kept, CSB's pair and the histograms included
    assert throughput.reported["throughput_min"] == raw["throughput_min"]
    assert throughput.reported["ops"][0]["histogram"] == raw["ops"][0]["histogram"]
    # ops/s, not ops/ms: all operations over the longest window, about -d (0.2 s, give or
    # take a loaded machine's scheduling), is within a small factor of count / 0.2, never 1000
    assert 0.2 < raw["throughput_min"] / (throughput.iterations / 0.2) < 5
    assert raw["throughput_min"] <= throughput.median * (1 + 1e-9)


def test_each_operation_gets_a_latency_record_with_its_percentiles(hash_map_jsonl):
    records = {r.counter: r for r in parse_output(hash_map_jsonl, "hash_map").records}
    assert set(records) == {"throughput", "latency:op0_lookup", "latency:op1_insert", "latency:op2_delete"}
    raw_ops = {op["name"]: op for op in raw_throughput(hash_map_jsonl)["ops"]}
    for name in ("lookup", "insert", "delete"):
        record = next(r for c, r in records.items() if c.endswith(name))
        raw = raw_ops[name]
        assert (record.bench, record.param, record.unit) == ("hash_map", 2, "ns")
        assert record.samples == [raw["mean_ns"]] and record.iterations == raw["timed"]
        for key in ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "min_ns", "max_ns", "count", "successes"):
            assert record.reported[key] == raw[key]
        assert raw["min_ns"] <= raw["p50_ns"] <= raw["p99_ns"] <= raw["max_ns"]


def test_nothing_timed_gives_no_latency_record_rather_than_a_zero(concurrency_binaries):
    for fmt in ("jsonl", "csb"):
        text = run_binary(concurrency_binaries["empty"], "-t=1", "-d=0.1", "--latency-every=0", f"--format={fmt}")
        parsed = parse_output(text, "empty")
        assert parsed.warnings == []
        assert [r.counter for r in parsed.records] == ["throughput"], fmt
        assert parsed.records[0].median > 0


def test_every_operation_timed_fills_the_csb_histogram_as_csb_does(concurrency_binaries):
    """The csb line times every operation by default, as CSB's skeleton does: each
    histogram then holds the operation's whole count, and the run level's too."""
    text = run_binary(concurrency_binaries["hash_map"], "-t=2", SHORT_DURATION, "--format=csb")
    line = _read_like_csb(text)
    counts = [int(line[f"{op}_count"]) for op in ("op0_lookup", "op1_insert", "op2_delete")]
    assert sum(counts) == int(line["univ_count"]) > 0
    for op, count in zip(("op0_lookup", "op1_insert", "op2_delete"), counts):
        assert sum(int(v) for v in line[f"{op}_histogram"].split(",")) == count


def _read_like_csb(line: str) -> dict[str, str]:
    """What CSB's runner does with a line: split on ';', then on the first '=' (bm-runner)."""
    return dict(pair.split("=", 1) for pair in line.strip().rstrip(";").split(";"))


def test_a_reader_that_knows_only_csb_reads_our_line_in_csb_units(concurrency_binaries):
    text = run_binary(concurrency_binaries["hash_map"], "-t=2", SHORT_DURATION, "--format=csb")
    assert detect(text).name == "csb" and len(text.splitlines()) == 1
    line = _read_like_csb(text)
    # CSB's keys, all of them, in CSB's units: throughput_min/max per millisecond, the
    # *_ts pair per second, durations in microseconds and ticks, ticks_to_ms ticks per ms.
    for key in ("num_threads", "init_sz", "max_noise", "duration", "algo_name", "univ_count", "univ_avg",
                "throughput_max", "throughput_min", "throughput_max_ts", "throughput_min_ts", "ticks_to_ms",
                "duration_max_ms", "duration_max_clk", "duration_min_ms", "duration_min_clk",
                "sys_time", "usr_time", "max_rss_kb"):
        assert key in line, key
    count = int(line["univ_count"])
    longest_s = int(line["duration_max_ms"]) / 1e6  # CSB's "_ms" durations are microseconds
    assert float(line["throughput_min"]) == pytest.approx(count / longest_s / 1e3, rel=1e-5)  # ops/ms
    assert float(line["throughput_min_ts"]) == pytest.approx(count / longest_s, rel=1e-5)     # ops/s
    assert int(line["duration_max_clk"]) / float(line["ticks_to_ms"]) == pytest.approx(longest_s * 1e3, rel=1e-5)
    assert 0.15 < longest_s < 1.0  # a 0.2 s run
    for op in ("op0_lookup", "op1_insert", "op2_delete"):
        histogram = [int(v) for v in line[f"{op}_histogram"].split(",")]
        assert len(histogram) == 60  # CSB's STAT_MAX_NUM_BUCKETS, empty tail included
        # a CSB reader's arithmetic: the buckets add up to count (every operation timed,
        # as CSB times them), and sum / count is the mean
        count = int(line[f"{op}_count"])
        assert sum(histogram) == count == int(line[f"{op}_timed"])
        assert float(line[f"{op}_sum"]) / count == pytest.approx(float(line[f"{op}_avg"]), abs=0.006)
    # benchlab reads the same line to the same throughput, in the unit CSB means
    parsed = parse_output(text, "hash_map")
    assert parsed.warnings == []
    records = {r.counter: r for r in parsed.records}
    assert records["throughput"].unit == "ops/ms"
    assert records["throughput"].median == float(line["throughput_min"])
    assert set(records) == {"throughput", "latency:op0_lookup", "latency:op1_insert", "latency:op2_delete"}
    lookup = records["latency:op0_lookup"]
    assert lookup.unit == "ns" and lookup.median == pytest.approx(float(line["op0_lookup_avg"]) * 1e6 / float(line["ticks_to_ms"]))
    assert line["latency_unit"] == "ticks" and line["latency_every"] == "1"


def test_the_csb_line_in_ns_says_so_and_reads_as_ns(concurrency_binaries):
    text = run_binary(concurrency_binaries["hash_map"], "-t=1", "-d=0.1", "--csb-unit=ns", "--format=csb")
    line = _read_like_csb(text)
    assert (line["latency_unit"], line["ticks_to_ms"]) == ("ns", "1000000")
    parsed = parse_output(text, "hash_map")
    assert parsed.warnings == []
    lookup = next(r for r in parsed.records if r.counter == "latency:op0_lookup")
    assert lookup.median == pytest.approx(float(line["op0_lookup_avg"]))


def test_csb_and_jsonl_compute_throughput_min_the_same_way(concurrency_binaries):
    """The jsonl record's throughput_min (ops/s) is CSB's formula too: all operations over
    the longest thread window, so the two formats of one program agree up to the unit."""
    text = run_binary(concurrency_binaries["hash_map"], "-t=2", SHORT_DURATION, "--format=jsonl")
    record = next(r for r in parse_output(text, "hash_map").records if r.counter == "throughput")
    longest = max(t["duration_s"] for t in record.reported["per_thread"])
    assert record.reported["throughput_min"] == pytest.approx(record.reported["all"]["count"] / longest, rel=1e-6)


def test_a_target_that_cannot_run_is_kept_as_not_supported():
    # What a threaded target prints on wasm32-wasi (docs/threads.md, "WebAssembly")
    line = ('{"type":"throughput","target":"shared_counter","threads":1,"duration_s":1,"init_size":0,'
            '"max_nops":0,"seed":5,"supported":false,'
            '"reason":"threads are not available on wasm32-wasi (no pthreads in wasi-libc)"}')
    parsed = parse_output('{"type":"context","schema":1}\n' + line + "\n", "threads")
    assert parsed.warnings == []
    [record] = parsed.records
    assert (record.bench, record.param, record.counter, record.unit) == ("shared_counter", 1, "throughput", "ops/s")
    assert not record.supported and record.samples == [] and record.median is None
    assert record.reason == "threads are not available on wasm32-wasi (no pthreads in wasi-libc)"
