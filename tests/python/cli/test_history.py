"""`benchlab history NAME`: a benchmark over stored runs, level shifts marked; on SQLite and
PostgreSQL (db_url). Runs are stored through the Store API with figures known exactly."""
import json
import math

import pytest
from scipy import stats as scipy_stats

from benchlab.statistics import series as history
from benchlab.records import Record
from benchlab.statistics import changepoints
from benchlab.storage.store import open_store, Store
from conftest import counting

#: Twelve runs of getpid: 100 ns for six runs, then 110 ns (a 10% slowdown at the 7th run),
#: each figure moved by a little noise.
NOISE = [0.3, -0.4, 0.1, -0.2, 0.5, -0.1, 0.2, -0.3, 0.4, -0.5, 0.0, 0.3]
GETPID = [100 + d for d in NOISE[:6]] + [110 + d for d in NOISE[6:]]


def store_runs(store: Store, medians, *, bench="getpid", host="box", cpu="CPU X", kernel="6.1.0",
               first_day=1, params=(None,), platforms=("native",), counter="time", codes=None, loads=None):
    """One run per median: three processes whose medians are median-1, median, median+1
    (so the combined figure is the median), on each platform and param; `codes`: each run's
    code identity of binary `sys` (noise.py), none by default; `loads`: each run's 1-minute
    load average at its start and end on 2 CPUs (context `load`), none by default. Their ids."""
    ids = []
    for index, (day, median) in enumerate(enumerate(medians, start=first_day)):
        context = {"date": f"2026-{10 + (day - 1) // 28:02d}-{1 + (day - 1) % 28:02d}T09:00:00Z", "host": host,
                   "cpu": cpu, "kernel": kernel, "git": {"commit": f"{day:02d}" * 20, "dirty": day == 3},
                   "platforms": {p: {} for p in platforms}}
        if codes is not None:
            context["code"] = {f"sys@{p}": {"id": codes[index]} for p in platforms}
        if loads is not None:
            context["load"] = {"start": {"average": loads[index], "cpus": 2}, "end": {"average": loads[index], "cpus": 2}}
        run_id = store.begin_run(["benchlab", "run"], list(platforms), context)
        records = [Record(bench=bench, param=param, counter=counter, samples=[m - 0.5, m, m + 0.5] * 3,
                          iterations=1000, platform=platform, binary="sys", format="jsonl",
                          reported={"process": process})
                   for platform in platforms for param in params
                   for process, m in enumerate((median - 1, median, median + 1))]
        store.add_unit(run_id, records, [])
        store.finish_run(run_id, "complete", 0)
        ids.append(run_id)
    return ids


@pytest.fixture
def store(project, db_url, monkeypatch):
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    store = open_store(db_url)
    yield store
    store.close()


def test_history_finds_the_slowdown(store, benchlab):
    store_runs(store, GETPID)
    result = benchlab("history", "getpid")
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[0] == "getpid: time (ns) on native, host box (CPU X, kernel 6.1.0)"
    assert lines[1].split() == ["RUN", "DATE", "COMMIT", "HOST", "FIGURE", "INTERVAL", "CHANGE"]
    rows = [line.split() for line in lines[3:15]]
    assert [row[0] for row in rows] == [str(i) for i in range(1, 13)]
    assert rows[0][:5] == ["1", "2026-10-01T09:00:00Z", "0101010101", "box", "100"]
    assert rows[2][2] == "0303030303+"  # a dirty tree
    assert [row[4] for row in rows] == [f"{m:.0f}" if m >= 100 else f"{m:.3g}" for m in GETPID]
    # the interval is the rerun interval of 3 processes 1 ns apart with no history and no machine
    # prior, as show's: a rerun may move as far as one process: t(0.995; 2) * 1 * sqrt(2/3 + 2) = 16 ns
    half = scipy_stats.t.ppf(0.995, 2) * math.sqrt(2 / 3 + 2)
    assert rows[0][5] == f"+-{100 * half / GETPID[0]:.2g}%" == "+-16%"
    assert [row[6:] for row in rows if len(row) > 6] == [["shift", "+10.1%", "(100", "->", "110)"]]
    assert rows[6][0] == "7" and len(rows[6]) == 11
    assert lines[15:] == ["1 level shift in 12 runs, run-to-run noise 0.7%:",
                          "  from run 7 (2026-10-07T09:00:00Z, commit 0707070707): 100 -> 110 ns (+10.1%)"]


