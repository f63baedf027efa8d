"""Every fuzzer for a short fixed budget (CI); scripts/fuzz runs the same ones long.

Each target first runs issue 11's inputs as explicit examples, then Hypothesis's own,
derandomized so that CI sees the same inputs on every run. BENCHLAB_FUZZ_INPUTS
changes the budget."""
import os
from pathlib import Path

import pytest

import fuzzing
import seeds as corpus

#: Inputs per target: the whole fuzz part of pytest stays about a minute (the import targets, 20 s).
BUDGET = {"config": 200, "run": 200,
          # each input a whole `benchlab import` (a database opened, a run written): 3 s a format
          **{name: 100 for name in fuzzing.TARGETS if name.startswith("import-")},
          # issue 18's surfaces (fuzz_names.py), a few seconds each: a page written per report input
          "names": 100, "report-names": 20, "buckets": 100, "paths": 100}
DEFAULT_BUDGET = 300


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict:
    """Real outputs of real programs, built once for all the fuzzers."""
    return corpus.load(tmp_path_factory.mktemp("seeds"))


def test_the_seeds_cover_every_format(seeds):
    assert {name for name, texts in seeds.items() if texts} >= {"jsonl", "lind", "csb", "b63csv", "gbench"}


@pytest.mark.parametrize("name", list(fuzzing.TARGETS))
def test_fuzzer_finds_no_failure(seeds, name, tmp_path):
    inputs = int(os.environ.get("BENCHLAB_FUZZ_INPUTS", BUDGET.get(name, DEFAULT_BUDGET)))
    outcome = fuzzing.run_target(name, seeds, inputs, Path(tmp_path), derandomize=True)
    assert outcome.inputs >= inputs
    assert outcome.failures == [], "\n".join(fuzzing.describe(f) for f in outcome.failures)


def test_the_import_seeds_cover_every_format_benchlab_imports(seeds):
    from benchlab.formats.importing import FORMAT_NAMES
    import fuzz_targets
    found = fuzz_targets.import_seeds(seeds)
    assert {name for name, texts in found.items() if texts} == set(fuzz_targets.IMPORT_FORMATS)
    assert set(FORMAT_NAMES) <= set(fuzz_targets.IMPORT_FORMATS)  # a format added to import is fuzzed too
    assert any(text.startswith('{"type":"context"') and '"run":' in text for text in found["jsonl"])  # an export
