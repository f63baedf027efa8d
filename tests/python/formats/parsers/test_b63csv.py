"""B63's outputs (issue 28), as its printer.h writes them: plain lines of 4 fields (before
2021) or 5 (`name,counter,iterations,total,per-iteration` since b63 bc9a214), and the `-i`
lines. tests/python/data/b63-5.csv and b63-interactive.txt are the real B63's own output
(README there)."""
import pytest

from benchlab.errors import UserError
from benchlab.formats.importing import read_results
from benchlab.formats.parsers import parse_output
from conftest import REPO, write

DATA = REPO / "tests" / "python" / "data"


def test_five_fields_are_read_as_epochs_with_the_exact_quotient():
    imported = read_results(str(DATA / "b63-5.csv"))
    assert imported.format == "b63csv"
    basic = next(r for r in imported.records if r.bench == "basic")
    # basic,time,16777215,357408397,21.303202: ns per iteration from the total, not the rounded field
    assert (basic.counter, basic.unit, basic.sample_iterations) == ("time", "ns", [16777215, 16777215, 33554431])
    assert basic.samples[0] == 357408397 / 16777215 and round(basic.samples[0], 6) == 21.303202
    calls = next(r for r in imported.records if r.bench == "call_twice")
    assert (calls.counter, calls.unit, calls.samples) == ("calls", "events", [2.0, 2.0])


def test_both_widths_in_one_output_and_a_fifth_field_that_disagrees(tmp_path):
    parsed = parse_output("a,time,1000,5000\na,time,2000,9000,4.500000\nb,time,10,100,9.000000\n", "bm")
    assert [(r.bench, r.samples) for r in parsed.records] == [("a", [5.0, 4.5])]
    assert parsed.warnings == ["bm: line 3 is not valid b63csv output (per-iteration 9 is not value / iterations "
                               "(10.000000)), ignored: 'b,time,10,100,9.000000'"]
    path = write(tmp_path / "six.csv", "a,time,1000,5000,5.000000,7\n")
    with pytest.raises(UserError, match=r"six.csv: no format benchlab imports starts like this"):
        read_results(str(path))
    path = write(tmp_path / "mixed.csv", "a,time,1000,5000,5.000000\na,time,1000,5000,5.0,7\n")
    with pytest.raises(UserError, match=r"line 2 is not valid b63csv \(6 fields, want 4 or 5\)"):
        read_results(str(path))


def test_the_interactive_lines_are_one_figure_per_benchmark_with_b63s_comparison():
    imported = read_results(str(DATA / "b63-interactive.txt"))
    assert imported.format == "b63-interactive"
    got = {(r.bench, r.counter): (r.unit, r.samples, r.reported) for r in imported.records}
    assert got[("basic", "time")] == ("ns", [23.875], {})
    assert got[("basic_half", "time")] == ("ns", [13.133], {"b63_diff_percent": -44.992, "b63_significant": True})
    assert got[("call_twice", "calls")] == ("events", [2.0], {"b63_diff_percent": 100.0, "b63_significant": True})
    # an assertion that failed is that benchmark's failure, kept as such
    assert [f.reason for f in imported.faults] == ["basic_w_assert_fail: time: assertion fail (B63_ASSERT)"]


def test_the_interactive_lines_of_b63_before_2021_and_what_they_are_not():
    old = ("sequential                    time                : 52852.595\n"
           "random                        time                :*148815.260 (+181.567%)\n"
           "random                        lpe:L1-dcache-load-misses:*80782.223 (+429.704%)\n")
    parsed = parse_output(old, "bm")
    assert [(r.bench, r.counter, r.samples, r.reported.get("b63_significant")) for r in parsed.records] == [
        ("sequential", "time", [52852.595], None), ("random", "time", [148815.26], True),
        ("random", "lpe:L1-dcache-load-misses", [80782.223], True)]
    assert parsed.warnings == []
    # a program's own "word word: number" is not B63's: the colon is where B63's padding puts it
    assert parse_output("elapsed total: 5\n", "x").records == []


PROGRAM = r"""
#include <stdio.h>
#include <string.h>
/* Prints what B63 prints: its plain lines, or with -i its interactive ones (printer.h's formats). */
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "-i") == 0) {
        printf("%-30s%-20s: %6.3lf\n", "basic", "time", 20.0);
        printf("%-30s%-20s: %s%6.3lf (%+6.3lf%% %c)%s\n", "basic_half", "time", "\033[0;32m", 10.0, -50.0, '*', "\033[0m");
        return 0;
    }
    for (int epoch = 0; epoch < 3; epoch++) {
        printf("%s,%s,%d,%d,%lf\n", "basic", "time", 1000, 20000 + 1000 * epoch, 20.0 + epoch);
        printf("%s,%s,%d,%d,%lf\n", "basic_half", "time", 2000, 20000, 10.0);
    }
    return 0;
}
"""


def test_run_reads_a_b63_binary_plain_and_interactive(project, benchlab):
    write(project / "bm.c", PROGRAM)
    plain = benchlab("run", "bm.c", "--processes", "1", "--no-store")
    assert plain.exit_code == 0, plain.stdout + plain.stderr
    rows = [line.split()[:2] for line in plain.stdout.splitlines()[2:4]]
    assert rows == [["basic", "21?"], ["basic_half", "10?"]]  # the median epoch of 20, 21, 22 ns
    assert "printed no results" not in plain.stdout
    interactive = benchlab("run", "bm.c", "--arg=-i", "--processes", "1", "--no-store")
    assert interactive.exit_code == 0, interactive.stdout + interactive.stderr
    assert [line.split()[:2] for line in interactive.stdout.splitlines()[2:4]] == [["basic", "20?"],
                                                                                  ["basic_half", "10?"]]


def test_a_negative_figure_is_refused_in_both_outputs_as_lind_refuses_it(tmp_path):
    # issue 37: `a,time,10,-50,-5.0` was stored as a median of 0 with [-5, 5]
    plain = write(tmp_path / "neg.csv", "a,time,10,50,5.000000\na,time,10,-50,-5.000000\n")
    with pytest.raises(UserError, match=r"neg.csv: line 2 is not valid b63csv \(value must be >= 0, got '-50'\)"):
        read_results(str(plain))
    interactive = write(tmp_path / "neg.txt", f"{'a':<30}{'time':<20}: -5.000 (-150.000% *)\n")
    with pytest.raises(UserError, match=r"neg.txt: line 1 is not valid b63-interactive \(value must be >= 0, "
                                        r"got '-5.000'\)"):
        read_results(str(interactive))
    parsed = parse_output("a,time,10,50,5.000000\na,time,10,-50,-5.000000\n", "bm")
    assert [(r.bench, r.samples) for r in parsed.records] == [("a", [5.0])]  # run keeps the good line, warns once
    assert parsed.warnings == ["bm: line 2 is not valid b63csv output (value must be >= 0, got '-50'), ignored: "
                               "'a,time,10,-50,-5.000000'"]
