"""Round trips: a stored run exported in each format and imported again keeps every sample.

What each format can carry, and so what these tests require of it:
- jsonl: everything: samples, overhead_samples, per-sample iterations, process indices
  and the rest of `reported`, params and their names, counters, units, unsupported
  counters with their reasons, platforms, binaries, sweeps, failures and the context;
  `show` prints the import exactly as it printed the run;
- csv: every sample (to within one unit in the last place: the file holds the total over
  a sample's iterations, and dividing it back rounds once) and every empty-loop sample,
  with its iterations, unit, platform, binary, process and sweep; not param names, other
  `reported` fields, nor unsupported counters (they have no samples);
- gbench: per platform, every time sample (exactly) as a repetition, with its
  iterations, processes one after another; not which process took it, nor the empty
  loop's samples, nor other counters; a run without cpu_time records gains one equal
  to time (benchlab measures wall time only);
- lind-json: one figure per (test, param, platform): the combined figure of the run's
  processes, exactly, and the first platform's iterations; time only.
"""
import json
import math
import shutil
from pathlib import Path

import pytest

from benchlab.records import Record
from benchlab.output.table import Table
from benchlab.storage.store import open_store
from conftest import FAST, store_example_run

DATA = Path(__file__).resolve().parents[1] / "data"


def load(project, run_id):
    return open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}").load_run(run_id)


def export_import(benchlab, run_id, fmt, name, *platform):
    written = benchlab("export", str(run_id), "--format", fmt, "--out", name, *platform)
    assert written.exit_code == 0, written.stderr
    imported = benchlab("import", name, *(["--platform", platform[1]] if platform else []))
    assert imported.exit_code == 0, imported.stderr
    return int(imported.stdout.rsplit("run ", 1)[1].split(" ")[0])


@pytest.fixture
def runs(project, benchlab, small_bench_binary):
    """Stored runs to send round: a real run (a benchlab program, two processes, a
    counter and one this VM cannot measure), the hand-made run of conftest, a threaded
    record from a sweep, and a Google Benchmark file (with a failure) imported."""
    shutil.copy(small_bench_binary, project / "small")
    result = benchlab("run", "small", *FAST, "--processes", "2", "--counters", "time,allocs,instructions")
    assert result.exit_code == 0, result.stderr
    store_example_run(project)
    store = open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}")
    run_id = store.begin_run(["benchlab", "run", "--sweep", "threads=1,2"], ["native"], {"seed": 1})
    store.add_unit(run_id, [
        Record(bench="hash_map", param=threads, param_name="threads", counter="throughput", unit="ops/s",
               samples=[1e6 * threads + 0.5], iterations=4000 * threads, platform="native", binary="hash_map",
               format="jsonl", sweep={"flag": "threads", "value": str(threads)},
               reported={"histogram_max_error": 0.015625, "per_thread": [{"ops": 2000, "duration_s": 0.2}]})
        for threads in (1, 2)], [])
    store.finish_run(run_id, "complete", 0)
    shutil.copy(DATA / "gbench.json", project / "gbench.json")
    assert benchlab("import", "gbench.json").exit_code == 0
    return [1, 2, 3, 4]


def same_record(a: Record, b: Record) -> None:
    for field in ("bench", "param", "param_name", "counter", "unit", "iterations", "samples", "overhead_samples",
                  "reported", "platform", "binary", "format", "sweep", "summary"):
        assert getattr(a, field) == getattr(b, field), field
    # an unsupported record has no samples, so no per-sample counts: None and [] say the same
    assert (a.sample_iterations or []) == (b.sample_iterations or [])


def test_jsonl_keeps_everything_and_show_prints_the_same(project, benchlab, runs):
    for run_id in runs:
        again = export_import(benchlab, run_id, "jsonl", f"run{run_id}.jsonl")
        run, records, faults = load(project, run_id)
        run2, records2, faults2 = load(project, again)
        assert len(records2) == len(records)
        for a, b in zip(records, records2):
            same_record(a, b)
        assert faults2 == faults and run2["platforms"] == run["platforms"]
        assert run2["status"] == run["status"] and run2["missing"] == run["missing"] == []
        context = dict(run2["context"])
        assert context.pop("imported")["format"] == "jsonl"
        assert context == {k: v for k, v in run["context"].items() if k != "imported"}
        first, second = benchlab("show", str(run_id)), benchlab("show", str(again))
        assert (second.exit_code, second.stdout) == (first.exit_code, first.stdout)
    # the real run: what it is made of really went round
    _, records, _ = load(project, 1)
    assert {r.process for r in records} == {0, 1}
    assert any(r.overhead_samples for r in records) and any(not r.supported for r in records)


