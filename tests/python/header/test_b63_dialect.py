"""A B63-dialect program (BL_FLAGS b63) prints lines that `benchlab import` reads back: every
delimiter its -d takes is one the b63csv parser reads, and every other is refused before
anything runs (issue 37)."""
import os
import string
import subprocess

import pytest

from benchlab.formats.parsers import parse_output
from conftest import compile_c, write

PROGRAM = """\
#include <stdint.h>
#define BL_FLAGS b63
#include "benchlab.h"
static volatile uint64_t sink;
BL_BENCH_ARGS(copy, n, size, 8) { for (uint64_t i = 0; i < n; i++) sink += (uint64_t)size; }
BL_MAIN()
"""


@pytest.fixture(scope="module")
def b63_program(tmp_path_factory):
    directory = tmp_path_factory.mktemp("b63")
    return compile_c(write(directory / "p.c", PROGRAM), directory / "p",
                     flags=("-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"))


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, env={**os.environ, "BL_NO_WARN": "1"})


def test_every_delimiter_the_program_takes_is_read_back_and_the_others_are_refused(b63_program):
    taken = []
    for delimiter in sorted(set(string.printable) - set("\n\r\x0b\x0c")):
        done = run(b63_program, "-d", delimiter, "-e", "3", "-t", "0.003")
        if done.returncode == 2:
            assert done.stdout == ""
            assert done.stderr.startswith("benchlab: -d must be a space, a tab or one of"), done.stderr
            continue
        assert done.returncode == 0, (delimiter, done.stderr)
        parsed = parse_output(done.stdout, "p")
        assert parsed.warnings == [], (delimiter, parsed.warnings)
        [record] = parsed.records
        assert (record.bench, record.counter, len(record.samples)) == ("copy/size=8", "time", 3), delimiter
        taken.append(delimiter)
    assert "".join(taken) == "\t !\"#$%&'()*,;<>?@[\\]^`{|}~"
    for refused in (".", "1", "a", "_", "-", "+", "/", "=", ":"):
        assert refused not in taken