def test_no_shift_in_noise(store, benchlab):
    store_runs(store, [100 + d for d in NOISE])
    result = benchlab("history", "getpid")
    assert result.exit_code == 0
    assert "shift +" not in result.stdout and "shift -" not in result.stdout
    assert result.stdout.splitlines()[-1] == "no level shift in 12 runs, run-to-run noise 0.41%"


def test_json_and_last(store, benchlab):
    # The 10% slowdown is a change of the code (identity a, then b): not noise.
    store_runs(store, GETPID, codes=["a"] * 6 + ["b"] * 6)
    document = json.loads(benchlab("history", "getpid", "--format", "json").stdout)
    assert [run["run"] for run in document["runs"]] == list(range(1, 13))
    assert [run["median"] for run in document["runs"]] == pytest.approx(GETPID)
    assert document["runs"][0]["commit"] == "01" * 20 and document["runs"][0]["processes"] == 3
    [shift] = document["change_points"]
    assert (shift["index"], shift["run"]) == (6, 7)
    # the medians of the runs of each level
    assert shift["before"] == pytest.approx(100.0) and shift["after"] == pytest.approx(110.1)
    assert shift["change"] == pytest.approx(110.1 / 100.0 - 1)
    assert document["host"]["host"] == "box" and document["method"]["penalty"] == pytest.approx(18 + 150 / 12)

    last = json.loads(benchlab("history", "getpid", "--format", "json", "--last", "4").stdout)
    assert [run["run"] for run in last["runs"]] == [9, 10, 11, 12] and last["change_points"] == []
    # Each run's interval is the one `show` prints for it: from run 4 on (3 earlier runs on
    # this machine) the run level of the runs before it is in it, as in show's.
    for run in document["runs"]:
        shown = json.loads(benchlab("show", str(run["run"]), "--format", "json").stdout)
        [cell] = [row["cells"]["native"] for row in shown["rows"] if row["test"] == "getpid"]
        assert run["interval"] == pytest.approx(cell["median_ci"])
    # Run 7 is the first of code b: no earlier run of identical code and no machine prior, so its
    # 3 processes (1 ns apart) stand in for the spread between runs: t(0.995; 2) * 1 * sqrt(2/3 + 2).
    seventh, tenth = document["runs"][6], document["runs"][9]
    assert (seventh["interval"][1] - seventh["interval"][0]) / 2 == pytest.approx(
        scipy_stats.t.ppf(0.995, 2) * math.sqrt(2 / 3 + 2), rel=1e-6)
    # Run 10 has runs 7-9 of code b before it, by hand (noise.py): the mean of their 2 squared
    # log differences, less what their processes explain; the pooled process spread is the
    # mean of each run's CV^2 with the largest of 3 clipped at the next, scaled for
    # chi-square(2) clipped at its 2/3 quantile, 4 df (2 of 3 runs x 2), larger than run
    # 10's own 1 ns; Welch-Satterthwaite joins the two.
    same = GETPID[6:9]
    squares = [math.log(b / a) ** 2 for a, b in zip(same, same[1:])]
    explained = sum(1 / a ** 2 / 3 + 1 / b ** 2 / 3 for a, b in zip(same, same[1:])) / 2
    # Their differences are no larger than their processes explain: no run level (0), so the
    # interval rests on the pooled process spread alone, with its 4 degrees of freedom.
    assert (sum(squares) / 2 - explained) / 2 < 0
    cv2s = sorted(1 / m ** 2 for m in same)
    cap = scipy_stats.chi2.ppf(2 / 3, 2)
    share = scipy_stats.chi2.cdf(cap, 4) + cap / 3 / 2
    pooled_sd = GETPID[9] * ((cv2s[0] + 2 * cv2s[1]) / 3 / share) ** 0.5
    assert pooled_sd > 1
    assert (tenth["interval"][1] - tenth["interval"][0]) / 2 == pytest.approx(
        scipy_stats.t.ppf(0.995, 4) * pooled_sd * math.sqrt(2 / 3), rel=1e-6)
    markdown = benchlab("history", "getpid", "--format", "markdown").stdout
    seventh_half = 100 * scipy_stats.t.ppf(0.995, 2) * math.sqrt(2 / 3 + 2) / GETPID[6]
    assert (f"| 7 | 2026-10-07T09:00:00Z | 0707070707 | box | 110 | +-{seventh_half:.2g}% | shift +10.1% (100 -> 110) |"
            in markdown)


