"""benchlab.formats.registry, the one table of formats: every row reads or writes what it says, every
alias is taken where its format is, and every list a user sees (choices, messages, docs)
is the table's."""
import re
from pathlib import Path

import click
import pytest

from benchlab.formats import registry as formats
from benchlab.cli.common import FormatChoice
from benchlab.output.exporters import EXPORTERS, FORMAT_BY_SUFFIX, RUN_FORMAT_BY_SUFFIX, RUN_FORMATS, writer
from benchlab.formats.importing import FORMAT_NAMES, read_results
from benchlab.errors import UserError
from benchlab.formats.parsers import FORMAT_NAMES as RUN_NAMES, parse_output
from benchlab.formats.parsers.base import problems
from conftest import REPO

DATA = REPO / "tests" / "python" / "data"
#: The frozen example of each format `import` reads (tests/python/data/README.md says how each was made).
FROZEN = {"gbench": "gbench.json", "hyperfine": "hyperfine.json", "pyperf": "pyperf.json", "lind-json": "lind.json",
          "jsonl": "benchlab.jsonl", "csb": "csb.txt", "header-csv": "header.csv", "export-csv": "export.csv",
          "b63csv": "b63.csv", "lind": "lind.txt", "lind-csv": "lind-runner.csv",
          "b63-interactive": "b63-interactive.txt"}
USES = (formats.RUN, formats.IMPORT, formats.SHOW, formats.EXPORT)


def test_every_format_benchlab_imports_has_a_frozen_example():
    assert set(FROZEN) == set(FORMAT_NAMES) == set(formats.names(formats.IMPORT))


@pytest.mark.parametrize("name", list(FROZEN))
def test_every_import_format_reads_its_frozen_example_detected_and_named(name):
    path = str(DATA / FROZEN[name])
    detected = read_results(path)
    named = read_results(path, name)
    assert detected.format == named.format == name
    assert detected.records and all(problems(r) == [] for r in detected.records)
    assert [r.samples for r in detected.records] == [r.samples for r in named.records]
    # a record keeps the name of the parser that read it, as `run` stores it
    assert {r.format for r in detected.records} == {formats.parser(name, formats.IMPORT).name}


@pytest.mark.parametrize("name", formats.names(formats.RUN))
def test_every_format_run_reads_is_recognised_in_a_binarys_output(name):
    text = (DATA / FROZEN[name]).read_text()
    parsed = parse_output(text, "bin")
    assert parsed.records and {r.format for r in parsed.records} == {name}
    assert len(parsed.warnings) == len(parsed.failures)  # only the failures the file reports (gbench's BM_broken)


def test_the_three_csv_layouts_are_one_parser_and_b63csv_still_reads_them_all():
    samples = {}
    for name in ("header-csv", "export-csv", "b63csv"):
        path = str(DATA / FROZEN[name])
        assert read_results(path, "b63csv").records, name  # the old spelling of every csv a user imported
        samples[name] = [r.samples for r in read_results(path, "b63csv").records]
        assert samples[name] == [r.samples for r in read_results(path).records]
    assert formats.BY_NAME["b63csv"].also_reads == ("header-csv", "export-csv")


@pytest.mark.parametrize("named, file, want", [
    ("header-csv", "b63.csv", "want the header line name,param,counter,iterations,value"),
    ("header-csv", "export.csv", "want the header line name,param,counter,iterations,value"),
    ("export-csv", "header.csv",
     "want the header line name,param,counter,iterations,value,unit,platform,binary,process,sweep,overhead"),
])
def test_a_csv_layout_named_is_that_layout_or_an_error_saying_which_it_looks_like(named, file, want):
    with pytest.raises(UserError) as error:
        read_results(str(DATA / file), named)
    guess = {"b63.csv": "b63csv", "export.csv": "export-csv", "header.csv": "header-csv"}[file]
    assert error.value.what.startswith(f"{DATA / file}: line 1 is not valid {named} ({want}): ")
    assert error.value.fix == f"nothing was imported; the file looks like {guess}: give --format {guess}"


def test_names_are_unique_and_aliases_spell_one_format_of_their_use():
    assert len(formats.BY_NAME) == len(formats.FORMATS)
    for use in USES:
        names = formats.names(use)
        assert names and len(set(names)) == len(names)
        spelled = formats.aliases(use)
        assert not set(spelled) & set(names)
        for alias, name in spelled.items():
            assert formats.resolve(alias, use) == name and alias in formats.BY_NAME[name].aliases
        with pytest.raises(KeyError):
            formats.resolve("no-such-format", use)


def test_csv_is_an_alias_in_show_and_export_and_names_a_different_layout_in_each():
    assert formats.resolve("csv", formats.SHOW) == "table-csv"
    assert formats.resolve("csv", formats.EXPORT) == "export-csv"
    assert EXPORTERS["csv"] is EXPORTERS["table-csv"] and "csv" in EXPORTERS and "csv" not in list(EXPORTERS)
    assert RUN_FORMATS["csv"] is RUN_FORMATS["export-csv"] and "csv" in RUN_FORMATS
    assert FORMAT_BY_SUFFIX[".csv"] == "table-csv" and RUN_FORMAT_BY_SUFFIX[".csv"] == "export-csv"


