"""The fuzz targets: each parser, output detection, the config loader, the `run` command
line and `benchlab import` of every format, with the inputs Hypothesis draws for them and
the checks every input must pass.

A failure (issue 11) is any of:
- an exception other than benchlab's user-error type (UserError and its subclasses);
- more than 2 s of CPU time on one input (checked where the targets are run);
- a stored figure that is NaN or infinite, or a negative count.
Parsers are fuzzed one by one (each on its own, without detection or the final check of
parsers/__init__.py, so that a record it should not make is seen) and through
parse_output; every record must keep base.problems' invariants and survive a round
trip through the store.
"""
from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
import os
import re
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any, Callable
from unittest import mock

from hypothesis import strategies as st

from benchlab.config import load_config
from benchlab.errors import UserError
from benchlab.formats.parsers import GBENCH, LINE_PARSERS, detect, parse_output
from benchlab.formats.parsers.base import MAX_WARNINGS, Parsed, problems
from benchlab.measuring.platforms import resolve_platforms
from benchlab.records import Record
from benchlab.storage.store import Store, open_store

# -- values that broke things (issue 11) and their relatives ------------------------------------

WEIRD_NUMBERS = [
    "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-Infinity", "1e999", "-1e999", "1e308", "-1e308", "1e150",
    "1e151", "-5", "-1", "0", "-0", "0.0", "1.5", "-2.5", "", "null", "true", "false", "{}", "[]", '"x"', '""',
    "[1]", '{"a":1}', "9" * 20, "9" * 400, "9" * 4301, "9" * 5000, "-9223372036854775809", "9223372036854775807",
    "9223372036854775808", "18446744073709551616", "4294967296", "1e-320", "0x10", "1_000", " 7 ", "+3", "07",
    # issue 31: blanks to str.strip() but not to int() or float(), and digits that are not ASCII
    "\x1c5", "\x1d7", "\x1e1", "7\x1f", "\x85" "3", "\u00a09", "\u0661", "\uff17",
]
JUNK_LINES = [
    "", "junk", "hello world", "Running: /home/lind/fs_read.c", "{", "}", "[", "[]", "{}", '{"type":"result"}',
    '{"type":"context","schema":2}', '{"type":"throughput"}', "a=b;", "=;", "a=;", "x,y", "x,y,z,w", ",,,",
    "name,param,counter,iterations,value", "\t\t\t", "Read\t1\t0\t5", "Read\t-1\t10\t-5", "\x00", "\r", "\u2028",
    "a\x1bb", "\ufeff{}", "num_threads=;", "throughput_min=1;", '"x\ry",time,10,5',
    '{"type":"result","samples":' + "[" * 2000, "[" * 100_000, '{"type":"result","bench":"a","samples":[' + "9" * 5000 + "]}",
]
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def json_values(depth: int = 2) -> st.SearchStrategy:
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(), st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.sampled_from(["ns", "time", "ops/s"]))
    if depth <= 0:
        return scalars
    inner = json_values(depth - 1)
    return st.one_of(scalars, st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4))


