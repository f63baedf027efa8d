"""Instruction counts under callgrind (issue 10): the header's instruction regions, the
dumps read back, the callgrind platform, and compare telling code from machine changes."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchlab import deterministic
from benchlab.profiling import callgrind
from benchlab.profiling.callgrind import CallgrindError, read_dump, result_records, split_output
from benchlab.statistics.combine import combine
from benchlab.statistics.compare import CODE_CHANGED, EXACT, MACHINE_CHANGED, NOT_SLOWER, SLOWER, compare
from benchlab.config import load_config
from benchlab.errors import UserError
from benchlab.records import Record
from benchlab.measuring.platforms import resolve_platforms
from conftest import REPO, write

DATA = REPO / "tests" / "python" / "data" / "callgrind"

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None and os.environ.get("CI") != "true",
                                    reason="valgrind is not installed (scripts/setup.sh installs it)")

#: Bodies whose instruction counts we can reason about: volatile additions cannot be
#: merged or removed, so add16 runs exactly 8 more of them per iteration than add8.
KNOWN = textwrap.dedent("""\
    #include "benchlab.h"
    static volatile uint64_t sink;
    #define ADD8 sink += 1; sink += 1; sink += 1; sink += 1; sink += 1; sink += 1; sink += 1; sink += 1;
    BL_BASELINE(loop, n) { for (uint64_t i = 0; i < n; i++) BL_CLOBBER(); }
    BL_BENCH(add8, n) { for (uint64_t i = 0; i < n; i++) { ADD8 } }
    BL_BENCH(add16, n) { for (uint64_t i = 0; i < n; i++) { ADD8 ADD8 } }
    BL_BENCH(add8_setup, n) {          /* the same loop, with suspended work around it */
        BL_SUSPEND { for (int k = 0; k < 1000; k++) sink += 1; }
        for (uint64_t i = 0; i < n; i++) { ADD8 }
        BL_SUSPEND { sink += 1; }
    }
    BL_BENCH(suspend_inside, n) { for (uint64_t i = 0; i < n; i++) { BL_SUSPEND { sink += 1; } ADD8 } }
    BL_BENCH_ARGS(adds, n, k, 8, 16) { for (uint64_t i = 0; i < n; i++) for (int64_t j = 0; j < k; j++) sink += 1; }
    BL_MAIN()
""")


def figures(output: str) -> dict[tuple, dict]:
    """(bench, param, counter) -> result record of benchlab.profiling.callgrind's output."""
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return {(r["bench"], r["param"], r["counter"]): r for r in records if r["type"] == "result"}


def count(binary: Path, *args: str, options: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchlab.callgrind", *options, str(binary), *args],
                          capture_output=True, text=True, env={**os.environ, "BL_NO_WARN": "1"})


@pytest.fixture(scope="module")
def known_binaries(tmp_path_factory) -> dict[str, Path]:
    """KNOWN built as users build it: static bodies, -O2; gcc, clang, g++ (C++ names),
    and with the implementation defined in the file and link-time optimization."""
    directory = tmp_path_factory.mktemp("callgrind")
    c = write(directory / "known.c", KNOWN)
    cpp = write(directory / "known.cpp", KNOWN)
    builds = {"gcc -O2": ["gcc", "-O2", str(c)], "clang -O2": ["clang", "-O2", str(c)],
              "g++ -O2 -DBENCHLAB_IMPLEMENTATION": ["g++", "-O2", "-DBENCHLAB_IMPLEMENTATION", str(cpp)],
              "gcc -O3 -flto": ["gcc", "-O3", "-flto", str(c)]}
    binaries = {}
    for index, (name, command) in enumerate(builds.items()):
        if shutil.which(command[0]) is None:
            continue
        output = directory / f"known{index}"
        subprocess.run([*command, f"-I{REPO / 'include'}", "-o", str(output)], check=True, capture_output=True)
        binaries[name] = output
    return binaries


# -- the header's regions, counted by the real callgrind --------------------------------------

