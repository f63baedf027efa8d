"""Every format benchlab reads or writes, in one table: its name, what reads or writes it,
how it is recognised, and what it is.

Each row names one layout. Three layouts were all called "csv": the table as CSV
(`run`/`show --format csv`), a stored run's samples (`export --format csv`) and the
header's `--format=csv`; they are `table-csv`, `export-csv` and `header-csv` here, and
`csv` stays accepted (an alias) wherever a user could type it before. What a user sees
of these formats is built from this table: the `--format` choices of `run`, `show`,
`baseline show`, `export` and `import`, the suffixes of `--out`, the formats `run`
recognises in a binary's output and `import` in a file, and the messages that name them.
(`compare`, `gate`, `ab`, `history` and `profile` print their own results, not a run's:
their `--format`s are their own, one tuple per family at the end of this module.) docs/cli.md and docs/formats.md list the same names,
and tests/python/formats/test_registry.py checks both.

This module imports nothing of the parsers or writers (a row names them as text):
`show` and `--help` read it, and import neither (tests/python/test_cli_startup.py).
Adding a format is one row here and its parser in parsers/ or its writer in output/exporters/;
formats/test_registry.py then asks for its line in the docs and, for a format `import` reads, a
frozen example in tests/python/data.
"""
from __future__ import annotations

import dataclasses
import functools
import importlib
from typing import Any

#: What a row is for: `run` reads a binary's output in it; `import` reads a file of it;
#: `show` prints a run in it (`run`, `show`, `baseline show` --format); `export` writes a stored run.
RUN, IMPORT, SHOW, EXPORT = "run", "import", "show", "export"


@dataclasses.dataclass(frozen=True)
class Format:
    name: str
    #: What it is and who writes it, in a few words (docs, help).
    description: str
    #: Which of RUN, IMPORT, SHOW, EXPORT use it.
    uses: tuple[str, ...]
    #: The parser that reads it, "module:Class" under benchlab.formats.parsers; every record it reads is
    #: stored under that parser's own name (a Record's `format`), which several layouts may share.
    parser: str | None = None
    #: Keyword arguments of the parser when `import` reads the format (what `run` does not).
    import_options: tuple[tuple[str, Any], ...] = ()
    #: One JSON document read whole (else a format of lines), recognised by its shape, which
    #: the error names when a file given as this format is not.
    document: bool = False
    shape: str = ""
    #: Lines that are JSON objects: a file of one such line is also a JSON document, so the
    #: format is tried on it before the documents are.
    json_lines: bool = False
    #: Layouts that `--format NAME` reads besides its own (the parser reads them all).
    also_reads: tuple[str, ...] = ()
    #: The last figure of a line ends the line, so a file cut within that figure reads as a whole
    #: line with a smaller number: an import refuses a last line without its newline (the writers
    #: end every line with one). A jsonl line ends in `}`: JSON shows a cut itself.
    newline_ends: bool = False
    #: Fields of the file's own context that mean what a run's context fields mean: (ours, theirs).
    context_fields: tuple[tuple[str, str], ...] = ()
    #: The module under benchlab.output.exporters whose `render(table)` writes it (loaded there:
    #: output/ is a layer above formats/).
    writer: str | None = None
    #: Suffixes of `--out FILE` that choose it (the first one named in messages).
    suffixes: tuple[str, ...] = ()
    #: Earlier spellings, still accepted where they were typed (`csv`).
    aliases: tuple[str, ...] = ()


_CSV_COLUMNS = "name,param,counter,iterations,value"

