"""Fuzz targets of issue 18's surfaces beyond the parsers: benchmark names through every
printer and the store, the report page, buckets files, and output paths.

Each target takes one input and raises (an AssertionError or any other exception) on a
failure; fuzzing.py runs them with its deadline and budget, as the parser targets:
- names: records and a failure whose names, platform, binary, counter, unit, reason and
  stderr are drawn from every kind of character (controls, C1, separators, bidi
  overrides, lone surrogates, NUL, markup); every text format must print only printable
  characters one row a line, json must read back, the store must keep the storable name;
- report: the same names through `benchlab report`'s page: only printable text;
- buckets: a buckets file of drawn patterns (and the ones that hung or crashed `re`):
  loaded, or one UserError naming the file; then classifying symbols stays within the
  deadline (linear-time matching);
- paths: `export --out/--dir`, `show --out`, `report --out` and `--config` with drawn
  paths (names over 255 bytes, a FIFO, a device, a directory, `-`, missing parents):
  exit 0 with a regular file written, or one `error:` line, exit 2, and the FIFO and
  the device left as they were.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import stat
from collections import Counter
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

from benchlab.errors import UserError
from benchlab.records import Fault, Record, storable

#: Fragments that broke printers or the store (issue 18), and their relatives.
NASTY = ["\x1b[31m", "\x1b]0;title\x07", "\x85", "\x9b", "\u2028", "\u2029", "\u202e", "\u2066", "\ufeff", "\u200b",
         "\ud800", "\udcff", "\x00", "\n", "\r", "\t", "|", "~", "`", "*", "<script>", "&amp;", "[bold]", "\\", "'",
         '"', "世界", "e\u0301", "\U0001f600", "\U000e0001", " "]


def names() -> st.SearchStrategy[str]:
    """A name: drawn text (every code point, surrogates included), nasty fragments, or both."""
    every = st.text(st.characters(exclude_categories=()), max_size=12)
    fragments = st.lists(st.sampled_from(NASTY), min_size=1, max_size=4).map("".join)
    return st.one_of(every, fragments, st.tuples(every, fragments, every).map("".join)).filter(bool)


@st.composite
def named_runs(draw) -> tuple[list[str], list[str], str]:
    """(benchmark names, platform names, a failure's text)."""
    benches = draw(st.lists(names(), min_size=1, max_size=4, unique=True))
    platforms = draw(st.lists(names(), min_size=1, max_size=2, unique_by=storable))
    return benches, platforms, draw(names())


def _report_of(case):
    from benchlab.output.table import Table
    benches, platforms, text = case
    records = [Record(bench=bench, param=None, samples=[1.0, 2.0, 3.0 + index], platform=platform,
                      binary=f"bin{text}", counter=text if index % 2 else "time", unit=text if index % 3 else "ns")
               for index, bench in enumerate(benches) for platform in platforms]
    fault = Fault(f"crash{text}", platforms[0], f"exit status 3: {text}", stderr_tail=[text, f"x{text}"])
    platforms = [storable(p) for p in platforms]  # as the store keeps a run's platforms
    return Table(platforms=platforms, records=records, faults=[fault])


def _printable_lines(text: str) -> bool:
    return all(line.isprintable() for line in text.split("\n"))


def names_target(directory: Path) -> Callable:
    """Every show format of a run with drawn names, and the run through the store."""
    from benchlab.output.exporters import EXPORTERS
    from benchlab.storage.store import open_store
    store = open_store(f"sqlite:///{directory / 'names.db'}")

    def target(case) -> None:
        with contextlib.redirect_stderr(io.StringIO()):  # the warning about an escaped name
            report = _report_of(case)
        for name in ("table", "markdown", "csv"):
            out = EXPORTERS[name](report)
            assert _printable_lines(out), (name, [line for line in out.split("\n") if not line.isprintable()][:2])
        document = json.loads(EXPORTERS["json"](report))
        assert [r["bench"] for r in document["records"]] == [r.bench for r in report.records]
        run_id = store.begin_run(["benchlab"], report.platforms, {})
        store.add_unit(run_id, report.records, report.faults)
        stored = store.load_run(run_id)[1]
        assert [r.bench for r in stored] == [storable(r.bench) for r in report.records]
        store.delete_run(run_id)
    target.__name__ = "fuzz_names"
    return target


def report_target(directory: Path) -> Callable:
    """The report page of a run with drawn names: only printable text in it."""
    from benchlab.output.htmlreport import build
    from benchlab.storage.store import open_store
    store = open_store(f"sqlite:///{directory / 'report.db'}")

    def target(case) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            report = _report_of(case)
        run_id = store.begin_run(["benchlab", "run", case[2]], report.platforms, {})
        store.add_unit(run_id, report.records, report.faults)
        store.finish_run(run_id, "failed", 1)
        page = build(store, [str(run_id)], None, directory / "report").read_text()
        assert _printable_lines(page)
        store.delete_run(run_id)
    target.__name__ = "fuzz_report_names"
    return target


# -- buckets --------------------------------------------------------------------------------------

#: Patterns that hung Python's re (over 90 s), overflowed it, or exhausted its recursion (issue 18).
HOSTILE_PATTERNS = ["(a+)+$", "(a|a)*$", "(a*)*b", "(x+x+)+y", "a{4294967296}", "a{0,4294967296}",
                    "(" * 5000 + "a" + ")" * 5000, "(" * 5000, "(?=x)", "(?<!x)y", "(a)\\1", "a++", "\\Z", "a{1001}",
                    "[[:alpha:]]", "\\p{L}", "(?P<n>a)(?P=n)", "(?i)A", "\\", "[", "", ".*" * 500]
SYMBOLS = ["a" * 33 + "!", "a" * 5000 + "!", "xdb::main", "memcpy", "std::vector<int>::push_back(int&&)", "\udcff",
           "x" * 10_000, "", "[unknown]"]


def _pattern_texts() -> st.SearchStrategy[str]:
    pieces = st.sampled_from(["a", "b", "(", ")", "+", "*", "?", "{", "}", "1000", "4294967296", ",", "|", "^", "$",
                              "\\", ".", "[", "]", "(?", "=", "!", "<", ":", "P", "\\d", "\\1", "-", "x", "::"])
    return st.one_of(st.sampled_from(HOSTILE_PATTERNS), st.lists(pieces, max_size=20).map("".join),
                     st.text(max_size=20))


def _toml_string(text: str) -> str:
    # JSON's escapes are TOML's, but for lone surrogates (which TOML refuses: a file error, also fine)
    return json.dumps(text)


@st.composite
def buckets_files(draw) -> str:
    """A buckets file, mostly well-formed (names and types right), so that its patterns are what is tried."""
    lines = ["[buckets]"]
    for index in range(draw(st.integers(1, 3))):
        odd_name = draw(st.integers(0, 9)) == 0
        name = draw(st.one_of(st.sampled_from(["other", "a b", "x" * 300, "ü", "a\nb", "\x1b[31m"]), st.text(max_size=8))
                    if odd_name else st.sampled_from(["dispatch", "mmu", "libc", "kernel"]))
        patterns = [draw(_pattern_entries()) for _ in range(draw(st.integers(1, 3)))]
        lines.append(f"{_toml_string(name if index == 0 else f'{name}{index}')} = [{', '.join(patterns)}]")
    return "\n".join(lines) + "\n"


@st.composite
def _pattern_entries(draw) -> str:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.sampled_from(["1", "[]", "{}", '{ dsso = "x" }', "true"]))  # a wrong type or key
    if kind == 1:
        return f"{{ symbol = {_toml_string(draw(_pattern_texts()))}, dso = {_toml_string(draw(_pattern_texts()))} }}"
    return _toml_string(draw(_pattern_texts()))


