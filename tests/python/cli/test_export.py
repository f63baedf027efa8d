"""`benchlab export`: each format of a stored run whose figures are known by hand, the
dated folder, Google Benchmark's own compare.py on an export, and every fault (one line,
exit 2, nothing written)."""
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.storage.store import open_store
from conftest import store_example_run

DATA = Path(__file__).resolve().parents[1] / "data"
COMPARE_PY = Path("/usr/share/benchmark/compare.py")  # Debian's libbenchmark-tools

CSV = """\
name,param,counter,iterations,value,unit,platform,binary,process,sweep,overhead
copy,64,time,100,1000.0,ns,native,bench,0,,100.0
copy,64,time,100,1100.0,ns,native,bench,0,,100.0
copy,64,time,101,1212.0,ns,native,bench,0,,151.5
copy,64,time,100,1200.0,ns,native,bench,1,,100.0
copy,64,time,100,1300.0,ns,native,bench,1,,100.0
copy,64,time,101,1414.0,ns,native,bench,1,,101.0
copy,64,time,100,2000.0,ns,wasm,bench,0,,
copy,64,time,100,2200.0,ns,wasm,bench,0,,
copy,64,time,101,2424.0,ns,wasm,bench,0,,
copy,64,time,100,2400.0,ns,wasm,bench,1,,
copy,64,time,100,2600.0,ns,wasm,bench,1,,
copy,64,time,101,2828.0,ns,wasm,bench,1,,
copy,64,page-faults,100,50.0,events,native,bench,0,,
copy,64,page-faults,100,25.0,events,native,bench,0,,
copy,64,page-faults,101,50.5,events,native,bench,0,,
empty,,time,1000,1000.0,ns,native,bench,,,
empty,,time,1000,1250.0,ns,native,bench,,,
"""

# Per platform, the mean of the two processes' medians: native (11 + 13) / 2, the body at 11
# times its empty loop of 1 ns, whose share of the loop is 0 (formats.md, *Subtraction*),
# wasm (22 + 26) / 2; `empty` has one process, median 1.125, and did not run on wasm: -1, as the
# Lind runner writes a platform that did not run.
LIND_JSON = {"copy": {"64": {"native": 12.0, "wasm": 24.0, "loops": 100}},
             "empty": {"0": {"native": 1.125, "wasm": -1, "loops": 1000}}}


@pytest.fixture
def run(project):
    return store_example_run(project)


def test_csv_is_one_line_per_sample_with_totals_over_its_iterations(project, benchlab, run):
    result = benchlab("export", "1", "--format", "csv")
    assert (result.exit_code, result.stdout, result.stderr) == (0, CSV, "")


def test_lind_json_has_the_combined_figure_per_platform(project, benchlab, run):
    result = benchlab("export", "latest", "--format", "lind-json")
    assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(result.stdout) == LIND_JSON
    assert result.stdout.startswith('{\n  "copy": {\n    "64": {\n      "native": 12.0,\n')


def test_jsonl_is_a_context_record_then_every_record_with_all_it_has(project, benchlab, run):
    result = benchlab("export", "1")  # jsonl by default
    assert result.exit_code == 0 and result.stderr == ""
    context, *records = [json.loads(line) for line in result.stdout.splitlines()]
    assert (context["type"], context["schema"], context["date"], context["host"], context["cpu"]) == (
        "context", 2, "2026-11-20T10:00:00Z", "box", "CPU X")
    assert context["run"]["id"] == 1 and context["run"]["status"] == "failed"
    assert context["run"]["platforms"] == ["native", "wasm"] and context["run"]["context"]["seed"] == 5
    assert context["run"]["faults"] == [{"binary": "crash", "platform": "wasm", "reason": "exit status 3",
                                         "stderr_tail": ["boom"], "sweep": None, "process": None,
                                         "kind": "failed", "copy": None}]
    assert len(records) == 7 and {r["type"] for r in records} == {"result"}
    first = records[0]
    assert first["samples"] == [10.0, 11.0, 12.0] and first["overhead_samples"] == [1.0, 1.0, 1.5]
    # 11 times its empty loop: none of it subtracted (a share of 1 would give 10: median of 9, 10, 10.5)
    assert first["subtracted"] is True and first["median"] == 11.0 and first["loop_share"] == 0.0
    assert (first["platform"], first["binary"], first["reported"]) == ("native", "bench", {"process": 0, "stack_offset": 0})
    unsupported = records[5]
    assert (unsupported["supported"], unsupported["reason"], unsupported["samples"]) == (False, "no PMU in this VM", [])


