"""Output and config paths the kernel refuses (a name over 255 bytes) or that are no
regular file (a FIFO): one error each, before anything runs, nothing written or stored."""
import os

import pytest

from conftest import store_example_run, write

LONG = "x" * 300
LONG_SHOWN = "x" * 57 + "..."


def too_long(option: str, suffix: str = "") -> str:
    return (f"error: {option} {LONG_SHOWN}: the name {LONG_SHOWN} is {300 + len(suffix)} bytes long, over the file "
            "system's limit of 255 (give a shorter file name)\n")


def fifo_error(example: str) -> str:
    return (f"error: --out afifo is a FIFO (named pipe): results are written only to regular files (give a file "
            f"name, e.g. --out {example})\n")


@pytest.fixture
def suite(project):
    write(project / "suite" / "ok.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    os.mkfifo(project / "afifo")
    return project


def stored_runs(project) -> int:
    from benchlab.storage.store import open_store
    database = project / ".benchlab" / "results.db"
    return len(open_store(f"sqlite:///{database}").list_runs()) if database.exists() else 0


@pytest.mark.parametrize("args, message", [
    (["run", "suite", "--out", LONG + ".json"], too_long("--out", ".json")),
    (["run", "suite", "--out", "afifo", "--format", "json"], fifo_error("results.json")),
    (["--config", LONG + ".toml", "run", "suite"], too_long("--config", ".toml")),
    (["profile", "--no-store", "--out", LONG + ".json", "--", "true"], too_long("--out", ".json")),
    (["profile", "--no-store", "--out", "afifo", "--", "true"], fifo_error("profile.json")),
])
def test_a_bad_path_is_one_error_before_anything_runs(suite, benchlab, args, message):
    result = benchlab(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)
    assert stored_runs(suite) == 0


@pytest.mark.parametrize("args, message", [
    (["show", "1", "--out", LONG + ".json"], too_long("--out", ".json")),
    (["show", "1", "--out", "afifo", "--format", "csv"], fifo_error("results.json")),
    (["report", "--out", LONG], too_long("--out")),
    (["--config", LONG, "runs"], too_long("--config")),
])
def test_a_bad_path_of_a_command_that_reads_is_one_error(suite, benchlab, args, message):
    store_example_run(suite)
    result = benchlab(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)


def test_a_name_of_255_bytes_is_written(suite, benchlab):
    # The file is written under a temporary name beside it first: that name must stay within 255 bytes too.
    store_example_run(suite)
    name = "r" * 249 + ".jsonl"
    assert benchlab("export", "1", "--out", name).exit_code == 0 and (suite / name).is_file()
    report = benchlab("report", "--out", "p" * 255)
    assert report.exit_code == 0, report.stderr
    assert (suite / ("p" * 255) / "index.html").is_file()


@pytest.mark.parametrize("args, message", [
    (["export", "1", "--out", "a\x1e\x1b[2J"], "error: cannot tell the format of --out a\\x1e\\x1b[2J from its suffix "
                                              "(add --format jsonl|export-csv|gbench|lind-json|github-action-benchmark, or name the file .jsonl or .csv)\n"),
    (["report", "--out", "0/\x1e"], "error: --out 0/\\x1e: the directory {root}/0 does not exist (create it first, "
                                    "or give another path)\n"),
    (["--config", "\x85", "runs"], "error: config file {root}/\\x85 does not exist (give an existing file to --config)\n"),
])
def test_a_path_in_an_error_is_shown_escaped(suite, benchlab, args, message):
    store_example_run(suite)
    result = benchlab(*args)
    assert (result.exit_code, result.stderr) == (2, message.format(root=suite))
