"""Tables within the terminal's width: what a narrow terminal leaves out, in which order,
and that no line is longer than the width (output/fitting.py, the run table's columns)."""
import io

import numpy as np
import pytest
from rich.cells import cell_len

from benchlab.output.exporters.table import render
from benchlab.output.fitting import Column, Narrower, fit, terminal_width, wrapped
from benchlab.output.table import Table
from benchlab.records import Fault, Record

#: Two platforms' figures as a run of the default suites gives them (suites/sys and calls on
#: native and wasm, 3 processes each): nanoseconds to tens of microseconds, wide intervals.
FIGURES = {("fs_read", 1): (302, 29449), ("fs_read", 10240): (456, 30517), ("fs_write", 4096): (507, 39544),
           ("ipc_pipe", 1024): (29262, None), ("sys_close_ebadf", None): (113, 156),
           ("sys_geteuid", None): (91.7, None), ("empty_call", None): (1.67, 1.62), ("args", 3): (1.72, 1.62)}


def processes(bench, param, platform, median, spread, count=3):
    """`count` processes of one figure, their medians `spread` apart (a cv of a few %)."""
    rng = np.random.default_rng(abs(hash((bench, param, platform))) % 2**32)
    return [Record(bench=bench, param=param, samples=list(median * (1 + spread * (p - 1)) * (1 + rng.normal(0, 0.02, 40))),
                   iterations=1000, platform=platform, binary="sys" if bench != "args" else "calls",
                   reported={"process": p}) for p in range(count)]


def two_platform_table(platforms=("native", "wasm")) -> Table:
    records = []
    for (bench, param), (native, wasm) in FIGURES.items():
        records += processes(bench, param, platforms[0], native, 0.04)
        if wasm is not None:
            for platform in platforms[1:]:
                records += processes(bench, param, platform, wasm, 0.6 if bench.startswith("fs") else 0.05)
    faults = [Fault("ipc_uds", platforms[1], "exit status 1", ["socket: operation not supported"])]
    return Table(list(platforms), records, faults)


