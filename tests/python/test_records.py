"""records.py: a record's figures read typed from its stored summary (Summary, Record.figures)."""
import json

from benchlab import stats
from benchlab.records import FIELD_OF, Interval, Record, Summary
from benchlab.statistics import noise
from benchlab.statistics.combine import combine, history_key


def subtracted_record(process=None, level=3.0):
    """Ten samples of `level` + 2 over an empty loop of 2 (all of it subtracted below 4 times its cost)."""
    samples = [level + 2.0 + 0.1 * (i % 3) for i in range(10)]
    record = Record(bench="b", param=None, samples=samples, overhead_samples=[2.0] * 10, platform="native",
                    binary="x")
    if process is not None:
        record.reported["process"] = process
    return record


def test_figures_are_the_stored_summary_typed_under_formats_md_names():
    record = subtracted_record()
    figures, stored = record.figures, record.summary
    assert figures.interval == Interval(*stored["median_ci"]) and isinstance(figures.interval, Interval)
    assert figures.raw_interval == Interval(*stored["raw_median_ci"])
    assert (figures.median, figures.raw_median, figures.overhead, figures.loop_share) == (
        stored["median"], stored["raw_median"], 2.0, 1.0)
    assert (figures.n, figures.min, figures.max, figures.mad) == (10, stored["min"], stored["max"], stored["mad"])
    assert figures.zero is False and figures.ci_scope == "within this run"
    # one process: no figures of several
    assert (figures.processes, figures.process_medians, figures.between_cv, figures.disagree) == (1, (), None, False)


def test_a_record_without_an_empty_loop_says_nothing_of_zero_or_raw_figures():
    figures = Record(bench="b", param=None, samples=[1.0, 2.0, 3.0]).figures
    assert figures.zero is None and figures.raw_median is None and figures.overhead is None
    assert figures.share_subtracted == 1.0  # all of it where a record does not say


def test_an_unsupported_record_has_no_figures():
    figures = Record(bench="b", param=None, samples=[], reported={"supported": False}).figures
    assert figures == Summary() and figures.interval is None and figures.processes == 1


def test_a_body_indistinguishable_from_the_empty_loop_is_zero_with_its_interval_from_zero():
    record = Record(bench="b", param=None, samples=[2.0, 2.1, 1.9, 2.0, 2.05, 1.95, 2.0, 2.1],
                    overhead_samples=[2.0, 2.0, 2.0, 2.05, 2.0, 2.0, 2.1, 2.0])
    assert record.figures.zero is True and record.figures.interval.low == 0.0


def test_combined_figures_are_typed_too():
    [combined] = combine([subtracted_record(process, 3.0 + process) for process in range(3)])
    figures = combined.figures
    assert figures.processes == 3 and len(figures.process_medians) == 3
    assert figures.interval == Interval(*combined.summary["median_ci"])
    assert figures.between_cv == combined.summary["between_cv"] and figures.ci_scope == combined.summary["ci_scope"]


def test_every_figure_a_summary_stores_has_a_field():
    one = subtracted_record()
    # earlier runs that measured the spread between processes: one process gets a rerun interval
    level = noise.RunLevel(variance=0.01, earlier_runs=4, df=3, process_cv2=0.001, process_df=10)
    history = {history_key(one): level}
    # five processes alike and one ten times slower: an outlier process
    outlier = [subtracted_record(process, 3.0) for process in range(5)] + [subtracted_record(5, 30.0)]
    stored = [one.summary, combine([one], history)[0].summary, combine(outlier, history)[0].summary,
              combine([subtracted_record(process, 3.0 + process) for process in range(3)])[0].summary]
    written = {key for summary in stored for key in summary}
    assert written - FIELD_OF.keys() == set()
    assert set(stats.STATISTICS) <= FIELD_OF.keys()
    # the rare figures were written, so the first assert saw them
    assert {"outlier_processes", "noise_source", "run_sd", "earlier_runs", "between_sd", "raw_median_ci"} <= written


def test_a_null_or_unknown_stored_key_leaves_the_default():
    figures = Summary.of({"median": 5.0, "median_ci": None, "processes": None, "from_a_newer_version": 1})
    assert figures.median == 5.0 and figures.interval is None and figures.processes == 1


def test_the_stored_form_is_unchanged_by_reading_figures():
    record = subtracted_record()
    before = json.dumps(record.to_dict())
    assert record.figures.interval is not None
    assert json.dumps(record.to_dict()) == before  # the typed view is no field
    assert record == subtracted_record()


def test_a_replaced_summary_is_read_again():
    record = subtracted_record()
    assert record.figures.processes == 1
    record.summary = {**record.summary, "processes": 4}
    assert record.figures.processes == 4
