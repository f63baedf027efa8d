"""A program chooses its default output format (issue 28): a runner that starts it with no
arguments and reads a pipe (the Lind runner, which reads test<TAB>param<TAB>loops<TAB>avg_ns)
gets the format it reads from `#define BL_DEFAULT_FORMAT "lind"` or BL_FORMAT=lind."""
import os
import subprocess

from conftest import compile_c, write

PROGRAM = """\
#include <stdint.h>
{define}
#include "benchlab.h"
BL_BENCH_ARGS(read_size, n, size, 1, 1024) {{ for (uint64_t i = 0; i < n; i++) BL_KEEP(size); }}
BL_MAIN()
"""
FAST = ["--samples=8", "--precision=0", "--time-limit=0.05"]


def program(tmp_path, define=""):
    source = write(tmp_path / "p.c", PROGRAM.format(define=define))
    return compile_c(source, tmp_path / "p", flags=("-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"))


def run(binary, *args, **env):
    # stdout is a pipe, as under the Lind runner's subprocess.run(stdout=PIPE)
    return subprocess.run([str(binary), *args], capture_output=True, text=True,
                          env={**os.environ, "BL_NO_WARN": "1", **env})


def lind_lines(stdout):
    rows = [line.split("\t") for line in stdout.splitlines()]
    assert all(len(row) == 4 for row in rows), stdout
    return rows


def test_the_macro_makes_lind_the_default_without_a_terminal(tmp_path):
    binary = program(tmp_path, '#define BL_DEFAULT_FORMAT "lind"')
    rows = lind_lines(run(binary, *FAST).stdout)
    assert [(test, param) for test, param, _, _ in rows] == [("read_size", "1"), ("read_size", "1024")]
    # loops: the iterations of all 8 samples behind the figure, as Lind's loops are all its average's
    assert all(int(loops) >= 8 for _, _, loops, _ in rows)
    assert run(binary, "--format=jsonl", *FAST).stdout.startswith('{"type":"context"')  # a flag still wins


def test_the_environment_variable_chooses_for_any_program_and_a_bad_name_is_one_error(tmp_path):
    binary = program(tmp_path)
    assert run(binary, *FAST).stdout.startswith('{"type":"context"')  # jsonl without a terminal, as before
    assert len(lind_lines(run(binary, *FAST, BL_FORMAT="lind").stdout)) == 2
    assert run(binary, *FAST, BL_FORMAT="csv").stdout.startswith("name,param,counter,iterations,value\n")
    bad = run(binary, *FAST, BL_FORMAT="xml")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr == 'benchlab: BL_FORMAT must be one of table, csv, jsonl, lind, b63, b63-interactive, csb (got "xml")\n'
    macro = program(tmp_path, '#define BL_DEFAULT_FORMAT "tsv"')
    bad = run(macro, *FAST)
    assert bad.returncode == 2
    assert bad.stderr == 'benchlab: BL_DEFAULT_FORMAT must be one of table, csv, jsonl, lind, b63, b63-interactive, csb (got "tsv")\n'