def test_gbench_has_each_sample_as_a_repetition_then_the_aggregates(project, benchlab, run):
    result = benchlab("export", "1", "--format", "gbench", "--platform", "native")
    assert result.exit_code == 0 and result.stderr == ""
    document = json.loads(result.stdout)
    assert document["context"]["json_schema_version"] == 1 and document["context"]["host_name"] == "box"
    copy = [b for b in document["benchmarks"] if b["run_name"] == "copy/64"]
    repetitions = [b for b in copy if b["run_type"] == "iteration"]
    # both processes' samples as measured (Google Benchmark subtracts nothing), process 0 first
    assert [b["real_time"] for b in repetitions] == [10.0, 11.0, 12.0, 12.0, 13.0, 14.0]
    assert [b["cpu_time"] for b in repetitions] == [b["real_time"] for b in repetitions]
    assert [b["iterations"] for b in repetitions] == [100, 100, 101, 100, 100, 101]
    assert [b["repetition_index"] for b in repetitions] == [0, 1, 2, 3, 4, 5]
    assert {(b["name"], b["repetitions"], b["time_unit"], b["family_index"], b["per_family_instance_index"])
            for b in repetitions} == {("copy/64", 6, "ns", 0, 0)}
    aggregates = {b["aggregate_name"]: b["real_time"] for b in copy if b["run_type"] == "aggregate"}
    assert aggregates == {"mean": 12.0, "median": 12.0, "stddev": pytest.approx(math.sqrt(2))}
    empty = [b for b in document["benchmarks"] if b["run_name"] == "empty" and b["run_type"] == "iteration"]
    assert [(b["real_time"], b["iterations"], b["family_index"]) for b in empty] == [(1.0, 1000, 1), (1.25, 1000, 1)]
    # only time records: the page-faults counter has no place in the file
    assert {b["run_name"] for b in document["benchmarks"]} == {"copy/64", "empty"}


def action_benchmark_entries(text: str) -> list[dict]:
    """What benchmark-action/github-action-benchmark takes of a customSmallerIsBetter file
    (src/extract.ts at c38cce9: zod's array of {name, value, range?, unit, extra?}, each coerced
    to its type), strictly: the types it coerces to are the types written. And each range as
    its extractRangeInfo reads it, which converts it with the value between units."""
    document = json.loads(text)
    assert isinstance(document, list) and document
    ranges = re.compile(r"(?P<prefix>(\+-|±)\s*)(?P<value>\d.*)")
    for entry in document:
        assert set(entry) <= {"name", "value", "range", "unit", "extra"} and {"name", "value", "unit"} <= set(entry)
        assert isinstance(entry["name"], str) and isinstance(entry["unit"], str)
        assert isinstance(entry["value"], float) and math.isfinite(entry["value"])
        assert all(isinstance(entry[k], str) for k in ("range", "extra") if k in entry)
        if "range" in entry:
            entry["range_value"] = float(ranges.search(entry["range"]).group("value"))
    return document


