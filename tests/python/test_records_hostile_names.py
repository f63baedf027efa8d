"""Names from imported files reach the terminal escaped, whichever command prints them, and
CSV exports never hand a spreadsheet a formula (issue 31)."""
import csv
import io
import json
import sys

import pytest

from benchlab.cli import TerminalSafe
from benchlab.records import from_spreadsheet_cell, printable_text, spreadsheet_cell

#: What a terminal must never receive raw: ESC (colour, cursor, title), a C1 CSI, BEL, a
#: right-to-left override.
HOSTILE = "\x1b]0;owned\x07\x1b[31mRED\x9b2J\u202eevil"
BENCH = "BM_\u202eevil\x9b1m"
PLATFORM = "p\u202ex"
DB = "sqlite:///names.db"


def gbench_file(path, real_time: float, bench: str = BENCH) -> None:
    path.write_text(json.dumps({
        "context": {"host_name": "h" + HOSTILE, "executable": "x", "num_cpus": 2, "mhz_per_cpu": 1000,
                    "cpu_scaling_enabled": False, "caches": [], "library_build_type": "release",
                    "date": "2026-01-01"},
        "benchmarks": [{"name": bench, "run_name": bench, "run_type": "iteration", "iterations": 10,
                        "real_time": real_time, "cpu_time": 4, "time_unit": "ns", "repetitions": 1}]}))


def unsafe(text: str) -> list[str]:
    """The characters of `text` a terminal would act on."""
    return sorted({char for char in text if not char.isprintable() and char not in "\n\t"})


@pytest.fixture
def hostile_runs(project, benchlab):
    for index, real_time in enumerate((5, 6, 5.5), start=1):
        gbench_file(project / "g.json", real_time)  # one binary's runs: a history
        imported = benchlab("import", "g.json", "--platform", PLATFORM, "--db", DB)
        assert imported.exit_code == 0, imported.stderr
    assert benchlab("baseline", "save", "base", "1", "--db", DB).exit_code == 0
    return project


@pytest.mark.parametrize("args", [
    ["stats", "latest"], ["history", BENCH], ["compare", "1", "2"],
    ["gate", "--baseline", "base", "2", "--no-remeasure"], ["show", "latest"], ["runs"], ["baseline", "list"],
    ["export", "2", "--dir", "exported"],
], ids=lambda args: args[0])
def test_no_command_prints_a_character_a_terminal_acts_on(hostile_runs, benchlab, args):
    result = benchlab(*args, "--db", DB)
    assert result.exit_code in (0, 3), result.stderr
    assert unsafe(result.stdout) == [] and unsafe(result.stderr) == []
    assert "\\u202e" in result.stdout + result.stderr or args[0] in ("runs", "baseline", "export")


def test_stats_and_the_export_readme_show_the_host_escaped(hostile_runs, benchlab):
    stats = benchlab("stats", "latest", "--db", DB).stdout
    # (click itself drops the CSI colour codes from what is not a terminal.)
    assert stats.splitlines()[0].endswith(r"; host h\x1b]0;owned\x07RED\x9b2J\u202eevil, ?")
    assert benchlab("export", "2", "--dir", "exported", "--db", DB).exit_code == 0
    [readme] = (hostile_runs / "exported").glob("*/README.txt")
    assert unsafe(readme.read_text()) == []
    assert r"host:       h\x1b]0;owned\x07\x1b[31mRED\x9b2J\u202eevil" in readme.read_text()


def test_an_export_into_a_pipe_keeps_names_exact_to_read_them_back(hostile_runs, benchlab):
    exported = benchlab("export", "2", "--format", "export-csv", "--db", DB)
    assert exported.stdout.splitlines()[1].startswith(f"{BENCH},,time,10,")  # data, not a terminal


def test_terminal_safe_escapes_what_is_not_printable_and_keeps_lines_tabs_and_crlf():
    out = io.StringIO()
    safe = TerminalSafe(out)
    safe.write("a\tb\r\nc\x1b[2Jd\re\u202ef\u2028g\n")
    assert out.getvalue() == "a\tb\r\nc\\x1b[2Jd\\re\\u202ef\\u2028g\n"
    with pytest.raises(TypeError):
        safe.write(b"bytes")
    assert printable_text("plain ascii\n") == "plain ascii\n"


@pytest.mark.parametrize("text, cell", [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("+cmd", "'+cmd"), ("-O2", "'-O2"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\t=1"), ("-1.5", "-1.5"), ("+3", "+3"), ("-2e-05", "-2e-05"), ("BM_x", "BM_x"), ("", ""),
    ("'=already", "''=already"), ("'plain", "'plain"),
])
def test_a_cell_a_spreadsheet_would_run_gets_a_quote_and_a_number_stays_a_number(text, cell):
    assert spreadsheet_cell(text) == cell
    assert from_spreadsheet_cell(spreadsheet_cell(text)) == text


def test_csv_exports_quote_formulas_and_an_import_of_the_export_reads_the_names_back(project, benchlab):
    formula = "=HYPERLINK(\"http://evil\",\"x\")"
    gbench_file(project / "f.json", 5, bench=formula)
    assert benchlab("import", "f.json", "--platform", "@p", "--db", DB).exit_code == 0
    table = list(csv.DictReader(io.StringIO(benchlab("show", "latest", "--format", "table-csv", "--db", DB).stdout)))
    assert {(row["test"], row["platform"]) for row in table} == {("'" + formula, "'@p")}
    samples = benchlab("export", "latest", "--format", "export-csv", "--out", "run.csv", "--db", DB)
    assert samples.exit_code == 0, samples.stderr
    rows = list(csv.reader((project / "run.csv").open()))
    assert rows[1][0] == "'" + formula and rows[1][6] == "'@p" and rows[1][4] == "50.0"
    again = benchlab("import", "run.csv", "--db", DB)
    assert again.exit_code == 0, again.stderr
    shown = benchlab("show", "latest", "--format", "json", "--db", DB).stdout
    assert json.dumps(formula) in shown


def test_a_text_parameter_a_spreadsheet_would_run_is_quoted_in_every_csv_and_read_back(project, benchlab):
    # issue 37: `p,=cmd|' /C calc'!A0,...` in export-csv, results.csv and table-csv alike
    param = "=cmd|' /C calc'!A0"
    (project / "p.jsonl").write_text(json.dumps({"type": "result", "bench": "p", "param": param, "counter": "time",
                                                 "unit": "ns", "samples": [5.0, 6.0, 7.0]}) + "\n")
    assert benchlab("import", "p.jsonl", "--db", DB).exit_code == 0
    table = list(csv.DictReader(io.StringIO(benchlab("show", "latest", "--format", "table-csv", "--db", DB).stdout)))
    assert [row["param"] for row in table] == ["'" + param]
    assert benchlab("export", "latest", "--format", "export-csv", "--out", "run.csv", "--db", DB).exit_code == 0
    assert [row[1] for row in csv.reader((project / "run.csv").open())][1:] == ["'" + param] * 3
    assert benchlab("export", "latest", "--dir", "exported", "--db", DB).exit_code == 0
    [results] = (project / "exported").glob("*/data/results.csv")
    assert [row[1] for row in csv.reader(results.open())][1:] == ["'" + param] * 3
    assert benchlab("import", "run.csv", "--db", DB).exit_code == 0
    shown = json.loads(benchlab("show", "latest", "--format", "json", "--db", DB).stdout)
    assert param in json.dumps(shown) and "'" + param not in json.dumps(shown)
