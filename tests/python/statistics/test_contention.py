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


# -- processes most of whose rounds were preempted (issue 38) -----------------------------------

def timed_process(k: int, centre: float, preempted: int, rounds: int = 20, interval=None) -> Record:
    """Process k of a figure: `rounds` samples around `centre`, `preempted` of them preempted and
    kept (left_out 0), as the header reports a process whose rounds were mostly preempted."""
    samples = [centre * (1 + 0.001 * (i % 5 - 2)) for i in range(rounds)]
    record = Record(bench="fnv1a_len", param=256, samples=samples, platform="native", binary="x", format="jsonl")
    record.reported.update(process=k, preempted=preempted, left_out=0, involuntary_switches=preempted,
                           run_delay_ns=1e6 * preempted, sampled_ns=1e8)
    if interval is not None:  # the header's own interval (widened down to the unpreempted rounds)
        record.summary["median_ci"] = list(interval)
    return record


def test_mostly_preempted_is_most_rounds_kept_preempted():
    assert contention.mostly_preempted(timed_process(0, 297, preempted=11))
    assert not contention.mostly_preempted(timed_process(0, 297, preempted=10))  # half is not most
    partner = timed_process(0, 297, preempted=20)
    partner.reported["involuntary_switches"] = 2  # a pipe round trip: waits after each wake-up, seldom switched out
    assert not contention.mostly_preempted(partner)
    left = timed_process(0, 297, preempted=4)
    left.reported["left_out"] = 4  # the header left them out: the figure is the unpreempted rounds'
    assert not contention.mostly_preempted(left)


def test_preempted_processes_are_left_out_of_the_figure_and_listed():
    # The case issue 38 measured: at load 9, two of five processes had most rounds preempted,
    # and the mean of the five medians was 853 ns where the code costs 297 ns.
    records = [timed_process(k, 297 + k, preempted=1) for k in range(3)]
    records += [timed_process(3, 1500, preempted=15), timed_process(4, 1180, preempted=18)]
    [combined] = combine(records)
    figures = combined.figures
    assert figures.preempted_processes == (3, 4)
    assert figures.processes == 3 and not figures.busy
    assert figures.median == pytest.approx(298, rel=1e-6)
    assert figures.interval.high < 310  # the 1500 and 1180 ns processes move neither the figure nor its width
    assert figures.process_medians[3] == pytest.approx(1500)  # still listed
    assert not contention.is_busy(combined)


def test_too_few_unpreempted_processes_make_a_busy_figure_whose_interval_reaches_them():
    # one clean process of three: too few to leave the others out; each preempted process's
    # own interval, widened by the header, reaches down to its unpreempted rounds' figure
    records = [timed_process(0, 300, preempted=2, interval=(299, 301)),
               timed_process(1, 1500, preempted=15, interval=(310, 1510)),
               timed_process(2, 1200, preempted=17, interval=(305, 1210))]
    [combined] = combine(records)
    figures = combined.figures
    assert figures.busy and figures.preempted_processes == ()
    assert figures.median == pytest.approx(1000, rel=1e-3)
    assert figures.interval.low <= 299  # reaches the unpreempted figure, whatever the rerun interval says
    assert contention.is_busy(combined)


def test_one_mostly_preempted_process_is_busy_alone():
    assert contention.is_busy(Record(**{**timed_process(0, 300, preempted=15).__dict__,
                                        "reported": {"preempted": 15, "left_out": 0}}))
    assert not contention.is_busy(Record(**{**timed_process(0, 300, preempted=5).__dict__,
                                            "reported": {"preempted": 5, "left_out": 0}}))


def test_a_series_the_header_widened_is_widened_alike_in_python():
    # the header widened median_ci down to the unpreempted rounds' median (widened_to); Python,
    # which recomputes every figure from the samples, cannot tell those rounds apart and reads it
    samples = [300.0 + i for i in range(40)]
    [record] = parse_output(result_line(samples=samples, sample_iterations=[10] * 40, iterations=10, preempted=30,
                                        left_out=0, involuntary_switches=30, run_delay_ns=1e6, sampled_ns=2e6,
                                        widened_to=119.0), "x").records
    assert record.figures.interval.low == 119.0 and record.figures.interval.high > 319
    [plain] = parse_output(result_line(samples=samples, sample_iterations=[10] * 40, iterations=10), "x").records
    assert plain.figures.interval.low > 300
