"""`benchlab import`: every format from a frozen example file, what is kept of it, and
every way a file can be wrong (one line on stderr, exit 2, nothing stored)."""
import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from benchlab.storage.store import open_store

DATA = Path(__file__).resolve().parents[1] / "data"
NOTHING = "nothing was imported"


def stored(project, run_id=1):
    return open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}").load_run(run_id)


def copy(project, name, as_name=None):
    return shutil.copy(DATA / name, project / (as_name or name))


def by_key(records):
    return {(r.bench, r.param, r.counter, r.platform, r.process): r for r in records}


@pytest.mark.parametrize("name, fmt, summary", [
    ("gbench.json", "gbench", "6 records of 3 benchmarks on native, 1 failed"),
    ("hyperfine.json", "hyperfine", "2 records of 2 benchmarks on native"),
    ("pyperf.json", "pyperf", "5 records of 2 benchmarks on native"),
    ("lind.txt", "lind", "5 records of 5 benchmarks on native"),
    ("lind.json", "lind-json", "9 records of 3 benchmarks on linux, grate, lind"),
    ("csb.txt", "csb", "4 records of 2 benchmarks on native"),
    ("b63.csv", "b63csv", "3 records of 2 benchmarks on native"),
    ("benchlab.jsonl", "jsonl", "15 records of 5 benchmarks on native"),
])
@pytest.mark.parametrize("explicit", [False, True])
def test_each_format_is_detected_or_named_and_stored_as_one_run(project, benchlab, name, fmt, summary, explicit):
    copy(project, name)
    result = benchlab("import", name, *(["--format", fmt] if explicit else []))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"imported {name} ({fmt}): {summary}; saved as run 1 (benchlab show 1)\n"
    warning = ("warning: gbench.json: BM_broken: no device to read (a failure the file reports, stored with the run)\n"
               if fmt == "gbench" else "")
    assert result.stderr == warning
    run, records, _ = stored(project)
    assert run["argv"] == ["benchlab", "import", name, *(["--format", fmt] if explicit else [])]
    imported = run["context"]["imported"]
    assert imported["sha256"] == hashlib.sha256((DATA / name).read_bytes()).hexdigest()
    assert imported["path"] == str(project / name) and imported["format"] == fmt
    assert {r.format for r in records} == {fmt}


def test_google_benchmark_keeps_every_repetition_its_context_and_its_failure(project, benchlab):
    copy(project, "gbench.json")
    assert benchlab("import", "gbench.json").exit_code == 0
    run, records, faults = stored(project)
    document = json.loads((DATA / "gbench.json").read_text())
    repetitions = [b for b in document["benchmarks"] if b["name"] == "BM_memset/1024" and b["run_type"] == "iteration"]
    records = by_key(records)
    assert records[("BM_memset", 1024, "time", "native", None)].samples == [b["real_time"] for b in repetitions]
    assert records[("BM_memset", 1024, "cpu_time", "native", None)].samples == [b["cpu_time"] for b in repetitions]
    assert records[("BM_memset", 1024, "time", "native", None)].sample_iterations == [b["iterations"] for b in repetitions]
    # the file's failure is the run's failure, once, not once per repetition
    assert [(f.binary, f.platform, f.reason) for f in faults] == [("gbench.json", "native", "BM_broken: no device to read")]
    assert run["status"] == "failed"
    assert run["context"]["source"] == document["context"]
    assert (run["context"]["date"], run["context"]["host"]) == (document["context"]["date"], document["context"]["host_name"])


