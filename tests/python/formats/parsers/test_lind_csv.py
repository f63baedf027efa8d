"""The Lind runner's own files (issue 28): its `-o` CSV and its results as JSON, as
tests/python/data/lind-runner.csv and .json were written by its own parse_output/write_csv
(README there). `--` and -1 are "not run", never a time; `desc` and DESCRIPTION are kept;
text params (`-`, `(STREAM, 1)`) are results like any other, in numeric order where numeric."""
import json

import pytest

from benchlab.errors import UserError
from benchlab.formats.importing import read_results
from benchlab.storage.store import open_store
from conftest import REPO, write

DATA = REPO / "tests" / "python" / "data"


def cells(imported):
    return [(r.bench, r.param, r.platform, r.samples, r.iterations) for r in imported.records]


def test_the_runners_csv_is_read_with_its_platforms_text_params_and_descriptions():
    imported = read_results(str(DATA / "lind-runner.csv"))
    assert imported.format == "lind-csv" and imported.platforms == ["linux", "lind", "grate"]
    got = cells(imported)
    assert got[:2] == [("Read", 1, "linux", [300.0], 1000000), ("Read", 1, "lind", [452.0], 1000000)]
    assert ("Read", 10240, "lind", [853.0], 10000) in got
    assert ("geteuid", "-", "lind", [93.0], 1000000) in got and ("close", -1, "linux", [236.0], 1000000) in got
    # the runner sorts text as text ("(DGRAM, 10240)" before "(DGRAM, 4096)"); numbers in order here
    uds = [r.param for r in imported.records if r.bench.startswith("Unix") and r.platform == "linux"]
    assert uds == ["(DGRAM, 1)", "(DGRAM, 1024)", "(DGRAM, 4096)", "(DGRAM, 10240)",
                   "(STREAM, 1)", "(STREAM, 1024)", "(STREAM, 4096)", "(STREAM, 10240)"]
    assert not [r for r in imported.records if r.platform == "grate"]  # `--`: not run
    assert imported.context["descriptions"]["close"] == "Evaluate no-op syscall latency using close(-1)."
    assert imported.context["descriptions"]["Unix Domain Socket (RTT)"] == (
        "(AF_UNIX, STREAM|DGRAM) RTT through ping-pong of PARAM bytes.")


def test_the_runners_json_gives_the_same_results_as_its_csv():
    from_json = read_results(str(DATA / "lind-runner.json"))
    from_csv = read_results(str(DATA / "lind-runner.csv"))
    assert from_json.format == "lind-json" and from_json.platforms == ["linux", "lind", "grate"]
    assert sorted(map(repr, cells(from_json))) == sorted(map(repr, cells(from_csv)))  # tests in each file's order
    assert from_json.context["descriptions"] == from_csv.context["descriptions"]


def test_minus_one_is_not_run_everywhere_it_can_stand(tmp_path):
    path = write(tmp_path / "r.json", json.dumps({
        "Read": {"1": {"linux": "240", "lind": -1, "grate": "-1", "loops": "1000000", "desc": "reads"}},
        "Never": {"0": {"linux": -1, "lind": -1, "grate": -1, "loops": -1}}}))
    imported = read_results(str(path))
    assert cells(imported) == [("Read", 1, "linux", [240.0], 1000000)]
    assert imported.platforms == ["linux", "lind", "grate"]


@pytest.mark.parametrize("text, error", [
    ("TEST,PARAM,LINUX (ns),ITERATIONS,DESCRIPTION\nRead,1,-5 (1.000),10,--\n",
     r"line 2 is not valid lind-csv \(linux's cell must be ns, ns \(ratio\) or --, got '-5 \(1.000\)'\)"),
    ("TEST,PARAM,LINUX (ns),ITERATIONS,DESCRIPTION\nRead,1,5\n", r"line 2 is not valid lind-csv \(want 5 fields\)"),
    ("TEST,PARAM,LINUX (ns),ITERATIONS,DESCRIPTION\nRead,1,5,-3,--\n",
     r"ITERATIONS must be a whole number >= 1, got '-3'"),
])
def test_a_bad_row_of_the_runners_csv_is_one_error_naming_the_line(tmp_path, text, error):
    path = write(tmp_path / "r.csv", text)
    with pytest.raises(UserError, match=error):
        read_results(str(path))


def test_imported_text_params_are_shown_compared_and_exported(project, benchlab):
    assert benchlab("import", str(DATA / "lind-runner.csv")).exit_code == 0
    shown = benchlab("show", "latest").stdout.splitlines()
    assert any(line.split()[-6:] == ["4096)", "13235?", "12890", "(0.974)?", "-", "1000000"] and "(STREAM, 4096)" in line
               for line in shown)
    assert "geteuid: Evaluate kernel-resolved syscall latency using geteuid()." in shown
    assert benchlab("import", str(DATA / "lind-runner.json")).exit_code == 0
    compared = benchlab("compare", "1", "2").stdout
    assert "Unix Domain Socket (RTT)/(STREAM, 1)" in compared and "geteuid/-" in compared
    for fmt in ("jsonl", "csv"):
        out = project / f"run.{fmt}"
        assert benchlab("export", "1", "--format", fmt, "--out", str(out)).exit_code == 0
        assert benchlab("import", str(out), "--again").exit_code == 0
        store = open_store("sqlite:///.benchlab/results.db")
        [_, before, _], [_, after, _] = store.load_run(1), store.load_run(store.list_runs()[0]["id"])
        store.close()
        assert [(r.bench, r.param, r.platform, r.median) for r in after] == [
            (r.bench, r.param, r.platform, r.median) for r in before]
    lind_json = json.loads(benchlab("export", "1", "--format", "lind-json").stdout)
    assert lind_json["geteuid"]["-"] == {"linux": 102.0, "lind": 93.0, "grate": -1, "loops": 1000000,
                                         "desc": "Evaluate kernel-resolved syscall latency using geteuid()."}
