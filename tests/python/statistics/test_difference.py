"""BL_DIFFERENCE (issue 28, libloong): a benchmark reported less a named base, paired round
by round, in the header and on the Python side alike."""
import json
import re
import statistics
import subprocess

import numpy as np
import pytest

from conftest import REPO, compile_c, run_binary, write
from benchlab.formats.parsers import parse_output
from benchlab.records import Record
from benchlab import stats
from benchlab.statistics import difference, noise

# The shape of libloong's harness: an empty VM call (args_0), a syscall through it, and the
# syscall reported less the call; a sweep paired by parameter value.
PROGRAM = """\
#include <stdio.h>
#include <stdint.h>
#include "benchlab.h"
static volatile uint64_t sink;
static void work(uint64_t k) { for (uint64_t i = 0; i < k; i++) sink += i; }
BL_BENCH(args_0, n) { for (uint64_t i = 0; i < n; i++) work(20); }
BL_BENCH(syscall_0, n) { for (uint64_t i = 0; i < n; i++) work(60); }
BL_DIFFERENCE(syscall_0, args_0)
BL_BENCH_ARGS(copy, n, size, 8, 32) { for (uint64_t i = 0; i < n; i++) work((uint64_t)size); }
BL_BENCH_ARGS(copy_base, n, size, 8, 16, 32) { for (uint64_t i = 0; i < n; i++) work((uint64_t)size / 2); }
BL_DIFFERENCE(copy, copy_base)
BL_MAIN()
"""
FAST = ("--format=jsonl", "--samples=25", "--time-limit=0.05")


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    directory = tmp_path_factory.mktemp("difference")
    source = write(directory / "vmcall.c", PROGRAM)
    return compile_c(source, directory / "vmcall", flags=("-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"))


def results(text: str) -> dict[str, dict]:
    rows = [json.loads(line) for line in text.splitlines() if '"type":"result"' in line]
    return {row["bench"] + ("" if row["param"] is None else f"/{row['param']}"): row for row in rows}


@pytest.mark.parametrize("schedule", ["rounds", "sequential"])
def test_the_header_and_python_compute_the_same_paired_difference(binary, schedule):
    text = run_binary(binary, *FAST, f"--schedule={schedule}")
    rows = results(text)
    assert "difference_to" not in rows["args_0"]
    by_bench = {(r.bench, r.param): r for r in parse_output(text, "vmcall").records}
    for key, base in (("syscall_0", "args_0"), ("copy/8", "copy_base/size=8"), ("copy/32", "copy_base/size=32")):
        row = rows[key]
        assert row["difference_to"] == base
        assert len(row["base_samples"]) == len(row["samples"])  # one base sample per round
        bench, _, param = key.partition("/")
        ours = difference.of_process(by_bench[(bench, int(param) if param else None)])
        # the same arithmetic on the same samples: the header's figure and interval, recomputed
        assert ours.base == base and ours.scope == stats.WITHIN_RUN
        assert ours.value == pytest.approx(row["difference"], rel=1e-6, abs=1e-6)
        assert [ours.low, ours.high] == pytest.approx(row["difference_ci"], rel=1e-6, abs=1e-6)
        assert row["difference_ci"][0] <= row["difference"] <= row["difference_ci"][1]


def test_the_difference_is_of_the_same_rounds_not_of_two_medians():
    # Two rounds slow for both (a slow phase of the machine): the paired difference ignores
    # them; the difference of the two medians does not.
    samples = [30.0, 30.0, 30.0, 90.0, 90.0]
    base = [10.0, 10.0, 10.0, 70.0, 70.0]
    record = Record(bench="syscall_0", param=None, samples=samples,
                    reported={"difference_to": "args_0", "base_samples": base})
    d = difference.of_process(record)
    assert (d.value, d.low, d.high) == (20.0, 20.0, 20.0)
    # with the empty loop: each side less its own share of that round's loop
    loop = [1.0, 2.0, 1.0, 2.0, 1.0]
    with_loop = Record(bench="syscall_0", param=None, samples=samples, overhead_samples=loop,
                       reported={"difference_to": "args_0", "base_samples": base})
    want = np.array(samples) - stats.loop_share(30.0, 1.0) * np.array(loop) - (
        np.array(base) - stats.loop_share(10.0, 1.0) * np.array(loop))
    assert difference.of_process(with_loop).value == pytest.approx(float(np.median(want)))


