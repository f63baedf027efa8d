import pytest

from benchlab.config import load_config
from benchlab.errors import UserError
from benchlab.measuring.targets import resolve_targets
from conftest import write

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