@needs_valgrind
def test_instructions_per_iteration_of_bodies_with_a_known_count(known_binaries):
    assert {"gcc -O2", "clang -O2"} <= set(known_binaries)
    for build, binary in known_binaries.items():
        result = count(binary)
        assert result.returncode == 0, (build, result.stderr)
        got = figures(result.stdout)
        per = {bench: got[(bench, None, "instructions")]["samples"] for bench in ("loop", "add8", "add16", "add8_setup")}
        loop, add8, add16, setup = (per[b][0] for b in ("loop", "add8", "add16", "add8_setup"))
        assert all(len(s) == 1 for s in per.values()), build
        # Exact counts: 8 volatile additions cost 8 times one (1 instruction, or load-add-store)
        addition = (add8 - loop) / 8
        assert addition in (1.0, 3.0), (build, per)
        assert add16 - add8 == add8 - loop == 8 * addition, (build, per)
        assert (add16 - loop) / (add8 - loop) == 2.0
        assert 2 <= loop <= 3 and loop == int(loop), (build, per)   # increment, compare, branch (clang fuses)
        # BL_SUSPEND blocks outside the loop cancel exactly, however much they do
        assert setup == add8, (build, per)
        record = got[("add8", None, "instructions")]
        assert (record["unit"], record["deterministic"], record["iterations"], record["sample_iterations"]) == \
            ("instructions", True, callgrind.DEFAULT_ITERATIONS, [callgrind.DEFAULT_ITERATIONS])
        a, b = record["region_totals"]
        assert (b - a) / callgrind.DEFAULT_ITERATIONS == add8
        # a parameter: k additions a call
        assert got[("adds", 16, "instructions")]["samples"][0] > got[("adds", 8, "instructions")]["samples"][0]
        inside = got[("suspend_inside", None, "instructions")]
        assert inside["supported"] is False and inside["samples"] == []
        assert inside["reason"].startswith("BL_SUSPEND inside the loop (1000 blocks at 1000 iterations, 2000 at 2000)")


@needs_valgrind
def test_counts_are_identical_run_to_run_and_independent_of_n(known_binaries):
    binary = known_binaries["gcc -O2"]
    first, second = count(binary, "--filter=add"), count(binary, "--filter=add")
    assert first.returncode == second.returncode == 0
    a, b = figures(first.stdout), figures(second.stdout)
    # loop (the baseline), add8, add16, add8_setup, adds/8, adds/16: instructions and estimated cycles each
    assert a.keys() == b.keys() and len(a) == 12
    for key in a:
        assert a[key]["samples"] == b[key]["samples"] and a[key]["region_totals"] == b[key]["region_totals"], key
    small = figures(count(binary, "--filter=add", options=("--iterations", "7")).stdout)
    assert {k: r["samples"] for k, r in small.items()} == {k: r["samples"] for k, r in a.items()}
    assert small[("add8", None, "instructions")]["iterations"] == 7


@needs_valgrind
def test_simulated_cache_misses_with_cache_sim(known_binaries):
    result = count(known_binaries["gcc -O2"], "--filter=add8", options=("--cache-sim",))
    assert result.returncode == 0, result.stderr
    got = figures(result.stdout)
    assert {c for _, _, c in got} == {"instructions", "estimated-cycles", "I1-misses", "D1-misses", "LL-misses"}
    miss = got[("add8", None, "D1-misses")]
    assert miss["unit"] == "misses" and miss["samples"] == [0.0]   # one hot variable: no misses once warm
    assert "simulated" in miss["source"]


#: One loop, two strides: the same instructions an iteration (the stride is a value read at run
#: time, not a constant the compiler could fold), but stride 8 reads a new cache line every 8th
#: iteration and stride 64 every iteration, in a buffer far larger than the simulated LL.
STRIDES = textwrap.dedent("""\
    #include "benchlab.h"
    #include <stdlib.h>
    static unsigned char *buffer;
    static volatile size_t stride_of[2] = {8, 64};
    static volatile uint64_t sink;
    #define SIZE ((size_t)64 << 20)
    static void walk(uint64_t n, size_t stride) {
        static size_t pos;
        uint64_t sum = 0;
        if (!buffer) buffer = calloc(SIZE, 1);
        for (uint64_t i = 0; i < n; i++) { sum += buffer[pos]; pos = (pos + stride) & (SIZE - 1); }
        sink = sum;
    }
    BL_BENCH(near, n) { walk(n, stride_of[0]); }
    BL_BENCH(far, n) { walk(n, stride_of[1]); }
    BL_MAIN()
""")