def lines_of(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def table_lines(text: str) -> list[str]:
    """The table's heading, rule and rows: up to its note or its legend."""
    lines = lines_of(text)
    return lines[:next(i for i, line in enumerate(lines) if line.startswith(("(at ", "~ ")))]


def note(text: str) -> str:
    """The line under the table saying what a narrow terminal left out, unwrapped."""
    lines = lines_of(text)
    start = next(i for i, line in enumerate(lines) if line.startswith("(at "))
    end = next(i for i in range(start, len(lines)) if lines[i].endswith(")"))
    return " ".join(lines[start:end + 1])


def heading_of(text: str) -> list[str]:
    return lines_of(text)[0].split()


@pytest.mark.parametrize("width", [80, 120, 200])
def test_no_line_of_a_two_platform_table_is_longer_than_the_width(width):
    text = render(two_platform_table(), width=width)
    assert max(cell_len(line) for line in lines_of(text)) <= width
    rows = table_lines(text)[2:]
    assert [row.split()[0] for row in rows] == [bench for bench, _ in FIGURES] + ["ipc_uds"]
    assert sum("(" in row for row in rows) == 6  # every ratio to native stays

def test_at_80_columns_iterations_and_cv_go_and_every_figure_and_ratio_stays():
    table = two_platform_table()
    whole, narrow = render(table), render(table, width=80)
    assert max(cell_len(line) for line in lines_of(whole)) > 80  # without a width: today's full layout
    assert heading_of(whole) == ["TEST", "PARAM", "native", "(ns)", "wasm", "(ns)", "ITERATIONS"]
    assert heading_of(narrow) == ["TEST", "PARAM", "native", "(ns)", "wasm", "(ns)"]
    assert all(" cv" in row for row in table_lines(whole)[2:-1])
    assert not any(" cv" in row or "ITERATIONS" in row for row in table_lines(narrow))
    for row, ((bench, param), (native, wasm)) in zip(table_lines(narrow)[2:], FIGURES.items()):
        assert row.startswith(bench) and "+-" in row  # the interval stays at 80 columns
        assert (" (" in row) == (wasm is not None)  # the ratio to native
    assert note(narrow) == "(at 80 columns: ITERATIONS hidden, cv left out; widen the terminal or use --format json)"


def test_at_120_columns_only_iterations_and_cv_go_and_at_200_nothing():
    table = two_platform_table()
    assert heading_of(render(table, width=200)) == heading_of(render(table))
    assert "(at 200 columns" not in render(table, width=200)
    at_120 = render(table, width=120)
    assert heading_of(at_120) == heading_of(render(table))  # 98 columns at most: the whole table
    assert "(at 120" not in at_120


def test_a_third_platform_keeps_every_platform_at_120_and_hides_the_last_ones_when_figures_alone_do_not_fit():
    table = two_platform_table(("native", "wasm", "qemu", "valgrind"))
    at_120 = render(table, width=120)
    assert max(cell_len(line) for line in lines_of(at_120)) <= 120
    assert [word for word in heading_of(at_120) if word != "(ns)"] == ["TEST", "PARAM", "native", "wasm", "qemu",
                                                                        "valgrind"]
    assert note(at_120) == ("(at 120 columns: ITERATIONS hidden, cv left out, intervals (+-h%, uninformative) left out; "
                            "widen the terminal or use --format json)")
    at_60 = render(table, width=60)
    assert max(cell_len(line) for line in lines_of(at_60)) <= 60
    assert [word for word in heading_of(at_60) if word != "(ns)"] == ["TEST", "PARAM", "native", "wasm"]
    assert note(at_60) == ("(at 60 columns: ITERATIONS hidden, cv left out, intervals (+-h%, uninformative) left out, valgrind hidden, "
                           "qemu hidden; widen the terminal or use --format json)")
    assert table_lines(at_60)[6].startswith("sys_close_ebadf ")  # whole again once platforms went


def test_the_name_is_cut_before_a_platform_is_hidden():
    at_50 = render(two_platform_table(), width=50)
    assert max(cell_len(line) for line in lines_of(at_50)) <= 50
    assert [word for word in heading_of(at_50) if word != "(ns)"] == ["TEST", "PARAM", "native", "wasm"]
    # (the wasm fs cells' ratios bound nothing: "(ratio ?)", one column wider than their digits)
    assert table_lines(at_50)[6].startswith("sys_close… ")
    assert note(at_50) == ("(at 50 columns: ITERATIONS hidden, cv left out, intervals (+-h%, uninformative) left out, TEST cut; "
                           "widen the terminal or use --format json)")


def test_a_failed_cell_narrows_to_failed_and_the_reason_stays_under_the_table():
    text = render(two_platform_table(), width=60)
    failed_row = next(line for line in lines_of(text) if line.startswith("ipc_uds "))
    assert failed_row.split()[-1] == "FAILED"
    assert "ipc_uds on wasm: exit status 1" in text


def test_the_name_column_is_cut_last_with_an_ellipsis():
    columns = [Column("TEST", ["a_very_long_benchmark_name_indeed", "b"], cut=True), Column("X", ["1", "22"], right=True)]
    fitted = fit(columns, [], 20)
    assert fitted.lines(rule=False) == ["TEST               X", "a_very_long_ben…   1", "b                 22"]
    assert fitted.left_out == ["TEST cut"]


def test_narrower_steps_are_taken_in_order_only_until_the_table_fits():
    columns = [Column("NAME", ["abc"]), Column("A", ["1" * 10]), Column("B", ["2" * 10]), Column("C", ["3" * 10])]
    steps = [Narrower("C hidden", {3: None}), Narrower("B hidden", {2: None}), Narrower("A hidden", {1: None})]
    assert fit(columns, steps, 40).left_out == []  # 4 + 3 * 10 + 3 gaps of 2 = 40: closer together
    assert fit(columns, steps, 30).left_out == ["C hidden"]
    assert [c.heading for c in fit(columns, steps, 20).columns] == ["NAME", "A"]
    assert fit(columns, steps, None).left_out == [] and fit(columns, steps, None).gap == 3


def test_terminal_width_is_columns_when_set_else_the_terminals_else_none(monkeypatch):
    monkeypatch.setenv("COLUMNS", "93")
    assert terminal_width(io.StringIO()) == 93
    monkeypatch.setenv("COLUMNS", "wide")
    assert terminal_width(io.StringIO()) is None  # not digits: rich ignores it too
    monkeypatch.delenv("COLUMNS")
    assert terminal_width(io.StringIO()) is None  # a pipe or a file: the whole table


def test_prose_wraps_under_its_own_indent():
    assert wrapped(["  samples       240: minimum 1.2, maximum 3.4 ns"], 30, "    ") == [
        "  samples       240: minimum", "      1.2, maximum 3.4 ns"]
    assert wrapped(["x" * 50], None) == ["x" * 50]


def comparisons(platforms=("native", "wasm")):
    """A gate's rows as the re-measuring gate prints them: two platforms, a cause, a speed-up."""
    from benchlab.statistics.compare import CODE_CHANGED, Comparison
    rows = []
    for platform in platforms:
        for index, (bench, param) in enumerate(FIGURES):
            ratio = 1 + 0.03 * (index - 3)
            rows.append(Comparison(key=(bench, param, "time", None), platform=platform, unit="ns", a=9561.0,
                                   b=9561.0 * ratio, ratio=ratio, low=ratio - 0.004, high=ratio + 0.004, floor=0.01,
                                   scope="paired rounds", processes=(40, 40), threshold=0.02,
                                   cause=CODE_CHANGED if index == 7 else None))
    return rows


@pytest.mark.parametrize("width", [80, 120, 200])
def test_no_line_of_a_comparison_is_longer_than_the_width_and_the_verdicts_stay(width):
    from benchlab.output.comparisons import render
    rows = comparisons()
    text = render(rows, "baseline main", "run 12", "table", width=width)
    assert max(cell_len(line) for line in lines_of(text)) <= width
    heading = lines_of(text)[0].split()
    assert heading[0] == "TEST" and {"B/A", "VERDICT"} <= set(heading)
    assert sum(" slower" in line for line in lines_of(text)[1:1 + len(rows)]) == len(rows)


def test_a_comparison_at_80_columns_names_a_and_b_in_its_note_and_is_whole_at_120():
    from benchlab.output.comparisons import render
    rows = comparisons()
    whole = render(rows, "baseline main", "run 12", "table")
    assert lines_of(whole)[0].split()[:6] == ["TEST", "PLATFORM", "A", "(baseline", "main)", "B"]
    at_80 = render(rows, "baseline main", "run 12", "table", width=80)
    assert lines_of(at_80)[0].split() == ["TEST", "PLATFORM", "B/A", "99%", "interval", "VERDICT"]
    assert note(at_80) == ("(at 80 columns: A is baseline main, B is run 12, A and B hidden; widen the terminal or "
                           "use --format json)")
    assert "slower: code changed" in at_80
    at_60 = render(rows[:8], "baseline main", "run 12", "table", width=60)  # one platform
    assert lines_of(at_60)[0].split() == ["TEST", "B/A", "99%", "interval", "VERDICT"]
    assert lines_of(at_60)[8].split()[-1] == "slower"  # its cause, "code changed", left out
    assert "PLATFORM hidden (all native), verdicts' notes left out, TEST cut;" in note(at_60)
    at_120 = render(rows, "baseline main", "run 12", "table", width=120)
    assert lines_of(at_120)[:17] == lines_of(whole)[:17]  # the table is 101 columns: all of it
    assert lines_of(at_120)[-1] == "    instruction count did not"  # the prose under it wraps
    assert render(rows, "baseline main", "run 12", "table", width=200) == whole


def test_a_table_that_leaves_the_intervals_out_says_so_by_their_words_and_explains_none():
    # issue 37: at 100 columns every +- and `uninformative` went, and the note said "intervals"
    table = two_platform_table(("native", "wasm", "qemu", "valgrind"))
    whole = render(table)
    assert "uninformative" in "\n".join(table_lines(whole)) and "\nuninformative  the interval" in whole
    at_60 = render(table, width=60)
    rows = "\n".join(table_lines(at_60))
    assert "+-" not in rows and "uninformative" not in rows
    assert "intervals (+-h%, uninformative) left out" in note(at_60)
    assert "uninformative  the interval" not in at_60  # no legend of a word the table no longer prints