def buckets_target(directory: Path) -> Callable:
    from benchlab.profiling.buckets import fold_self, load_buckets
    path = directory / "b.toml"
    loaded = Counter()  # how many files loaded and how many were refused, for scripts/fuzz's figures
    buckets_target.loaded = loaded

    def target(text: str) -> None:
        path.write_text(text, errors="surrogatepass")
        try:
            buckets = load_buckets(path)
        except UserError as error:
            message = str(error)
            assert message.startswith(str(path)) or message.startswith(f"--buckets {path}"), message
            assert "\n" not in message, message
            loaded["refused"] += 1
            return
        loaded["loaded"] += 1
        costs = Counter({(symbol, dso): 1 for symbol in SYMBOLS for dso in ("/bin/p", "/lib/libc.so.6")})
        shares = fold_self(costs, buckets)
        assert sum(share.samples for share in shares) == len(costs)
    target.__name__ = "fuzz_buckets"
    return target


# -- output paths ---------------------------------------------------------------------------------

COMMANDS = [["export", "1", "--out"], ["export", "1", "--dir"], ["show", "1", "--out"], ["report", "--out"],
            ["--config"]]
PARTS = ["x" * 255, "x" * 256, "y" * 300, "é" * 128, "é" * 127, "-", ".", "..", "", "afifo", "adir", "afile", "new",
         "run.jsonl", "run.csv", "out.json", "\udcff", "a b", "missing"]


