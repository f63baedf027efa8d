"""`benchlab stats RUN [NAME]...`: each figure's processes, samples and interval (as pyperf
stats), on SQLite and PostgreSQL. Runs are stored through the Store API with known samples."""
import math

import pytest
from scipy import stats as scipy_stats

from benchlab.records import Record
from benchlab.storage.store import open_store


def process(bench, median, k, *, overhead=None):
    samples = [median - 0.5, median, median + 0.5] * 4
    reported = {"process": k, "stopped": "precision", "start_cpu": k % 2, "stack_offset": 64 * k, "env_pad": 100 + k}
    return Record(bench=bench, param=None, samples=[x + (overhead or 0) for x in samples], iterations=1000,
                  platform="native", binary="sys", format="jsonl", reported=reported,
                  overhead_samples=[overhead] * len(samples) if overhead is not None else None)


@pytest.fixture
def stored(project, db_url, monkeypatch):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    store = open_store(db_url)
    run_id = store.begin_run(["benchlab", "run"], ["native"], {"host": "box", "cpu": "CPU X"})
    records = [process("getpid", m, k) for k, m in enumerate([99.0, 100.0, 101.0])]
    records += [process("write", m, k, overhead=0.3) for k, m in enumerate([500.0, 520.0, 510.0])]
    store.add_unit(run_id, records, [])
    store.finish_run(run_id, "complete", 0)
    yield store
    store.close()


def test_every_figure_with_its_processes_samples_and_interval(stored, benchlab):
    result = benchlab("stats", "latest")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("run 1 (") and lines[0].endswith("complete); host box, CPU X")
    assert lines[1] == "machine prior: none (benchlab calibrate measures it)"
    start = lines.index("getpid on native (sys)")
    getpid = lines[start:lines.index("write on native (sys)")]
    # the rerun interval of 3 processes 1 ns apart, no history and no prior: their standard
    # error and, between runs, one process's spread again: t(0.995; 2) * 1 * sqrt(2/3 + 2) = 16 ns
    half = scipy_stats.t.ppf(0.995, 2) * 1.0 * math.sqrt(2 / 3 + 2)
    assert getpid[1] == f"  figure        100 ns, 99% interval [{100 - half:.3g}, {100 + half:.0f}] (+-16%)"
    assert getpid[2] == "  interval of   a rerun of as many processes, which may move as far as one process"
    # the spread between runs that stands in is one process's: 1 ns in 100, and said so
    assert getpid[3] == ("  noise from    no identical-code history and no machine prior: a rerun may move as far as one "
                         "of its processes (benchlab calibrate measures the machine): one process's spread, standing in "
                         "for runs' 1%")
    assert getpid[4] == "  processes     3; CV of their medians 1%; their own intervals do not all overlap (!)"
    assert getpid[5] == "  samples       36: minimum 98.5, maximum 102 ns; outside Tukey's fences 0 low, 0 high"
    assert getpid[6].split() == ["process", "median", "raw", "99%", "within", "its", "run", "samples", "stopped", "at",
                                 "preempted", "start", "CPU", "stack", "offset", "env", "pad"]
    assert [line.split()[:2] + line.split()[-6:] for line in getpid[7:10]] == [
        ["0", "99", "12", "precision", "-", "0", "0", "100"],
        ["1", "100", "12", "precision", "-", "1", "64", "101"],
        ["2", "101", "12", "precision", "-", "0", "128", "102"]]
    write = lines[lines.index("write on native (sys)"):]
    assert "  subtracted    the empty loop: 0.3 ns per iteration; before subtracting, medians 500-520 ns" in write
    # Raw beside subtracted (issue 20): a body of 1700 empty loops has none of it taken off.
    assert write[4] == "  raw           510 ns, the same: none of the empty loop is subtracted from a body over 8 times its cost"
    assert [line.split()[:3] for line in write[9:12]] == [["0", "500", "500"], ["1", "520", "520"], ["2", "510", "510"]]
    assert [line.split()[:3] for line in getpid[7:10]] == [["0", "99", "-"], ["1", "100", "-"], ["2", "101", "-"]]