FORMATS: tuple[Format, ...] = (
    # -- formats of lines, tried on a line in this order (most specific first); `export`
    #    lists its formats in this table's order, jsonl (its default) first
    Format("jsonl", "benchlab jsonl: the header's --format=jsonl, and an export's (every sample kept)",
           (RUN, IMPORT, EXPORT), parser="jsonl:JsonlParser",
           # an export adds where each record came from: only an import reads that
           import_options=(("stored", True),), json_lines=True,
           context_fields=tuple((key, key) for key in ("date", "host", "cpu", "os", "kernel", "arch", "compiler")),
           writer="jsonl", suffixes=(".jsonl",)),
    Format("csb", "the scalability skeleton's key=val; line", (RUN, IMPORT),
           parser="csb:CsbParser", newline_ends=True),
    # a header line names benchlab's two layouts: they are tried before B63's plain lines
    Format("header-csv", f"the header's --format=csv: a {_CSV_COLUMNS} header, a line per sample", (IMPORT,),
           parser="b63csv:B63CsvParser", import_options=(("layout", "header-csv"),), newline_ends=True),
    Format("export-csv", f"a stored run's samples: {_CSV_COLUMNS},unit,platform,binary,process,sweep,overhead",
           (IMPORT, EXPORT), parser="b63csv:B63CsvParser", import_options=(("layout", "export-csv"),),
           newline_ends=True, writer="samples", suffixes=(".csv",), aliases=("csv",)),
    Format("b63csv", "B63's name,counter,iterations,value[,per-iteration] lines (no header)", (RUN, IMPORT),
           parser="b63csv:B63CsvParser", newline_ends=True, also_reads=("header-csv", "export-csv")),
    Format("lind-csv", "the Lind runner's -o CSV: TEST,PARAM,<PLATFORM> (ns)...,ITERATIONS,DESCRIPTION", (IMPORT,),
           parser="lind_csv:LindCsvParser"),
    Format("lind", "the cross-platform runner's test<TAB>param<TAB>loops<TAB>avg_ns line", (RUN, IMPORT),
           parser="lind:LindParser", newline_ends=True),
    # last: a line of words, a colon and a number, told from others by B63's padding
    Format("b63-interactive", "B63's -i lines: NAME COUNTER : VALUE [(+-PCT% *)], a mean per benchmark",
           (RUN, IMPORT), parser="b63_interactive:B63InteractiveParser", newline_ends=True),
    # -- documents, read whole; tried in this order on a JSON file (a reader tries them before
    #    the formats of lines, and lists them first)
    Format("gbench", "Google Benchmark's JSON (--benchmark_format=json, --benchmark_out)", (RUN, IMPORT, EXPORT),
           parser="gbench:GbenchParser", document=True,
           shape='Google Benchmark JSON: {"context": {...}, "benchmarks": [...]}',
           context_fields=(("date", "date"), ("host", "host_name")), writer="gbench"),
    Format("hyperfine", "hyperfine's JSON (--export-json)", (IMPORT,),
           parser="hyperfine:HyperfineParser", document=True,
           shape='hyperfine JSON (--export-json): {"results": [{"command": ..., "times": [...]}]}'),
    Format("pyperf", "pyperf's JSON (-o, pyperformance)", (IMPORT,),
           parser="pyperf:PyperfParser", document=True,
           shape='pyperf JSON: {"version": ..., "benchmarks": [{"runs": [...]}]}',
           context_fields=(("host", "hostname"), ("cpu", "cpu_model_name"), ("python", "python_version"))),
    Format("lind-json", "the Lind runner's JSON {test: {param: {platform: ns, \"loops\": n}}}", (IMPORT, EXPORT),
           parser="lind_json:LindJsonParser", document=True,
           shape="the Lind runner's JSON: {test: {param: {platform: ns, \"loops\": n}}}", writer="lind_json"),
    # -- written only: other tools' inputs
    Format("github-action-benchmark", "github-action-benchmark's customSmallerIsBetter JSON: [{name, unit, value, "
           "range, extra}], a figure per benchmark and platform", (EXPORT,), writer="github_action_benchmark"),
    # -- what run and show print
    Format("table", "the table, for people", (SHOW,), writer="table", suffixes=(".txt",)),
    Format("json", "the run, its table rows and every record with its samples", (SHOW,), writer="json",
           suffixes=(".json",)),
    Format("table-csv", "one line per table cell (row, platform): median, interval, ratio, marks, quantiles",
           (SHOW,), writer="csv", suffixes=(".csv",), aliases=("csv",)),
    Format("markdown", "the table in Markdown", (SHOW,), writer="markdown", suffixes=(".md", ".markdown")),
)

BY_NAME = {row.name: row for row in FORMATS}


def used_by(use: str) -> tuple[Format, ...]:
    """The rows of one use, in the table's order; a reader's (RUN, IMPORT) documents first,
    as a reader recognises a document by its start before it reads lines."""
    rows = tuple(row for row in FORMATS if use in row.uses)
    if use in (RUN, IMPORT):
        rows = tuple(sorted(rows, key=lambda row: not row.document))
    return rows


def names(use: str) -> list[str]:
    return [row.name for row in used_by(use)]


def aliases(use: str) -> dict[str, str]:
    """{alias: name} of one use's rows."""
    return {alias: row.name for row in used_by(use) for alias in row.aliases}


def resolve(name: str, use: str) -> str:
    """The name of the row `name` spells in `use` (itself, or the row it is an alias of); KeyError when none."""
    if name in names(use):
        return name
    return aliases(use)[name]


def by_suffix(use: str) -> dict[str, str]:
    """{suffix of --out: name}, in the table's order."""
    return {suffix: row.name for row in used_by(use) for suffix in row.suffixes}


def choices_text(use: str) -> str:
    """table|json|table-csv|markdown: the names of one use, for a synopsis or a message."""
    return "|".join(names(use))


def suffixes_text(use: str) -> str:
    """'.jsonl or .csv': the suffixes of --out that choose one use's formats."""
    suffixes = list(by_suffix(use))
    return suffixes[0] if len(suffixes) == 1 else f"{', '.join(suffixes[:-1])} or {suffixes[-1]}"


def alias_text(use: str) -> str:
    """'csv is table-csv': the aliases of one use, for help and messages ('' when none)."""
    return ", ".join(f"{alias} is {name}" for alias, name in aliases(use).items())


def _load(spec: str, package: str) -> Any:
    module, _, attribute = spec.partition(":")
    loaded = importlib.import_module(f"benchlab.formats.{package}.{module}")
    return getattr(loaded, attribute) if attribute else loaded


@functools.cache
def parser(name: str, use: str = RUN) -> Any:
    """The parser of row `name`, as `use` (RUN or IMPORT) reads it; imported on first use."""
    row = BY_NAME[name]
    options = dict(row.import_options) if use == IMPORT else {}
    return _load(row.parser, "parsers")(**options)


#: The `--format` choices of the commands that print their own results, not a run's, one per
#: family, the default first: compare, gate and ab print a comparison (output/comparisons.py),
#: profile (and show of a profile run) a profile (output/profiles.py).
COMPARISON_FORMATS = ("table", "markdown", "json")
PROFILE_FORMATS = ("table", "json")

__all__ = ["COMPARISON_FORMATS", "PROFILE_FORMATS", "FORMATS", "BY_NAME", "Format", "RUN", "IMPORT", "SHOW", "EXPORT", "used_by", "names", "aliases",
           "resolve", "by_suffix", "choices_text", "suffixes_text", "alias_text", "parser"]
