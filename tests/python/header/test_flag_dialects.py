"""The header's flag dialects are one table, BL__FLAG_DIALECTS (section 9): every name a program
can choose, its --help line, the message for a name that is no dialect, and the docs' table of
dialects are its rows. (tests/c/dialects_test.sh checks what each dialect's flags do.)"""
import os
import re
import subprocess

import pytest

from conftest import HEADER, REPO, compile_c, write

STRICT = ("-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror")


def rows() -> list[tuple[str, str, str, str]]:
    """(name, id, whose flags, how a value is written) of each row of BL__FLAG_DIALECTS."""
    text = HEADER.read_text()
    table = text[text.index("#define BL__FLAG_DIALECTS(X)"):]
    table = table[:table.index("\n#define", 1)]
    return re.findall(r'X\((\w+), (\w+), "([^"]*)", "([^"]*)"\)', table)


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, env={**os.environ, "BL_NO_WARN": "1"})


def test_the_table_has_the_dialects_the_docs_give_each_with_its_guide():
    names = [name for name, *_ in rows()]
    suites = (REPO / "docs" / "suites.md").read_text()
    section = suites[suites.index("## Flag dialects"):]
    assert re.findall(r"^\| `(\w+)`", section[:section.index("\n\n", section.index("| dialect |"))], re.M) == names
    assert all((REPO / "docs" / f"coming-from-{name}.md").is_file() for name in names)


@pytest.mark.parametrize("row", rows(), ids=lambda row: row[0])
def test_every_row_is_a_dialect_a_program_can_choose_and_its_help_says_whose(tmp_path, row):
    name, _, owner, form = row
    for choice, main in ((f"#define BL_FLAGS {name}\n", "BL_MAIN()"), ("", f"BL_MAIN_AS({name})")):
        source = write(tmp_path / "p.c", f"#include <stdio.h>\n{choice}#include \"benchlab.h\"\n"
                                         f"BL_BENCH(one, n) {{ for (uint64_t i = 0; i < n; i++) BL_KEEP(i); }}\n{main}\n")
        done = run(compile_c(source, tmp_path / "p", flags=STRICT), "-h")
        assert done.returncode == 0
        assert f"short flags ({owner}, BL_FLAGS {name}; values written {form}):" in done.stdout.splitlines()


def test_a_name_that_is_no_dialect_is_refused_naming_every_row(tmp_path):
    source = write(tmp_path / "p.c", '#include "benchlab.h"\n'
                                     'int main(int argc, char **argv) { return bl_main_as(argc, argv, "google"); }\n')
    done = run(compile_c(source, tmp_path / "p", flags=STRICT))
    names = ", ".join(name for name, *_ in rows())
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f'benchlab: bl_main_as: no flag dialect "google" (dialects: {names})\n'
