"""`benchlab` imports a subcommand's modules only when that subcommand runs (cli/__init__.py,
LazyGroup): a default `benchlab run` is about a second, and the HTML report's, the
profiler's, ab's and history's imports were a fifth of it."""
import json
import subprocess
import sys

import pytest

from benchlab.cli import SUBCOMMANDS, cli

#: Modules only other subcommands need.
NOT_FOR_RUN = ("benchlab.htmlreport", "benchlab.profiling", "benchlab.ab", "benchlab.cli.ab",
               "benchlab.changepoints", "benchlab.cli.history", "benchlab.importing", "benchlab.cli.report")

IMPORTED_BY = """
import json, sys
from benchlab.cli import main
status = main([{args}])
print(json.dumps([status, sorted(m for m in sys.modules if m.startswith("benchlab"))]))
"""


def imported_by(tmp_path, *args: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", IMPORTED_BY.format(args=", ".join(map(repr, args)))],
                          capture_output=True, text=True, cwd=tmp_path, check=True)
    status, modules = json.loads(done.stdout.splitlines()[-1])
    return status, modules


def test_run_imports_only_what_run_needs(tmp_path):
    status, modules = imported_by(tmp_path, "run", "--help")
    assert status == 0 and "benchlab.cli.run" in modules and "benchlab.runner" in modules
    assert [m for m in modules if m.startswith(NOT_FOR_RUN)] == []


def test_history_imports_its_own_modules_on_use(tmp_path):
    _, modules = imported_by(tmp_path, "history", "--help")
    assert "benchlab.cli.history" in modules and "benchlab.cli.report" not in modules


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_every_listed_subcommand_resolves_to_a_command_of_that_name(name):
    command = cli.get_command(None, name)
    assert command is not None and command.name == name
    assert cli.get_command(None, "no-such-command") is None
