"""The documents against the code they describe: the README's C snippet compiles as written,
its commands parse with the real command line and name runs and benchmarks a new user
has, and every number the docs give for the header, the store or the command line is the
one the code has (read from the header's macros, the store's tables, click's commands)."""
from __future__ import annotations

import re
import shlex
import subprocess
import warnings

import click

from benchlab.storage import schema
from benchlab.cli import cli
from benchlab.limits import header_limits
from conftest import HEADER, REPO

README = (REPO / "README.md").read_text()
DOCS = REPO / "docs"
#: Words the docs write small numbers in.
NUMBER_WORDS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split())}


def header_define(name: str) -> str:
    return re.search(rf"^#define {name} (\S+)", HEADER.read_text(), re.M).group(1)


def code_blocks(text: str, language: str = "") -> list[str]:
    """The fenced blocks of a Markdown text whose fence names `language` ("" for none)."""
    blocks, current, fence = [], [], None
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            if fence is None:
                fence, current = line[3:].strip(), []
            else:
                if fence == language:
                    blocks.append("".join(current))
                fence = None
        elif fence is not None:
            current.append(line)
    return blocks


# -- the README ---------------------------------------------------------------------------------

def test_the_readme_snippet_compiles_as_written_and_runs(tmp_path):
    [snippet] = code_blocks(README, "c")
    (tmp_path / "bench.c").write_text(snippet)
    build = subprocess.run(["gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2",
                            f"-I{REPO / 'include'}", "bench.c", "-o", "bench"], cwd=tmp_path, capture_output=True,
                           text=True)
    assert build.returncode == 0, build.stderr
    listed = subprocess.run(["./bench", "--list"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0 and "empty_call (baseline)" in listed.stdout and "write_bytes/size=4096" in listed.stdout
    ran = subprocess.run(["./bench", "--samples=3", "--time-limit=0.01", "--format=csv"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert not (tmp_path / "scratch.bin").exists()  # it cleans up after itself


def test_the_readmes_compile_commands_write_no_file_over_a_folder_of_the_checkout():
    # issue 37: `cc ... -o bench` in the checkout's root, where bench/ is a folder: "Is a directory"
    outputs = [line.split(" -o ")[1].split()[0] for block in code_blocks(README) for line in block.splitlines()
               if line.split()[:1] in (["cc"], ["gcc"], ["clang"]) and " -o " in line]
    assert outputs, "the README compiles a benchmark by hand"
    for name in outputs:
        assert not (REPO / name).is_dir(), f"the README's `-o {name}` is a folder of the checkout"


def readme_commands() -> list[list[str]]:
    """Every `benchlab ...` command of the README's code blocks, as argv after `benchlab`."""
    commands = []
    for block in code_blocks(README):
        for line in block.splitlines():
            for part in line.split(" # ")[0].split("&&"):
                if part.split()[:1] in (["benchlab"], [".venv/bin/benchlab"]):
                    commands.append(shlex.split(part)[1:])
    return commands


def shipped_benchmarks() -> set[str]:
    """The benchmark names the shipped suites define (BL_BENCH..., BL_BASELINE, BL_TARGET...)."""
    names = set()
    for source in (REPO / "suites").rglob("*.c"):
        names.update(re.findall(r"^\s*BL_[A-Z_]+\(\s*([a-z_][a-z0-9_]*)\s*,", source.read_text(), re.M))
    return names


#: Parameters that name a stored run, in the commands' signatures.
RUN_PARAMETERS = ("a", "b", "run", "run_id", "run_ids", "baseline")


def parse(argv: list[str]) -> click.Context:
    """The command line as click parses it (types and ranges checked), without running it."""
    context = cli.make_context("benchlab", list(argv), resilient_parsing=False)
    group, rest = cli, unparsed(context)
    while isinstance(group, click.Group) and rest:
        command = group.get_command(context, rest[0])
        assert command is not None, f"benchlab {' '.join(argv)}: no command {rest[0]!r}"
        context = command.make_context(rest[0], rest[1:], parent=context)
        group, rest = command, unparsed(context)
    return context


def unparsed(context: click.Context) -> list[str]:
    """A group's subcommand and its arguments (click 8.2 keeps the first in protected_args,
    which it warns about, and click 9 will keep all in args)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return [*getattr(context, "protected_args", []), *context.args]


def test_the_readme_commands_parse_and_name_runs_and_benchmarks_a_new_user_has():
    commands = readme_commands()
    assert len(commands) >= 10
    benchmarks = shipped_benchmarks()
    saved: set[str] = set()
    for argv in commands:
        context = parse(argv)
        params = context.params
        if argv[:2] == ["baseline", "save"]:
            saved.add(argv[2])
        runs = [params[key] for key in RUN_PARAMETERS if isinstance(params.get(key), str)]
        runs += [run for key in RUN_PARAMETERS if isinstance(params.get(key), tuple) for run in params[key]]
        for run in runs:
            assert run == "latest" or re.fullmatch(r"-\d+", run) or run in saved, (
                f"benchlab {' '.join(argv)}: run {run!r} is not one a reader has (latest, -N or a baseline saved above)")
        names = list(params.get("names") or []) + ([params["name"]] if argv[0] == "history" else [])
        for name in names:
            assert name in benchmarks, f"benchlab {' '.join(argv)}: no shipped suite has a benchmark {name!r}"
    assert {"stats", "history", "compare", "gate", "report"} <= {argv[0] for argv in commands}


# -- numbers the docs give, against the code ------------------------------------------------------

def test_suites_md_gives_the_headers_default_time_limit():
    found = re.search(r"`--time-limit=SECONDS` \(per benchmark, default ([0-9.]+)", (DOCS / "suites.md").read_text())
    assert found and float(found.group(1)) == header_limits()["DEFAULT_TIME_LIMIT_S"]


def test_formats_md_gives_the_schema_the_header_writes():
    text = (DOCS / "formats.md").read_text()
    schema = header_define("BENCHLAB_SCHEMA")
    assert re.search(r"Schema version: \*\*(\d+)\*\*", text).group(1) == schema
    assert re.search(r"\| `schema` \| int \| format version, `(\d+)` \|", text).group(1) == schema
    version = header_define("BENCHLAB_VERSION").strip('"')
    assert re.search(r'\| `benchlab` \| string \| header version, e.g. `"([^"]+)"`', text).group(1) == version


def test_cli_md_gives_the_samples_minimum_of_the_header_and_of_click():
    found = re.search(r"`--samples` must be >= (\d+)", (DOCS / "cli.md").read_text())
    run = cli.get_command(click.Context(cli), "run")
    [samples] = [p for p in run.params if p.name == "samples"]
    assert int(found.group(1)) == header_limits()["MIN_SAMPLES"] == samples.type.min


def test_cli_md_counts_the_stores_tables():
    found = re.search(r"no ORM needed for (\w+) tables", (DOCS / "cli.md").read_text())
    assert NUMBER_WORDS.get(found.group(1), found.group(1)) == len(schema.TABLES)


def test_cli_md_lists_every_subcommand_of_benchlab_help():
    text = (DOCS / "cli.md").read_text()
    table = text[text.index("Commands:\n"):].split("\n\n")[1]
    listed = re.findall(r"^\| `benchlab ([a-z]+)\b", table, re.M)
    subcommands = cli.list_commands(click.Context(cli))
    assert list(dict.fromkeys(listed)) == subcommands


def _format_choices(name: str, command: click.Command) -> dict[str, tuple[str, ...]]:
    """{"baseline show": choices, ...}: the --format choices of `command` and its subcommands."""
    if isinstance(command, click.Group):
        context = click.Context(command)
        return {key: value for sub in command.list_commands(context)
                for key, value in _format_choices(f"{name} {sub}", command.get_command(context, sub)).items()}
    return {name: tuple(p.type.choices) for p in command.params
            if "--format" in p.opts and isinstance(p.type, click.Choice)}


def test_cli_md_gives_every_commands_format_choices():
    """Every `--format` of docs/cli.md's synopses names the choices the command takes, in order
    (compare, gate and ab share formats.COMPARISON_FORMATS; run, show and export the registry's)."""
    context = click.Context(cli)
    choices = {}
    for name in cli.list_commands(context):
        choices.update(_format_choices(name, cli.get_command(context, name)))
    synopses = {}
    for block in code_blocks((DOCS / "cli.md").read_text()):
        name = None
        for line in block.splitlines():  # a synopsis: `benchlab NAME ...`, its next lines indented
            starts = re.match(r"benchlab ((?:baseline )?[a-z]+)\b", line)
            name = starts.group(1) if starts else name if line.startswith(" ") else None
            for found in re.findall(r"\[--format ([\w|-]+)\]", line):
                if name is not None:
                    synopses.setdefault(name, found)
    assert {"compare", "gate", "ab", "profile", "history", "run", "export", "import"} <= set(synopses)
    assert synopses == {name: "|".join(choices[name]) for name in synopses}


def test_the_headers_manual_names_files_that_exist():
    manual = HEADER.read_text().split("*/", 1)[0]
    paths = set(re.findall(r"\b((?:tests|docs|examples|suites|scripts|bench|src)/[\w./-]*\w)", manual))
    assert "tests/c/modes_test.sh" in paths
    assert [path for path in sorted(paths) if not (REPO / path).exists()] == []


# -- examples that must run as written -------------------------------------------------------------

def test_the_short_run_of_cli_md_runs_as_written(benchlab, monkeypatch, tmp_path):
    # How long it takes is a benchmark's figure (bench/README.md), not a test's: these machines
    # are shared (issue 27).
    found = re.search(r"Small values keep a run short: `(benchlab run [^`]+)`", (DOCS / "cli.md").read_text())
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("BENCHLAB_DB", f"sqlite:///{tmp_path / 'results.db'}")
    result = benchlab(*shlex.split(found.group(1))[1:])
    assert result.exit_code == 0, result.stderr[-2000:]


# -- docs/architecture.md, formats.md and suites.md against the code (issue 19 step 9) -------------

PACKAGE = REPO / "src" / "benchlab"


def architecture_modules() -> list[str]:
    """The paths the module table of architecture.md names, relative to src/benchlab/."""
    text = (DOCS / "architecture.md").read_text()
    section = text[text.index("## The `benchlab` command"):].split("\n## ", 1)[0]
    first_cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return [name for cell in first_cells for name in re.findall(r"`([\w/.]+)`", cell)]


def test_architecture_md_names_only_modules_that_exist():
    named = architecture_modules()
    assert len(named) > 30
    assert [name for name in named if not (PACKAGE / name.rstrip("/")).exists()] == []


def test_architecture_md_names_every_module_of_the_package():
    named = architecture_modules()
    folders = tuple(name for name in named if name.endswith("/"))
    sources = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*") if p.suffix in (".py", ".c")]
    unnamed = [path for path in sorted(sources)
               if path not in named and not path.startswith(folders) and not path.endswith("__init__.py")
               and "__pycache__" not in path]
    assert unnamed == []


def header_output_formats() -> list[str]:
    """The header's output formats, as its manual's COMMAND LINE section lists them."""
    return re.search(r"--format=([a-z0-9-]+(?:\|[a-z0-9-]+)+)", HEADER.read_text().split("*/", 1)[0]).group(1).split("|")


def test_formats_md_has_a_section_for_every_output_format_of_the_header():
    sections = re.findall(r"^## ([\w-]+)", (DOCS / "formats.md").read_text(), re.M)
    assert len(header_output_formats()) >= 5
    assert [name for name in header_output_formats() if name not in sections] == []


def test_formats_md_gives_the_headers_interval_constants():
    limits, text = header_limits(), (DOCS / "formats.md").read_text()
    batches = re.search(r"With `B = min\((\d+), floor\(n/2\)\)` batches\s+\(none when `B < (\d+)`\)", text)
    assert (int(batches.group(1)), int(batches.group(2))) == (limits["BATCHES"], limits["MIN_BATCHES"])
    level = re.search(r"- \*\*median_ci\*\* \((\d+)%", text)
    assert int(level.group(1)) / 100 == limits["CI_LEVEL"]
    # A log-linear histogram with HIST_SUB sub-buckets per power of two: a bucket's midpoint
    # is within half a sub-bucket, 1 / (2 * HIST_SUB), of any value in it.
    error = re.search(r"the midpoint of the bucket holding rank ceil\(p\*timed\), within ([0-9.]+)%", text)
    assert float(error.group(1)) == round(100 / (2 * limits["HIST_SUB"]), 1)


def test_suites_md_gives_the_headers_samples_at_the_time_limit():
    found = re.search(r"`--time-limit=SECONDS` \(per benchmark, default [0-9.]+, and at least (\d+) samples\)",
                      (DOCS / "suites.md").read_text())
    assert int(found.group(1)) == header_limits()["MIN_SAMPLES_AT_LIMIT"]


def test_the_docs_and_the_package_name_source_and_test_files_that_exist():
    # Paths go stale when modules and tests move (issue 19 step 8 moved most of them).
    texts = [*DOCS.glob("*.md"), REPO / "README.md", REPO / "bench" / "README.md", *PACKAGE.rglob("*.py")]
    named = {(text.relative_to(REPO).as_posix(), path) for text in texts
             for path in re.findall(r"\b((?:src/benchlab|tests/python|tests/c)/[\w./-]*\.(?:py|c|sh|md))\b",
                                    text.read_text())}
    assert len(named) > 20
    assert sorted((text, path) for text, path in named if not (REPO / path).exists()) == []