#: Paths tried as they are: a device, stdout, the project's FIFO, directory and file, a path
#: over PATH_MAX, one the kernel refuses to create.
SPECIAL = ["/dev/null", "-", "afifo", "adir", "afile", "/".join(["d" * 200] * 21), "/proc/self/x"]


@st.composite
def output_paths(draw) -> tuple[list[str], str]:
    command = draw(st.sampled_from(COMMANDS))
    special = st.sampled_from(SPECIAL)
    built = st.lists(st.sampled_from(PARTS), min_size=1, max_size=3).map("/".join)
    return command, draw(st.one_of(special, built, st.text(st.characters(exclude_categories=("Cs",)), max_size=10)))


def paths_target(directory: Path) -> Callable:
    """One command with one drawn path, run in a scratch project with a stored run."""
    from benchlab.cli import main
    from benchlab.storage.store import open_store
    project = directory / "paths"
    project.mkdir(exist_ok=True)
    os.mkfifo(project / "afifo")
    (project / "adir").mkdir()
    (project / "afile").write_text("a file\n")
    db = f"sqlite:///{project / 'results.db'}"
    store = open_store(db)
    store.add_unit(store.begin_run(["benchlab"], ["native"], {}),
                   [Record(bench="b", param=None, samples=[1.0, 2.0, 3.0], platform="native")], [])

    def target(case) -> None:
        command, path = case
        if "\0" in path:
            return  # no command line can hold a NUL (main refuses it: tested elsewhere)
        if path.startswith("/") and path not in SPECIAL:
            path = "." + path  # never a drawn absolute path: the fuzzer writes only in its project
        args = [*command, path] + (["runs"] if command == ["--config"] else [])
        args += ["--db", db] if command != ["--config"] else []
        before = os.getcwd()
        os.chdir(project)
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(args)
        finally:
            os.chdir(before)
        lines = err.getvalue().splitlines()
        if code != 0:
            assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (args, code, lines[:3])
        assert stat.S_ISFIFO((project / "afifo").stat().st_mode)
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
        assert (project / "afile").read_text() == "a file\n" or "afile" in path
        _reset(project)
    target.__name__ = "fuzz_paths"
    return target


def _reset(project: Path) -> None:
    """The project as it was before the input: what the command wrote is removed."""
    kept = ("afifo", "adir", "afile", "results.db", "results.db-wal", "results.db-shm")
    for leftover in [*(p for p in project.iterdir() if p.name not in kept), *(project / "adir").iterdir()]:
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover)
        else:
            leftover.unlink()
    (project / "afile").write_text("a file\n")