@st.composite
def mutated(draw, seeds: list[str], others: list[str]) -> str:
    """A real output with a few mutations: of lines, of numbers, of JSON values, of characters."""
    text = draw(st.sampled_from(seeds))
    if text.lstrip().startswith("{") and "\n" in text.strip():
        # A JSON document over many lines (Google Benchmark's): mutate its values as a whole first.
        for _ in range(draw(st.integers(0, 3))):
            text = _mutate_json(draw, text)
    lines = text.splitlines(keepends=True) or [""]
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["drop", "dup", "swap", "junk", "cut", "foreign", "number", "json", "chars",
                                     "huge", "blank"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        if kind == "drop" and len(lines) > 1:
            del lines[i]
        elif kind == "dup":
            lines.insert(i, line)
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "junk":
            lines.insert(i, draw(st.sampled_from(JUNK_LINES)) + "\n")
        elif kind == "cut":
            lines[i] = line[:draw(st.integers(0, max(0, len(line))))]
        elif kind == "foreign" and others:
            other = draw(st.sampled_from(others)).splitlines(keepends=True)
            if other:
                lines.insert(i, draw(st.sampled_from(other)))
        elif kind == "number":
            numbers = list(NUMBER.finditer(line))
            if numbers:
                match = draw(st.sampled_from(numbers))
                lines[i] = line[:match.start()] + draw(st.sampled_from(WEIRD_NUMBERS)) + line[match.end():]
        elif kind == "json":
            lines[i] = _mutate_json(draw, line)
        elif kind == "chars":
            at = draw(st.integers(0, len(line)))
            lines[i] = line[:at] + draw(st.text(alphabet=st.sampled_from(
                list("\t,;=:{}[]\"\\\r\x00 -.eE0123456789") + ["\u2028", "\x85", "é"]), max_size=6)) + line[at:]
        elif kind == "huge":
            lines.insert(i, draw(st.sampled_from(["x", "9", "[", "a=b;", "a,"])) * draw(st.sampled_from([1000, 140_000])) + "\n")
        elif kind == "blank":
            lines.insert(i, "\n")
    return "".join(lines)


def _mutate_json(draw, line: str) -> str:
    """Replace one value anywhere in a JSON line (or a gbench document's line) by an odd one."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return line
    paths: list[tuple] = []

    def walk(value: Any, path: tuple) -> None:
        paths.append(path)
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value[:20]):
                walk(item, (*path, index))

    walk(obj, ())
    path = draw(st.sampled_from(paths))
    replacement = draw(st.one_of(json_values(), st.sampled_from([float("nan"), float("inf"), -5, 0, 10**400, {}, [1]])))
    if not path:
        obj = replacement
    else:
        parent = obj
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()) or not isinstance(parent, dict):
            parent[path[-1]] = replacement
        else:
            del parent[path[-1]]
    ending = "\n" if line.endswith("\n") else ""
    try:
        # NaN and Infinity as Python writes them: what a buggy binary prints; a document stays on many lines.
        return json.dumps(obj, indent=2 if "\n" in line.strip() else None) + ending
    except (ValueError, RecursionError):
        return line


def outputs(seeds: dict[str, list[str]], fmt: str | None = None) -> st.SearchStrategy[str]:
    """A binary's output: mostly mutated real outputs (of `fmt`, or of any format), some random text."""
    pool = [text for name, texts in seeds.items() if fmt is None or name == fmt for text in texts]
    others = [text for texts in seeds.values() for text in texts]
    strategies = [mutated(pool, others), st.sampled_from(JUNK_LINES), st.text(max_size=200)]
    return st.one_of(*strategies) if pool else st.one_of(*strategies[1:])


# -- checks ------------------------------------------------------------------------------------------

_store: dict[str, Any] = {"store": None, "uses": 0}


def _scratch_store() -> Store:
    """An in-memory database, replaced now and then so that long runs do not grow it without bound."""
    if _store["store"] is None or _store["uses"] >= 500:
        _store["store"] = open_store("sqlite://")
        _store["run"] = _store["store"].begin_run(["fuzz"], ["native"], {})
        _store["uses"] = 0
    _store["uses"] += 1
    return _store["store"]


def check_records(records: list[Record]) -> None:
    for record in records:
        assert problems(record) == [], (problems(record), record)
        assert record.iterations is None or record.iterations >= 0
        assert all(count >= 1 for count in record.sample_iterations or [])
        for value in record.summary.values():
            for number in value if isinstance(value, list) else [value]:
                assert not isinstance(number, float) or math.isfinite(number), record.summary
        json.dumps(record.reported, allow_nan=False)  # nothing non-finite kept, even among the extras
    if not records:
        return
    store = _scratch_store()
    for record in records:
        record.platform, record.binary = record.platform or "native", record.binary or "fuzz"
    store.add_unit(_store["run"], records, [])
    with store.connection.engine.connect() as connection:
        stored = connection.exec_driver_sql(
            "SELECT median, iterations, samples, summary FROM records ORDER BY id DESC LIMIT ?", (len(records),)).all()
    for median, iterations, samples, summary in stored:
        assert median is None or math.isfinite(median)
        assert iterations is None or iterations >= 0
        json.loads(samples, parse_constant=_no_constant)
        json.loads(summary or "{}", parse_constant=_no_constant)


def check_parsed(parsed: Parsed) -> None:
    check_records(parsed.records)
    assert len(parsed.warnings) <= MAX_WARNINGS + 1
    assert not any("parser bug" in warning for warning in parsed.warnings), parsed.warnings


# -- targets -------------------------------------------------------------------------------------------

def parse_with(name: str, text: str) -> Parsed:
    """One parser on its own: every line offered to it, nothing checked after it."""
    parsed = Parsed()
    if name == "gbench":
        GBENCH.parse_document(text, "fuzz", parsed)
        return parsed
    parser = next(p for p in LINE_PARSERS if p.name == name)
    session = parser.session("fuzz", parsed)
    for number, line in enumerate(io.StringIO(text, newline=None), start=1):
        line = line.strip()
        if line and not session.feed(number, line):
            session.reject(number, line)
    session.finish()
    return parsed


def parser_target(name: str) -> Callable[[str], None]:
    def target(text: str) -> None:
        check_parsed(parse_with(name, text))
    target.__name__ = f"fuzz_{name}"
    return target


def detect_target(text: str) -> None:
    detect(text)
    check_parsed(parse_output(text, "fuzz"))


# -- the config loader ----------------------------------------------------------------------------------

KEYS = {
    "": ["run", "build", "platforms", "workloads", "runs", "x"],
    "run": ["suites", "platforms", "timeout", "samples", "time_limit", "seed", "db", "timout"],
    "build": ["cc", "cflags", "wasm_cc", "wasm_cflags", "include", "libs"],
    "platform": ["command", "build", "env", "launchers", "description", "cmd"],
    "workload": ["command", "runs", "warmups"],
}
TEMPLATE_WORDS = ["{exe}", "{args}", "{scratch}", "{root}", "ssh", "-o", "BatchMode=yes", "box", "qemu-aarch64",
                  "sudo", "native", "wasm32-wasi", "wasm", "true", "echo", "", "a\x00b", "x=y", "/bin/sh", "-c"]


def toml_values() -> st.SearchStrategy:
    words = st.one_of(st.sampled_from(TEMPLATE_WORDS), st.text(max_size=10))
    scalars = st.one_of(words, st.integers(-5, 10**6), st.sampled_from([2**63, 2**64, -(2**63), 10**30]),
                        st.floats(allow_nan=True, allow_infinity=True), st.booleans())
    return st.one_of(scalars, st.lists(words, max_size=5), st.lists(st.lists(words, max_size=3), max_size=3),
                     st.dictionaries(st.text(max_size=6), words, max_size=3))


def toml_text(value: Any) -> str:
    """A value as TOML (a small writer: strings, numbers including inf and nan, lists, inline tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # TOML's basic strings escape as JSON's do (\uXXXX, \n, \")
    if isinstance(value, list):
        return "[" + ", ".join(toml_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(key)} = {toml_text(item)}" for key, item in value.items()) + " }"
    raise TypeError(value)


@st.composite
def configs(draw) -> str:
    """A benchlab.toml: known tables and keys (and near misses) with values of every TOML type."""
    parts = []
    for table in draw(st.lists(st.sampled_from(KEYS[""]), max_size=4, unique=True)):
        if table in ("platforms", "workloads"):
            for name in draw(st.lists(st.one_of(st.sampled_from(["box", "native", "qemu", "w", "a/b", ""]),
                                                st.text(max_size=6)), max_size=3, unique=True)):
                kind = "platform" if table == "platforms" else "workload"
                header = f"[{table}.{json.dumps(name)}]"
                body = {key: draw(toml_values()) for key in draw(st.lists(st.sampled_from(KEYS[kind]), max_size=4,
                                                                          unique=True))}
                if kind == "platform" and draw(st.booleans()):
                    body["command"] = draw(st.lists(st.sampled_from(TEMPLATE_WORDS), max_size=5))
                parts.append(header + "\n" + "".join(f"{k} = {toml_text(v)}\n" for k, v in body.items()))
        else:
            keys = KEYS.get(table, ["x"])
            body = {key: draw(toml_values()) for key in draw(st.lists(st.sampled_from(keys), max_size=4, unique=True))}
            parts.append(f"[{table}]\n" + "".join(f"{k} = {toml_text(v)}\n" for k, v in body.items()))
    text = "\n".join(parts)
    if draw(st.integers(0, 9)) == 0:  # now and then, a raw edit that may break the syntax
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["[", "]", "=", '"', "\x00", "\ufffd", "\n[[x]]\n", "a = [" * 600]))
        text += "" if draw(st.booleans()) else "\n"
    return text


def config_target(text: str, directory: Path) -> None:
    path = directory / "benchlab.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        config = load_config(path)
        names = [*config.platforms, *config.user_platforms]
        platforms = resolve_platforms(names or ["native"], config)
        for platform in platforms:
            platform.argv("/bin/true", ["--a b", "c;d"], str(directory), str(directory))
            platform.environment()
            _ = platform.is_remote, platform.runs_scripts, platform.program_key()
    except UserError:
        pass


# -- the run command line ------------------------------------------------------------------------------------

#: The project the command runs in: executables (whose outputs the fuzzer chooses) and workloads.
BINARIES = ("lind.sh", "csb.sh", "jsonl.sh", "csv.sh", "gb.sh")
PROJECT_CONFIG = """\
[run]
platforms = ["native"]

[platforms.box]
command = ["ssh", "-o", "BatchMode=yes", "box", "{exe}", "{args}"]

[platforms.grate]
launchers = [["true"]]
command = ["{exe}", "{args}"]

[workloads.gz]
command = ["gzip", "-c", "/dev/null"]
runs = 2
warmups = 1
"""
OPTION_VALUES = {
    "--platform": ["native", "qemu", "valgrind", "wasm", "box", "grate", "jvm", "", "callgrind", "native,wasm", "native,"],
    "--format": ["table", "json", "csv", "markdown", "xml", ""],
    "--out": ["out.json", "out.csv", "out.md", "out.txt", "out.xyz", "missing/out.json", "adir", "", "."],
    "--timeout": ["1", "0", "-1", "inf", "nan", "1e10", "0.001", "abc", ""],
    "--samples": ["3", "1", "0", "-1", "1000000", "1000001", "x", "1e3"],
    "--time-limit": ["0.1", "0", "nan", "inf", "1e6", "1000001", "-0"],
    "--seed": ["0", "-1", "18446744073709551615", "18446744073709551616", "x"],
    "--filter": ["Read", "BM_", "copy", "nothing", "", "a b", "x;y"],
    "--counters": ["time", "time,allocs", "", "bogus"],
    "--sweep": ["threads=1,2", "threads", "-s=10,100", "x=", "=1", "threads=a,b,c", "n=1,,2", "instances=1,2",
                "instances=0", "instances=2,2", "instances=1025", "instances=-1,x"],
    "--arg": ["--x", "a b", "-t=2", "", "$(true)"],
    "--db": ["sqlite:///other.db", "nosuchdialect://x", "postgresql+psycopg2://localhost/x", "sqlite:///missing/x.db",
             "sqlite:///junk.db", "sqlite:///file:ro.db?mode=ro&uri=true"],
}
EXIT_CODES = (0, 1, 2)


@st.composite
def run_arguments(draw) -> list[str]:
    safe_text = st.text(alphabet=st.characters(blacklist_characters="/\\.", blacklist_categories=("Cs",)), max_size=8)
    args: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        choice = draw(st.integers(0, 9))
        if choice <= 5:
            option = draw(st.sampled_from(sorted(OPTION_VALUES)))
            value = draw(st.one_of(st.sampled_from(OPTION_VALUES[option]), safe_text))
            args += [f"{option}={value}"] if draw(st.booleans()) else [option, value]
        elif choice == 6:
            args.append(draw(st.sampled_from(["--no-store", "-p", "--help", "--bogus", "-", "--"])))
        else:
            args.append(draw(st.one_of(st.sampled_from([*BINARIES, "gz", "suite", "l", "suite/c", "nothing"]), safe_text)))
    if draw(st.booleans()):
        args.insert(0, "suite")  # every binary: the path most inputs should reach
    if draw(st.integers(0, 9)) == 0:
        # Now and then the other commands, on the database the runs before filled.
        command = draw(st.sampled_from([["show"], ["runs"], ["baseline", "save"], ["baseline", "list"],
                                        ["baseline", "show"], ["baseline", "delete"]]))
        extra = draw(st.lists(st.one_of(st.sampled_from(
            ["latest", "-1", "-2", "1", "0", "-99999999999999999999", "99999999999999999999", "x", "--limit",
             "99999999999999999999", "5", "--format", "json", "csv", "--out", "out.json", "--db", "sqlite:///junk.db",
             "nightly", "main@0123abc", "x" * 101, "--force"]),
            safe_text), max_size=4))
        return [*command, *extra]
    return ["run", *args]


@st.composite
def run_inputs(draw, seeds: dict[str, list[str]]) -> tuple[list[str], dict[str, tuple[str, int, str]]]:
    """(arguments, {binary: (stdout, exit status, stderr)})."""
    behaviour = {}
    for binary, fmt in zip(BINARIES, ("lind", "csb", "jsonl", "b63csv", "gbench")):
        stdout = draw(outputs(seeds, fmt))
        status = draw(st.sampled_from([0, 0, 0, 1, 2, -9]))
        stderr = draw(st.sampled_from(["", "boom", "benchlab: no benchmark matches --filter=x (see --list)",
                                       "Failed to match any benchmarks against regex: x"]))
        behaviour[binary] = (stdout, status, stderr)
    return draw(run_arguments()), behaviour


class CliProject:
    """A project directory, and the processes of a run replaced by the fuzzer's outputs.

    Nothing is spawned: run_process and the workload launcher are stubbed, so a run
    takes milliseconds and no input can make a real program do anything."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.behaviour: dict[str, tuple[str, int, str]] = {}
        self.uses = 0

    def reset(self) -> None:
        if self.directory.exists():
            shutil.rmtree(self.directory)
        suite = self.directory / "suite"
        suite.mkdir(parents=True)
        for binary in BINARIES:
            (suite / binary).write_text("#!/bin/sh\n# output supplied by the fuzzer\n")
            (suite / binary).chmod(0o755)
        (self.directory / "benchlab.toml").write_text(PROJECT_CONFIG)
        (self.directory / "adir").mkdir()
        (self.directory / "junk.db").write_bytes(b"SQLite format 3\0" + b"\x13" * 2000)
        open_store(f"sqlite:///{self.directory / 'ro.db'}")

    def fake_run(self, argv, *, env=None, cwd=None, timeout=None, stdout=None, max_output_bytes=None):
        from benchlab.measuring.process import Outcome
        name = next((os.path.basename(a) for a in argv if os.path.basename(a) in self.behaviour), None)
        text, status, stderr = self.behaviour.get(name, ("", 0, ""))
        outcome = Outcome(argv=list(argv), timeout=timeout, stderr=stderr, wall_s=0.01, user_s=0.01, sys_s=0.0,
                          max_rss_kib=1000)
        if status < 0:
            outcome.signal_number = -status
        else:
            outcome.exit_status = status
        if stdout is None:
            outcome.stdout = text
        elif not isinstance(stdout, int):  # subprocess.DEVNULL: discarded, as a workload's output is
            stdout.write(text.encode("utf-8", errors="surrogatepass"))
        return outcome

    @contextlib.contextmanager
    def active(self):
        self.reset()
        previous = os.getcwd()
        os.chdir(self.directory)
        patches = [
            mock.patch("benchlab.measuring.runner.run_process", self.fake_run),
            mock.patch("benchlab.measuring.workloads.run_process", self.fake_run),
            mock.patch("benchlab.measuring.workloads.run_measured", lambda argv, launcher, **kw: self.fake_run(argv, **kw)),
            # the copies of --sweep instances (instances.py): no gate to open, nothing spawned
            mock.patch("benchlab.measuring.instances.run_measured",
                       lambda argv, launcher, pass_fds=(), on_start=None, **kw: self.fake_run(argv, **kw)),
            mock.patch("benchlab.measuring.build.Builder.measure_launcher", lambda self: Path("/measure")),
            mock.patch("benchlab.measuring.platforms._first_line", lambda argv: "fuzz 1.0"),
            mock.patch("benchlab.measuring.context.git_commit", lambda root: None),
            mock.patch.dict(os.environ, {"BENCHLAB_DB": "", "BENCHLAB_CONFIG": ""}),
        ]
        with contextlib.ExitStack() as stack:
            for patch in patches:
                stack.enter_context(patch)
            try:
                yield self
            finally:
                os.chdir(previous)

    def run(self, args: list[str], behaviour: dict[str, tuple[str, int, str]]) -> None:
        from benchlab.cli import main
        self.uses += 1
        if self.uses % 200 == 0:
            self.reset()  # keep the database small over a long run
            os.chdir(self.directory)  # the directory was made anew
        self.behaviour = behaviour
        for leftover in ("out.json", "out.csv", "out.md", "out.txt"):
            (self.directory / leftover).unlink(missing_ok=True)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
        assert code in EXIT_CODES, (code, err.getvalue()[-500:])
        assert "Traceback" not in err.getvalue()
        self.check_outputs()

    def check_outputs(self) -> None:
        out_json = self.directory / "out.json"
        text = out_json.read_text() if out_json.exists() else ""
        # --format table --out out.json writes a table there, as documented: only JSON is checked
        if text.lstrip().startswith(("{", "[")):
            json.loads(text, parse_constant=_no_constant)  # no NaN or Infinity written
        for db in (self.directory / ".benchlab" / "results.db", self.directory / "other.db"):
            if not db.exists():
                continue
            with contextlib.closing(sqlite3.connect(db)) as connection:
                rows = connection.execute(
                    "SELECT median, iterations, param, samples, sample_iterations, summary, reported FROM records "
                    "WHERE run_id = (SELECT max(id) FROM runs)").fetchall()
            for median, iterations, param, samples, sample_iterations, summary, reported in rows:
                assert median is None or math.isfinite(median)
                assert iterations is None or iterations >= 0
                for text in (samples, sample_iterations, summary, reported):
                    if text is not None:
                        json.loads(text, parse_constant=_no_constant)
                assert all(count >= 1 for count in json.loads(sample_iterations or "[]") or [])


def _no_constant(name: str):
    raise AssertionError(f"a stored or written figure is {name}")


# -- `benchlab import` of every format (issue 18) ----------------------------------------------------------

#: The formats `benchlab import` reads, and the frozen example files of each (tests/python/data): the
#: three csv layouts are `header-csv` (the header's, a param column), `export-csv` (an export's) and
#: `b63csv` (B63's plain lines).
IMPORT_FORMATS = ("gbench", "hyperfine", "pyperf", "lind-json", "jsonl", "header-csv", "export-csv", "csb", "b63csv",
                  "lind-csv", "lind", "b63-interactive")
IMPORT_DATA = Path(__file__).resolve().parents[1] / "python" / "data"
_IMPORT_FILES = {"gbench": ["gbench.json"], "hyperfine": ["hyperfine.json"], "pyperf": ["pyperf.json"],
                 "lind-json": ["lind.json", "lind-runner.json"], "jsonl": ["benchlab.jsonl"], "header-csv": ["header.csv"],
                 "export-csv": ["export.csv"], "csb": ["csb.txt"], "b63csv": ["b63.csv", "b63-5.csv"],
                 "lind-csv": ["lind-runner.csv"], "lind": ["lind.txt"], "b63-interactive": ["b63-interactive.txt"]}
#: How a mutated file reaches the import: as it is, gzip'd (pyperf's .json.gz), or gzip'd and cut short.
PACKINGS = (None, None, None, None, "gzip", "gzip", "gzip-cut")
#: A --max-size now and then: the limit must be an error, never a half-read file (and a huge one
#: no allocation of that size).
SIZES = (*[None] * 9, "1K", "100", "64K", "9" * 30 + "T")
_import_seeds: dict[str, list[str]] = {}


def import_seeds(seeds: dict[str, list[str]]) -> dict[str, list[str]]:
    """{format: texts}: the example files, the header's real outputs, and exports of a stored run
    (jsonl, csv, gbench, lind-json: what `benchlab export` writes, `import` reads back)."""
    if not _import_seeds:
        found = {fmt: [(IMPORT_DATA / name).read_text() for name in names] for fmt, names in _IMPORT_FILES.items()}
        for fmt in ("jsonl", "gbench", "csb", "lind"):
            found[fmt] += seeds.get(fmt, [])
        for text in seeds.get("b63csv", []):
            found["header-csv" if text.startswith("name,param,") else "b63csv"].append(text)
        for fmt, text in _exports().items():
            found[fmt].append(text)
        _import_seeds.update({fmt: [text for text in texts if text.strip()] for fmt, texts in found.items()})
    return _import_seeds


def _exports() -> dict[str, str]:
    """A stored run with every kind of record (the example jsonl, and gbench's failure) in each export format."""
    from benchlab.cli import main
    from benchlab.output.exporters import RUN_FORMATS
    texts = {}
    with tempfile.TemporaryDirectory(prefix="fuzz-exports-") as scratch:
        url = f"sqlite:///{scratch}/exports.db"
        for name in ("benchlab.jsonl", "gbench.json"):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                assert main(["import", str(IMPORT_DATA / name), "--db", url]) == 0
        for fmt in [name for name in RUN_FORMATS if name in IMPORT_FORMATS]:  # not what only other tools read
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                code = main(["export", "1", "--format", fmt, "--db", url])
            if code == 0:
                texts[fmt] = out.getvalue()
    return texts


@st.composite
def values_mutated(draw, documents: list[str]) -> str:
    """A JSON document with only its values changed (one to three, each anywhere in it with the
    same chance: Hypothesis's own choices favour the first): still JSON, so past the syntax
    check to the parser's own checks of types and ranges (a pyperf unit that is a list)."""
    document = json.loads(draw(st.sampled_from(documents)))
    choose = draw(st.randoms(use_true_random=False)).choice
    for _ in range(draw(st.integers(1, 3))):
        path = choose(_value_paths(document))
        replacement = draw(st.one_of(json_values(), st.sampled_from([float("nan"), -5, 0, 10**400, {}, [1]])))
        if not path:
            document = replacement
            continue
        parent = document
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = replacement
    try:
        return json.dumps(document, indent=2)
    except ValueError:  # an integer too long to write
        return draw(st.sampled_from(documents))


def _value_paths(value: Any, path: tuple = ()) -> list[tuple]:
    """The path of every value in a JSON document, the document's own () first."""
    found = [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found += _value_paths(item, (*path, key))
    return found


def import_files(pool: dict[str, list[str]], fmt: str) -> st.SearchStrategy[tuple[str, str | None, bool, str | None]]:
    """(text, packing, whether --format names the format, --max-size), from import_seeds' `pool`."""
    documents = []
    for text in pool[fmt]:
        try:
            json.loads(text)
            documents.append(text)
        except ValueError:  # lines of JSON (jsonl), or no JSON at all
            pass
    return _import_files(pool, fmt, documents)


@st.composite
def _import_files(draw, pool: dict[str, list[str]], fmt: str, documents: list[str]) -> tuple:
    others = [text for texts in pool.values() for text in texts]
    kind = draw(st.integers(0, 7))  # mostly the format's own files, mutated: most inputs reach the parser
    if kind > 4 and documents:
        text = draw(values_mutated(documents))
    else:
        text = draw(mutated(pool[fmt], others) if kind > 1 else st.sampled_from(JUNK_LINES) if kind
                    else st.text(max_size=200))
    return text, draw(st.sampled_from(PACKINGS)), draw(st.booleans()), draw(st.sampled_from(SIZES))


def import_target(fmt: str, directory: Path) -> Callable[[tuple], None]:
    """`benchlab import` of one mutated file into one database: stored whole (exit 0, warnings
    only for failures the file reports) or one `error:` line (exit 2) and no run; never a traceback."""
    from benchlab.cli import main
    db = directory / f"import-{fmt}.db"
    uses = [0]

    def target(case: tuple) -> None:
        text, packing, named, size = case
        uses[0] += 1
        if uses[0] % 200 == 0:
            db.unlink(missing_ok=True)  # keep the database small over a long run
        data = text.encode("utf-8", errors="surrogatepass")
        if packing:
            data = gzip.compress(data, mtime=0)
            data = data[:len(data) * 2 // 3] if packing == "gzip-cut" else data
        path = directory / ("results.gz" if packing else "results")
        path.write_bytes(data)
        before = _run_count(db)
        args = ["import", str(path), "--db", f"sqlite:///{db}", "--again"]
        args += ["--format", fmt] if named else []
        args += ["--max-size", size] if size else []
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
        lines = err.getvalue().splitlines()
        if code == 0:
            assert all(line.startswith("warning: ") for line in lines), lines
            assert _run_count(db) == before + 1
            _check_stored(db)
        else:
            assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, lines[:3])
            assert out.getvalue() == "" and _run_count(db) == before  # nothing stored, nothing said on stdout
    target.__name__ = f"fuzz_import_{fmt}"
    return target


def _run_count(db: Path) -> int:
    if not db.exists():
        return 0
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return connection.execute("SELECT count(*) FROM runs").fetchone()[0]


def _check_stored(db: Path) -> None:
    """The newest run's records: finite figures, counts >= 0, JSON without NaN, and a status that says it is closed."""
    with contextlib.closing(sqlite3.connect(db)) as connection:
        status, = connection.execute("SELECT status FROM runs ORDER BY id DESC LIMIT 1").fetchone()
        rows = connection.execute(
            "SELECT median, iterations, samples, sample_iterations, summary, reported FROM records "
            "WHERE run_id = (SELECT max(id) FROM runs)").fetchall()
    assert status in ("complete", "failed"), status
    for median, iterations, *texts in rows:
        assert median is None or math.isfinite(median)
        assert iterations is None or iterations >= 0
        for text in texts:
            if text is not None:
                json.loads(text, parse_constant=_no_constant)