def test_a_short_body_has_the_loop_taken_off_and_its_raw_figure_beside(project, db_url, monkeypatch, benchlab):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    store = open_store(db_url)
    run_id = store.begin_run(["benchlab", "run"], ["native"], {"host": "box", "cpu": "CPU X"})
    store.add_unit(run_id, [process("call", m, k, overhead=0.5) for k, m in enumerate([1.0, 1.2, 1.4])], [])
    store.finish_run(run_id, "complete", 0)
    store.close()
    lines = benchlab("stats", "latest").stdout.splitlines()
    assert lines[4].startswith("  figure        1.2 ns, 99% interval")  # 3 to 3.8 empty loops: all of it off
    assert lines[7] == ("  raw           1.7 ns before subtracting the empty loop (quote it for a throughput-bound body "
                        "of a few cycles: docs/formats.md, \"Which figure to quote\")")
    assert [line.split()[:3] for line in lines[-3:]] == [["0", "1", "1.5"], ["1", "1.2", "1.7"], ["2", "1.4", "1.9"]]


def test_a_process_of_few_samples_has_no_interval_to_show(project, db_url, monkeypatch, benchlab):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    store = open_store(db_url)
    run_id = store.begin_run(["benchlab", "import", "x.json"], ["native"], {"host": "box"})
    store.add_unit(run_id, [Record(bench="memset", param=None, samples=[4.4, 3.7, 4.5], platform="native",
                                   binary="x.json", format="gbench")], [])
    store.finish_run(run_id, "complete", 0)
    store.close()
    lines = benchlab("stats", "latest").stdout.splitlines()
    assert lines[4] == "  figure        4.4 ns; 3 samples of one process bound nothing at 99% (at least 8 do)"
    assert lines[-1].split() == ["-", "4.4", "-", "-", "3", "-", "-", "-", "-", "-"]


def test_names_pick_figures_and_a_name_that_matches_nothing_lists_the_benchmarks(stored, benchlab):
    only = benchlab("stats", "-1", "wri").stdout
    assert "write on native (sys)" in only and "getpid" not in only
    result = benchlab("stats", "latest", "nosuch")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: run 1 has no benchmark whose name contains 'nosuch'")
    assert "its benchmarks: getpid, write" in result.stderr


def test_an_unknown_run_is_an_error(stored, benchlab):
    result = benchlab("stats", "7")
    assert result.exit_code == 2 and "7" in result.stderr


def test_preempted_rounds_and_the_waited_share_are_shown_per_figure_and_process(project, db_url, monkeypatch, benchlab):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    store = open_store(db_url)
    run_id = store.begin_run(["benchlab", "run"], ["native"], {"host": "box", "cpu": "CPU X"})
    records = [process("getpid", m, k) for k, m in enumerate([99.0, 100.0])]
    records[0].reported.update(preempted=3, left_out=3, involuntary_switches=4, run_delay_ns=2e6, sampled_ns=1e7)
    records[1].reported.update(preempted=1, left_out=0, involuntary_switches=1, run_delay_ns=0.5e6, sampled_ns=1.5e7,
                               short_samples=True)
    store.add_unit(run_id, records, [])
    store.finish_run(run_id, "complete", 0)
    store.close()
    result = benchlab("stats", "latest")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    # 24 samples kept, 3 left out: 27 rounds; 2.5 ms waited of 25 ms sampled
    assert ("  preempted     4 of 27 rounds (3 left out of the figure), waited for a CPU 10.0% of the sampling time; "
            "5 involuntary switches") in lines
    assert ("  short samples 1 of 2 processes: the machine was too busy to make a sample long against the timer "
            "(up to a tick of rounding in each)") in lines
    rows = [line for line in lines if line.lstrip().startswith(("0 ", "1 "))]
    assert "3 preempted (3 left out), waited 20%" in rows[0] and "1 preempted, waited 3%" in rows[1]