def test_processes_combine_to_a_rerun_interval():
    def process(shift):
        return Record(bench="syscall_0", param=None, samples=[30.0 + shift] * 5,
                      reported={"difference_to": "args_0", "base_samples": [10.0] * 5})
    combined = difference.of_processes([process(0.0), process(1.0), process(2.0)])
    values = [20.0, 21.0, 22.0]
    half, _ = noise.rerun_half_width(21.0, statistics.stdev(values), 3, None, stats.t_quantile_99)
    assert (combined.value, combined.processes) == (21.0, 3)
    assert (combined.low, combined.high) == pytest.approx((21.0 - half, 21.0 + half))
    assert combined.scope == "a rerun of as many processes"
    # and what combine keeps for the combined record is that figure
    from benchlab.statistics.combine import combine_processes
    kept = combine_processes([process(0.0), process(1.0), process(2.0)])
    assert difference.of_record(kept) == combined
    assert "base_samples" not in kept.reported  # one process's list would not pair with the pooled samples


def test_the_base_runs_whenever_its_benchmark_does(binary):
    rows = results(run_binary(binary, *FAST, "--filter=syscall"))
    assert sorted(rows) == ["args_0", "syscall_0"]
    assert rows["syscall_0"]["difference_to"] == "args_0"


def test_the_table_shows_the_difference(binary):
    table = run_binary(binary, "--format=table", "--samples=10", "--time-limit=0.05", "--filter=syscall")
    line = next(line for line in table.splitlines() if line.startswith("syscall_0"))
    # a time in any unit: under load the difference of a syscall can be microseconds
    assert re.search(r"  -args_0: -?[0-9.]+(ns|us|ms|s) \[", line), line


@pytest.mark.parametrize("pair, message", [
    ("BL_DIFFERENCE(syscall_0, nosuch)", 'no benchmark named "nosuch"'),
    ("BL_DIFFERENCE(syscall_0, syscall_0)", "a benchmark cannot be its own base"),
    ("BL_DIFFERENCE(copy_base, copy)", "copy has no instance with size=16 to pair with copy_base's"),
    ("BL_DIFFERENCE(args_0, copy)", "copy has parameters and args_0 none"),
])
def test_a_pair_that_cannot_be_measured_is_one_error_before_anything_runs(tmp_path, pair, message):
    source = PROGRAM.replace("BL_DIFFERENCE(syscall_0, args_0)\n", "").replace("BL_DIFFERENCE(copy, copy_base)\n", "")
    source = source.replace("BL_MAIN()", pair + "\nBL_MAIN()")
    binary = compile_c(write(tmp_path / "bad.c", source), tmp_path / "bad")
    done = subprocess.run([str(binary), "--format=jsonl"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("benchlab: BL_DIFFERENCE(") and message in done.stderr
    assert done.stderr.count("\n") == 1


def test_two_bases_for_one_benchmark_do_not_compile(tmp_path):
    source = PROGRAM.replace("BL_MAIN()", "BL_DIFFERENCE(copy, args_0)\nBL_MAIN()")
    done = subprocess.run(["cc", "-c", f"-I{REPO / 'include'}", "-x", "c", "-", "-o",
                           str(tmp_path / "two.o")], input=source, capture_output=True, text=True)
    assert done.returncode != 0 and "bl__register_difference_copy" in done.stderr


@pytest.mark.parametrize("reported", [
    {"difference_to": "args_0", "base_samples": ["a", "b", "c", "d", "e"]},
    {"difference_to": "args_0", "base_samples": [None] * 5},  # printed `nan ns [nan, nan]`
    {"difference_to": "args_0", "base_samples": [True, 10.0, 10.0, 10.0, 10.0]},
    {"difference_to": 7, "base_samples": [10.0] * 5},
    {difference.COMBINED_KEY: {"base": "args_0", "value": "x", "low": 1.0, "high": 2.0, "processes": 1,
                               "scope": "within this run"}},
    {difference.COMBINED_KEY: {"base": "args_0", "value": 20.0, "low": 1.0, "high": 2.0, "processes": "2",
                               "scope": "within this run"}},
])
def test_a_stored_difference_of_the_wrong_type_is_no_figure_and_show_still_shows_the_run(project, benchlab, reported):
    # Rows stored before imports were checked (issue 37): `show` broke on them for good.
    from benchlab.storage.store import open_store
    (project / ".benchlab").mkdir()
    store = open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}")
    run_id = store.begin_run(["benchlab", "run"], ["native"], {"seed": 1})
    records = [Record(bench="args_0", param=None, samples=[10.0, 10.1, 10.2, 9.9, 10.0], platform="native",
                      binary="b", format="jsonl"),
               Record(bench="syscall_0", param=None, samples=[30.0, 30.1, 30.2, 29.9, 30.0], platform="native",
                      binary="b", format="jsonl", reported=reported)]
    store.add_unit(run_id, records, [])
    store.finish_run(run_id, "complete", 0)
    assert difference.of_record(records[1]) is None
    shown = benchlab("show", str(run_id))
    assert (shown.exit_code, shown.stderr) == (0, "")
    assert "syscall_0" in shown.stdout and "nan" not in shown.stdout and "differences to a base" not in shown.stdout
