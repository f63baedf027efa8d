"""instances.py and report.instance_scaling: copies summed, linearity, overlap, failed copies."""
import pytest

from benchlab.output.exporters import EXPORTERS
from benchlab.measuring.instances import check_values
from benchlab.errors import UserError
from benchlab.records import Record
from benchlab.output.scaling import copy_overlap, instance_scaling
from benchlab.output.table import Table


def copy(count, index, value, *, process=None, counter="throughput", unit="ops/s", window=None, failed=None,
         platform="native"):
    reported = {"copy": index, "instances": count, "window_s": window or [0.0, 1.0]}
    if process is not None:
        reported["process"] = process
    if failed:
        reported.update(incomplete=True, failed_copies=failed)
    return Record(bench="b", param=None, counter=counter, unit=unit, samples=[value], platform=platform,
                  binary="b", sweep={"flag": "instances", "value": str(count)}, reported=reported)


def points(records, platforms=("native",)):
    [(key, unit, curves)] = instance_scaling(Table(list(platforms), records, []))
    return key, unit, {p: [(pt.value, pt.throughput, pt.linearity, pt.per_copy, pt.failed_copies) for pt in c]
                       for p, c in curves.items()}


def test_summed_over_copies_and_averaged_over_rounds():
    records = [copy(1, 0, 100.0, process=0), copy(1, 0, 120.0, process=1)]              # 110 at 1
    records += [copy(2, k, v, process=p) for p, values in ((0, (90, 70)), (1, (100, 80))) for k, v in enumerate(values)]
    records += [copy(4, k, 50.0, process=p) for p in (0, 1) for k in range(4)]           # 200 at 4
    key, unit, curves = points(records)
    assert key == ("b", None, "throughput") and unit == "ops/s"
    # 2 copies: rounds of 160 and 180, mean 170, linearity 170 / (2 x 110); 4: 200 / (4 x 110)
    assert curves["native"] == [(1, 110.0, 1.0, 110.0, None),
                                (2, 170.0, pytest.approx(170 / 220), 85.0, None),
                                (4, 200.0, pytest.approx(200 / 440), 50.0, None)]


def test_time_per_iteration_becomes_iterations_per_second_per_copy():
    records = [copy(1, 0, 500.0, counter="time", unit="ns")]
    records += [copy(2, 0, 500.0, counter="time", unit="ns"), copy(2, 1, 1000.0, counter="time", unit="ns")]
    _, unit, curves = points(records)
    # 1e9/500 = 2e6 it/s; two copies: 2e6 + 1e6
    assert unit == "ops/s"
    assert curves["native"] == [(1, 2e6, 1.0, 2e6, None), (2, 3e6, 0.75, 1.5e6, None)]


def test_a_round_with_a_failed_copy_is_left_out_when_a_complete_one_exists():
    records = [copy(1, 0, 100.0, process=0), copy(1, 0, 100.0, process=1)]
    records += [copy(2, 0, 100.0, process=0, failed=[1])]                      # copy 1 crashed: no record
    records += [copy(2, 0, 90.0, process=1), copy(2, 1, 90.0, process=1)]
    _, _, curves = points(records)
    assert curves["native"][1] == (2, 180.0, 0.9, 90.0, None)
    # with no complete round, the incomplete sum is shown, with the copies that failed
    _, _, curves = points(records[:3])
    assert curves["native"][1] == (2, 100.0, 0.5, 100.0, [1])
    text = EXPORTERS["table"](Table(["native"], records[:3], []))
    assert "100 (0.500)? [copy 1 of 2 failed]" in text  # one copy of one process: no interval, so ?


def test_a_copy_without_records_is_a_failed_copy_even_unmarked():
    records = [copy(1, 0, 100.0), copy(3, 0, 100.0), copy(3, 2, 100.0)]
    _, _, curves = points(records)
    assert curves["native"][1] == (3, 200.0, pytest.approx(2 / 3), 100.0, [1])


def test_ops_per_ms_and_ops_per_second_copies_share_one_unit():
    records = [copy(1, 0, 1.0, unit="ops/ms", platform="csb"), copy(2, 0, 1.0, unit="ops/ms", platform="csb"),
               copy(2, 1, 1.0, unit="ops/ms", platform="csb"),
               copy(1, 0, 1000.0, platform="ours"), copy(2, 0, 500.0, platform="ours"), copy(2, 1, 500.0, platform="ours")]
    _, unit, curves = points(records, ("csb", "ours"))
    assert unit == "ops/s"
    assert [p[1:3] for p in curves["csb"]] == [(1000.0, 1.0), (2000.0, 1.0)]
    assert [p[1:3] for p in curves["ours"]] == [(1000.0, 1.0), (1000.0, 0.5)]


def test_overlap_is_the_shared_time_over_the_span():
    assert copy_overlap([copy(2, 0, 1, window=[0.0, 1.0]), copy(2, 1, 1, window=[0.5, 2.0])]) == 0.25
    assert copy_overlap([copy(2, 0, 1, window=[0.0, 1.0]), copy(2, 1, 1, window=[1.5, 2.0])]) == 0.0
    assert copy_overlap([copy(2, 0, 1, window=[0.0, 2.0]), copy(2, 1, 1, window=[0.0, 2.0])]) == 1.0
    assert copy_overlap([copy(1, 0, 1)]) is None


def test_counts_are_normalised_and_checked():
    assert check_values(("1", "02", "4")) == ("1", "2", "4")
    for bad in ("0", "-1", "1.5", "x", "1025", "٣"):
        with pytest.raises(UserError, match="whole number of copies from 1 to 1024"):
            check_values(("1", bad))