@pytest.mark.parametrize("use", USES)
def test_every_row_loads_its_parser_and_writer(use):
    for row in formats.used_by(use):
        if use in (formats.RUN, formats.IMPORT):
            parser = formats.parser(row.name, use)
            assert callable(parser.sniff_object if row.document else parser.session)
            # a layout of a shared parser is read under that parser's name (b63csv)
            assert parser.name == row.name or row.name in formats.BY_NAME[parser.name].also_reads
        else:
            assert callable(writer(row.name))


def test_readers_list_documents_first_and_the_table_order_otherwise():
    assert RUN_NAMES == ["gbench", "jsonl", "csb", "b63csv", "lind", "b63-interactive"]
    assert FORMAT_NAMES == ["gbench", "hyperfine", "pyperf", "lind-json", "jsonl", "csb", "header-csv", "export-csv",
                            "b63csv", "lind-csv", "lind", "b63-interactive"]
    assert list(EXPORTERS) == ["table", "json", "table-csv", "markdown"]
    assert list(RUN_FORMATS) == ["jsonl", "export-csv", "gbench", "lind-json", "github-action-benchmark"]


@pytest.mark.parametrize("use", [formats.SHOW, formats.EXPORT, formats.IMPORT])
def test_an_unknown_format_is_refused_with_the_tables_names_and_an_alias_is_taken(use):
    choice = FormatChoice(use)
    with pytest.raises(click.BadParameter) as error:
        choice.convert("xml", None, None)
    assert str(error.value) == "'xml' is not one of " + ", ".join(f"'{n}'" for n in formats.names(use)) + "."
    for alias, name in formats.aliases(use).items():
        assert choice.convert(alias, None, None) == name
    for name in formats.names(use):
        assert choice.convert(name, None, None) == name


def test_a_file_in_no_format_is_refused_with_every_import_formats_name(tmp_path):
    (tmp_path / "junk.txt").write_text("hello\n")
    with pytest.raises(UserError) as error:
        read_results(str(tmp_path / "junk.txt"))
    assert f"give --format ({', '.join(formats.names(formats.IMPORT))})" in error.value.fix


def test_an_output_in_no_format_is_a_warning_with_every_run_formats_name():
    parsed = parse_output("hello\n", "b")
    assert parsed.warnings == [f"b: output is in no known format ({', '.join(formats.names(formats.RUN))}), "
                               "ignored; first line: 'hello'"]


def test_the_commands_options_list_the_tables_names(benchlab):
    for command, use in (("show", formats.SHOW), ("export", formats.EXPORT), ("import", formats.IMPORT)):
        out = benchlab(command, "--help").stdout
        assert f"--format [{formats.choices_text(use)}]" in " ".join(out.split())


def test_export_csv_and_its_alias_write_the_same_file(project, benchlab):
    assert benchlab("import", str(DATA / "benchlab.jsonl")).exit_code == 0
    new, old = benchlab("export", "1", "--format", "export-csv"), benchlab("export", "1", "--format", "csv")
    assert new.exit_code == old.exit_code == 0 and new.stdout == old.stdout
    assert new.stdout == (DATA / "export.csv").read_text()
    table, alias = benchlab("show", "1", "--format", "table-csv"), benchlab("show", "1", "--format", "csv")
    assert table.stdout == alias.stdout and table.stdout.startswith("test,param,counter,unit,")


# -- the docs name what the table names --------------------------------------------------------------------

CLI_DOC = (REPO / "docs" / "cli.md").read_text()
FORMATS_DOC = (REPO / "docs" / "formats.md").read_text()


@pytest.mark.parametrize("synopsis, use", [
    ("benchlab run [TARGET]...", formats.SHOW), ("benchlab baseline show NAME", formats.SHOW),
    ("benchlab export [RUN]", formats.EXPORT), ("benchlab import FILE", formats.IMPORT)])
def test_docs_cli_synopses_list_the_tables_names(synopsis, use):
    line = next(line for line in CLI_DOC.splitlines() if line.startswith(synopsis))
    assert re.search(r"--format ([\w|-]+)", line).group(1) == formats.choices_text(use)


@pytest.mark.parametrize("heading, use", [("## Import", formats.IMPORT), ("## Export", formats.EXPORT)])
def test_docs_cli_tables_have_a_row_per_format(heading, use):
    section = CLI_DOC[CLI_DOC.index(heading):]
    section = section[:section.index("\n## ", 1)]
    rows = [m.group(1) for m in re.finditer(r"^\| `([\w-]+)` \|", section, re.MULTILINE)]
    assert rows[:len(formats.names(use))] == formats.names(use)


def test_docs_name_every_format_and_alias():
    for row in formats.FORMATS:
        assert f"`{row.name}`" in CLI_DOC + FORMATS_DOC, row.name
        for alias in row.aliases:
            assert f"`{alias}` is `{row.name}`" in CLI_DOC, (alias, row.name)


def test_docs_formats_table_of_names_is_the_registry():
    section = FORMATS_DOC[FORMATS_DOC.index("## Format names"):]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| `")]
    read = {formats.RUN: "run", formats.IMPORT: "import"}
    written = {formats.SHOW: "run, show", formats.EXPORT: "export"}
    want = [[f"| `{row.name}`", row.description,
             ", ".join(read[u] for u in row.uses if u in read) or "-",
             ", ".join(written[u] for u in row.uses if u in written) or "-",
             (", ".join(f"`{a}`" for a in row.aliases) or "-") + " |"] for row in formats.FORMATS]
    assert rows == want
