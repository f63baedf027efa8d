"""What the kernel said the samples lost to other tasks (issue 27, item 3): the jsonl fields
read into the Record, old records without them, sums over processes and over a run, and
the line `benchlab run` prints when the machine was busy. Made-up records only: nothing
here depends on how busy the machine running the tests is."""
import json

import pytest

from benchlab.formats.parsers import parse_output
from benchlab.records import Contention, Record
from benchlab.statistics import contention
from benchlab.statistics.combine import combine


def result_line(**fields) -> str:
    record = {"type": "result", "bench": "b", "param": None, "param_name": None, "counter": "time", "unit": "ns",
              "iterations": 10, "sample_iterations": [10, 10, 10], "samples": [1.0, 2.0, 3.0], **fields}
    return json.dumps(record)


def test_the_jsonl_fields_are_read_into_the_record():
    parsed = parse_output(result_line(preempted=4, left_out=3, involuntary_switches=7, run_delay_ns=2.5e6,
                                      sampled_ns=1e7, short_samples=True), "x")
    [record] = parsed.records
    assert parsed.warnings == []
    assert record.contention == Contention(preempted=4, left_out=3, involuntary_switches=7, run_delay_ns=2.5e6,
                                           sampled_ns=1e7)
    assert record.contention.waited_share == pytest.approx(0.25)
    assert record.short_samples is True


def test_a_record_from_before_the_fields_has_no_contention():
    [record] = parse_output(result_line(), "x").records
    assert record.contention is None and record.short_samples is False


def test_a_platform_that_cannot_tell_writes_null_and_reads_as_unknown():
    [record] = parse_output(result_line(preempted=None, left_out=None, involuntary_switches=None, run_delay_ns=None,
                                        sampled_ns=4e6, short_samples=False), "x").records
    assert record.contention == Contention(sampled_ns=4e6)
    assert record.contention.waited_share is None
    assert contention.share_text(record.contention) == "-"


@pytest.mark.parametrize("field, value", [("preempted", -1), ("left_out", 1.5), ("involuntary_switches", "many"),
                                          ("run_delay_ns", -3.0), ("short_samples", 1)])
def test_a_bad_value_is_warned_about_and_left_out_the_record_kept(field, value):
    parsed = parse_output(result_line(**{field: value}), "x")
    [record] = parsed.records
    assert len(parsed.warnings) == 1 and field in parsed.warnings[0]
    assert field not in record.reported


def process(k: int, **lost) -> Record:
    record = Record(bench="b", param=None, samples=[1.0, 1.1, 1.2], platform="native", binary="x", format="jsonl")
    record.reported.update(process=k, **lost)
    return record


def test_the_processes_of_a_figure_are_summed_not_the_first_ones_kept():
    records = [process(0, preempted=1, left_out=1, involuntary_switches=2, run_delay_ns=100.0, sampled_ns=1000.0),
               process(1, preempted=3, left_out=0, involuntary_switches=5, run_delay_ns=300.0, sampled_ns=3000.0,
                       short_samples=True)]
    [combined] = combine(records)
    assert combined.contention == Contention(preempted=4, left_out=1, involuntary_switches=7, run_delay_ns=400.0,
                                             sampled_ns=4000.0)
    assert combined.contention.waited_share == pytest.approx(0.1)
    assert combined.short_samples is True


def test_a_figure_with_a_process_that_measured_nothing_has_no_sum():
    records = [process(0, preempted=1, left_out=1, involuntary_switches=2, run_delay_ns=100.0, sampled_ns=1000.0),
               process(1)]
    [combined] = combine(records)
    assert combined.contention is None


def test_a_run_says_it_waited_only_over_the_stated_share():
    quiet = [process(0, preempted=0, left_out=0, involuntary_switches=0, run_delay_ns=40.0, sampled_ns=1000.0),
             process(1, preempted=1, left_out=1, involuntary_switches=1, run_delay_ns=10.0, sampled_ns=1000.0)]
    assert contention.busy_note(quiet) is None  # 2.5%, under BUSY_SHARE
    busy = quiet + [process(2, preempted=9, left_out=9, involuntary_switches=12, run_delay_ns=410.0, sampled_ns=1000.0)]
    note = contention.busy_note(busy)
    assert note.startswith("the machine was busy: this run waited for a CPU 15% of its time (over 5%); "
                           "10 rounds were preempted")


def test_counter_records_and_records_without_contention_do_not_count_for_the_run():
    counter = process(0, preempted=9, left_out=9, involuntary_switches=9, run_delay_ns=900.0, sampled_ns=1000.0)
    counter.counter = "instructions"
    assert contention.busy_note([counter, process(1)]) is None
    assert contention.of_run([counter, process(1)]) is None


def test_a_platform_that_cannot_tell_does_not_hide_the_others_waits():
    native = process(0, preempted=5, left_out=5, involuntary_switches=5, run_delay_ns=300.0, sampled_ns=1000.0)
    wasm = process(0, preempted=None, left_out=None, involuntary_switches=None, run_delay_ns=None, sampled_ns=900.0)
    assert contention.of_run([native, wasm]) == native.contention
    assert contention.busy_note([native, wasm]).startswith("the machine was busy: this run waited for a CPU 30%")


def test_an_exported_record_keeps_its_contention_and_a_bad_stored_one_is_refused():
    from benchlab.output.exporters.jsonl import result_record
    from benchlab.formats.parsers.jsonl import JsonlParser
    from benchlab.formats.parsers.base import Parsed

    record = process(2, preempted=4, left_out=3, involuntary_switches=7, run_delay_ns=2.5e6, sampled_ns=1e7,
                     short_samples=True)
    line = json.dumps(result_record(record))
    parsed = Parsed()
    JsonlParser(stored=True).session("x", parsed).feed(1, line)
    [back] = parsed.records
    assert back.contention == record.contention and back.short_samples is True

    bad = json.loads(line)
    bad["reported"]["preempted"] = "many"
    parsed = Parsed()
    JsonlParser(stored=True).session("x", parsed).feed(1, json.dumps(bad))
    assert parsed.records == [] and "reported.preempted" in parsed.warnings[0]


def test_figures_with_short_samples_are_named_once_each():
    records = [process(0, short_samples=True), process(1, short_samples=True), process(0)]
    records[2].bench = "quiet"
    assert contention.short_samples_note(records).startswith("short samples: b on native: the machine was too busy")
    assert contention.short_samples_note([process(0)]) is None
