"""Benchmark names as binaries and files give them: every name can be stored (a lone
surrogate, a NUL), and every printer shows it escaped (terminal escapes, separators)."""
import json

from conftest import write

from benchlab.records import Record, printable, storable
from benchlab.storage.store import open_store

SAMPLES = list(range(1, 11))


def jsonl_line(bench: str) -> str:
    """A result line as a binary prints it; json.dumps writes a lone surrogate as \\udXXX."""
    return json.dumps({"type": "result", "bench": bench, "param": None, "counter": "time", "unit": "ns",
                       "samples": SAMPLES, "iterations": 1})


def stored_records(project, run_id=1):
    return open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}").load_run(run_id)[1]


def test_storable_escapes_only_what_no_database_holds():
    assert storable("a\ud800b\udfffc\x00") == "a\\ud800b\\udfffc\\0"
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
    store = open_store(f"sqlite:///{tmp_path / 'results.db'}")
    record = Record(bench="b", param=None, samples=[1.0, 2.0])
    record.binary = "prog\udcff"  # an undecodable byte of a file name, as os.fsdecode gives it
    run_id = store.begin_run(["benchlab"], ["native"], {})
    store.add_unit(run_id, [record], [])
    assert [r.binary for r in store.load_run(run_id)[1]] == ["prog\\udcff"]


#: A terminal escape (CSI), a C1 control (NEL), a line separator, a right-to-left override.
NASTY = "a\x1b[31mb\x85c\u2028d\u202ee"
NASTY_SHOWN = "a\\x1b[31mb\\x85c\\u2028d\\u202ee"


def nasty_report():
    from benchlab.records import Fault
    from benchlab.output.table import Table
    records = [Record(bench=NASTY, param=None, samples=[float(s) for s in SAMPLES], platform=platform,
                      binary=f"prog{NASTY}") for platform in ("native", f"plat{NASTY}")]
    fault = Fault(f"bin{NASTY}", "native", f"exit status 3 {NASTY}", stderr_tail=[f"tail{NASTY}"])
    return Table(platforms=["native", f"plat{NASTY}"], records=records, faults=[fault])


def only_printable(text: str) -> bool:
    return all(line.isprintable() for line in text.split("\n"))


def test_every_printer_shows_control_characters_escaped():
    from benchlab.output.exporters import EXPORTERS
    report = nasty_report()
    for name in ("table", "markdown", "csv"):
        out = EXPORTERS[name](report)
        assert only_printable(out), name
        assert NASTY_SHOWN in out and f"plat{NASTY_SHOWN}" in out and f"bin{NASTY_SHOWN}" in out, name
    assert "tail" + NASTY_SHOWN in EXPORTERS["table"](report)
    out = EXPORTERS["json"](report)
    assert only_printable(out)  # JSON escapes them itself, and reads back exactly
    assert json.loads(out)["records"][0]["bench"] == NASTY


def test_the_report_page_shows_names_escaped(tmp_path):
    from benchlab.output.htmlreport import build
    store = open_store(f"sqlite:///{tmp_path / 'results.db'}")
    report = nasty_report()
    run_id = store.begin_run(["benchlab", "run", NASTY], report.platforms, {})
    store.add_unit(run_id, report.records, [])
    store.finish_run(run_id, "complete", 0)
    assert store.load_run(run_id)[1][0].bench == NASTY  # stored exactly: only display escapes
    page = build(store, [str(run_id)], None, tmp_path / "report").read_text()
    assert only_printable(page.replace("\n", ""))
    assert NASTY_SHOWN in page


def test_runs_lists_a_command_line_escaped(project, benchlab, tmp_path):
    store = open_store(f"sqlite:///{project / 'r.db'}")
    store.finish_run(store.begin_run(["benchlab", "run", "[bold]x", NASTY], ["native"], {}), "complete", 0)
    result = benchlab("runs", "--db", f"sqlite:///{project / 'r.db'}")
    assert only_printable(result.stdout)
    assert f"benchlab run [bold]x {NASTY_SHOWN}" in result.stdout


