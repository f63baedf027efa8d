"""benchlab.formats.importing against damaged files: whatever is done to a real file (cut short,
a span overwritten, a line repeated or dropped, junk inserted), reading it either gives
records fit to store or one UserError; never a traceback, never a bad record."""
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings, strategies as st

from benchlab.errors import UserError
from benchlab.output.exporters import EXPORTERS, RUN_FORMATS
from benchlab.formats.importing import FORMAT_NAMES, read_results
from benchlab.formats.parsers.base import problems
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