def test_hosts_are_not_mixed(store, benchlab):
    store_runs(store, [100.0] * 6, host="old", first_day=1)
    store_runs(store, [200.0] * 6, host="new", first_day=7)  # another machine, twice as slow
    result = benchlab("history", "getpid")
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()[3:9]] == ["7", "8", "9", "10", "11", "12"]
    assert result.stdout.splitlines()[-1] == "no level shift in 6 runs, run-to-run noise 0.1%"
    from benchlab.statistics.series import Fingerprint
    new, old = Fingerprint("new", "CPU X", "6.1.0"), Fingerprint("old", "CPU X", "6.1.0")
    assert result.stderr == (
        f"note: host new (CPU X, kernel 6.1.0) ({new.id}: 6 runs); 6 runs on other machines left out: "
        f"{old.id} = old (CPU X, kernel 6.1.0): 6 runs (pick one with --host ID or --host HOSTNAME)\n")
    picked = benchlab("history", "getpid", "--host", "old")
    assert [line.split()[0] for line in picked.stdout.splitlines()[3:9]] == ["1", "2", "3", "4", "5", "6"]
    assert benchlab("history", "getpid", "--host", old.id).stdout == picked.stdout

    store_runs(store, [100.0] * 2, host="old", kernel="6.5.0", first_day=13)  # the old box upgraded
    ambiguous = benchlab("history", "getpid", "--host", "old")
    upgraded = Fingerprint("old", "CPU X", "6.5.0")
    assert (ambiguous.exit_code, ambiguous.stdout) == (2, "")
    assert ambiguous.stderr == (
        "error: host 'old' has several fingerprints (CPU or kernel changed) in this series (pick one by its id: "
        f"--host {old.id} = old (CPU X, kernel 6.1.0); --host {upgraded.id} = old (CPU X, kernel 6.5.0))\n")
    by_id = benchlab("history", "getpid", "--host", upgraded.id)
    assert [line.split()[0] for line in by_id.stdout.splitlines()[3:5]] == ["13", "14"]
    unknown = benchlab("history", "getpid", "--host", "nowhere")
    assert unknown.exit_code == 2 and unknown.stderr.startswith("error: no run of this series on host 'nowhere' (its machines: ")


def test_params_platforms_counters(store, benchlab):
    store_runs(store, [100.0] * 4, bench="copy", params=(16, 1024), platforms=("native", "wasm"))
    several = benchlab("history", "copy")
    assert (several.exit_code, several.stderr) == (
        2, "error: benchmark 'copy' has several parameter values: 16, 1024 (pick one with --param 16)\n")
    result = benchlab("history", "copy", "--param", "1024")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "copy param=1024: time (ns) on native, host box (CPU X, kernel 6.1.0)"
    assert result.stderr == "note: platform native; also stored on wasm (pick with --platform)\n"
    assert benchlab("history", "copy", "--param", "1024", "--platform", "wasm").stderr == ""
    bad = benchlab("history", "copy", "--param", "7")
    assert (bad.exit_code, bad.stderr) == (2, "error: benchmark 'copy' has no parameter value '7' (its values: 16, 1024)\n")
    bad = benchlab("history", "copy", "--param", "16", "--platform", "qemu")
    assert (bad.exit_code, bad.stderr) == (
        2, "error: benchmark 'copy' has no 'time' figure on platform 'qemu' (its platforms: native, wasm)\n")
    bad = benchlab("history", "copy", "--counter", "page-faults")
    assert (bad.exit_code, bad.stderr) == (2, "error: benchmark 'copy' has no 'page-faults' counter stored "
                                              "(give --counter time)\n")