@needs_valgrind
def test_a_memory_bound_change_moves_estimated_cycles_and_not_instructions(tmp_path):
    source = write(tmp_path / "strides.c", STRIDES)
    subprocess.run(["gcc", "-O2", f"-I{REPO / 'include'}", str(source), "-o", str(tmp_path / "strides")], check=True)
    result = count(tmp_path / "strides")
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr    # valgrind's note on the host's L3 is not passed on
    got = figures(result.stdout)
    near, far = ({c: got[(b, None, c)]["samples"][0] for c in ("instructions", "estimated-cycles")}
                 for b in ("near", "far"))
    assert near["instructions"] == far["instructions"]
    # stride 64: an L1 and an LL miss every iteration (110 cycles); stride 8: one in 8 (13.75)
    assert far["estimated-cycles"] - far["instructions"] == 110.0
    assert near["estimated-cycles"] - near["instructions"] == 110.0 / 8
    assert got[("far", None, "instructions")]["system_calls"] == 0.0


def test_the_header_refuses_a_bad_BL_CALLGRIND(small_bench_binary):
    for value in ("abc", "0", "-1", "1000000001"):
        result = subprocess.run([str(small_bench_binary)], capture_output=True, text=True,
                                env={**os.environ, "BL_CALLGRIND": value})
        assert (result.returncode, result.stderr) == (
            2, f'benchlab: BL_CALLGRIND must be a whole number of iterations from 1 to 1000000000 (got "{value}")\n')


