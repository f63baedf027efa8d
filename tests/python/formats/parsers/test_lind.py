"""The lind line parser keeps one row per (test, param), as Lind's runner does (issue 38):
a test that prints before fork() has its child repeat the parent's lines, which were shown
as rows `ipc_uds #2`, `#3`, ... of their own."""
import pytest

from benchlab.errors import UserError
from benchlab.formats.importing import read_results
from benchlab.formats.parsers import parse_output

#: ipc_uds.c's output through a pipe: the parent's two lines, buffered at fork(), printed
#: again by the child, then the parent's last line.
FORKED = "UDS\t1\t100000\t3120\nUDS\t64\t100000\t3188\nUDS\t1\t100000\t3120\nUDS\t64\t100000\t3188\nUDS\t4096\t1000\t5090\n"


def test_a_forked_childs_repeats_are_one_row_and_a_warning_says_why():
    parsed = parse_output(FORKED, "ipc_uds")
    assert [(r.bench, r.param, r.samples) for r in parsed.records] == [
        ("UDS", 1, [3120.0]), ("UDS", 64, [3188.0]), ("UDS", 4096, [5090.0])]
    assert parsed.warnings == [
        "ipc_uds: UDS/1 is printed 2 times, the same line each time (lines 1, 3): a child process repeated its "
        "parent's unflushed output after fork(); kept once, as Lind's runner keeps it (setvbuf(stdout, NULL, "
        "_IOLBF, 0) or fflush(stdout) before fork() fixes the test)",
        "ipc_uds: UDS/64 is printed 2 times, the same line each time (lines 2, 4): a child process repeated its "
        "parent's unflushed output after fork(); kept once, as Lind's runner keeps it (setvbuf(stdout, NULL, "
        "_IOLBF, 0) or fflush(stdout) before fork() fixes the test)"]


def test_a_row_printed_with_other_figures_keeps_the_last_as_the_runner_does():
    parsed = parse_output("close\t-1\t1000\t173\ngeteuid\t-\t1000\t147\nclose\t-1\t1000\t180\n", "sys")
    assert [(r.bench, r.param, r.samples) for r in parsed.records] == [("close", -1, [180.0]), ("geteuid", "-", [147.0])]
    assert parsed.warnings == ["sys: close/-1 is printed 2 times with different figures (lines 1, 3): kept the last, "
                               "line 3, as Lind's runner keeps it (one line per test and param fixes the test)"]


def test_an_import_of_repeated_rows_is_refused_saying_why(tmp_path):
    path = tmp_path / "uds.txt"
    path.write_text(FORKED)
    with pytest.raises(UserError, match=r"UDS/1 is printed 2 times, the same line each time \(lines 1, 3\): a child"):
        read_results(str(path))


def test_a_parameter_led_by_a_control_character_is_refused_not_read_as_a_number():
    # Found by scripts/fuzz: '\x1c5' was taken as text (its integer check strips ASCII blanks
    # only), then stripped by str.strip() to '5', text that reads as a number: a stored
    # record unfit to store. Now the line is ignored with the reason, the others kept.
    from benchlab.formats.parsers import parse_output
    parsed = parse_output("Read\t\x1c5\t1000000\t240\nRead\t1024\t1000000\t252\n", "x")
    assert [r.param for r in parsed.records] == [1024]
    assert parsed.warnings == ["x: line 1 is not valid lind output (param must be 1 to 255 printable characters, "
                               "got '\\x1c5'), ignored: 'Read\\t\\x1c5\\t1000000\\t240'"]
