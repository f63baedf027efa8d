"""The layers of docs/architecture.md (*Layers*) kept, not only counted (issue 39): no import
from a lower layer into a higher one, no cycle between folders, nothing outside the cli
layer importing it, no cli/ command importing another. Imports by name count (importlib,
__import__, a module's name in a string) and so does the package's own __init__.py.

The analysis is bench/importgraph.py, the one bench/structure.py prints; the planted trees
below show what each rule catches.
"""
import importlib.util
import pathlib
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def load_importgraph():
    spec = importlib.util.spec_from_file_location("importgraph", ROOT / "bench/importgraph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


importgraph = load_importgraph()

#: The one import whose name the analysis cannot read, and where that name is written instead:
#: platforms.py asks a build target's runner its version, by the module name in buildtargets.py
#: (`runner_module="benchlab.wasi"`, a string the analysis reads there).
UNREAD = {"benchlab.measuring.platforms": "buildtargets.py's runner_module"}


@pytest.fixture(scope="module")
def house():
    return importgraph.breaches(ROOT)


def test_no_import_goes_up_a_layer(house):
    assert house.upward == []


def test_no_folders_import_each_other(house):
    assert house.folder_cycles == []


def test_nothing_outside_the_cli_layer_imports_it(house):
    assert house.domain_to_cli == []


def test_cli_commands_do_not_import_each_other(house):
    assert house.command_to_command == []


def test_every_folder_is_in_a_layer(house):
    # A new folder goes into docs/architecture.md's line 'Layers, bottom to top: ...'.
    assert house.unlayered == []


def test_imports_by_a_name_not_written_out_are_the_known_ones(house):
    assert sorted({where.split(":")[0] for where in house.unread_names}) == sorted(UNREAD)


# -- the analysis, on planted trees ----------------------------------------------------------------

LAYERS = "Layers, bottom to top: base, statistics, measuring, cli\n"


def tree(root: pathlib.Path, files: dict[str, str], layers: str = LAYERS) -> pathlib.Path:
    """A checkout with docs/architecture.md's Layers line and src/benchlab/ holding `files`
    (each folder a package)."""
    (root / "docs").mkdir(parents=True)
    (root / "docs/architecture.md").write_text(f"# Architecture\n\n{layers}")
    base = {"__init__.py": "", "records.py": "", "statistics/__init__.py": "", "statistics/noise.py": "",
            "measuring/__init__.py": "", "measuring/runner.py": "", "cli/__init__.py": "", "cli/run.py": "",
            "cli/show.py": "", "cli/common.py": "", "start.py": "from benchlab.cli import main\n"}
    for name, text in {**base, **files}.items():
        path = root / "src/benchlab" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_a_clean_tree_has_no_breach(tmp_path):
    found = importgraph.breaches(tree(tmp_path, {
        "measuring/runner.py": "from benchlab.statistics import noise\nfrom benchlab import records\n",
        "cli/run.py": "from benchlab.cli import common\nfrom benchlab.measuring.runner import Runner\n",
        "__init__.py": "def __getattr__(name):\n    from benchlab.measuring import runner\n    return runner\n",
    }))
    assert (found.upward, found.folder_cycles, found.domain_to_cli, found.command_to_command, found.unlayered,
            found.unread_names) == ([], [], [], [], [], [])


@pytest.mark.parametrize("source", [
    "from benchlab.measuring.runner import Runner\n",
    "from benchlab.measuring import runner\n",
    "import benchlab.measuring.runner\n",
    "from ..measuring import runner\n",
    "def later():\n    from benchlab.measuring import runner\n",
    "import importlib\nRUNNER = importlib.import_module('benchlab.measuring.runner')\n",
    "from importlib import import_module\nRUNNER = import_module('benchlab.measuring.runner')\n",
    "RUNNER = __import__('benchlab.measuring.runner')\n",
    "import importlib\ndef load(name):\n    return importlib.import_module(f'benchlab.measuring.{name}')\n",
    "RUNNERS = {'native': 'benchlab.measuring.runner'}  # a table that another module hands to importlib\n",
])
def test_an_upward_import_in_any_spelling_is_a_breach(tmp_path, source):
    found = importgraph.breaches(tree(tmp_path, {"statistics/noise.py": source}))
    assert found.upward == ["benchlab.statistics.noise -> benchlab.measuring.runner"]
    assert found.folder_cycles == []


def test_the_package_init_is_on_top(tmp_path):
    # benchlab/__init__.py is the public API: a lower layer importing a name from it reaches up.
    found = importgraph.breaches(tree(tmp_path, {"__init__.py": "__version__ = '1'\n",
                                                 "statistics/noise.py": "from benchlab import __version__\n"}))
    assert found.upward == found.domain_to_cli == ["benchlab.statistics.noise -> benchlab"]
    # ... and importing a module through it is importing the module
    found = importgraph.breaches(tree(tmp_path / "2", {"statistics/noise.py": "from benchlab import records\n"}))
    assert found.upward == found.domain_to_cli == []


def test_the_entry_points_are_in_the_cli_layer(tmp_path):
    # start.py (the installed command's) importing cli/ is the entry layer's own business ...
    found = importgraph.breaches(tree(tmp_path, {}))
    assert found.domain_to_cli == []
    # ... but a domain module naming one is a breach
    found = importgraph.breaches(tree(tmp_path / "2", {"records.py": "ENTRY = 'benchlab.start'\n"}))
    assert found.domain_to_cli == found.upward == ["benchlab.records -> benchlab.start"]


def test_a_cycle_between_folders_is_a_breach(tmp_path):
    found = importgraph.breaches(tree(tmp_path, {"statistics/noise.py": "from benchlab.measuring import runner\n",
                                                 "measuring/runner.py": "from benchlab.statistics import noise\n"}))
    assert found.folder_cycles == [["measuring", "statistics"]]


def test_a_domain_import_of_the_cli_and_a_command_importing_another(tmp_path):
    found = importgraph.breaches(tree(tmp_path, {"measuring/runner.py": "from benchlab.cli.common import kept\n",
                                                 "cli/run.py": "import importlib\n"
                                                               "SHOW = importlib.import_module('benchlab.cli.show')\n"}))
    assert found.domain_to_cli == ["benchlab.measuring.runner -> benchlab.cli.common"]
    assert found.command_to_command == ["benchlab.cli.run -> benchlab.cli.show"]


def test_what_is_not_an_import(tmp_path):
    found = importgraph.breaches(tree(tmp_path, {"statistics/noise.py": '''\
        """Run as `python -m benchlab.measuring.runner` (a docstring, not a name alone)."""
        import sys
        COMMAND = [sys.executable, "-m", "benchlab.measuring.runner"]  # a child process
        PROGRAM = "benchlab"  # the package's name, not a module of it
        ''', "statistics/__init__.py": 'FILES = "benchlab.statistics"  # its own package, for its data files\n'}))
    assert found.upward == found.folder_cycles == []


def test_an_import_by_a_name_not_written_out_is_listed(tmp_path):
    found = importgraph.breaches(tree(tmp_path, {"statistics/noise.py": "import importlib\n"
                                                 "def load(name):\n    return importlib.import_module(name)\n"}))
    assert found.unread_names == ["benchlab.statistics.noise:3"]


def test_a_folder_in_no_layer_and_no_layers_line(tmp_path):
    found = importgraph.breaches(tree(tmp_path, {"judging/__init__.py": "", "judging/rule.py": ""}))
    assert found.unlayered == ["judging"]
    assert importgraph.breaches(tree(tmp_path / "2", {}, layers="")).unlayered is None