def test_github_action_benchmark_has_each_figure_and_its_interval_not_samples(project, benchlab, run):
    result = benchlab("export", "1", "--format", "github-action-benchmark")
    assert result.exit_code == 0 and result.stderr == ""
    entries = {e["name"]: e for e in action_benchmark_entries(result.stdout)}
    # one entry per cell with a figure: no unsupported instructions, no empty cell, no failure
    assert list(entries) == ["copy/64 (native)", "copy/64 (wasm)", "copy/64 [page-faults] (native)", "empty (native)"]
    assert [(e["value"], e["unit"]) for e in entries.values()] == [(12.0, "ns"), (24.0, "ns"), (0.5, "events"),
                                                                   (1.125, "ns")]
    # the figure and interval `show` gives the same cell; the range its larger side
    cells = {(row["test"], row["counter"], platform): cell
             for row in json.loads(benchlab("show", "1", "--format", "json").stdout)["rows"]
             for platform, cell in row["cells"].items()}
    low, high = cells[("copy", "time", "wasm")]["median_ci"]
    assert cells[("copy", "time", "wasm")]["median"] == 24.0
    assert entries["copy/64 (wasm)"]["range_value"] == pytest.approx(max(high - 24.0, 24.0 - low), rel=1e-5)
    assert entries["copy/64 (wasm)"]["extra"].splitlines() == [
        f"99% interval: [{low:.6g}, {high:.6g}] ns (covers a rerun; uninformative: as wide as the figure)",
        "processes: 2", "iterations: 100", "benchlab run 1, commit abc1234"]
    # one process of fewer than 8 samples has no interval (the table's ? mark): no range
    assert "range" not in entries["empty (native)"] and entries["empty (native)"]["extra"].startswith("processes: 1")


def test_github_action_benchmark_leaves_out_throughput_and_refuses_a_run_of_nothing_else(project, benchlab):
    from benchlab.records import Record
    (project / ".benchlab").mkdir()
    store = open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}")
    run_id = store.begin_run(["benchlab", "run"], ["native"], {})
    store.add_unit(run_id, [Record(bench="map", param=None, counter="throughput", unit="ops/s", iterations=1,
                                   samples=[1000.0, 1100.0], platform="native", binary="map")], [])
    store.finish_run(run_id, "complete", 0)
    result = benchlab("export", "1", "--format", "github-action-benchmark")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("error: run 1 has no figure to write as github-action-benchmark's customSmallerIsBetter "
                             "JSON (its throughput rows are larger-is-better) (export it as jsonl or csv)\n")


@pytest.mark.skipif(not COMPARE_PY.exists(), reason="Google Benchmark's tools (libbenchmark-tools) not installed")
def test_google_benchmarks_compare_py_reads_an_export_and_finds_every_repetition_unchanged(project, benchlab):
    shutil.copy(DATA / "gbench.json", project / "gbench.json")
    assert benchlab("import", "gbench.json").exit_code == 0
    assert benchlab("export", "1", "--format", "gbench", "--out", "again.json").exit_code == 0
    compared = subprocess.run([sys.executable, str(COMPARE_PY), "--no-color", "-d", "diff.json", "benchmarks",
                               "gbench.json", "again.json"], capture_output=True, text=True, cwd=project)
    assert compared.returncode == 0, compared.stderr
    diff = {entry["name"]: entry for entry in json.loads((project / "diff.json").read_text())}
    for name in ("BM_memset/64", "BM_memset/1024", "BM_empty"):
        measurements = diff[name]["measurements"]
        assert len(measurements) == 3  # the three repetitions, paired by compare.py
        assert all(m["time"] == 0.0 and m["cpu"] == 0.0 for m in measurements)
        assert diff[name]["utest"]["nr_of_repetitions"] == 3


def test_out_writes_the_file_and_says_so(project, benchlab, run):
    result = benchlab("export", "1", "--out", "run.csv")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "wrote run 1 to run.csv (export-csv, 7 records)\n"
    assert (project / "run.csv").read_text() == CSV


def test_minus_n_names_a_run_counted_back_from_the_latest(project, benchlab, run):
    store_example_run(project, platforms=("qemu",))
    result = benchlab("export", "-2", "--format", "lind-json")
    assert json.loads(result.stdout) == LIND_JSON


