"""One list of statistic names on each side (issue 19, step 5): the header's X-macro
BL__STATISTICS makes bl_stats' fields and the jsonl writer's; stats.STATISTICS is the
Python side's, from which the parser, the csv export and combine take theirs. Adding a
statistic to one list and not the other fails here."""
from __future__ import annotations

import json
import re

from benchlab import stats
from benchlab.statistics import combine
from benchlab.output.exporters import csv
from benchlab.formats.parsers import jsonl
from conftest import FAST, HEADER, run_binary

_X_MACRO = re.compile(r"^#define BL__STATISTICS\(X\)((?: X\(\w+\))+)$", re.M)


def header_statistics(text: str) -> tuple[str, ...]:
    """The names BL__STATISTICS lists, in its order."""
    found = _X_MACRO.search(text)
    assert found, "include/benchlab.h defines no BL__STATISTICS(X) on one line"
    return tuple(re.findall(r"X\((\w+)\)", found.group(1)))


def test_the_headers_x_macro_lists_the_python_statistics_in_order():
    assert header_statistics(HEADER.read_text()) == stats.STATISTICS


def test_a_name_on_one_side_only_is_caught():
    text = HEADER.read_text()
    assert header_statistics(text.replace(" X(mad)", " X(mad) X(p95)")) != stats.STATISTICS
    assert header_statistics(text.replace(" X(p90)", "")) != stats.STATISTICS


def test_a_binarys_result_record_writes_them_in_that_order(small_bench_binary):
    lines = run_binary(small_bench_binary, *FAST, "--format=jsonl").splitlines()
    results = [json.loads(line, object_pairs_hook=list) for line in lines if '"type":"result"' in line]
    assert len(results) == 4
    for pairs in results:
        keys = [key for key, _ in pairs]
        start = keys.index(stats.STATISTICS[0])
        assert tuple(keys[start:start + len(stats.STATISTICS)]) == stats.STATISTICS
        assert keys[start + len(stats.STATISTICS)] == "median_ci"


def test_python_computes_every_one_and_its_lists_are_made_from_them():
    # A body 3.5 times the empty loop: all of the loop is taken off (stats.loop_share).
    summary = stats.summarize([3.0, 1.0, 2.0, 5.0, 4.0, 9.0], overhead_samples=[1.0] * 6)
    assert set(stats.STATISTICS) <= set(summary)
    assert summary["raw_median"] == 3.5 and summary["median"] == 2.5 and summary["mad"] == 1.5  # spreads do not shift
    assert stats.SHIFTED == ("median", "min", "max", "mean", "p75", "p90", "p99")
    assert set(stats.STATISTICS) <= set(jsonl._REPORTED_FIELDS) and set(stats.STATISTICS) <= set(jsonl._REPORTED_NUMBERS)
    assert csv.FIGURES == ("min", "max", "mean", "stddev", "p75", "p90", "p99")
    assert combine.MIDDLE_PROCESS == ("p75", "p90", "p99", "mad")
