import re

import pytest

from benchlab.config import load_config
from benchlab.errors import UserError
from benchlab.measuring.targets import resolve_targets
from conftest import HEADER, REPO, write

MAIN = '#include <stdio.h>\nint helper(void);\nint main(void) { printf("T\\t1\\t10\\t%d\\n", helper()); return 0; }\n'
HELPER = "/* not main() */\nint helper(void) { return 42; }\n"


def test_a_file_without_main_joins_the_program_sharing_its_stem(project, benchlab):
    write(project / "suite" / "prog_main.c", MAIN)
    write(project / "suite" / "prog_helper.c", HELPER)
    write(project / "suite" / "other.c", 'int main(void) { return 0; }\n')
    targets = {t.name: t for t in resolve_targets(["suite"], load_config())}
    assert set(targets) == {"prog_main", "other"}
    assert [p.name for p in targets["prog_main"].companions] == ["prog_helper.c"]
    assert targets["other"].companions == ()
    result = benchlab("run", "suite/prog_main.c", "--no-store", "--processes", "1")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[2].split()[:3] == ["T", "1", "42?"]


def test_kinds_of_targets(project):
    write(project / "suites" / "sys" / "fs_read.c", "int main(void){return 0;}\n")
    write(project / "tool", "#!/bin/sh\n", executable=True)
    write(project / "notes.txt", "hello")
    config = load_config()
    assert [t.kind for t in resolve_targets(["fs_", "tool"], config)] == ["source", "executable"]
    assert [t.name for t in resolve_targets([], config)] == ["fs_read"]
    with pytest.raises(UserError, match=r"notes.txt is neither a C source \(.c\) nor an executable"):
        resolve_targets(["notes.txt"], config)


# -- issue 37: every documented way of writing main makes a program, never a helper ----------------

#: Each documented entry point (include/benchlab.h, docs/cli.md "Targets"), as a program's last line.
ENTRY_POINTS = {
    "plain_main": "int main(int argc, char **argv) { return bl_main(argc, argv); }",
    "spaced_main": "int\nmain (int argc, char **argv) { return bl_main(argc, argv); }",
    "bl_main": "BL_MAIN()",
    "counters_main": 'BL_MAIN_COUNTERS("time")',
    "dialect_main": "BL_MAIN_AS(b63)",
}
BENCH = '#include "benchlab.h"\nBL_BENCH(%s, n) { unsigned long i; for (i = 0; i < n; i++) BL_CLOBBER(); }\n'


def test_every_documented_way_of_writing_main_makes_a_program_that_builds(project, benchlab):
    for name, entry in ENTRY_POINTS.items():
        write(project / "suite" / f"{name}.c", BENCH % name + entry + "\n")
    # text that only looks like an entry point (a comment, a string) makes no program: a helper of every one
    write(project / "suite" / "helpers.c", '/* main( */ const char *helpers_note = "BL_MAIN(main(";\n')
    targets = {t.name: t for t in resolve_targets(["suite"], load_config())}
    assert {name: [p.name for p in t.companions] for name, t in targets.items()} == {
        name: ["helpers.c"] for name in ENTRY_POINTS}
    result = benchlab("run", "suite", "--no-store", "--processes", "1", "--samples", "8", "--time-limit", "0.02")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert {line.split()[0] for line in result.stdout.splitlines()[2:7]} == set(ENTRY_POINTS)


def test_the_entry_points_recognised_are_every_one_the_header_defines():
    from benchlab.measuring import targets
    header = HEADER.read_text()
    defined = set(re.findall(r"#define (BL_\w+)\((?:[^()]*)\)[ \t\\\n]*int main\(", header))
    assert defined == {"BL_MAIN", "BL_MAIN_COUNTERS", "BL_MAIN_AS"}
    assert {entry.split("(")[0] for entry in targets.ENTRY_POINTS} == defined | {"main"}


def test_every_example_is_a_program_with_its_own_files_only(tmp_path):
    # CMake's examples_* targets compile each of them so (CMakeLists.txt): one file, or the two_files pair
    programs = {t.name: t for t in resolve_targets([str(REPO / "examples")], load_config(cwd=tmp_path))}
    assert {name: [p.name for p in t.companions] for name, t in programs.items()} == {
        "args": [], "baseline": [], "counters": [], "custom_counter": [], "keep": [], "seed": [], "suspend": [],
        "threads": [], "two_files_a": ["two_files_b.c"]}


def test_a_helper_named_on_the_command_line_runs_the_program_it_is_part_of(project, benchlab):
    write(project / "suite" / "prog_main.c", MAIN)
    write(project / "suite" / "prog_helper.c", HELPER)
    result = benchlab("run", "suite/prog_helper.c", "--no-store", "--processes", "1")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert ("note: suite/prog_helper.c defines no entry point (main(), BL_MAIN(), BL_MAIN_COUNTERS(...) or "
            "BL_MAIN_AS(...)): it is compiled into prog_main.c, which runs instead") in result.stderr
    assert result.stdout.splitlines()[2].split()[:3] == ["T", "1", "42?"]


def test_a_wrong_guess_names_the_file_taken_as_a_helper_and_build_shared_says_otherwise(project, benchlab):
    # main written through a macro of the program's own: no documented entry point is seen
    write(project / "suite" / "own.c", '#include <stdio.h>\n#define ENTRY(name) int name(void)\n'
          'ENTRY(main) { printf("U\\t1\\t10\\t7\\n"); return 0; }\n')
    write(project / "suite" / "util.c", "int helper(void) { return 42; }\n")
    write(project / "suite" / "other.c", MAIN)
    guessed = benchlab("run", "suite/other.c", "--no-store", "--processes", "1")
    assert guessed.exit_code == 1
    assert ("other on native: does not compile for native with own.c, util.c compiled in as helpers: no entry point "
            "found in them (main(), BL_MAIN(), BL_MAIN_COUNTERS(...) or BL_MAIN_AS(...)); a program of its own needs "
            "one of these, and build.shared in benchlab.toml names a directory's helpers instead of this "
            "guess") in guessed.stdout
    assert "multiple definition of `main'" in guessed.stdout
    write(project / "benchlab.toml", '[build]\nshared = ["suite/util.c"]\n')
    targets = {t.name: t for t in resolve_targets(["suite"], load_config())}
    assert {name: [p.name for p in t.companions] for name, t in targets.items()} == {
        "own": ["util.c"], "other": ["util.c"]}
    said = benchlab("run", "suite", "--no-store", "--processes", "1")
    assert said.exit_code == 0, said.stdout + said.stderr
