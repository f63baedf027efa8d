"""benchlab.runflags, the one table of `run`'s flags that reach the binary: the click options,
the benchlab.toml keys, the binary's argv and the docs' tables are all the table's."""
import dataclasses
import re

import click
import pytest

from benchlab import runflags
from benchlab.cli import cli
from benchlab.config import load_config
from benchlab.errors import UserError
from benchlab.measuring.runner import RunOptions, benchmark_arguments, measurement_settings
from benchlab.runflags import RUN_FLAGS, RunFlag
from conftest import REPO, write

CLI_DOC = (REPO / "docs" / "cli.md").read_text()


def _section(heading: str) -> str:
    start = CLI_DOC.index(f"\n## {heading}\n")
    end = CLI_DOC.find("\n## ", start + 1)
    return CLI_DOC[start:end]


def undocumented(flags, section: str) -> list[str]:
    """The rows whose option docs/cli.md's `run` section does not give, in its synopsis and in
    its options table, and the [run] keys its benchlab.toml table does not give."""
    run = _section("benchlab run")
    synopsis = run[run.index("```"):run.index("```", run.index("```") + 3)]
    table = "\n".join(line.split(" | ")[0] for line in run.splitlines() if line.startswith("| `--"))
    keys = "\n".join(line.split(" | ")[0] for line in section.splitlines() if line.startswith("| `run."))
    missing = [f.option for f in flags if not re.search(rf"\[{re.escape(f.option)}\b", synopsis)
               or not re.search(rf"`{re.escape(f.option)}\b", table)]
    return missing + [f"run.{f.config_key}" for f in flags
                      if f.config_key and not re.search(rf"`run\.{f.config_key}`", keys)]


def test_docs_cli_gives_every_row_its_option_and_its_benchlab_toml_key():
    assert undocumented(RUN_FLAGS, _section("benchlab.toml")) == []
    # a row the docs do not give is named: a new flag cannot land without its lines
    new = RunFlag("--warmup", "warmup", runflags.WHOLE, "--warmup", "", minimum=0, maximum=9, config_key="warmup")
    assert undocumented((*RUN_FLAGS, new), _section("benchlab.toml")) == ["--warmup", "run.warmup"]


def test_docs_cli_gives_the_unknown_key_error_config_writes(project):
    example = re.search(r"^error: benchlab\.toml: run\.timout: .*$", _section("benchlab.toml"), re.MULTILINE)
    write(project / "benchlab.toml", "[run]\ntimout = 5\n")
    with pytest.raises(UserError) as error:
        load_config()
    assert example.group(0) == f"error: {error.value}"


def test_every_row_is_an_option_of_run_and_a_field_of_run_options():
    run = cli.get_command(click.Context(cli), "run")
    options = {p.name: p for p in run.params}
    fields = {f.name for f in dataclasses.fields(RunOptions)}
    for flag in RUN_FLAGS:
        assert options[flag.param].opts == [flag.option] and flag.field in fields
        assert options[flag.param].multiple == (flag.kind == runflags.TEXTS)


def test_each_row_given_is_in_the_binarys_argv_and_the_settings_only_if_a_setting():
    values = {"samples": 8, "time_limit": 0.25, "seed": 3, "filters": ("a",), "counters": "cycles",
              "precision": 0.0, "schedule": "sequential", "subtract": False}
    assert set(values) == {f.field for f in RUN_FLAGS}
    arguments = benchmark_arguments("benchlab", RunOptions(timeout=1, **values))
    assert arguments == ["--format=jsonl", "--samples=8", "--time-limit=0.25", "--seed=3", "--filter=a",
                         "--counters=cycles", "--precision=0", "--schedule=sequential", "--no-subtract"]
    assert measurement_settings(RunOptions(timeout=1, **values)) == {
        "samples": 8, "time_limit": 0.25, "counters": "cycles", "precision": 0.0, "schedule": "sequential"}
    assert measurement_settings(RunOptions(timeout=1, seed=3)) == {}


def test_a_benchlab_toml_key_is_checked_within_its_options_bounds(project):
    """run.samples above the header's maximum is refused in the file, as --samples is (it
    used to pass here and fail in every binary). config.py checks the keys as numbers."""
    assert all(f.kind in (runflags.WHOLE, runflags.NUMBER) for f in RUN_FLAGS if f.config_key)
    write(project / "benchlab.toml", "[run]\nsamples = 2000000\n")
    with pytest.raises(UserError) as error:
        load_config()
    assert str(error.value) == ("benchlab.toml: run.samples: must be a whole number >= 3 and <= 1e+06, "
                                "got 2000000 (write samples = 3)")
    write(project / "benchlab.toml", "[run]\nsamples = 9\ntime_limit = 0.5\nseed = 4\n")
    assert load_config().run_flags == {"samples": 9, "time_limit": 0.5, "seed": 4}


def test_the_option_wins_over_benchlab_toml_which_wins_over_the_default():
    configured = {"samples": 9, "seed": 4}
    values = runflags.resolved({"samples": 20, "seed": None, "filters": None, "subtract": False}, configured)
    assert values == {"samples": 20, "time_limit": None, "seed": 4, "filters": (), "counters": None,
                      "precision": None, "schedule": None, "subtract": False}


def test_run_takes_the_benchlab_toml_values_of_the_table(project, benchlab, monkeypatch):
    """What `run` gives the binary: the toml's samples and seed, the option's time limit."""
    from benchlab.cli import run as run_command
    seen = {}

    def plan(config, platforms, options, *_):
        seen["options"] = options
        raise UserError("planned", "nothing runs")
    monkeypatch.setattr(run_command, "_plan", plan)
    write(project / "benchlab.toml", "[run]\nsamples = 9\nseed = 4\ntime_limit = 2\n")
    write(project / "suite" / "a.c", "int main(void) { return 0; }\n")
    result = benchlab("run", "suite", "--time-limit", "0.5", "--no-subtract", "--no-store")
    assert "planned" in result.stderr
    options = seen["options"]
    assert (options.samples, options.seed, options.time_limit, options.subtract) == (9, 4, 0.5, False)