def test_the_header_prints_regions_without_valgrind_too(small_bench_binary):
    """Outside callgrind the regions run all the same: the lines name them in order."""
    result = subprocess.run([str(small_bench_binary), "--filter=copy", "--format=table"], capture_output=True,
                            text=True, env={**os.environ, "BL_CALLGRIND": "5"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert json.loads(lines[0])["type"] == "context"          # jsonl whatever --format says
    regions = [json.loads(line) for line in lines[1:]]
    assert [(r["bench"], r["param"], r["iterations"], r["warm_up"]) for r in regions] == [
        ("empty", None, 5, True), ("empty", None, 5, False), ("empty", None, 10, False),
        ("copy", 16, 5, True), ("copy", 16, 5, False), ("copy", 16, 10, False),
        ("copy", 1024, 5, True), ("copy", 1024, 5, False), ("copy", 1024, 10, False)]


@needs_valgrind
def test_a_stripped_binary_is_a_clear_error(known_binaries, tmp_path):
    stripped = tmp_path / "stripped"
    shutil.copy(known_binaries["gcc -O2"], stripped)
    subprocess.run(["strip", str(stripped)], check=True)
    result = count(stripped)
    assert result.returncode == 1
    assert result.stderr.endswith(
        f"benchlab.profiling.callgrind: callgrind wrote no dump for the 21 regions of {stripped}: it found no function named "
        "bl__callgrind_region (a stripped binary? build without -s and without strip)\n")


def test_missing_valgrind_is_a_clear_error(tmp_path, monkeypatch, small_bench_binary):
    result = subprocess.run([sys.executable, "-m", "benchlab.callgrind", "--valgrind", "no-such-valgrind",
                             str(small_bench_binary)], capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (
        127, "benchlab.profiling.callgrind: 'no-such-valgrind' is not on PATH (fix: apt-get install valgrind)\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    [platform] = resolve_platforms(["callgrind"], load_config(None))
    with pytest.raises(UserError) as error:
        platform.check_available()
    assert str(error.value.what) == ("platform 'callgrind' needs 'valgrind', which is not on PATH (it counts "
                                     "instructions with valgrind's callgrind)")
    assert error.value.fix == "apt-get install valgrind"


def test_bad_iterations_are_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "benchlab.callgrind", "--iterations", "0", "x"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "argument --iterations: must be a whole number from 1 to 1000000000 (got '0')" in result.stderr


# -- real callgrind dumps, read back (tests/python/data/callgrind: data.c at BL_CALLGRIND=100) --

def dumps() -> list[dict[str, int]]:
    return [read_dump(DATA / f"dump.{k}") for k in range(1, 13)]


def test_reading_real_dumps_with_trailing_zeros_left_out():
    costs = dumps()
    assert costs[0] == {"Ir": 313, "Dr": 2, "Dw": 1, "I1mr": 2, "D1mr": 0, "D1mw": 0, "ILmr": 2, "DLmr": 0, "DLmw": 0}
    assert costs[1] == {"Ir": 313, "Dr": 2, "Dw": 1, "I1mr": 0, "D1mr": 0, "D1mw": 0, "ILmr": 0, "DLmr": 0, "DLmw": 0}
    assert costs[11]["Ir"] == 1816 and costs[11]["D1mr"] == 200 and costs[11]["DLmr"] == 200


def test_records_from_real_dumps():
    _, regions = split_output((DATA / "regions.jsonl").read_text())
    records = {(r["bench"], r["counter"]): r for r in result_records(regions, dumps(), cache_sim=True, misses=True)}
    samples = {key: r["samples"] for key, r in records.items()}
    assert samples[("loop", "instructions")] == [3.0]            # (613 - 313) / 100
    assert samples[("add8", "instructions")] == [27.0]           # (5414 - 2714) / 100
    assert samples[("add8_setup", "instructions")] == [27.0]     # (10474 - 7774) / 100: the suspended work cancels
    assert samples[("walk", "instructions")] == [9.0]
    assert samples[("walk", "D1-misses")] == [1.0]               # a new cache line every iteration
    assert samples[("walk", "LL-misses")] == [1.0]
    assert samples[("walk", "I1-misses")] == [0.0]               # the warm-up region's misses are skipped
    assert records[("walk", "instructions")]["region_totals"] == [916, 1816]
    # 9 instructions, 1 L1 and 1 LL miss an iteration: 9 + 10 * 1 + 100 * 1
    assert samples[("walk", "estimated-cycles")] == [119.0]
    assert samples[("add8", "estimated-cycles")] == [27.0]       # no misses once warm: the instructions alone
    plain = {r["counter"] for r in result_records(regions, dumps(), cache_sim=False)}
    assert plain == {"instructions"}
    simulated = {r["counter"] for r in result_records(regions, dumps(), cache_sim=True)}
    assert simulated == {"instructions", "estimated-cycles"}
    # dumps recorded before system calls were counted (no sysCount): no system_calls field, not a 0
    assert "system_calls" not in records[("walk", "instructions")]


#: A callgrind file as callgrind writes one dump (events, a function's costs, totals), with
#: every event the estimate weighs set to a value of its own, so a weight applied to the
#: wrong event gives another number.
SYNTHETIC_DUMP = """\
# callgrind format
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw sysCount sysTime
fn=(1) bl__callgrind_region
0 {totals}
totals: {totals}
"""


def test_the_counters_made_are_the_ones_the_gate_and_the_config_know():
    assert tuple(callgrind.counters_of(cache_sim=True, misses=True)) == deterministic.COUNTERS


def test_estimated_cycles_of_a_synthetic_callgrind_file(tmp_path):
    """estimated-cycles = Ir + 10 (I1mr + D1mr + D1mw) + 100 (ILmr + DLmr + DLmw) per
    iteration, by the difference of the regions at N and 2N; Dr, Dw and the system calls'
    time weigh nothing; the system calls per iteration are the record's `system_calls`."""
    totals = {"warm": "999 999 999 99 99 99 9 9 9 99 99999",
              "n": "1000 300 200 3 5 7 1 2 4 10 5000",
              "2n": "1900 600 400 4 25 17 2 12 6 20 12000"}
    for name, line in totals.items():
        write(tmp_path / name, SYNTHETIC_DUMP.format(totals=line))
    costs = [read_dump(tmp_path / name) for name in totals]
    assert costs[1] == {"Ir": 1000, "Dr": 300, "Dw": 200, "I1mr": 3, "D1mr": 5, "D1mw": 7, "ILmr": 1, "DLmr": 2,
                        "DLmw": 4, "sysCount": 10, "sysTime": 5000}
    regions = [{"type": "callgrind_region", "bench": "b", "param": None, "param_name": None, "iterations": n,
                "suspends": 0, "warm_up": warm} for n, warm in ((10, True), (10, False), (20, False))]
    records = {r["counter"]: r for r in result_records(regions, costs, cache_sim=True)}
    # differences: Ir 900; L1 misses 1 + 20 + 10 = 31; LL misses 1 + 10 + 2 = 13
    # 900 + 10 * 31 + 100 * 13 = 2510 over 10 iterations
    cycles = records["estimated-cycles"]
    assert cycles["samples"] == [251.0] and cycles["region_totals"] == [1000 + 10 * 15 + 100 * 7,
                                                                        1900 + 10 * 46 + 100 * 20]
    assert (cycles["unit"], cycles["deterministic"], cycles["system_calls"]) == ("cycles", True, 1.0)
    assert "Ir + 10 (I1mr + D1mr + D1mw) + 100 (ILmr + DLmr + DLmw)" in cycles["source"]
    assert records["instructions"]["samples"] == [90.0] and records["instructions"]["system_calls"] == 1.0


def test_bad_dumps_and_regions_are_errors_that_say_why(tmp_path):
    _, regions = split_output((DATA / "regions.jsonl").read_text())
    with pytest.raises(CallgrindError, match="^11 dumps for 12 regions$"):
        result_records(regions, dumps()[:11], cache_sim=False)
    swapped = regions[:1] + [regions[2], regions[1]] + regions[3:]
    with pytest.raises(CallgrindError, match="regions 1 and 2 are not one benchmark at N and 2N"):
        result_records(swapped, dumps(), cache_sim=False)
    write(tmp_path / "junk", "not a dump\n")
    with pytest.raises(CallgrindError, match="junk is not a callgrind dump: no 'events:' and 'totals:' lines"):
        read_dump(tmp_path / "junk")
    write(tmp_path / "bad", "events: Ir\ntotals: 12 x\n")
    with pytest.raises(CallgrindError, match="totals '12 x' do not match events 'Ir'"):
        read_dump(tmp_path / "bad")
    with pytest.raises(CallgrindError, match="a region line is not JSON"):
        split_output('{"type":"callgrind_region", nope\n')
    shrinking = [dict(r) for r in regions[:3]]
    costs = [{"Ir": 500}, {"Ir": 500}, {"Ir": 400}]
    [record] = result_records(shrinking, costs, cache_sim=False)
    assert record["supported"] is False
    assert record["reason"] == ("fewer instructions at 200 iterations (400) than at 100 (500): the body's cost "
                                "per iteration is not steady")


def test_one_reader_gives_a_region_dumps_functions_and_its_totals_which_agree():
    """The reader `profile --instructions` uses reads the platform's dumps too: compressed names
    (`fn=(1028) bl__body_loop`, then `cfn=(1028)`) resolved, and the functions' own instructions
    adding up to the dump's own total."""
    for k in range(1, 13):
        counts = callgrind.read_file(DATA / f"dump.{k}")
        assert counts.total == read_dump(DATA / f"dump.{k}")["Ir"], k
        assert all(not name.startswith("(") and not obj.startswith("(") for name, obj in counts.self_costs), k
    counts = callgrind.read_file(DATA / "dump.2")
    assert counts.self_costs[("bl__body_loop", "/tmp/cgx/k/data")] == 305
    assert counts.self_costs[("bl__callgrind_region", "/tmp/cgx/k/data")] == 8
    assert counts.calls[(("bl__callgrind_region", "/tmp/cgx/k/data"), ("bl__body_loop", "/tmp/cgx/k/data"))] == 305
    assert counts.inclusive(lambda location: location[0] == "bl__callgrind_region") == 313


def test_one_command_line_builder_for_the_platform_and_for_profile(tmp_path):
    region = callgrind.valgrind_argv(["./b", "--x"], tmp_path, collect=[callgrind.REGION_FUNCTION],
                                     dump_after=callgrind.REGION_FUNCTION, cache_sim=False, valgrind="/usr/bin/valgrind")
    assert region == ["/usr/bin/valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={tmp_path}/callgrind.out.%p",
                      "--collect-atstart=no", "--toggle-collect=bl__callgrind_region",
                      "--dump-after=bl__callgrind_region", "--cache-sim=no", "--", "./b", "--x"]
    simulated = callgrind.valgrind_argv(["./b"], tmp_path, cache_sim=True, system_calls=True)
    assert simulated[-7:] == ["--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64",
                              "--collect-systime=yes", "--", "./b"]
    profile = callgrind.valgrind_argv(["./b"], tmp_path, collect=["bl__body_a", "bl__body_a.*"], trace_children=True,
                                      plain=True)
    assert profile == ["valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={tmp_path}/callgrind.out.%p",
                       "--trace-children=yes", "--compress-strings=no", "--compress-pos=no", "--dump-instr=no",
                       "--collect-atstart=no", "--toggle-collect=bl__body_a", "--toggle-collect=bl__body_a.*",
                       "--", "./b"]
    # counting from the start when no function is named; the program's own options stay its own
    assert callgrind.valgrind_argv(["./b", "--quiet"], tmp_path)[-3:] == ["--", "./b", "--quiet"]
    assert "--collect-atstart=no" not in callgrind.valgrind_argv(["./b"], tmp_path)


# -- the platform, the store, compare and gate ------------------------------------------------

def test_the_callgrind_platform_runs_benchlab_callgrind():
    [native, platform] = resolve_platforms(["native", "callgrind"], load_config(None))
    assert platform.argv("/b/x", ["--format=jsonl"], "/s", "/r") == [
        sys.executable, "-m", "benchlab.callgrind", "/b/x", "--format=jsonl"]
    assert platform.build == "native" and platform.counts_instructions and not native.counts_instructions


def instructions(bench, value, processes=3):
    return [Record(bench=bench, param=None, counter="instructions", unit="instructions", samples=[value],
                   iterations=1000, platform="callgrind", binary="x",
                   reported={"process": p, "deterministic": True}) for p in range(processes)]


def time(bench, median, processes=3):
    return [Record(bench=bench, param=None, samples=[median * f for f in (0.999, 1.0, 1.001)] * 4,
                   platform="native", binary="x", reported={"process": p}) for p in range(processes)]


def test_a_deterministic_counter_is_exact_and_any_difference_is_real():
    [same] = compare(instructions("b", 1000.0), instructions("b", 1000.0))
    assert (same.verdict, same.low, same.high, same.floor, same.scope) == (NOT_SLOWER, 1.0, 1.0, 0.0, EXACT)
    [one_more] = compare(instructions("b", 1000.0), instructions("b", 1001.0))
    assert one_more.verdict == SLOWER and one_more.low == one_more.high == 1.001 and one_more.deterministic
    assert one_more.cause == CODE_CHANGED
    # a single process is exact too: no "(1 process)" caveat
    [single] = compare(instructions("b", 1000.0, 1), instructions("b", 999.0, 1))
    assert single.scope == EXACT and single.low == single.high == 0.999 and single.faster


def test_code_changed_and_machine_changed():
    a = time("code", 100.0) + instructions("code", 50.0) + time("machine", 100.0) + instructions("machine", 50.0) \
        + time("steady", 100.0) + instructions("steady", 50.0) + time("alone", 100.0)
    b = time("code", 120.0) + instructions("code", 60.0) + time("machine", 130.0) + instructions("machine", 50.0) \
        + time("steady", 100.0) + instructions("steady", 50.0) + time("alone", 150.0)
    causes = {(c.key[0], c.key[2]): (c.verdict, c.cause) for c in compare(a, b)}
    assert causes == {
        ("code", "time"): (SLOWER, CODE_CHANGED), ("code", "instructions"): (SLOWER, CODE_CHANGED),
        ("machine", "time"): (SLOWER, MACHINE_CHANGED), ("machine", "instructions"): (NOT_SLOWER, None),
        ("steady", "time"): (NOT_SLOWER, None), ("steady", "instructions"): (NOT_SLOWER, None),
        ("alone", "time"): (SLOWER, None)}   # no instruction count: no cause to give


SLEEPER = textwrap.dedent("""\
    #include "benchlab.h"
    #include <fcntl.h>
    #include <stdlib.h>
    #include <unistd.h>
    static volatile uint64_t sink;
    static char buffer[1 << 20];
    /* WORK (volatile additions per iteration) changes the code's work; READ_BYTES changes how long the
       kernel takes for the same user-space instructions (read's libc wrapper is the same for any size). */
    static long knob(const char *name) { const char *v = getenv(name); return v ? atol(v) : 0; }
    BL_BENCH(work, n) { long k = knob("WORK"); for (uint64_t i = 0; i < n; i++) for (long j = 0; j < k; j++) sink += 1; }
    BL_BENCH(zeros, n) {
        size_t bytes = (size_t)knob("READ_BYTES");
        int fd = -1;
        BL_SUSPEND { fd = open("/dev/zero", O_RDONLY); }
        for (uint64_t i = 0; i < n; i++) BL_KEEP(read(fd, buffer, bytes));
        BL_SUSPEND { close(fd); }
    }
    BL_MAIN()
""")


@needs_valgrind
def test_stored_runs_of_native_and_callgrind_compare_with_causes(project, benchlab, monkeypatch):
    write(project / "sleeper.c", SLEEPER)
    write(project / "benchlab.toml", '[platforms.cg]\ncommand = ["' + sys.executable +
          '", "-m", "benchlab.callgrind", "--iterations", "20", "{exe}", "{args}"]\n')
    monkeypatch.setenv("BL_NO_WARN", "1")
    monkeypatch.setenv("WORK", "200")
    monkeypatch.setenv("READ_BYTES", "64")
    # Effects far beyond the noise of a loaded 2-core machine (a nanosleep of 1 ns took 60 us to 1 ms there,
    # process to process: sleeping is no measure of a machine)
    first = benchlab("run", "sleeper.c", "--platform", "native,cg", "--processes", "5", "--samples", "10",
                     "--time-limit", "0.05")
    assert first.exit_code == 0, first.stderr
    monkeypatch.setenv("WORK", "4000")       # 20 times the additions: more instructions, more time
    monkeypatch.setenv("READ_BYTES", "1048576")  # the kernel copies 1 MiB: more time, the same instructions
    second = benchlab("run", "sleeper.c", "--platform", "native,cg", "--processes", "5", "--samples", "10",
                      "--time-limit", "0.05")
    assert second.exit_code == 0, second.stderr
    document = json.loads(benchlab("compare", "1", "2", "--format", "json").stdout)
    rows = {(c["test"], c["counter"], c["platform"]): c for c in document["comparisons"]}
    assert set(rows) == {("work", "time", "native"), ("work", "instructions", "cg"), ("work", "estimated-cycles", "cg"),
                         ("zeros", "time", "native"), ("zeros", "instructions", "cg"),
                         ("zeros", "estimated-cycles", "cg")}
    work, zeros = rows[("work", "instructions", "cg")], rows[("zeros", "instructions", "cg")]
    assert work["deterministic"] and work["ratio_ci"][0] == work["ratio_ci"][1] and work["noise_floor"] == 0
    # a = o + 200 c per iteration, then b = o + 4000 c: c (one addition and its loop) a whole number, o the
    # outer loop's few
    c = (work["b"] - work["a"]) / 3800
    assert c == int(c) and 1 <= c <= 6 and 0 < work["a"] - 200 * c <= 10, (work["a"], work["b"])
    assert (zeros["verdict"], zeros["ratio"], zeros["ratio_ci"]) == ("not slower", 1.0, [1.0, 1.0])
    assert (rows[("work", "time", "native")]["verdict"], rows[("work", "time", "native")]["cause"]) == \
        ("slower", "code changed")
    assert (rows[("zeros", "time", "native")]["verdict"], rows[("zeros", "time", "native")]["cause"]) == \
        ("slower", "machine changed")
    table = benchlab("compare", "1", "2").stdout
    assert any(line.startswith("zeros ") and line.endswith("slower: machine changed") for line in table.splitlines())
    assert "code changed: the benchmark's instruction count moved too" in table
    # gate: the instruction count is a counter like any other
    gate = benchlab("gate", "--baseline", "1", "2", "--max-regression", "5")
    assert gate.exit_code == 3
    regressions = [line for line in gate.stderr.splitlines() if line.startswith("regression: ")]
    assert any(line.startswith("regression: work [instructions] on cg: ") and line.endswith(
        "more than 5% slower (code changed)") for line in regressions), regressions
    assert any(line.startswith("regression: zeros on native: ") and line.endswith("(machine changed)")
               for line in regressions), regressions
    # gate --judge counts, on what the platform stored: work on its counts; zeros, one read(2) an
    # iteration (the kernel copies what the counts cannot see), on its time, named system-call bound
    counts = benchlab("gate", "--baseline", "1", "2", "--max-regression", "5", "--judge", "counts", "--format", "json")
    assert counts.exit_code == 3, counts.stderr
    judged = {(row["test"], row["counter"]): (row["verdict"], row["judged_on"], row["judged_on_reason"])
              for row in json.loads(counts.stdout)["comparisons"]}
    assert judged == {("work", "instructions"): ("slower", "counts", None),
                      ("work", "estimated-cycles"): ("slower", "counts", None),
                      ("zeros", "time"): ("slower", "time", "system-call bound")}
    assert "judged on time: zeros: system-call bound: 1 system call(s) an iteration beside" in counts.stderr


def test_platforms_separated_by_commas(project, benchlab):
    write(project / "b.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab("run", "b.sh", "--platform", "native,jvm")
    assert (result.exit_code, result.stderr) == (2, (
        "error: unknown platform 'jvm' (from --platform) (use one of: native, wasm, qemu, valgrind, callgrind, "
        "or define [platforms.jvm] in benchlab.toml)\n"))
    empty = benchlab("run", "b.sh", "--platform", "")
    assert empty.exit_code == 2 and "unknown platform ''" in empty.stderr


def test_one_process_of_a_deterministic_count_is_not_marked_uncertain():
    from benchlab.output.figures import MARK_NOISY
    from benchlab.output.table import Table
    exact = Record(bench="b", param=None, counter="instructions", unit="instructions", samples=[15.0],
                   iterations=1000, platform="callgrind", binary="x", reported={"deterministic": True})
    guessed = Record(bench="c", param=None, counter="instructions", unit="instructions", samples=[15.0],
                     iterations=1000, platform="callgrind", binary="x")
    cells = {row.test: row.cells["callgrind"] for row in Table(["callgrind"], [exact, guessed], []).rows}
    assert cells["b"].marks == "" and cells["c"].marks == MARK_NOISY


@needs_valgrind
def test_a_body_that_crashes_passes_its_exit_status_and_no_figures(tmp_path):
    source = write(tmp_path / "crash.c", """\
        #include "benchlab.h"
        #include <stdlib.h>
        BL_BENCH(fine, n) { for (uint64_t i = 0; i < n; i++) BL_CLOBBER(); }
        BL_BENCH(crash, n) { if (n > 1000) abort(); }
        BL_MAIN()
    """)
    binary = tmp_path / "crash"
    subprocess.run(["cc", "-O2", f"-I{REPO / 'include'}", str(source), "-o", str(binary)], check=True)
    result = count(binary)
    assert result.returncode == 134   # SIGABRT, as a shell reports it
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["type"] for line in lines] == ["context"]   # no region lines, no records


def test_a_deterministic_count_takes_no_spread_from_earlier_runs():
    """Earlier runs of other code differ in their counts: that is no spread of the machine."""
    from benchlab.statistics.combine import history_key
    from benchlab.statistics.noise import RunLevel
    level = RunLevel(variance=0.01, earlier_runs=5, df=4)
    a, b = instructions("b", 1000.0), instructions("b", 1000.0)
    [figure] = combine(b, {history_key(b[0]): level})
    assert figure.summary["median_ci"] == [1000.0, 1000.0]
    [c] = compare(a, b, levels={history_key(figure): level})
    assert (c.low, c.high, c.scope, c.verdict) == (1.0, 1.0, EXACT, NOT_SLOWER)
    # time, by contrast, takes it
    [timed] = compare(time("b", 100.0), time("b", 100.0), levels={history_key(combine(time("b", 100.0))[0]): level})
    assert timed.high > 1.05