@pytest.mark.parametrize("fault", [
    # an old export says it in its reason only; a new one in its kind, whatever the reason says
    {"reason": "not built for wasm32-wasi: includes <pthread.h> (wasi-libc has no threads)"},
    {"reason": "needs threads", "kind": "not-built", "copy": None},
])
def test_an_export_whose_only_fault_is_a_platform_it_cannot_build_imports_as_complete(project, benchlab, fault):
    lines = [json.loads(line) for line in (DATA / "export-before-fault-kinds.jsonl").read_text().splitlines()]
    lines[0]["run"]["faults"] = [{"binary": "locked", "platform": "wasm", "stderr_tail": [], "sweep": None, **fault}]
    (project / "export.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = benchlab("import", "export.jsonl")
    assert (result.exit_code, result.stderr) == (0, "")  # a `-` cell is no failure: no warning of one
    assert result.stdout.startswith("imported export.jsonl (jsonl): 4 records of 2 benchmarks on native, wasm; saved")
    run, _, faults = stored(project)
    assert (run["status"], run["exit_code"], [f.reason for f in faults]) == ("complete", 0, [fault["reason"]])


def test_hyperfine_times_are_samples_in_seconds_and_commands_are_kept(project, benchlab):
    copy(project, "hyperfine.json")
    assert benchlab("import", "hyperfine.json").exit_code == 0
    run, records, _ = stored(project)
    results = json.loads((DATA / "hyperfine.json").read_text())["results"]
    assert [(r.bench, r.param, r.param_name, r.counter, r.unit) for r in records] == [
        ("true 1", 1, "n", "wall", "s"), ("true 2", 2, "n", "wall", "s")]
    assert [r.samples for r in records] == [result["times"] for result in results]
    assert records[0].reported["user"] == results[0]["user"]  # a mean only: kept, never a sample
    assert run["context"]["source"] == {"tool": "hyperfine", "commands": [
        {"command": "true 1", "parameters": {"n": "1"}}, {"command": "true 2", "parameters": {"n": "2"}}]}


def test_pyperf_runs_are_processes_values_are_samples_warmups_and_calibration_are_not(project, benchlab):
    copy(project, "pyperf.json")
    assert benchlab("import", "pyperf.json").exit_code == 0
    run, records, _ = stored(project)
    sort = [r for r in records if r.bench == "sort_sorted"]
    # the calibration run (warmups only) is left out: three worker processes, numbered from 0
    assert [r.process for r in sort] == [0, 1, 2]
    assert sort[0].samples == pytest.approx([2510.0, 2490.0, 2530.0], rel=1e-12)  # 2.51e-06 s -> ns
    assert all(2750.0 != pytest.approx(x) for r in sort for x in r.samples)  # the warmup 2.75e-06 is not a sample
    assert sort[0].iterations == 4096 and sort[0].sample_iterations == [4096] * 3
    join = [r for r in records if r.bench == "str_join"]
    assert [r.iterations for r in join] == [10240, 10240]  # loops x inner_loops
    assert sort[1].reported["metadata"]["mem_max_rss"] == 9797632
    assert run["context"]["host"] == "bench-host" and run["context"]["cpu"] == "AMD EPYC 7B13"
    assert run["context"]["source"]["benchmarks"]["sort_sorted"]["timeit_stmt"] == "'sorted(s)'"


def test_lind_json_gives_a_record_per_platform_with_strings_read_as_numbers(project, benchlab):
    copy(project, "lind.json")
    assert benchlab("import", "lind.json").exit_code == 0
    run, records, _ = stored(project)
    assert run["platforms"] == ["linux", "grate", "lind"]  # the native one first: the reference of ratios
    cell = {r.platform: r for r in records if (r.bench, r.param) == ("Read", 4096)}
    assert {p: (r.samples, r.iterations) for p, r in cell.items()} == {
        "grate": ([1097.0], 100000), "lind": ([470.0], 100000), "linux": ([281.0], 100000)}
    show = benchlab("show", "1")
    assert "Read     4096         281?   1097 (3.904)?   470 (1.673)?       100000" in show.stdout


def test_lind_lines_csb_and_b63_keep_their_figures(project, benchlab):
    for name in ("lind.txt", "csb.txt", "b63.csv"):
        copy(project, name)
        assert benchlab("import", name).exit_code == 0
    _, lind, _ = stored(project, 1)
    assert [(r.bench, r.param, r.iterations, r.samples) for r in lind][:2] == [
        ("Close", 0, 1000000, [431.0]), ("Read", 1, 1000000, [251.0])]
    _, csb, _ = stored(project, 2)
    throughput = {r.param: r for r in csb if r.counter == "throughput"}
    assert throughput[2].samples == [93311.20488714] and throughput[2].unit == "ops/ms"
    assert throughput[2].param_name == "threads"
    _, b63, _ = stored(project, 3)
    sequential = next(r for r in b63 if r.bench == "sequential")
    assert sequential.samples[0] == 117749190 / 16383 and len(sequential.samples) == 5
    misses = next(r for r in b63 if r.counter == "lpe:L1-dcache-load-misses")
    assert misses.unit == "events" and misses.samples[2] == 660953302 / 8191


def test_benchlab_jsonl_keeps_overhead_samples_counters_and_the_unsupported(project, benchlab):
    copy(project, "benchlab.jsonl")
    assert benchlab("import", "benchlab.jsonl").exit_code == 0
    run, records, _ = stored(project)
    lines = [json.loads(line) for line in (DATA / "benchlab.jsonl").read_text().splitlines()]
    copy_time = next(line for line in lines if line.get("bench") == "copy" and line.get("param") == 1024
                     and line.get("counter") == "time")
    record = by_key(records)[("copy", 1024, "time", "native", None)]
    assert record.samples == copy_time["samples"] and record.overhead_samples == copy_time["overhead_samples"]
    unsupported = by_key(records)[("copy", 1024, "instructions", "native", None)]
    assert not unsupported.supported and unsupported.reason.startswith("perf_event_open: ENOENT")
    assert run["context"]["cpu"] == lines[0]["cpu"] and run["context"]["source"]["timer"] == lines[0]["timer"]


def test_a_gzipped_file_reads_as_the_file(project, benchlab):
    (project / "pyperf.json.gz").write_bytes(gzip.compress((DATA / "pyperf.json").read_bytes()))
    result = benchlab("import", "pyperf.json.gz")
    assert result.stdout == "imported pyperf.json.gz (pyperf): 5 records of 2 benchmarks on native; saved as run 1 (benchlab show 1)\n"
    assert stored(project)[0]["context"]["imported"]["gzip"] is True


def test_platform_names_the_platform_of_a_file_that_names_none(project, benchlab):
    copy(project, "lind.txt")
    result = benchlab("import", "lind.txt", "--platform", "wasm")
    assert result.stdout.endswith("5 records of 5 benchmarks on wasm; saved as run 1 (benchlab show 1)\n")
    assert {r.platform for r in stored(project)[1]} == {"wasm"}


def test_the_same_content_is_not_stored_twice_unless_asked(project, benchlab):
    copy(project, "lind.txt")
    copy(project, "lind.txt", "renamed.txt")
    assert benchlab("import", "lind.txt").exit_code == 0
    again = benchlab("import", "renamed.txt")
    assert again.exit_code == 2
    assert again.stderr == ("error: renamed.txt was already imported as run 1 (the same content, sha256) "
                            "(see it with: benchlab show 1; to store it again anyway, add --again)\n")
    assert len(open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}").list_runs()) == 1
    forced = benchlab("import", "renamed.txt", "--again")
    assert forced.exit_code == 0 and "saved as run 2" in forced.stdout


def bad_files(project):
    data = (DATA / "gbench.json").read_text()
    (project / "empty.json").write_text("")
    (project / "blank.txt").write_text("\n  \n")
    (project / "truncated.json").write_text(data[:len(data) // 2])
    (project / "lind3.txt").write_text("Read\t1\t1000\t240\nRead\t2\t1000\t250\nRead\t3\t1000\n")
    (project / "lindneg.txt").write_text("Read\t1\t1000\t240\n\nRead\t2\t1000\t-5\n")
    (project / "junk.txt").write_text("hello\n")
    (project / "binary.dat").write_bytes(b"Read\t1\t1000\t240\n\xff\xfe")
    lines = (DATA / "benchlab.jsonl").read_text().splitlines()
    lines[1] = re.sub(r'"samples":\[[^,\]]+', '"samples":["x"', lines[1], count=1)  # the first sample
    (project / "badsample.jsonl").write_text("\n".join(lines) + "\n")
    (project / "schema9.jsonl").write_text(lines[0].replace('"schema":2', '"schema":9') + "\n" + lines[1] + "\n")
    (project / "b63bad.csv").write_text("basic,time,100,2000\nbasic,time,0,2000\n")
    (project / "hyperbad.json").write_text('{"results": [{"command": "a", "times": [0.1]}, {"command": "b", "times": []}]}')
    (project / "pyperfbad.json").write_text('{"version": "1.0", "benchmarks": [{"runs": [{"values": [1e-6]}]}]}')
    (project / "pyperfunit.json").write_text('{"version": "1.0", "metadata": {"name": "a", "unit": ["second"]}, '
                                             '"benchmarks": [{"runs": [{"values": [1e-6]}]}]}')
    (project / "hyperlong.json").write_text(json.dumps({"results": [{"command": " && ".join(["sleep 0.001"] * 30),
                                                                    "times": [0.002]}]}))
    (project / "lindbad.json").write_text('{"Read": {"1": {"linux": "fast", "loops": "10"}}}')
    (project / "context.jsonl").write_text(lines[0] + "\n")
    (project / "other.json").write_text('{"name": "x", "values": [1, 2]}')
    shutil.copy(DATA / "gbench.json", project / "gbench.json")
    shutil.copy(DATA / "lind.json", project / "lind.json")


@pytest.mark.parametrize("args, message", [
    (["gbench.json", "--format", "xml"],
     "error: Invalid value for '--format': 'xml' is not one of 'gbench', 'hyperfine', 'pyperf', 'lind-json', "
     "'jsonl', 'csb', 'header-csv', 'export-csv', 'b63csv', 'lind-csv', 'lind', 'b63-interactive'. (see 'benchlab import --help')\n"),
    (["nothere.json"], "error: cannot read nothere.json: no such file (give the path of a results file)\n"),
    (["."], "error: cannot read .: it is a directory (give the path of a results file)\n"),
    (["empty.json"], f"error: empty.json is empty ({NOTHING}; give a results file)\n"),
    (["blank.txt"], f"error: blank.txt is empty ({NOTHING}; give a results file)\n"),
    (["truncated.json"], "error: truncated.json: line 201 column 38 is not valid JSON (Expecting property name enclosed in double quotes); "
                         f"the file ends there: is it truncated? ({NOTHING})\n"),
    (["truncated.json", "--format", "gbench"],
     "error: truncated.json: line 201 column 38 is not valid JSON (Expecting property name enclosed in double quotes); "
     f"the file ends there: is it truncated? ({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["gbench.json", "--format", "pyperf"],
     'error: gbench.json is not pyperf JSON: {"version": ..., "benchmarks": [{"runs": [...]}]} '
     f"({NOTHING}; the file looks like gbench: give --format gbench)\n"),
    (["gbench.json", "--format", "lind"],
     "error: gbench.json: line 1 is not valid lind (want test<TAB>param<TAB>loops<TAB>avg_ns): '{' "
     f"({NOTHING}; the file looks like gbench: give --format gbench)\n"),
    (["lind3.txt"], "error: lind3.txt: line 3 is not valid lind (want test<TAB>param<TAB>loops<TAB>avg_ns): "
                    f"'Read\\t3\\t1000' ({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["lindneg.txt"], "error: lindneg.txt: line 3 is not valid lind (avg_ns must be >= 0, got '-5'): "
                      f"'Read\\t2\\t1000\\t-5' ({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["junk.txt"], "error: junk.txt: no format benchlab imports starts like this: 'hello' "
                   f"({NOTHING}; give --format (gbench, hyperfine, pyperf, lind-json, jsonl, csb, header-csv, export-csv, "
                   "b63csv, lind-csv, lind, b63-interactive) "
                   "if it is one of them)\n"),
    (["binary.dat"], f"error: binary.dat: line 2 is not UTF-8 text (byte 16: b'\\xff') ({NOTHING}; is it a results file?)\n"),
    (["badsample.jsonl"], "error: badsample.jsonl: line 2: samples[0] must be a number, got 'x' "
                          f"({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["schema9.jsonl"], "error: schema9.jsonl: jsonl schema 9, this benchlab reads schemas 1, 2 "
                        f"({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["b63bad.csv"], "error: b63bad.csv: line 2 is not valid b63csv (iterations must be a whole number >= 1, got '0'): "
                     f"'basic,time,0,2000' ({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["hyperbad.json"], "error: hyperbad.json: hyperfine results[1]: times must be a non-empty list of seconds, got [] "
                        f"({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["pyperfbad.json"], "error: pyperfbad.json: pyperf benchmarks[0].runs[0]: name (in metadata) must be a string, "
                         f"got None ({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["pyperfunit.json"], "error: pyperfunit.json: pyperf benchmarks[0].runs[0]: unit (in metadata) must be one of "
                          f"second, byte, integer, got ['second'] ({NOTHING}; fix the file, or give --format if it is "
                          "in another format)\n"),
    (["hyperlong.json"], "error: hyperlong.json: hyperfine results[0]: command must be 1 to 255 printable characters, "
                         "got 'sleep 0.001 && sleep 0.001 && sleep ...; give it a shorter name with hyperfine's "
                         f"--command-name ({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["lindbad.json"], 'error: lindbad.json: lind-json $["Read"]["1"]["linux"]: average ns must be a number, '
                       f"got 'fast' ({NOTHING}; fix the file, or give --format if it is in another format)\n"),
    (["context.jsonl"], f"error: context.jsonl has no results (jsonl) ({NOTHING}; is it the right file?)\n"),
    (["other.json"], f"error: other.json: a JSON document of no format benchlab imports ({NOTHING}; it reads "
                     'Google Benchmark JSON: {"context": {...}, "benchmarks": [...]}, hyperfine JSON (--export-json): '
                     '{"results": [{"command": ..., "times": [...]}]}, pyperf JSON: {"version": ..., "benchmarks": '
                     '[{"runs": [...]}]}, the Lind runner\'s JSON: {test: {param: {platform: ns, "loops": n}}}, '
                     "and benchlab jsonl)\n"),
    (["lind.json", "--platform", "native"],
     "error: --platform native: lind.json names the platform of every result (grate, lind, linux) "
     "(leave --platform out: it is for files that do not name one)\n"),
])
def test_a_bad_file_is_one_error_naming_file_line_and_what_and_nothing_is_stored(project, benchlab, args, message):
    bad_files(project)
    result = benchlab("import", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)
    # checked whole before the store is even opened: no database, no run
    assert not (project / ".benchlab" / "results.db").exists()


def test_a_full_disk_mid_import_keeps_no_run_and_is_one_line(project, benchlab, monkeypatch, db_url):
    copy(project, "lind.txt")
    assert benchlab("import", "lind.txt", "--db", db_url).exit_code == 0  # run 1, kept
    from benchlab.storage import connection, engine
    real_expand = connection.expand
    full = []

    def full_disk(statement, params):
        # A full disk stays full: once the records' insert failed, so does every write after it
        # (the delete that was to clean up a half-written import, the update of its status).
        if statement.sql.startswith("INSERT INTO records ") or (
                full and statement.sql.startswith(("INSERT ", "UPDATE ", "DELETE "))):
            full.append(statement)
            raise connection.DatabaseError("database or disk is full")
        return real_expand(statement, params)
    with monkeypatch.context() as patch:
        for module in (connection, engine):  # each connection expands every statement it runs
            patch.setattr(module, "expand", full_disk)
        result = benchlab("import", "lind.txt", "--again", "--db", db_url)
    assert full, "the records' insert was never reached"
    store = open_store(db_url)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"error: cannot write to database {store.url!r}: database or disk is full (make the "
                             "database writable or free disk space, or give another --db; nothing was imported)\n")
    assert [run["id"] for run in store.list_runs()] == [1]  # no empty run left, killed or otherwise
    again = benchlab("import", "lind.txt", "--again", "--db", db_url)  # once there is space again
    assert again.exit_code == 0 and len(store.list_runs()) == 2


def crafted_export(project, benchlab, change) -> str:
    """An export of the conftest run, one of its values changed: what `runs` and `show` read later."""
    from conftest import store_example_run
    store_example_run(project)
    lines = [json.loads(line) for line in benchlab("export", "1").stdout.splitlines()]
    change(lines)
    (project / ".benchlab" / "results.db").unlink()
    (project / "crafted.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return "crafted.jsonl"


@pytest.mark.parametrize("change, message", [
    (lambda lines: lines[0]["run"]["context"].update(git="abc1234"),
     "crafted.jsonl: context record: run.context.git must be an object with a commit, got 'abc1234'"),
    (lambda lines: lines[0]["run"]["context"].update(plan=[{"binary": "bench"}]),
     "crafted.jsonl: context record: run.context.plan must be a list of units (binary, platform, sweep), "
     "got [{'binary': 'bench'}]"),
    (lambda lines: lines[0]["run"].update(missing=["bench"]),
     "crafted.jsonl: context record: run.missing must be a list of units (binary, platform, sweep), got ['bench']"),
    (lambda lines: lines[2]["reported"].update(unit="first"),
     "crafted.jsonl: line 3 is not valid jsonl (bad result record: reported.unit must be a whole number >= 0, "
     "got 'first')"),
    (lambda lines: lines[2].update(sweep={"flag": "threads", "value": [1, 2]}),
     "crafted.jsonl: line 3 is not valid jsonl (bad result record: sweep value must be a string or a number, "
     "got [1, 2])"),
    # issue 37: BL_DIFFERENCE's fields of a stored record, checked as a binary's are
    (lambda lines: lines[2]["reported"].update(difference_to="base", difference_figure={
        "base": "base", "value": "20", "low": 1.0, "high": 2.0, "processes": 1, "scope": "within this run"}),
     "crafted.jsonl: line 3 is not valid jsonl (bad result record: reported.difference_figure must be {base, value, "
     "low, high, processes, scope} of their types, got {'base': 'base', 'value': '20', "),
    (lambda lines: lines[2]["reported"].update(difference="x"),
     "crafted.jsonl: line 3 is not valid jsonl (bad result record: reported.difference must be a number, got 'x')"),
    (lambda lines: lines[2]["reported"].update(difference_to="base", base_samples=[None] * len(lines[2]["samples"])),
     "crafted.jsonl: line 3 is not valid jsonl (bad result record: reported.base_samples must be a list of "),
    (lambda lines: lines[2]["reported"].update(difference_to="base", base_samples=["a"] * len(lines[2]["samples"])),
     "crafted.jsonl: line 3 is not valid jsonl (bad result record: reported.base_samples[] must be a number, "
     "got 'a')"),
])
def test_an_export_whose_run_could_not_be_shown_later_is_refused(project, benchlab, change, message):
    name = crafted_export(project, benchlab, change)
    result = benchlab("import", name)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"error: {message}"), result.stderr
    assert not (project / ".benchlab" / "results.db").exists()


def test_an_export_with_numbers_written_as_strings_is_read_as_numbers(project, benchlab):
    name = crafted_export(project, benchlab, lambda lines: lines[2]["reported"].update(process="1"))
    assert benchlab("import", name).exit_code == 0
    assert [r.process for r in stored(project)[1]][:4] == [0, 1, 0, 1]
    assert benchlab("show", "1").exit_code == 0 and benchlab("runs").exit_code == 0


def test_the_command_still_starts_without_sqlalchemy():
    # `benchlab run --no-store` must not pay a third of a second for a database it never opens,
    # and importing.py (read by every command's start) reaches the store only when importing
    import subprocess
    import sys
    code = "import sys, benchlab.cli; print('sqlalchemy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


# -- size limit (issue 18 #10) ---------------------------------------------------------------

LIMIT_FIX = ("nothing was imported; if it is a results file that large, raise the limit with --max-size SIZE or "
             "BENCHLAB_IMPORT_MAX_BYTES=SIZE, e.g. 1G")


def test_a_gzip_file_expanding_past_the_limit_is_refused_without_expanding_it(project, benchlab, monkeypatch):
    import tracemalloc
    (project / "bomb.json.gz").write_bytes(gzip.compress(b" " * (64 << 20), compresslevel=1))  # 64 KiB, 64 MiB of text
    monkeypatch.setenv("BENCHLAB_IMPORT_MAX_BYTES", "1M")
    tracemalloc.start()
    try:
        result = benchlab("import", "bomb.json.gz")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: bomb.json.gz expands to more than 1 MiB (gzip), the most an import reads ({LIMIT_FIX})\n"
    assert peak < 8 << 20  # decompressed a piece at a time, never whole
    assert not (project / ".benchlab" / "results.db").exists()


def test_the_limit_applies_to_plain_files_and_is_raised_by_max_size_or_the_environment(project, benchlab, monkeypatch):
    lines = "".join(f"Read\t{n}\t1000\t{200 + n % 50}\n" for n in range(2000))  # 35 KiB
    (project / "big.txt").write_text(lines)
    (project / "big.txt.gz").write_bytes(gzip.compress(lines.encode()))
    refused = benchlab("import", "big.txt", "--max-size", "32K")
    assert (refused.exit_code, refused.stderr) == (
        2, f"error: big.txt is larger than 32 KiB, the most an import reads ({LIMIT_FIX})\n")
    monkeypatch.setenv("BENCHLAB_IMPORT_MAX_BYTES", "32768")
    assert benchlab("import", "big.txt.gz").stderr.startswith("error: big.txt.gz expands to more than 32 KiB (gzip)")
    assert benchlab("import", "big.txt.gz", "--max-size", "64KiB").exit_code == 0  # the option wins
    monkeypatch.setenv("BENCHLAB_IMPORT_MAX_BYTES", "1g")
    assert benchlab("import", "big.txt").exit_code == 0
    huge = benchlab("import", "big.txt", "--again", "--max-size", "9" * 30 + "T")  # a limit, not an allocation
    assert (huge.exit_code, huge.stderr) == (0, "")
    assert [len(stored(project, run)[1]) for run in (1, 2, 3)] == [2000, 2000, 2000]


@pytest.mark.parametrize("size", ["0", "12 apples", "-5M", "1.5G", ""])
def test_a_size_that_is_not_one_is_one_error(project, benchlab, monkeypatch, size):
    copy(project, "lind.txt")
    result = benchlab("import", "lind.txt", "--max-size", size)
    assert (result.exit_code, result.stderr) == (
        2, f"error: --max-size {size!r} is not a size (give bytes, or a number with K, M or G, e.g. 512M or 2G)\n")
    monkeypatch.setenv("BENCHLAB_IMPORT_MAX_BYTES", "lots")
    assert benchlab("import", "lind.txt").stderr == (
        "error: BENCHLAB_IMPORT_MAX_BYTES 'lots' is not a size (give bytes, or a number with K, M or G, "
        "e.g. 512M or 2G)\n")


def test_the_default_limit_is_256_mib_and_the_environment_holds_for_every_reader(monkeypatch):
    from benchlab.errors import UserError
    from benchlab.formats.importing import max_bytes, read_results
    monkeypatch.delenv("BENCHLAB_IMPORT_MAX_BYTES", raising=False)
    assert (max_bytes(None), max_bytes("2G"), max_bytes("100")) == (256 << 20, 2 << 30, 100)
    monkeypatch.setenv("BENCHLAB_IMPORT_MAX_BYTES", "100")  # compare reads files as import does
    with pytest.raises(UserError, match="gbench.json is larger than 100 bytes, the most an import reads"):
        read_results(str(DATA / "gbench.json"))


# -- a line format cut short (issue 18 #12) ----------------------------------------------------

CUT_FIX = "nothing was imported; if the file is whole, end it with a newline: echo >> cut.txt"


@pytest.mark.parametrize("text, message", [
    # a number cut short reads as a whole, smaller one: only the missing newline tells
    ("Read\t1\t1000\t240\nRead\t2\t1000\t25",
     "cut.txt: line 2 does not end in a newline, so the file may have been cut within it (a number cut short reads "
     f"as a smaller one) ({CUT_FIX})"),
    ("basic,time,16777215,233781738\nbasic,time,16777215,2289",
     "cut.txt: line 2 does not end in a newline, so the file may have been cut within it (a number cut short reads "
     f"as a smaller one) ({CUT_FIX})"),
    ("name,param,counter,iterations,value\na,,time,100,2000\na,,time,100,19",
     "cut.txt: line 3 does not end in a newline, so the file may have been cut within it (a number cut short reads "
     f"as a smaller one) ({CUT_FIX})"),
    ("num_threads=1;algo_name=a;throughput_min=5;\nnum_threads=2;algo_name=a;throughput_min=9;",
     "cut.txt: line 2 does not end in a newline, so the file may have been cut within it (a number cut short reads "
     f"as a smaller one) ({CUT_FIX})"),
    # a line the cut left malformed: its own error, and where the file ends
    ("num_threads=1;algo_name=a;throughput_min=5;\nnum_threads=2;algo_name=a;throughput_min=9",
     "cut.txt: line 2 is not valid csb (want key=val; pairs): 'num_threads=2;algo_name=a;throughput_min=9'; "
     f"the file ends there, without a newline: is it truncated? ({NOTHING}; fix the file, or give --format if it "
     "is in another format)"),
    ("basic,time,16777215,233781738\nbasic,time,167",
     "cut.txt: line 2 is not valid b63csv (3 fields, want 4 or 5): 'basic,time,167'; the file ends there, without a "
     f"newline: is it truncated? ({NOTHING}; fix the file, or give --format if it is in another format)"),
    ("Read\t1\t1000\t240\nRead\t2\t10",
     "cut.txt: line 2 is not valid lind (want test<TAB>param<TAB>loops<TAB>avg_ns): 'Read\\t2\\t10'; the file ends "
     f"there, without a newline: is it truncated? ({NOTHING}; fix the file, or give --format if it is in another "
     "format)"),
])
def test_a_line_format_file_without_its_last_newline_is_refused(project, benchlab, text, message):
    (project / "cut.txt").write_text(text)
    result = benchlab("import", "cut.txt")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"error: {message}\n")
    assert not (project / ".benchlab" / "results.db").exists()


@pytest.mark.parametrize("text", ["Read\t1\t1000\t240\r\nRead\t2\t1000\t250\r\n", "Read\t1\t1000\t240\rRead\t2\t1000\t250\r",
                                  "Read\t1\t1000\t240\nRead\t2\t1000\t250\n\n  ",
                                  '{"type":"result","bench":"a","param":null,"iterations":10,"samples":[1.0,2.0]}'])
def test_whole_files_still_import_whatever_their_line_endings(project, benchlab, text):
    (project / "whole.txt").write_text(text, newline="")
    assert benchlab("import", "whole.txt").exit_code == 0  # a jsonl line shows its own end: its closing brace


# -- results limit (issue 31: a 60 MB lind file of 2.4 million results took over 6 GiB) ------------

RECORDS_FIX = ("nothing was imported; if the machine has the memory, raise the limit with --max-records N or "
               "BENCHLAB_IMPORT_MAX_RECORDS=N, or split the file")


def test_a_file_of_more_results_than_the_limit_is_refused_at_the_line_that_passes_it(project, benchlab, monkeypatch):
    (project / "many.txt").write_text("".join(f"Read\t{n}\t1000\t{200 + n % 50}\n" for n in range(300)))
    refused = benchlab("import", "many.txt", "--max-records", "250")
    assert (refused.exit_code, refused.stdout) == (2, "")
    assert refused.stderr == (f"error: many.txt has more than 250 results by line 251, the most an import holds "
                              f"in memory (about 1.7 KB each) ({RECORDS_FIX})\n")
    monkeypatch.setenv("BENCHLAB_IMPORT_MAX_RECORDS", "299")
    assert "more than 299 results by line 300" in benchlab("import", "many.txt").stderr
    assert not (project / ".benchlab" / "results.db").exists()
    assert benchlab("import", "many.txt", "--max-records", "300").exit_code == 0  # the option wins
    # a document's results are counted when it is read: lind.json has 9 (3 platforms x 3 tests)
    copy(project, "lind.json")
    assert "lind.json has more than 5 results, the most" in benchlab("import", "lind.json", "--max-records", "5").stderr
    bad = benchlab("import", "many.txt", "--max-records", "many")
    assert bad.stderr == "error: --max-records 'many' is not a count of results (give a whole number, e.g. 2000000)\n"


def test_a_large_import_writes_its_rows_in_batches_within_one_transaction(project, benchlab, monkeypatch):
    from benchlab.storage import store
    monkeypatch.setattr(store, "_ROWS_PER_BATCH", 7)
    (project / "many.txt").write_text("".join(f"Read\t{n}\t1000\t{200 + n}\n" for n in range(50)))
    assert benchlab("import", "many.txt").exit_code == 0
    _, records, _ = stored(project, 1)
    assert [(r.param, r.median) for r in records] == [(n, 200.0 + n) for n in range(50)]
