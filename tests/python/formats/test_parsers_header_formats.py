"""The header's own formats (jsonl, csv, lind), parsed from a real compiled program."""
import json

import pytest

from benchlab.formats.parsers import detect, parse_output
from conftest import FAST, run_binary


@pytest.fixture(scope="module")
def jsonl_text(small_bench_binary):
    return run_binary(small_bench_binary, "--format=jsonl", *FAST, "--seed=7")


def test_jsonl_is_detected_and_gives_one_record_per_bench_and_param(jsonl_text):
    assert detect(jsonl_text).name == "jsonl"
    parsed = parse_output(jsonl_text, "small")
    assert parsed.warnings == []
    keys = sorted((r.bench, r.param) for r in parsed.records)
    assert keys == sorted([("empty", None), ("spin", None), ("copy", 16), ("copy", 1024)])
    assert parsed.context["schema"] == 2 and parsed.context["seed"] == 7
    for record in parsed.records:
        assert record.format == "jsonl" and record.binary == "small"
        assert record.unit == "ns" and record.counter == "time"
        assert 1 <= len(record.samples) == len(record.sample_iterations) <= 8
        assert record.summary["n"] == len(record.samples)


def test_python_statistics_agree_with_the_headers_on_real_samples(jsonl_text):
    for line in jsonl_text.splitlines():
        raw = json.loads(line)
        if raw["type"] != "result":
            continue
        [record] = [r for r in parse_output(line, "x").records]
        for key in ("median", "min", "max", "p75", "p90", "mad"):
            assert record.summary[key] == pytest.approx(raw[key], rel=1e-6, abs=1e-6), key
        assert record.summary["median_ci"] == pytest.approx(raw["median_ci"], rel=1e-6, abs=1e-6)


def test_compared_benchmarks_keep_the_binarys_ratio(jsonl_text):
    records = {(r.bench, r.param): r for r in parse_output(jsonl_text, "small").records}
    assert records[("empty", None)].reported["baseline"] is True
    assert records[("spin", None)].reported["compared_to"] == "empty"


def test_csv_lines_are_per_sample_totals(small_bench_binary):
    csv_text = run_binary(small_bench_binary, "--format=csv", "--samples=5", "--time-limit=0.05",
                          "--filter=copy")
    assert csv_text.startswith("name,param,counter,iterations,value\n")
    assert detect(csv_text).name == "b63csv"
    parsed = parse_output(csv_text, "small")
    assert parsed.warnings == []
    # --filter keeps the baseline: every benchmark is compared with it
    assert sorted((r.bench, r.param or 0) for r in parsed.records) == [("copy", 16), ("copy", 1024), ("empty", 0)]
    for record in parsed.records:
        # at most --samples; the time limit may stop a benchmark earlier
        assert 1 <= len(record.samples) == len(record.sample_iterations) <= 5
    by_key = {(r.bench, r.param): r for r in parsed.records}
    # value / iterations is the per-iteration sample: copying 1 KiB costs more than 16 bytes
    assert by_key[("copy", 1024)].median > by_key[("copy", 16)].median > 0
    first = csv_text.splitlines()[1].split(",")
    record = by_key[(first[0], int(first[1]) if first[1] else None)]
    assert record.samples[0] == pytest.approx(float(first[4]) / int(first[3]))


def test_lind_output_is_the_rounded_median(small_bench_binary):
    text = run_binary(small_bench_binary, "--format=lind", *FAST, "--filter=copy")
    assert detect(text).name == "lind"
    parsed = parse_output(text, "small")
    # a test without a parameter has '-', as Lind's own tests print it (read back as that text)
    assert sorted((r.bench, r.param) for r in parsed.records) == [("copy", 16), ("copy", 1024), ("empty", "-")]
    for line, record in zip(text.splitlines(), parsed.records):
        test, param, loops, avg = line.split("\t")
        assert record.median == float(avg) and record.iterations == int(loops)


COUNTERS = "--counters=time,jemalloc-allocated,task-clock,page-faults,allocs,alloc-bytes,rusage-max-rss"


@pytest.fixture(scope="module")
def counters_jsonl(counters_binary):
    return run_binary(counters_binary, COUNTERS, "--samples=5", "--time-limit=0.05", "--filter=map", "--format=jsonl")


def test_counter_records_are_their_own_records_with_their_units(counters_jsonl):
    parsed = parse_output(counters_jsonl, "counters")
    assert parsed.warnings == []
    records = {r.counter: r for r in parsed.records}
    assert list(records) == ["time", "jemalloc-allocated", "task-clock", "page-faults", "allocs", "alloc-bytes",
                             "rusage-max-rss"]
    assert {c: r.unit for c, r in records.items()} == {
        "time": "ns", "jemalloc-allocated": "bytes", "task-clock": "ns", "page-faults": "events",
        "allocs": "calls", "alloc-bytes": "bytes", "rusage-max-rss": "KiB"}
    assert all(r.bench == "map_touch_unmap" and r.param is None for r in records.values())
    # examples/counters.c: one malloc of 64 MiB per iteration (docs/counters.md)
    assert records["allocs"].median == 1 and records["alloc-bytes"].median == 64 << 20
    assert records["task-clock"].reported["pass"] == "perf-software"
    assert records["rusage-max-rss"].reported["per_iteration"] is False
    assert "pass" not in records["time"].reported and records["time"].supported


def test_an_unsupported_counter_is_kept_with_its_reason_not_dropped(counters_jsonl):
    parsed = parse_output(counters_jsonl, "counters")
    [line] = [json.loads(line) for line in counters_jsonl.splitlines() if '"jemalloc-allocated"' in line]
    assert line["supported"] is False and line["samples"] == []
    [record] = [r for r in parsed.records if r.counter == "jemalloc-allocated"]
    assert not record.supported and record.samples == [] and record.median is None
    assert record.reason == line["reason"] and "jemalloc" in record.reason
    assert record.reported["pass"] == "alloc"


def test_csv_counter_lines_get_the_counters_units(counters_binary):
    text = run_binary(counters_binary, "--counters=time,task-clock,allocs,alloc-bytes", "--samples=3",
                      "--time-limit=0.05", "--filter=malloc", "--format=csv")
    records = {r.counter: r for r in parse_output(text, "counters").records}
    assert {c: r.unit for c, r in records.items()} == {
        "time": "ns", "task-clock": "ns", "allocs": "calls", "alloc-bytes": "bytes"}
    assert records["alloc-bytes"].median == 64
