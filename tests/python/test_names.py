"""Benchmark names as binaries and files give them: every name can be stored (a lone
surrogate, a NUL), and every printer shows it escaped (terminal escapes, separators)."""
import json

from conftest import write

from benchlab.records import Record, printable, storable
from benchlab.store import Store

SAMPLES = list(range(1, 11))


def jsonl_line(bench: str) -> str:
    """A result line as a binary prints it; json.dumps writes a lone surrogate as \\udXXX."""
    return json.dumps({"type": "result", "bench": bench, "param": None, "counter": "time", "unit": "ns",
                       "samples": SAMPLES, "iterations": 1})


def stored_records(project, run_id=1):
    return Store(f"sqlite:///{project / '.benchlab' / 'results.db'}").load_run(run_id)[1]


def test_storable_escapes_only_what_no_database_holds():
    assert storable("a\ud800b\udfffc\x00") == "a\\ud800b\\udfffc\\x00"
    assert storable("naïve \x1b[31m ü 𝄞") == "naïve \x1b[31m ü 𝄞"  # stored exactly: printers escape
    assert storable("\ud800") != storable("\udc00")  # two bad names stay two benchmarks


def test_a_lone_surrogate_in_a_name_from_a_binary_loses_nothing_of_the_run(project, benchlab):
    lines = "\n".join([jsonl_line("bad\ud800run"), jsonl_line("good")])
    write(project / "suite" / "names.sh", f"#!/bin/sh\ncat <<'EOF'\n{lines}\nEOF\n", executable=True)
    result = benchlab("run", "suite", "--processes", "2")
    assert result.exit_code == 0, result.stderr
    rows = [line.split()[0] for line in result.stdout.splitlines()[2:4]]
    assert rows == ["bad\\ud800run", "good"]
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: bench 'bad\\ud800run' had characters no database can store (a lone surrogate "
                        "or NUL): stored with them escaped as shown"]  # once, not once per process
    assert sorted({r.bench for r in stored_records(project)}) == ["bad\\ud800run", "good"]


def test_a_lone_surrogate_in_an_imported_file_is_stored_escaped(project, benchlab):
    (project / "results.jsonl").write_text("\n".join([jsonl_line("bad\udc80import"), jsonl_line("fine")]) + "\n")
    result = benchlab("import", "results.jsonl")
    assert result.exit_code == 0, result.stderr
    assert "bench 'bad\\udc80import' had characters no database can store" in result.stderr
    assert sorted(r.bench for r in stored_records(project)) == ["bad\\udc80import", "fine"]


def test_the_store_writes_a_name_set_after_the_record_was_made(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'results.db'}")
    record = Record(bench="b", param=None, samples=[1.0, 2.0])
    record.binary = "prog\udcff"  # an undecodable byte of a file name, as os.fsdecode gives it
    run_id = store.begin_run(["benchlab"], ["native"], {})
    store.add_unit(run_id, [record], [])
    assert [r.binary for r in store.load_run(run_id)[1]] == ["prog\\udcff"]
