"""Every fuzzer for a short fixed budget (CI); scripts/fuzz runs the same ones long.

Each target first runs issue 11's inputs as explicit examples, then Hypothesis's own,
derandomized so that CI sees the same inputs on every run. BENCHLAB_FUZZ_INPUTS
changes the budget."""
import os
from pathlib import Path

import pytest

import fuzzing
import seeds as corpus

#: Inputs per target: the whole fuzz part of pytest stays well under a minute.
BUDGET = {"config": 200, "run": 200}
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