def test_unknown_name_suggests_close_ones(store, benchlab):
    store_runs(store, [100.0] * 2)
    store_runs(store, [100.0] * 2, bench="getppid")
    result = benchlab("history", "getpdi")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "error: no benchmark 'getpdi' in any stored run (did you mean 'getpid' or 'getppid'?)\n"
    far = benchlab("history", "zzz")
    assert far.stderr == "error: no benchmark 'zzz' in any stored run (stored benchmarks: getpid, getppid)\n"


def test_empty_database(project, benchlab, tmp_path):
    result = benchlab("history", "getpid", "--db", f"sqlite:///{tmp_path / 'empty.db'}")
    assert (result.exit_code, result.stderr) == (
        2, "error: no benchmark 'getpid' in any stored run (the database has no results: store runs with benchlab run)\n")


def test_bad_last(project, benchlab):
    result = benchlab("history", "getpid", "--last", "0")
    assert result.exit_code == 2 and "--last" in result.stderr and "0" in result.stderr


def test_no_figure(store, benchlab):
    run_id = store.begin_run(["benchlab", "run"], ["native"], {"host": "box"})
    store.add_unit(run_id, [Record(bench="getpid", param=None, counter="instructions", unit="instructions", samples=[],
                                   platform="native", binary="sys", format="jsonl",
                                   reported={"supported": False, "reason": "no PMU"})], [])
    store.finish_run(run_id, "complete", 0)
    result = benchlab("history", "getpid")
    assert (result.exit_code, result.stderr) == (
        2, "error: benchmark 'getpid' has no figure in any stored run (every record failed or is not supported) "
           "(store a run in which it measures: benchlab run)\n")


def test_figures_of_zero_are_left_out_and_said(store, benchlab):
    store_runs(store, [10.0, 10.0, 0.0, 10.0, 10.0, 0.0], counter="page-faults")
    result = benchlab("history", "getpid", "--counter", "page-faults")
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()[3:7]] == ["1", "2", "4", "5"]
    assert result.stderr == "note: 2 runs with a figure of 0 left out (runs 3, 6): a shift is a ratio\n"
    store_runs(store, [0.0, 0.0], bench="idle")
    none = benchlab("history", "idle")
    assert (none.exit_code, none.stderr) == (
        2, "error: benchmark 'idle' has a figure of 0 in every run of this series (a shift is a ratio: pick a "
           "counter or parameter that measures more than 0)\n")


def test_runs_of_one_process_get_shows_interval_from_the_runs_of_several_before_them(store, benchlab):
    # 5 runs of 3 processes, then 25 of one process (more than the 20 runs of the window):
    # every one-process run's interval is the one `show` prints, with the 5 runs' spread in it.
    store_runs(store, GETPID[:5], codes=["a"] * 5)
    unit = {"binary": "sys", "platform": "native", "sweep": None}
    for day in range(6, 31):
        context = {"date": f"2026-10-{day:02d}T09:00:00Z", "host": "box", "cpu": "CPU X", "kernel": "6.1.0",
                   "plan": [unit], "platforms": {"native": {}}, "code": {"sys@native": {"id": "a"}}}
        run_id = store.begin_run(["benchlab", "run", "-N", "1"], ["native"], context)
        store.add_unit(run_id, [Record(bench="getpid", param=None, samples=[99.5, 100.0, 100.5] * 3, iterations=1000,
                                       platform="native", binary="sys", format="jsonl")], [])
        store.finish_run(run_id, "complete", 0)
    document = json.loads(benchlab("history", "getpid", "--format", "json").stdout)
    assert len(document["runs"]) == 30 and document["runs"][-1]["processes"] == 1
    for run in document["runs"][5::6]:
        shown = json.loads(benchlab("show", str(run["run"]), "--format", "json").stdout)
        [cell] = [row["cells"]["native"] for row in shown["rows"] if row["test"] == "getpid"]
        assert run["interval"] == pytest.approx(cell["median_ci"])
        assert cell["median_ci"][1] - 100 > 4  # the 5 runs' spread between processes, not the process's own +-0.5