def test_compare_stats_history_and_errors_print_names_escaped(project, db_url, monkeypatch, benchlab):
    """The commands that print stored names beside `show`: compare's rows, stats' and
    history's headings, and an error that quotes a name."""
    from benchlab.records import Record
    from benchlab.storage.store import open_store
    monkeypatch.setenv("BENCHLAB_DB", db_url)
    store = open_store(db_url)
    name = "evil\x1b[31m\u202e"
    for level in (100.0, 110.0):
        run_id = store.begin_run(["benchlab", "run"], ["native"], {"host": "box"})
        store.add_unit(run_id, [Record(bench=name, param=None, samples=[level + d for d in (-1, 0, 1)] * 4,
                                       platform="native", binary="x", reported={"process": p}) for p in range(3)], [])
        store.finish_run(run_id, "complete", 0)
    store.close()
    outputs = [benchlab("compare", "1", "2"), benchlab("stats", "latest"), benchlab("history", name),
               benchlab("history", "evil\x1b")]
    for result in outputs:
        text = result.stdout + result.stderr
        assert "\x1b" not in text and "\u202e" not in text, text
    assert "evil\\x1b[31m\\u202e" in outputs[0].stdout and "evil\\x1b[31m\\u202e" in outputs[1].stdout
    assert "evil\\x1b[31m\\u202e" in outputs[2].stdout
    assert outputs[3].exit_code == 2 and "\\x1b" in outputs[3].stderr


# -- issue 37: a text parameter is checked as stored, as a name is --------------------------------

def param_line(bench: str, param) -> str:
    return json.dumps({"type": "result", "bench": bench, "param": param, "counter": "time", "unit": "ns",
                       "samples": SAMPLES, "iterations": 1})


def test_a_text_parameter_too_long_once_escaped_loses_only_its_record_on_either_engine(project, benchlab, db_url,
                                                                                       monkeypatch):
    from benchlab import records
    monkeypatch.setattr(records, "_warned", set())  # warned once per process: this test's engine too
    # 100 lone surrogates: 100 characters as printed, 600 as stored (\ud800 each), more than
    # PostgreSQL's VARCHAR(255) holds; the binary's other records must all be stored
    lines = "\n".join([param_line("wide", "\ud800" * 100), param_line("good", "small"), param_line("good", 7),
                       param_line("odd", "x\udc80")])
    write(project / "suite" / "params.sh", f"#!/bin/sh\ncat <<'EOF'\n{lines}\nEOF\n", executable=True)
    result = benchlab("run", "suite", "--processes", "3", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert "disk space" not in result.stderr
    assert ("param must be at most 255 characters as stored, got 600 once its characters no database holds "
            "(lone surrogates, NUL) are escaped") in result.stderr
    stored = open_store(db_url).load_run(1)[1]
    assert sorted((r.bench, str(r.param)) for r in stored) == sorted(
        [("good", "small"), ("good", "7"), ("odd", "x\\udc80")] * 3)  # the short one escaped, as a name is
    assert ("warning: param 'x\\udc80' had characters no database can store (a lone surrogate or NUL): stored "
            "with them escaped as shown") in result.stderr


def test_a_value_the_database_refuses_is_never_blamed_on_disk_space(postgresql_url):
    from benchlab.errors import UserError
    from benchlab.storage.connection import VALUE_FIX
    store = open_store(postgresql_url)
    run_id = store.begin_run(["benchlab"], ["native"], {})
    too_long = Record(bench="b" * 256, param=None, samples=[1.0, 2.0])  # made here, past every parser's check
    try:
        store.add_unit(run_id, [too_long], [])
    except UserError as error:
        assert "value too long for type character varying(255)" in error.what
        assert error.fix == VALUE_FIX and "disk space" not in error.fix
    else:
        raise AssertionError("PostgreSQL stored a 256-character name in VARCHAR(255)")
    finally:
        store.close()