README = """\
benchlab run 1, written by `benchlab export 1 --dir baselines`.

date:       2026-11-20T10:00:00Z
status:     failed
host:       box
cpu:        CPU X
commit:     abc1234 (uncommitted changes)
platforms:  native, wasm
command:    benchlab run suite
records:    7, failures: 1

data/results.csv    one line per sample: name,param,counter,iterations,value (value/iterations is
                    the sample),unit,platform,binary,process,sweep,overhead (docs/formats.md, Export)
data/results.jsonl  a context record, then every record with all its samples (docs/formats.md, Export);
                    `benchlab import data/results.jsonl` stores the run again
"""


def test_dir_writes_a_dated_folder_of_data_and_a_readme_and_again_the_same(project, benchlab, run):
    result = benchlab("export", "1", "--dir", "baselines")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == ("wrote run 1 to baselines/2026-11-20-run1/ "
                             "(data/results.csv, data/results.jsonl, README.txt)\n")
    folder = project / "baselines" / "2026-11-20-run1"
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) == [
        "README.txt", "data", "data/results.csv", "data/results.jsonl"]
    assert (folder / "data" / "results.csv").read_text() == CSV
    assert (folder / "data" / "results.jsonl").read_text() == benchlab("export", "1").stdout
    assert (folder / "README.txt").read_text() == README
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    again = benchlab("export", "1", "--dir", "baselines")
    assert again.exit_code == 0  # exported again: the same files, so git sees no change
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in (project / "baselines").iterdir()) == ["2026-11-20-run1"]  # no temporary left


#: A file name over the file systems' 255 bytes, and how an error shows it (cut).
LONG = "x" * 300
LONG_SHOWN = "x" * 57 + "..."


def unwritable(option: str, path: str, what: str) -> set[str]:
    # root gets "Operation not permitted" or "Permission denied" from /sys depending on the call
    return {f"error: {option} {path} is not writable ({why}) (give {what} you can write)\n"
            for why in ("Operation not permitted", "Permission denied")}


@pytest.mark.parametrize("args, message", [
    (["7"], "error: no run with id 7 in sqlite:///{db} (list runs with: benchlab runs)\n"),
    (["abc"], "error: no run or baseline 'abc' in sqlite:///{db} (a run is an id, 'latest' or -N: list runs with: "
              "benchlab runs, baselines with: benchlab baseline list)\n"),
    (["1", "--format", "xml"], "error: Invalid value for '--format': 'xml' is not one of 'jsonl', 'export-csv', 'gbench', "
                               "'lind-json', 'github-action-benchmark'. (see 'benchlab export --help')\n"),
    (["1", "--out", "missing/run.jsonl"], "error: --out missing/run.jsonl: the directory missing does not exist "
                                          "(create it first, or give another path)\n"),
    (["1", "--out", "afile/run.jsonl"], "error: --out afile/run.jsonl: afile is not a directory (give another path)\n"),
    (["1", "--out", "adir"], "error: --out adir is a directory (give a file name, e.g. --out run.jsonl)\n"),
    (["1", "--out", "/sys/run.jsonl"], unwritable("--out", "/sys/run.jsonl", "a path")),
    (["1", "--out", "run.json"], "error: cannot tell the format of --out run.json from its suffix "
                                 "(add --format jsonl|export-csv|gbench|lind-json|github-action-benchmark, or name the file .jsonl or .csv)\n"),
    (["1", "--dir", "/sys/baselines"], unwritable("--dir", "/sys/baselines", "a directory")),
    (["1", "--dir", "afile/baselines"], "error: --dir afile/baselines: afile is not a directory (give a directory)\n"),
    (["1", "--out", LONG + ".jsonl"], f"error: --out {LONG_SHOWN}: the name {LONG_SHOWN} is 306 bytes long, over the "
                                      "file system's limit of 255 (give a shorter file name)\n"),
    (["1", "--dir", f"d/{LONG}/e"], f"error: --dir d/{LONG[:55]}...: the name {LONG_SHOWN} is 300 bytes long, over "
                                    "the file system's limit of 255 (give a shorter file name)\n"),
    (["1", "--out", "/".join(["d" * 200] * 21)], "error: --out " + "d" * 57 + "...: the path is 4220 bytes long, "
                                                 "over the system's limit of 4095 (give a shorter path)\n"),
    (["1", "--out", "afifo"], "error: --out afifo is a FIFO (named pipe): results are written only to regular files "
                              "(give --out - for stdout, or a file name, e.g. --out run.jsonl)\n"),
    (["1", "--dir", "d", "--out", "x.csv"], "error: --dir writes a folder of csv and jsonl files; --out and --format "
                                            "do not apply to it (give either --dir DIR, or --format and --out)\n"),
    (["1", "--format", "gbench", "--out", "g.json"],
     "error: run 1 has results on 2 platforms (native, wasm) and Google Benchmark JSON has no place for a platform "
     "(export one with --platform NAME)\n"),
    (["1", "--platform", "arm", "--out", "g.jsonl"],
     "error: run 1 has no results on platform 'arm' (give one of: native, wasm)\n"),
])
def test_a_bad_export_is_one_error_and_writes_nothing(project, benchlab, run, args, message):
    os.mkfifo(project / "afifo")
    (project / "adir").mkdir()
    (project / "afile").write_text("a file")
    files = sorted(p for p in project.rglob("*") if ".benchlab" not in p.parts)
    result = benchlab("export", *args)
    expected = {message.format(db=project / ".benchlab" / "results.db")} if isinstance(message, str) else message
    assert (result.exit_code, result.stdout) == (2, "") and result.stderr in expected
    assert sorted(p for p in project.rglob("*") if ".benchlab" not in p.parts) == files  # nothing written