# -- a long history: only what is shown is read (issue 29) ---------------------------------------

def test_history_reads_the_runs_it_shows_whatever_the_store_holds(store):
    """--last 5 reads the 5 runs it shows and the 20 before them (their run level): as many rows
    from a store of 30 runs as from one of 60, in as many statements, each limited in SQL."""
    read = {}
    store_runs(store, [100.0] * 30, codes=["a"] * 30)
    for size in (30, 60):
        if size == 60:
            store_runs(store, [100.0] * 30, codes=["a"] * 30, first_day=31)
        with counting(store) as read[size]:
            series = history.read_series(store, "getpid", platform=None, counter="time", param=None, host=None,
                                         last=5)
        assert [p.run["id"] for p in series.points] == list(range(size - 4, size + 1)) and series.earlier
    assert [rows for _, rows in read[30]] == [rows for _, rows in read[60]]
    # the runs' ids (25: LIMIT), their rows (25), their records (25 runs x 3 processes), the
    # machine's prior (none: without it a run with no history takes its processes' spread)
    assert [rows for _, rows in read[60]] == [25, 25, 75, 0]
    ids, runs, records, _ = (sql for sql, _ in read[60])
    assert "LIMIT :limit" in ids and "WHERE id IN (" in runs and "run_id IN (" in records


def test_history_shows_the_latest_runs_by_default_with_the_intervals_of_the_whole_history(store, benchlab,
                                                                                            monkeypatch):
    store_runs(store, GETPID * 3, codes=["a"] * 6 + ["b"] * 30)
    whole = json.loads(benchlab("history", "getpid", "--format", "json").stdout)
    assert len(whole["runs"]) == 36 and not whole["earlier_runs"]
    monkeypatch.setattr(history, "DEFAULT_LAST", 5)
    result = benchlab("history", "getpid")
    assert [line.split()[0] for line in result.stdout.splitlines()[3:8]] == ["32", "33", "34", "35", "36"]
    assert result.stderr == "note: the latest 5 runs of the series; earlier ones are not shown (--last N shows more)\n"
    latest = json.loads(benchlab("history", "getpid", "--format", "json").stdout)
    assert latest["earlier_runs"] and [run["run"] for run in latest["runs"]] == [32, 33, 34, 35, 36]
    # each run's interval as in the whole history: the 20 runs read before them hold their run level
    assert [run["interval"] for run in latest["runs"]] == [run["interval"] for run in whole["runs"][-5:]]
    assert benchlab("history", "getpid", "--last", "5").stderr == ""  # asked for: no note


def test_a_machine_far_back_is_found(store, benchlab, monkeypatch):
    monkeypatch.setattr(history, "DEFAULT_LAST", 2)  # a page of 22 runs
    store_runs(store, [100.0] * 3, host="old")
    store_runs(store, [200.0] * 50, host="new", first_day=4)
    result = benchlab("history", "getpid", "--host", "old")
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()[3:5]] == ["2", "3"]
    assert "50 runs on other machines left out" in result.stderr
    latest = benchlab("history", "getpid")
    # the note counts the runs read: the newest page's, all on the new machine
    assert [line.split()[0] for line in latest.stdout.splitlines()[3:5]] == ["52", "53"]
    assert "other machines" not in latest.stderr


def test_the_errors_name_what_the_store_holds_when_nothing_matches(store, benchlab):
    store_runs(store, [100.0] * 2, bench="copy", params=(16, 1024))
    assert benchlab("history", "copy", "--param", "16", "--counter", "cycles").stderr == (
        "error: benchmark 'copy' has no 'cycles' counter stored (give --counter time)\n")
    assert benchlab("history", "copy", "--param", "16", "--platform", "wasm").stderr == (
        "error: benchmark 'copy' has no 'time' figure on platform 'wasm' (its platforms: native)\n")


