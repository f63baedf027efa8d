"""benchlab.formats.importing against damaged files: whatever is done to a real file (cut short,
a span overwritten, a line repeated or dropped, junk inserted), reading it either gives
records fit to store or one UserError; never a traceback, never a bad record. And the faults
of benchlab's own exports, read back with their kind and copy, from old exports too."""
import json
from pathlib import Path

import pytest

from hypothesis import HealthCheck, example, given, settings, strategies as st

from benchlab.errors import UserError
from benchlab.output.exporters import EXPORTERS, RUN_FORMATS
from benchlab.formats.importing import FORMAT_NAMES, read_results
from benchlab.formats.parsers.base import problems
from benchlab.records import FAILED, NOT_BUILT
from benchlab.output.table import Table
from conftest import REPO

DATA = REPO / "tests" / "python" / "data"
FILES = {"gbench.json": "gbench", "hyperfine.json": "hyperfine", "pyperf.json": "pyperf", "lind.txt": "lind",
         "lind.json": "lind-json", "csb.txt": "csb", "b63.csv": "b63csv", "benchlab.jsonl": "jsonl"}
TEXTS = {name: (DATA / name).read_text() for name in FILES}
#: Text a damaged file may gain: pieces of every format, and what breaks parsers.
PIECES = ['"', "{", "}", "[", "]", ",", ":", "\t", "\n", "=", ";", "null", "-1", "1e999", "NaN", "0", "\x00",
          '"samples":', '"times":', '"values":', '"real_time":', "é", " " * 3]


@st.composite
def damaged(draw):
    name = draw(st.sampled_from(sorted(FILES)))
    text = TEXTS[name]
    how = draw(st.sampled_from(["cut", "overwrite", "insert", "lines"]))
    at = draw(st.integers(0, len(text)))
    if how == "cut":
        text = text[:at]
    elif how in ("overwrite", "insert"):
        piece = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4)))
        text = text[:at] + piece + text[at + (len(piece) if how == "overwrite" else 0):]
    else:
        lines = text.splitlines(keepends=True)
        index = draw(st.integers(0, max(0, len(lines) - 1)))
        text = "".join(lines[:index] + (lines[index:index + 1] * 2 if draw(st.booleans()) else []) + lines[index + 1:])
    return name, text


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(damaged(), st.booleans())
@example(("gbench.json", TEXTS["gbench.json"][:100]), True)
@example(("lind.json", '{"Read": {"1": {"loops": "10"}}}'), False)
@example(("benchlab.jsonl", TEXTS["benchlab.jsonl"].replace('"schema":2', '"schema":1')), True)
def test_a_damaged_file_reads_whole_or_is_one_user_error(tmp_path, case, named):
    name, text = case
    path = tmp_path / name
    path.write_text(text)
    try:
        imported = read_results(str(path), FILES[name] if named else None)
    except UserError as error:
        assert str(path) in str(error) and "\n" not in str(error)
        return
    assert imported.format in FORMAT_NAMES
    assert imported.records or imported.faults
    assert all(problems(record) == [] for record in imported.records)
    assert all(record.platform and record.binary for record in imported.records)
    assert imported.platforms and set(imported.platforms) >= {r.platform for r in imported.records}
    # what was accepted can be shown and exported again (a run that only fits some formats says so)
    run = {"id": 1, "status": "complete", "context": imported.context, "missing": [], "argv": [], "platforms": []}
    report = Table(platforms=imported.platforms, records=imported.records, faults=imported.faults, run=run)
    EXPORTERS["table"](report)
    for render in RUN_FORMATS.values():
        try:
            render(report)
        except UserError:
            pass


#: An export from before faults had a kind and a copy (tests/python/data/README.md).
OLD_EXPORT = DATA / "export-before-fault-kinds.jsonl"
LOCKED_REASON = "not built for wasm32-wasi: includes <pthread.h> (wasi-libc has no threads)"


def kinds(faults) -> list[tuple]:
    return [(f.binary, f.platform, f.kind, f.copy, f.reason) for f in faults]


def test_an_export_from_before_fault_kinds_gets_them_from_its_reasons():
    imported = read_results(str(OLD_EXPORT))
    assert kinds(imported.faults) == [("locked", "wasm", NOT_BUILT, None, LOCKED_REASON),
                                      ("flaky.sh", "native", FAILED, 1, "copy 1 of 2: exit status 3")]


def with_faults(tmp_path: Path, change) -> str:
    """The old export with its faults changed by `change` (a list of dicts, changed in place)."""
    lines = [json.loads(line) for line in OLD_EXPORT.read_text().splitlines()]
    change(lines[0]["run"]["faults"])
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def test_an_export_with_kinds_is_read_by_them_and_never_by_its_reasons(tmp_path):
    def contradict(faults):  # each reason says the opposite of its fields
        faults[0].update(kind=FAILED, copy=None)
        faults[1].update(kind=NOT_BUILT, copy=0)
    imported = read_results(with_faults(tmp_path, contradict))
    assert kinds(imported.faults) == [("locked", "wasm", FAILED, None, LOCKED_REASON),
                                      ("flaky.sh", "native", NOT_BUILT, 0, "copy 1 of 2: exit status 3")]


def test_an_export_written_today_reads_back_its_kinds_and_copies(tmp_path):
    old = read_results(str(OLD_EXPORT))
    run = {"id": 1, "status": "failed", "context": old.context, "missing": [], "argv": []}
    exported = RUN_FORMATS["jsonl"](Table(platforms=old.platforms, records=old.records, faults=old.faults, run=run))
    written = json.loads(exported.splitlines()[0])["run"]["faults"]
    assert [(f["kind"], f["copy"]) for f in written] == [(NOT_BUILT, None), (FAILED, 1)]
    (tmp_path / "again.jsonl").write_text(exported)
    assert kinds(read_results(str(tmp_path / "again.jsonl")).faults) == kinds(old.faults)


@pytest.mark.parametrize("fault, message", [
    ({"kind": "crashed"}, "fault kind must be one of failed, not-built, got 'crashed'"),
    ({"kind": FAILED, "copy": -1}, "fault copy must be a whole number >= 0, got -1"),
    ({"kind": FAILED, "copy": "first"}, "fault copy must be a whole number >= 0, got 'first'"),
])
def test_a_fault_of_an_unknown_kind_or_copy_is_one_error(tmp_path, fault, message):
    path = with_faults(tmp_path, lambda faults: faults[1].update(fault))
    with pytest.raises(UserError) as error:
        read_results(path)
    assert str(error.value) == f"{path}: context record: run.faults: {message} (nothing was imported)"