def test_a_cell_the_lind_json_cannot_hold_is_an_error_not_a_lost_figure(project, benchlab):
    from benchlab.records import Record
    store_example_run(project)
    store = open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}")
    run_id = store.begin_run(["benchlab", "run"], ["native"], {})
    store.add_unit(run_id, [Record(bench="read", param=1, samples=[5.0], binary=b, platform="native")
                            for b in ("fs_a", "fs_b")], [])
    result = benchlab("export", "2", "--format", "lind-json")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("error: read 1 of run 2 comes from several binaries (fs_a, ...) on one platform, and the "
                             "Lind runner's JSON has one figure per (test, param, platform) (export jsonl or csv, "
                             "which keep every record apart)\n")


def test_written_files_and_folders_get_the_modes_of_any_new_file(project, benchlab, run):
    # written under a temporary name first, whose private mode (0600, 0700) must not stay
    (project / "plain").write_text("")
    (project / "plaindir").mkdir()
    assert benchlab("export", "1", "--out", "run.csv").exit_code == 0
    assert benchlab("export", "1", "--dir", "baselines").exit_code == 0
    folder = project / "baselines" / "2026-11-20-run1"
    file_mode, dir_mode = (project / "plain").stat().st_mode, (project / "plaindir").stat().st_mode
    assert (project / "run.csv").stat().st_mode == file_mode
    assert (folder / "data" / "results.csv").stat().st_mode == file_mode
    assert folder.stat().st_mode == (folder / "data").stat().st_mode == dir_mode
    assert benchlab("export", "1", "--dir", "baselines").exit_code == 0  # files replaced in place
    assert (folder / "README.txt").stat().st_mode == file_mode


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_export_onto_a_device_node_leaves_the_node_alone(project, benchlab, run):
    # The same node as /dev/null (1, 3), made here: a write through a rename would replace it.
    node = project / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    result = benchlab("export", "1", "--out", "null")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("error: --out null is a character device: results are written only to regular "
                             "files (give --out - for stdout, or a file name, e.g. --out run.jsonl)\n")
    assert stat.S_ISCHR(node.stat().st_mode) and node.stat().st_rdev == os.makedev(1, 3)


def test_out_dash_is_stdout(project, benchlab, run):
    result = benchlab("export", "1", "--out", "-")
    assert result.exit_code == 0 and result.stdout == benchlab("export", "1").stdout
    assert not (project / "-").exists()
