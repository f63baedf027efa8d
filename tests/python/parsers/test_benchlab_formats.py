"""The header's own formats (jsonl, csv, lind), parsed from a real compiled program."""
import json

import pytest

from benchlab.parsers import detect, parse_output
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
    assert parsed.context["schema"] == 1 and parsed.context["seed"] == 7
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
    # lind has no "no param": the baseline's is 0
    assert sorted((r.bench, r.param) for r in parsed.records) == [("copy", 16), ("copy", 1024), ("empty", 0)]
    for line, record in zip(text.splitlines(), parsed.records):
        test, param, loops, avg = line.split("\t")
        assert record.median == float(avg) and record.iterations == int(loops)