def key(record: Record) -> tuple:
    return (record.platform, record.binary, record.process, record.bench, record.param, record.counter,
            record.sweep["value"] if record.sweep else None)


def within_an_ulp(xs, ys) -> bool:
    return len(xs) == len(ys) and all(abs(x - y) <= math.ulp(x) for x, y in zip(xs, ys))


def test_csv_keeps_every_sample_with_where_it_was_taken(project, benchlab, runs):
    for run_id in runs:
        again = export_import(benchlab, run_id, "csv", f"run{run_id}.csv")
        _, records, _ = load(project, run_id)
        _, records2, _ = load(project, again)
        measured = [r for r in records if r.supported and r.samples]
        assert sorted(map(key, records2), key=str) == sorted(map(key, measured), key=str)
        by_key = {key(r): r for r in records2}
        for a in measured:
            b = by_key[key(a)]
            assert within_an_ulp(a.samples, b.samples), key(a)
            assert (a.overhead_samples is None) == (b.overhead_samples is None)
            assert a.overhead_samples is None or within_an_ulp(a.overhead_samples, b.overhead_samples)
            assert b.sample_iterations == (a.sample_iterations or [a.iterations or 1] * len(a.samples))
            assert (b.unit, b.param_name, b.format) == (a.unit, None, "b63csv")  # the name of a param is lost


def test_gbench_keeps_every_time_sample_per_platform(project, benchlab, runs):
    for run_id in runs:
        _, records, _ = load(project, run_id)
        times = [r for r in records if r.counter == "time" and r.supported and r.samples]
        if not times:
            continue  # the threaded run has no time per iteration to write
        for platform in sorted({r.platform for r in times}):
            again = export_import(benchlab, run_id, "gbench", f"run{run_id}-{platform}.json", "--platform", platform)
            _, records2, _ = load(project, again)
            for bench, param in dict.fromkeys((r.bench, r.param) for r in times if r.platform == platform):
                mine = sorted((r for r in times if (r.bench, r.param, r.platform) == (bench, param, platform)),
                              key=lambda r: r.process or 0)
                back = {r.counter: r for r in records2 if (r.bench, r.param) == (bench, param)}
                assert back["time"].samples == [x for r in mine for x in r.samples]
                assert back["time"].sample_iterations == [n for r in mine for n in
                                                          (r.sample_iterations or [r.iterations] * len(r.samples))]
                assert back["time"].platform == platform and back["time"].process is None
                cpu = [r for r in records if (r.bench, r.param, r.platform, r.counter) == (bench, param, platform, "cpu_time")]
                assert back["cpu_time"].samples == (cpu[0].samples if cpu else back["time"].samples)
            assert {r.counter for r in records2} == {"time", "cpu_time"}


def test_lind_json_keeps_the_combined_figure_of_each_cell(project, benchlab, runs):
    for run_id in (1, 2, 4):
        run, records, faults = load(project, run_id)
        again = export_import(benchlab, run_id, "lind-json", f"run{run_id}.lind.json")
        _, records2, _ = load(project, again)
        report = Table(platforms=run["platforms"], records=records, faults=faults)
        expected = {}
        for row in report.rows:
            if row.failed or row.counter != "time":
                continue
            for platform, cell in row.cells.items():
                if cell.record is not None and cell.record.supported:
                    expected[(row.test, row.param or 0, platform)] = ([cell.record.median], row.iterations)
        assert {(r.bench, r.param, r.platform): (r.samples, r.iterations) for r in records2} == expected
        assert len(expected) >= 2


def test_the_dated_folder_imports_back_to_the_run(project, benchlab, runs):
    assert benchlab("export", "1", "--dir", "baselines").exit_code == 0
    [folder] = (project / "baselines").iterdir()
    result = benchlab("import", str(folder / "data" / "results.jsonl"))
    assert result.exit_code == 0
    assert benchlab("show", "5").stdout == benchlab("show", "1").stdout
    assert json.loads((folder / "data" / "results.jsonl").read_text().splitlines()[0])["run"]["id"] == 1