# -- a shift beside a change of load or machine (issue 29) ----------------------------------------

#: Quiet runs at 100 ns, six on a busy machine (load average 3.6 on 2 CPUs) reading 46% high, quiet again.
LOADED = [100 + d for d in NOISE[:8]] + [146 + d for d in NOISE[:6]] + [100 + d for d in NOISE[4:12]]
LOADS = [0.4] * 8 + [3.6] * 6 + [0.4] * 8


def test_a_shift_with_a_change_of_load_says_so(store, benchlab):
    store_runs(store, LOADED, loads=LOADS)
    result = benchlab("history", "getpid")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[3 + 8].endswith("shift +46.0% (100 -> 146); load quiet -> busy")
    assert lines[3 + 14].endswith("shift -31.4% (146 -> 100); load busy -> quiet")
    assert lines[-5:] == [
        "2 level shifts in 22 runs, run-to-run noise 0.61%:",
        "  from run 9 (2026-10-09T09:00:00Z, commit 0909090909): 100 -> 146 ns (+46.0%)",
        "    coincides with a change of load (quiet -> busy): it may be the machine's, not the code's",
        "  from run 15 (2026-10-15T09:00:00Z, commit 1515151515): 146 -> 100 ns (-31.4%)",
        "    coincides with a change of load (busy -> quiet): it may be the machine's, not the code's"]
    document = json.loads(benchlab("history", "getpid", "--format", "json").stdout)
    assert [run["busy"] for run in document["runs"]] == [load > 2 for load in LOADS]
    assert [(cp["run"], cp["coincides"]) for cp in document["change_points"]] == [
        (9, [{"kind": "load", "before": "quiet", "after": "busy"}]),
        (15, [{"kind": "load", "before": "busy", "after": "quiet"}])]


def test_a_shift_of_the_code_on_a_quiet_machine_coincides_with_nothing(store, benchlab):
    store_runs(store, GETPID, loads=[0.4] * 12)
    document = json.loads(benchlab("history", "getpid", "--format", "json").stdout)
    [shift] = document["change_points"]
    assert (shift["run"], shift["coincides"]) == (7, [])
    assert [run["busy"] for run in document["runs"]] == [False] * 12
    # runs from before the load was recorded: unknown, never a change
    store_runs(store, GETPID, bench="getppid")
    document = json.loads(benchlab("history", "getppid", "--format", "json").stdout)
    assert [run["busy"] for run in document["runs"]] == [None] * 12 and document["change_points"][0]["coincides"] == []


def point(run_id: int, median: float, cpu: str = "CPU X", **reported) -> history.Point:
    run = {"id": run_id, "started_at": "", "host": None, "status": "complete",
           "context": {"host": "ci", "cpu": cpu, "kernel": "6.1.0"}}
    return history.Point(run, Record(bench="getpid", param=None, samples=[median], platform="native", binary="sys",
                                      reported=reported))


def test_a_shift_with_a_change_of_machine_says_so():
    # One machine name for runners of two CPU models (BENCHLAB_MACHINE), as a series
    # read by fingerprint never mixes: the level of the second CPU model is said.
    points = [point(i, 100.0) for i in range(6)] + [point(6 + i, 120.0, cpu="CPU Y") for i in range(6)]
    found = changepoints.detect([p.record.median for p in points])
    assert [cp.index for cp in found] == [6]
    assert history.coinciding(points, found, 0) == [
        history.Coincidence("machine", "ci (CPU X, kernel 6.1.0)", "ci (CPU Y, kernel 6.1.0)")]


def test_samples_that_waited_for_a_cpu_make_a_run_busy():
    # formats.md, "Contention": waited over contention.BUSY_SHARE (5%) of the sampling time
    assert history.busy(point(1, 100.0, run_delay_ns=60.0, sampled_ns=1000.0)) is True
    assert history.busy(point(1, 100.0, run_delay_ns=40.0, sampled_ns=1000.0)) is False
    assert history.busy(point(1, 100.0)) is None
