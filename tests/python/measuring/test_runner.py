"""runner.py by concern, without the command line: the --sweep flag, the arguments each flavor
of binary is given, layout randomization, what a binary's stderr, exit and output mean, the
plan, and one process of a unit on real targets (a C source built by the real Builder,
prebuilt executables, workloads): its records, faults, layout and CPU, a source that does not
compile, and the identity of the code it ran. `benchlab run` end to end is cli/test_run.py's."""
from __future__ import annotations

import hashlib
import io
import json
import os
import random
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from conftest import HEADER, write

from benchlab import limits
from benchlab.measuring import runner as runner_module
from benchlab.statistics import noise
from benchlab.measuring.build import Builder, BuildFailed
from benchlab.config import PlatformSpec, load_config
from benchlab.errors import UserError
from benchlab.formats.parsers import Parsed
from benchlab.measuring.platforms import Platform, builtin_platforms
from benchlab.measuring.process import Outcome
from benchlab.records import NOT_BUILT, Fault, Record
from benchlab.measuring.runner import (
    ENV_PAD_VARIABLE, RunOptions, Runner, Sweep, benchmark_arguments, layout_env, machine_warnings, no_match,
    process_seed, read_output)
from benchlab.measuring.targets import resolve_targets

#: Every CPU this process may run on: a spread run starts process k on CPUS[k % len(CPUS)].
CPUS = sorted(os.sched_getaffinity(0))
spreads = pytest.mark.skipif(len(CPUS) < 2, reason="one CPU: nothing to spread over")

TINY = """\
    #include "benchlab.h"
    BL_BENCH(spin, n) { uint64_t x = 0; for (uint64_t i = 0; i < n; i++) { x += i; BL_KEEP(x); } }
    BL_MAIN()
"""
BROKEN = '#include "benchlab.h"\nBL_BENCH(x, n) { not_declared; }\nBL_MAIN()\n'
THREADED = """\
    #include <pthread.h>
    #include "benchlab.h"
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    BL_BENCH(locked, n) { for (uint64_t i = 0; i < n; i++) { pthread_mutex_lock(&lock); pthread_mutex_unlock(&lock); } }
    BL_MAIN()
"""
#: A prebuilt executable that reports what it was given and where it ran: its arguments, working
#: directory and BL_RELEASE_CPUS in its context, its padding and CPUs as results (one per copy).
PROBE_BODY = textwrap.dedent(f"""\
    import json, os, sys
    pad, cpus = os.environ.get("{ENV_PAD_VARIABLE}"), sorted(os.sched_getaffinity(0))
    print(json.dumps({{"type": "context", "schema": 2, "argv": sys.argv[1:], "cwd": os.getcwd(), "cpus": cpus,
                      "pad": None if pad is None else len(pad), "stack": os.environ.get("BL_STACK_OFFSET"),
                      "release": os.environ.get("BL_RELEASE_CPUS")}}))
    for bench, value in (("pad", len(pad or "")), ("cpu", cpus[0]), ("cpus", len(cpus))):
        print(json.dumps({{"type": "result", "bench": bench, "param": None, "samples": [value]}}))
""")
#: Its flags' names in it make a binary a benchlab one (targets._executable_flavor).
BENCHLAB_PROBE = f"#!{sys.executable} -S\n# speaks benchlab's flags: --format=jsonl, --time-limit\n{PROBE_BODY}"
FOREIGN_PROBE = f"#!{sys.executable} -S\n# a program of its own\n{PROBE_BODY}"


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Path:
    """One project for the module: its build cache compiles each source once for every test."""
    if not HEADER.exists():
        pytest.skip("include/benchlab.h is not written yet")
    root = tmp_path_factory.mktemp("lab")
    (root / "include").mkdir()
    shutil.copy(HEADER, root / "include" / "benchlab.h")
    write(root / "benchlab.toml", """\
        [workloads.nap]
        command = ["true"]
        runs = 2
        warmups = 1

        [workloads.fails]
        command = ["false"]
        """)
    write(root / "suite" / "tiny.c", TINY)
    write(root / "broken" / "broken.c", BROKEN)
    write(root / "threaded" / "locked.c", THREADED)
    write(root / "bin" / "probe", BENCHLAB_PROBE, executable=True)
    write(root / "bin" / "foreign", FOREIGN_PROBE, executable=True)
    (root / "bin" / "module.wasm").write_bytes(b"\0asm\1\0\0\0")
    return root


def make_runner(lab: Path, platforms=("native",), **options) -> tuple[Runner, list[str]]:
    """A runner of `lab` with RunOptions(**options) (timeout 20 s and seed 11 unless given), and
    the list its warnings go to."""
    config = load_config(cwd=lab)
    specs = {**builtin_platforms(), "through_env": PlatformSpec("through_env", ["env", "{exe}", "{args}"])}
    warned: list[str] = []
    options = {"timeout": 20.0, "seed": 11, **options}
    runner = Runner(config, [Platform(specs[name]) for name in platforms], RunOptions(**options), Builder(config),
                    warned.append)
    return runner, warned


def targets(lab: Path, *names: str) -> list:
    """The targets of `names`: workload names, or paths relative to `lab`."""
    config = load_config(cwd=lab)
    return resolve_targets([name if name in config.workloads else str(lab / name) for name in names], config)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- --sweep FLAG=V1,V2,... ------------------------------------------------------------------------

@pytest.mark.parametrize("text, name, values, argument", [
    ("threads=1,2,4", "threads", ("1", "2", "4"), "-t=2"),       # the threaded mode's thread count
    (" size = 16, 1024 ,", "size", ("16", "1024"), "--size=2"),  # spaces and an empty value dropped
    ("--depth=3", "--depth", ("3",), "--depth=2"),               # a flag written out is used as is
    ("-n=1,2", "-n", ("1", "2"), "-n=2"),
    ("--instances=1,2", "--instances", ("1", "2"), "--instances=2"),  # a binary's own flag, not copies
    ("mode=a=b,c", "mode", ("a=b", "c"), "--mode=2"),            # only the first = separates the name
])
def test_a_sweep_is_a_flag_and_the_values_it_takes(text, name, values, argument):
    sweep = Sweep.parse(text)
    assert (sweep.name, sweep.values, sweep.instances) == (name, values, False)
    assert sweep.argument("2") == argument


def test_a_threads_sweep_gives_a_benchlab_program_the_long_form_every_program_takes():
    # CSB's -t=T is an error in a benchlab program without threaded targets (a flag that
    # would change nothing), and not B63's or libloong's form: --threads=T is read by all.
    sweep = Sweep.parse("threads=1,2")
    assert sweep.argument("2", "benchlab") == "--threads=2"
    assert sweep.argument("2", "executable") == "-t=2"  # a CSB binary, or any other program
    assert Sweep.parse("-t=1,2").argument("2", "benchlab") == "-t=2"  # written out: as is


def test_a_sweep_of_instances_is_copies_counted_as_whole_numbers():
    sweep = Sweep.parse(" instances = 04,1")
    assert sweep == Sweep("instances", ("4", "1")) and sweep.instances


@pytest.mark.parametrize("text", ["threads", "=1,2", " =1", "threads=", "threads= , ,", "", "instances="])
def test_a_sweep_without_a_name_or_a_value_is_one_error(text):
    with pytest.raises(UserError) as error:
        Sweep.parse(text)
    assert str(error.value) == f"--sweep {text!r} is not FLAG=V1,V2,... (write e.g. --sweep threads=1,2,4)"


@pytest.mark.parametrize("text, what", [
    ("instances=0", "--sweep instances=0: each value must be a whole number of copies from 1 to 1024 (got '0')"),
    ("instances=1,two", "--sweep instances=1,two: each value must be a whole number of copies from 1 to 1024 "
                        "(got 'two')"),
    ("instances=2,02", "--sweep instances=2,02: 2 is given twice"),
    ("n=1,2, 1", "--sweep n=1,2, 1: 1 is given twice"),
    ("--size=64,64", "--sweep --size=64,64: 64 is given twice"),
])
def test_sweep_values_are_checked_when_the_sweep_is_read(text, what):
    with pytest.raises(UserError) as error:
        Sweep.parse(text)
    assert error.value.what == what


# -- the arguments each flavor of binary is given --------------------------------------------------

def test_each_process_has_a_seed_of_its_own_drawn_from_the_runs():
    # splitmix64 of the run's seed and the process: the same run seed gives the same seeds
    # (a run is reproduced by its --seed), every process another, all 63-bit.
    seeds = [process_seed(42, process) for process in range(100)]
    assert seeds == [process_seed(42, process) for process in range(100)]
    assert len(set(seeds)) == 100 and 42 not in seeds and all(0 <= seed < 2 ** 63 for seed in seeds)
    assert process_seed(42, None) == 42 and process_seed(43, 0) != process_seed(42, 0)
    # splitmix64's published first output for state 0 (its increment added once), its top 63
    # bits (a stored integer is signed 64-bit): process 0 of run 0
    assert process_seed(0, 0) == 0xE220A8397B1DCDAF >> 1


def test_a_benchlab_binary_is_asked_for_jsonl_with_the_runs_seed():
    options = RunOptions(timeout=1, seed=7, counters="", subtract=True)  # an empty --counters is not passed
    assert benchmark_arguments("benchlab", options) == ["--format=jsonl", "--seed=7"]


def test_a_benchlab_binary_is_given_every_option_then_the_users_arguments():
    options = RunOptions(timeout=1, seed=7, samples=8, time_limit=0.05, filters=("copy", "spin/n=4"),
                         counters="cycles,page-faults", extra_args=("--list", "a b"), precision=2.5,
                         schedule="sequential", subtract=False)
    assert benchmark_arguments("benchlab", options) == [
        "--format=jsonl", "--samples=8", "--time-limit=0.05", "--seed=7", "--filter=copy", "--filter=spin/n=4",
        "--counters=cycles,page-faults", "--precision=2.5", "--schedule=sequential", "--no-subtract",
        "--list", "a b"]


@pytest.mark.parametrize("time_limit, precision, written", [
    (2.0, 1.0, ["--time-limit=2", "--precision=1"]),           # no trailing .0
    (1e-7, 0.001, ["--time-limit=1e-07", "--precision=0.001"]),
    (1000000.0, 100.0, ["--time-limit=1e+06", "--precision=100"]),  # the header's bounds
    (0.1234567, 2.0000001, ["--time-limit=0.1234567", "--precision=2.0000001"]),  # every digit given
])
def test_seconds_and_percent_are_written_as_the_header_reads_them(time_limit, precision, written):
    arguments = benchmark_arguments("benchlab", RunOptions(timeout=1, seed=0, time_limit=time_limit,
                                                           precision=precision))
    assert [a for a in arguments if a.startswith(("--time-limit", "--precision"))] == written


def test_google_benchmark_gets_its_own_flags_for_samples_and_filters_and_no_others():
    options = RunOptions(timeout=1, seed=7, samples=8, time_limit=0.05, filters=("BM_a", "BM_b/64"),
                         counters="cycles", extra_args=("--benchmark_min_time=0.01",), precision=1.0,
                         schedule="sequential", subtract=False)
    assert benchmark_arguments("gbench", options) == [
        "--benchmark_format=json", "--benchmark_repetitions=8", "--benchmark_filter=BM_a|BM_b/64",
        "--benchmark_min_time=0.01"]
    assert benchmark_arguments("gbench", RunOptions(timeout=1, seed=7)) == ["--benchmark_format=json"]


def test_a_foreign_binary_gets_only_the_users_arguments():
    options = RunOptions(timeout=1, seed=7, samples=8, time_limit=0.05, filters=("x",), counters="cycles",
                         extra_args=("-v", "--n=3"), precision=1.0, schedule="rounds", subtract=False)
    assert benchmark_arguments("foreign", options) == ["-v", "--n=3"]


# -- layout randomization ------------------------------------------------------------------------

class _Always(random.Random):
    """A generator whose every randrange(n) is `pick(n)`: the bounds of a draw, exactly."""

    def __init__(self, pick):
        super().__init__(0)
        self.pick = pick

    def randrange(self, stop, *rest):
        return self.pick(stop)


def test_the_padding_is_0_to_4096_bytes_and_the_stack_offset_0_to_4080_in_steps_of_16():
    assert layout_env(_Always(lambda n: n - 1)) == {ENV_PAD_VARIABLE: "x" * 4096, "BL_STACK_OFFSET": "4080"}
    assert layout_env(_Always(lambda n: 0)) == {ENV_PAD_VARIABLE: "", "BL_STACK_OFFSET": "0"}
    rng = random.Random(3)
    layouts = [layout_env(rng) for _ in range(4000)]
    assert {int(layout["BL_STACK_OFFSET"]) for layout in layouts} == set(range(0, 4096, 16))
    assert all(set(layout[ENV_PAD_VARIABLE]) <= {"x"} and len(layout[ENV_PAD_VARIABLE]) <= 4096 for layout in layouts)
    assert len({len(layout[ENV_PAD_VARIABLE]) for layout in layouts}) > 2000  # spread over the range


def test_the_same_seed_draws_the_same_layouts_and_another_seed_others():
    def draws(seed):
        rng = random.Random(seed)
        return [layout_env(rng) for _ in range(10)]
    assert draws(5) == draws(5)
    assert [len(d[ENV_PAD_VARIABLE]) for d in draws(5)] != [len(d[ENV_PAD_VARIABLE]) for d in draws(6)]


# -- what a binary's stderr, exit and output mean --------------------------------------------------

def test_only_the_headers_machine_warnings_are_passed_on_without_their_prefix():
    stderr = ("benchlab: warning: the CPU governor is powersave\nsomething else\n"
              "  benchlab: warning: indented, so not the header's\nbenchlab: warning: turbo is on\n")
    assert machine_warnings(stderr) == ["the CPU governor is powersave", "turbo is on"]
    assert machine_warnings("") == []


FILTERED = RunOptions(timeout=1, seed=1, filters=("nothing",))
HEADER_SAYS = "benchlab: no benchmark matches --filter=nothing (see --list)\n"
GBENCH_SAYS = "Failed to match any benchmarks against regex: nothing\n"
A_RECORD = Record(bench="x", param=None, samples=[1.0])


@pytest.mark.parametrize("flavor, options, outcome, records, expected", [
    ("benchlab", FILTERED, Outcome([], exit_status=2, stderr=HEADER_SAYS), [], True),   # the header exits 2
    ("gbench", FILTERED, Outcome([], exit_status=0, stderr=GBENCH_SAYS), [], True),     # Google Benchmark 0
    ("benchlab", FILTERED, Outcome([], exit_status=0, stderr=HEADER_SAYS), [], True),
    ("benchlab", FILTERED, Outcome([], exit_status=1, stderr=HEADER_SAYS), [], False),  # another failure
    ("benchlab", FILTERED, Outcome([], signal_number=11, stderr=HEADER_SAYS), [], False),
    ("benchlab", FILTERED, Outcome([], exit_status=2, timed_out=True, stderr=HEADER_SAYS), [], False),
    ("benchlab", FILTERED, Outcome([], exit_status=2, stderr=HEADER_SAYS), [A_RECORD], False),
    ("benchlab", FILTERED, Outcome([], exit_status=2, stderr=GBENCH_SAYS), [], False),  # the other's words
    ("foreign", FILTERED, Outcome([], exit_status=2, stderr=HEADER_SAYS), [], False),   # no filter was given it
    ("benchlab", RunOptions(timeout=1, seed=1), Outcome([], exit_status=2, stderr=HEADER_SAYS), [], False),
])
def test_a_binary_without_a_benchmark_matching_the_filter_is_filtered_out(flavor, options, outcome, records,
                                                                          expected):
    assert no_match(flavor, options, outcome, Parsed(records=records)) is expected


def test_read_output_parses_the_file_from_its_start_and_keeps_its_first_lines():
    with tempfile.TemporaryFile() as stdout:
        stdout.write(b"\n  hello \xff \n" + b"".join(b"Read\t%d\t100\t24%d\n" % (k, k) for k in range(1, 7)))
        parsed, head = read_output(stdout, "probe (native)")  # where the writing left the file: at its end
        assert not stdout.closed  # the caller's to close
        stdout.seek(0)
        assert stdout.read(4) == b"\n  h"
    assert [(r.bench, r.param, r.samples, r.binary, r.format) for r in parsed.records] == [
        ("Read", k, [240.0 + k], "probe (native)", "lind") for k in range(1, 7)]
    assert parsed.warnings == ["probe (native): line 2 is in no known format, ignored: 'hello \ufffd'"]
    assert head == ["hello \ufffd", "Read\t1\t100\t241", "Read\t2\t100\t242", "Read\t3\t100\t243",
                    "Read\t4\t100\t244"]


# -- the plan -------------------------------------------------------------------------------------

def test_the_plan_is_every_target_on_each_platform_it_runs_on_at_each_swept_value(lab):
    runner, _ = make_runner(lab, platforms=("native", "wasm"), sweep=Sweep.parse("threads=1,2"))
    units = runner.plan(targets(lab, "suite/tiny.c", "bin/probe", "bin/module.wasm", "nap"))
    assert [unit.label for unit in units] == [
        "tiny on native 1", "tiny on native 2", "tiny on wasm 1", "tiny on wasm 2",  # a source builds for both
        "probe on native 1", "probe on native 2",          # a native executable runs natively only
        "module on wasm 1", "module on wasm 2",            # a .wasm module on wasm only
        "nap on native"]                                   # a workload is no binary to give -t
    assert [unit.index for unit in units] == list(range(9))
    assert runner.builder.compiled == [] and runner.builder.reused == []  # planning builds nothing


def test_without_a_sweep_a_target_is_one_unit_per_platform(lab):
    runner, _ = make_runner(lab, platforms=("native", "through_env"))
    units = runner.plan(targets(lab, "nap", "bin/probe"))
    assert [(unit.label, unit.sweep_value, unit.index) for unit in units] == [
        ("nap on native", None, 0), ("nap on through_env", None, 1),
        ("probe on native", None, 2), ("probe on through_env", None, 3)]


# -- one process of a unit: a source built by the real Builder --------------------------------------

def test_a_source_is_built_and_run_and_its_records_say_which_unit_they_are(lab):
    runner, _ = make_runner(lab, samples=3, time_limit=0.01, seed=11, schedule="sequential", subtract=False)
    probe, tiny = runner.plan(targets(lab, "bin/probe", "suite/tiny.c"))
    result = runner.run_unit(tiny)
    assert (result.faults, result.filtered_out, result.process) == ([], False, None)
    [record] = result.records
    assert (record.bench, record.counter, len(record.samples)) == ("spin", "time", 3)  # --samples=3
    assert (record.platform, record.binary, record.format, record.sweep) == ("native", "tiny", "jsonl", None)
    assert record.reported["unit"] == 1
    assert not {"process", "env_pad", "stack_offset", "start_cpu"} & set(record.reported)  # a lone process
    # the run's options reached the binary: its context says what it ran with
    ran_with = {key: result.context[key] for key in ("seed", "samples", "time_limit_s", "schedule", "subtract",
                                                     "stack_offset")}
    assert ran_with == {"seed": 11, "samples": 3, "time_limit_s": 0.01, "schedule": "sequential",
                        "subtract": False, "stack_offset": 0}
    assert list((lab / ".benchlab" / "scratch").iterdir()) == []  # its scratch directory is gone
    assert runner.executable(tiny).parent == lab / ".benchlab" / "build" / "native"
    assert not runner.known_build_failure(tiny)


def test_each_process_has_its_own_layout_drawn_from_the_seed_and_starts_on_the_next_cpu(lab):
    def three_processes(seed):
        runner, _ = make_runner(lab, samples=3, time_limit=0.01, seed=seed)
        [tiny] = runner.plan(targets(lab, "suite/tiny.c"))
        return [runner.run_unit(tiny, process=process) for process in range(3)]

    results = three_processes(11)
    layouts = []
    for process, result in enumerate(results):
        [record] = result.records
        assert result.process == record.reported["process"] == process
        assert result.context["stack_offset"] == record.reported["stack_offset"]  # the header moved its stack
        assert record.reported["stack_offset"] % 16 == 0 and 0 <= record.reported["env_pad"] <= 4096
        if len(CPUS) > 1:  # pinned to start there, then released by the header
            assert record.reported["start_cpu"] == result.context["start_cpu"] == CPUS[process % len(CPUS)]
        layouts.append((record.reported["env_pad"], record.reported["stack_offset"]))
    again = [(r.records[0].reported["env_pad"], r.records[0].reported["stack_offset"]) for r in three_processes(11)]
    assert again == layouts and len(set(layouts)) == 3
    other = [(r.records[0].reported["env_pad"], r.records[0].reported["stack_offset"]) for r in three_processes(12)]
    assert other != layouts


def test_without_layout_randomization_or_spreading_a_process_runs_as_it_is(lab):
    runner, _ = make_runner(lab, samples=3, time_limit=0.01, randomize_layout=False, spread_cpus=False)
    [tiny] = runner.plan(targets(lab, "suite/tiny.c"))
    result = runner.run_unit(tiny, process=1)
    [record] = result.records
    assert record.reported["process"] == 1 and result.context["stack_offset"] == 0
    assert not {"env_pad", "stack_offset", "start_cpu"} & set(record.reported)


def test_a_binary_without_a_benchmark_matching_the_filter_is_filtered_out_not_failed(lab):
    runner, _ = make_runner(lab, samples=3, time_limit=0.01, filters=("nothing_like_it",))
    [tiny] = runner.plan(targets(lab, "suite/tiny.c"))
    result = runner.run_unit(tiny, process=0)
    assert (result.filtered_out, result.records, result.faults) == (True, [], [])


def test_a_source_that_does_not_compile_is_a_fault_once_known_for_every_unit_of_it(lab):
    runner, _ = make_runner(lab, sweep=Sweep.parse("threads=1,2"))
    first, second = runner.plan(targets(lab, "broken/broken.c"))
    assert not runner.known_build_failure(first)
    result = runner.run_unit(first, process=0)
    failure = runner.executable(first)
    assert isinstance(failure, BuildFailed) and runner.executable(second) is failure  # compiled once
    assert result.records == [] and result.faults == [Fault(
        "broken", "native", "does not compile for native",
        [line for line in failure.stderr.splitlines() if line.strip()][-5:],  # the compiler's last lines
        sweep={"flag": "threads", "value": "1"}, process=0)]
    assert any("not_declared" in line for line in result.faults[0].stderr_tail)
    assert runner.known_build_failure(first) and runner.known_build_failure(second)
    assert runner.builder.compiled == [] and runner.code_identity(first, {}) is None


@pytest.mark.skipif(not (shutil.which("clang") and shutil.which("wasm-ld")), reason="no wasm32-wasi toolchain")
def test_a_source_with_threads_is_not_built_for_wasm_at_any_swept_value(lab):
    runner, _ = make_runner(lab, platforms=("wasm",), sweep=Sweep.parse("threads=1,2"))
    first, second = runner.plan(targets(lab, "threaded/locked.c"))
    result = runner.run_unit(second, process=1)
    # one `-` row for the source, not one per swept value: the fault has no sweep
    assert result.faults == [Fault("locked", "wasm", "not built for wasm32-wasi: includes <pthread.h> "
                                   "(wasi-libc has no threads)", [], sweep=None, process=1, kind=NOT_BUILT)]
    assert runner.known_build_failure(first)


def test_the_code_identity_is_the_binarys_hash_with_the_platform_and_the_flags(lab):
    info = {"command": ["{exe}", "{args}"], "version": None}
    runner, _ = make_runner(lab, extra_args=("--x",), subtract=False)
    [tiny] = runner.plan(targets(lab, "suite/tiny.c"))
    code = runner.code_identity(tiny, info)
    exe = runner.executable(tiny)
    flags = {"args": ["--x"], "subtract": False}
    assert code == {"id": noise.code_id(sha256(exe), info, flags), "sha256": sha256(exe), "path": str(exe),
                    "flavor": "benchlab", "flags": flags}
    # the same binary from the build cache in another run: the same identity
    again, _ = make_runner(lab, extra_args=("--x",), subtract=False)
    assert again.code_identity(again.plan(targets(lab, "suite/tiny.c"))[0], info) == code
    assert again.builder.compiled == []
    # another platform, or flags that change what a figure means: the same binary, another code
    assert runner.code_identity(tiny, {**info, "version": "2"})["id"] != code["id"]
    plain, _ = make_runner(lab)
    plain_code = plain.code_identity(plain.plan(targets(lab, "suite/tiny.c"))[0], info)
    assert plain_code["sha256"] == code["sha256"] and plain_code["id"] != code["id"]
    assert plain_code["flags"] == {"args": [], "subtract": True} and "settings" not in plain_code
    # measurement settings given (a short run): the same binary, another code; defaults add none
    short, _ = make_runner(lab, samples=10, time_limit=0.2)
    short_code = short.code_identity(short.plan(targets(lab, "suite/tiny.c"))[0], info)
    assert short_code["settings"] == {"samples": 10, "time_limit": 0.2}
    assert short_code["id"] == noise.code_id(sha256(exe), info, {"args": [], "subtract": True,
                                                                 "settings": {"samples": 10, "time_limit": 0.2}})
    assert short_code["sha256"] == code["sha256"] and short_code["id"] != plain_code["id"]


def test_a_changed_source_is_another_binary_and_another_code(lab):
    info = {"command": ["{exe}", "{args}"]}
    source = write(lab / "changed" / "tiny.c", TINY)  # the same text elsewhere: the same cached binary
    runner, _ = make_runner(lab)
    [unit] = runner.plan(targets(lab, "changed/tiny.c"))
    before = runner.code_identity(unit, info)
    [suite_unit] = runner.plan(targets(lab, "suite/tiny.c"))
    assert before == runner.code_identity(suite_unit, info)
    source.write_text(TINY.replace("x += i;", "x += 2 * i;"))
    changed, _ = make_runner(lab)
    after = changed.code_identity(changed.plan(targets(lab, "changed/tiny.c"))[0], info)
    assert changed.builder.compiled == [Path(after["path"])]
    assert after["sha256"] == sha256(Path(after["path"])) != before["sha256"] and after["id"] != before["id"]


# -- one process of a unit: prebuilt executables --------------------------------------------------

def test_a_prebuilt_executable_is_given_the_flags_and_runs_in_a_scratch_directory(lab):
    runner, _ = make_runner(lab, samples=4, seed=5, filters=("p",), extra_args=("--extra",),
                            sweep=Sweep.parse("threads=1,2"), spread_cpus=False)
    _, unit = runner.plan(targets(lab, "bin/probe"))
    result = runner.run_unit(unit, process=1)
    context = result.context
    # its flavor's flags, the user's, then the swept value last (--threads: every benchlab program takes it)
    assert context["argv"] == ["--format=jsonl", "--samples=4", f"--seed={process_seed(5, 1)}", "--filter=p", "--extra",
                               "--threads=2"]
    scratch = Path(context["cwd"])
    assert scratch.parent == lab / ".benchlab" / "scratch" and scratch.name.startswith("probe-")
    assert not scratch.exists()
    records = {record.bench: record for record in result.records}
    assert records["pad"].samples == [context["pad"]] == [records["pad"].reported["env_pad"]]
    assert context["stack"] == str(records["pad"].reported["stack_offset"])
    assert all(record.sweep == {"flag": "threads", "value": "2"} and record.binary == "probe"
               and record.reported["unit"] == 1 and record.reported["process"] == 1
               for record in result.records)


@spreads
def test_a_benchlab_executable_is_pinned_to_its_start_cpu_and_told_to_release_it(lab):
    runner, _ = make_runner(lab)
    [unit] = runner.plan(targets(lab, "bin/probe"))
    for process in (0, 1, 2):
        result = runner.run_unit(unit, process=process)
        assert result.context["cpus"] == [CPUS[process % len(CPUS)]]
        assert result.context["release"] == ",".join(map(str, CPUS))
        assert {record.reported["start_cpu"] for record in result.records} == {CPUS[process % len(CPUS)]}


@spreads
@pytest.mark.parametrize("probe, platform, spread", [
    ("bin/foreign", "native", True),        # a foreign binary would stay pinned: it is not released
    ("bin/probe", "through_env", True),     # nor is one started through another program
    ("bin/probe", "native", False),         # --no-spread-cpus
])
def test_a_binary_that_would_stay_pinned_is_not_pinned(lab, probe, platform, spread):
    runner, _ = make_runner(lab, platforms=(platform,), spread_cpus=spread)
    [unit] = runner.plan(targets(lab, probe))
    result = runner.run_unit(unit, process=1)
    assert result.context["cpus"] == CPUS and result.context["release"] is None
    assert all("start_cpu" not in record.reported for record in result.records)
    assert result.context["pad"] is not None  # its layout is drawn all the same


@spreads
def test_a_cpu_given_by_the_caller_is_kept_and_never_released(lab):
    runner, _ = make_runner(lab)  # benchlab ab's duets: each of a pair on its own CPU for the whole process
    [unit] = runner.plan(targets(lab, "bin/probe"))
    for process in (None, 0):
        result = runner.run_unit(unit, process=process, cpu=CPUS[-1])
        assert result.context["cpus"] == [CPUS[-1]] and result.context["release"] is None
        assert all("start_cpu" not in record.reported for record in result.records)


def test_copies_each_get_a_directory_a_layout_and_the_next_cpu_and_no_flag(lab):
    runner, _ = make_runner(lab, sweep=Sweep.parse("instances=1,2"))
    one, two = runner.plan(targets(lab, "bin/probe"))
    assert (runner.copies(one), runner.copies(two)) == (1, 2)
    result = runner.run_unit(two, process=1)
    assert result.faults == [] and result.context["argv"] == ["--format=jsonl", f"--seed={process_seed(11, 1)}"]
    assert Path(result.context["cwd"]).name == "copy0"  # the first copy's context is the unit's
    records = {(record.reported["copy"], record.bench): record for record in result.records}
    assert sorted(records) == [(0, "cpu"), (0, "cpus"), (0, "pad"), (1, "cpu"), (1, "cpus"), (1, "pad")]
    for copy in (0, 1):
        pad = records[copy, "pad"]
        assert pad.samples == [pad.reported["env_pad"]] and pad.reported["instances"] == 2
        assert pad.sweep == {"flag": "instances", "value": "2"} and "incomplete" not in pad.reported
        if len(CPUS) > 1:
            assert records[copy, "cpu"].samples == [pad.reported["start_cpu"]] == [CPUS[(1 + copy) % len(CPUS)]]
            assert records[copy, "cpus"].samples == [1]


def test_only_the_instances_units_of_binaries_are_copies(lab):
    copies, _ = make_runner(lab, sweep=Sweep.parse("instances=3"))
    assert [copies.copies(unit) for unit in copies.plan(targets(lab, "bin/probe", "nap"))] == [3, None]
    threads, _ = make_runner(lab, sweep=Sweep.parse("threads=3"))
    assert [threads.copies(unit) for unit in threads.plan(targets(lab, "bin/probe"))] == [None]
    plain, _ = make_runner(lab)
    assert [plain.copies(unit) for unit in plain.plan(targets(lab, "bin/probe"))] == [None]


@pytest.mark.parametrize("script, benches, fault, warnings", [
    pytest.param("printf 'Getpid\\t0\\t1000\\t50\\n'\necho 'about to crash' >&2\nulimit -c 0\nkill -SEGV $$\n",
                 ["Getpid"], ("killed by SIGSEGV", ["about to crash"]), [], id="crash"),
    pytest.param("printf 'Read\\t1\\t100\\t240\\n'\nfor k in 1 2 3 4 5 6 7; do echo line $k >&2; done\nexit 3\n",
                 ["Read"], ("exit status 3", ["line 3", "line 4", "line 5", "line 6", "line 7"]), [],
                 id="exit-status"),
    pytest.param("echo 'waiting' >&2\nexec sleep 30\n", [], ("timed out after 1 s", ["waiting"]), [], id="hang"),
    pytest.param("echo hello\necho\necho '  world  '\n", [], ("printed no results", ["hello", "world"]),
                 ["out.sh: output is in no known format (gbench, jsonl, csb, b63csv, lind, b63-interactive), ignored; "
                  "first line: 'hello'"], id="junk-only"),
    pytest.param("echo hello\necho 'my reason' >&2\n", [], ("printed no results", ["my reason"]),
                 ["out.sh: output is in no known format (gbench, jsonl, csb, b63csv, lind, b63-interactive), ignored; "
                  "first line: 'hello'"], id="junk-and-stderr"),
    pytest.param("echo '{\"type\": \"context\", \"schema\": 2}'\n", [], None, [], id="context-only"),
    pytest.param("printf 'Read\\t1\\t100\\t240\\n'\necho 'benchlab: warning: turbo is on' >&2\n", ["Read"], None,
                 ["turbo is on"], id="machine-warning"),
])
def test_how_a_process_ended_is_its_fault_and_what_it_printed_is_kept(lab, tmp_path, script, benches, fault,
                                                                       warnings):
    write(tmp_path / "out.sh", "#!/bin/sh\n" + script, executable=True)
    runner, warned = make_runner(lab, timeout=1.0)
    [unit] = runner.plan(targets(lab, str(tmp_path / "out.sh")))
    result = runner.run_unit(unit, process=2)
    assert [record.bench for record in result.records] == benches
    expected = [] if fault is None else [Fault("out.sh", "native", fault[0], fault[1], sweep=None, process=2)]
    assert result.faults == expected and not result.filtered_out
    assert warned == warnings


def test_with_several_platforms_a_warning_names_the_platform_too(lab, tmp_path):
    write(tmp_path / "out.sh", "#!/bin/sh\necho hello\n", executable=True)
    runner, warned = make_runner(lab, platforms=("native", "through_env"))
    native, _ = runner.plan(targets(lab, str(tmp_path / "out.sh")))
    result = runner.run_unit(native)
    assert warned == ["out.sh (native): output is in no known format (gbench, jsonl, csb, b63csv, lind, b63-interactive), ignored; "
                      "first line: 'hello'"]
    assert [(f.binary, f.platform, f.reason) for f in result.faults] == [("out.sh", "native", "printed no results")]


def test_an_executable_is_never_a_known_build_failure_and_is_its_own_code(lab):
    runner, _ = make_runner(lab)
    [unit] = runner.plan(targets(lab, "bin/probe"))
    probe = (lab / "bin" / "probe").resolve()
    assert runner.executable(unit) == probe and not runner.known_build_failure(unit)
    flags = {"args": [], "subtract": True}
    assert runner.code_identity(unit, {}) == {"id": noise.code_id(sha256(probe), {}, flags), "sha256": sha256(probe),
                                              "path": str(probe), "flavor": "benchlab", "flags": flags}


# -- one process of a unit: workloads --------------------------------------------------------------

def test_a_workload_is_timed_from_outside_without_a_layout_or_a_pinned_cpu(lab):
    runner, _ = make_runner(lab, sweep=Sweep.parse("threads=1,2"))
    [unit] = runner.plan(targets(lab, "nap"))
    result = runner.run_unit(unit, process=0)
    assert result.faults == []
    # runs = 2 after warmups = 1; max RSS through the measure launcher the runner's builder built
    assert [(r.counter, r.unit, len(r.samples)) for r in result.records] == [
        ("user", "s", 2), ("sys", "s", 2), ("wall", "s", 2), ("max_rss", "KiB", 2)]
    assert all(max_rss > 0 for max_rss in result.records[3].samples)
    assert all((r.binary, r.platform, r.sweep) == ("nap", "native", None) for r in result.records)
    assert all(not {"env_pad", "stack_offset", "start_cpu"} & set(r.reported) for r in result.records)
    assert list((lab / ".benchlab" / "scratch").iterdir()) == []


def test_a_workloads_records_say_which_unit_they_are(lab):
    # Untagged, figures.py sorted them as unit 0: a workload given last was listed among the first target's rows.
    runner, _ = make_runner(lab)
    _, nap = runner.plan(targets(lab, "bin/probe", "nap"))
    result = runner.run_unit(nap, process=0)
    assert [record.reported.get("unit") for record in result.records] == [1, 1, 1, 1]


def test_a_failing_workload_is_one_fault_naming_the_run_that_failed(lab):
    runner, _ = make_runner(lab)
    [unit] = runner.plan(targets(lab, "fails"))
    result = runner.run_unit(unit, process=3)
    assert result.records == []
    assert result.faults == [Fault("fails", "native", "exit status 1 (warm-up 1)", [], sweep=None, process=3)]
    assert not runner.known_build_failure(unit)


def test_a_workloads_code_is_its_command_and_its_programs_hash(lab):
    info = {"command": ["{exe}", "{args}"]}
    runner, _ = make_runner(lab)
    nap, fails = runner.plan(targets(lab, "nap", "fails"))
    program = {"program": sha256(Path(shutil.which("true")))}
    assert runner.code_identity(nap, info) == {
        "id": noise.code_id(noise.code_id(json.dumps(["true"]), {}, program), info, {}), "flavor": "workload"}
    assert runner.code_identity(fails, info)["id"] != runner.code_identity(nap, info)["id"]


# -- issue 31: what a binary prints is bounded, and a parser's failure is one process's fault -----

def run_script(lab, tmp_path, text: str, process=None, **options):
    """`text` as an executable script out.sh, run as one process of its unit: (result, warnings)."""
    write(tmp_path / "out.sh", text, executable=True)
    runner, warned = make_runner(lab, **options)
    [unit] = runner.plan(targets(lab, str(tmp_path / "out.sh")))
    return runner.run_unit(unit, process=process), warned


def test_a_binary_printing_endlessly_is_stopped_at_the_limit_and_what_it_printed_first_is_kept(
        lab, tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_OUTPUT_BYTES", 64 * 1024)
    result, warned = run_script(lab, tmp_path, "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\nexec yes junk\n",
                                process=0, timeout=600.0)  # the timeout is never reached: the limit stops it
    assert [record.bench for record in result.records] == ["Read"]
    assert [fault.reason for fault in result.faults] == [
        "printed more than 64 KiB of output, stopped (the limit is MAX_OUTPUT_BYTES in benchlab/limits.py)"]


def test_a_binary_that_ends_past_the_limit_before_it_is_looked_at_is_past_it_too(lab, tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_OUTPUT_BYTES", 1000)
    result, _ = run_script(lab, tmp_path, "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\nhead -c 5000 /dev/zero\n")
    assert [record.bench for record in result.records] == ["Read"]
    assert [fault.reason.split(",")[0] for fault in result.faults] == ["printed more than 1000 bytes of output"]


def test_a_line_over_the_line_limit_is_skipped_unread_and_the_lines_around_it_are_kept(lab, tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_OUTPUT_LINE_CHARS", 100)
    result, warned = run_script(lab, tmp_path, "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n"
                                "head -c 100000 /dev/zero | tr '\\0' 9\nprintf '\\nWrite\\t1\\t100\\t250\\n'\n")
    assert [(record.bench, record.samples) for record in result.records] == [("Read", [240.0]), ("Write", [250.0])]
    assert result.faults == []
    assert warned == ["out.sh: 1 lines longer than 100 bytes ignored"]


def test_bounded_lines_reads_no_more_than_the_limit_and_counts_the_long_lines():
    text = io.StringIO("a\n" + "x" * 50 + "\nbb\n" + "y" * 10 + "\ncc\n", newline=None)
    skipped = [0]
    assert list(runner_module.bounded_lines(text, 10_000, 20, skipped)) == ["a\n", "bb\n", "y" * 10 + "\n", "cc\n"]
    assert skipped == [1]
    text = io.StringIO("abc\ndef\nghi\n", newline=None)
    assert list(runner_module.bounded_lines(text, 6, 20, [0])) == ["abc\n", "de"]


def test_a_parser_that_fails_on_a_binarys_output_is_that_processs_fault_not_the_runs_end(
        lab, tmp_path, monkeypatch):
    def broken(lines, binary, max_records=None, max_bytes=None):
        raise ValueError("invalid literal for int() with base 10: '\\x1c1'")
    monkeypatch.setattr(runner_module, "parse_stream", broken)
    result, _ = run_script(lab, tmp_path, "#!/bin/sh\nprintf 'num_threads=\\0341;'\n")
    assert result.records == []
    assert [fault.stderr_tail for fault in result.faults] == [["num_threads=\x1c1;"]]  # one line, as printed
    assert [fault.reason for fault in result.faults] == [
        "its output broke benchlab's parser (ValueError: invalid literal for int() with base 10: '\\x1c1'; "
        "a benchlab bug: please report it with the output)"]


def test_a_binary_that_leaves_a_process_outside_its_group_is_warned_about(lab, tmp_path):
    # It reads from the daemon once it has left the group: the group's kill cannot come first.
    result, warned = run_script(lab, tmp_path, f"#!/bin/sh\nmkfifo {tmp_path}/up\n"
                                f"setsid sh -c 'echo up > {tmp_path}/up; exec sleep 600' &\n"
                                f"read x < {tmp_path}/up\nprintf 'Read\\t1\\t100\\t240\\n'\n")
    assert [record.bench for record in result.records] == ["Read"] and result.faults == []
    assert warned == ["out.sh: 1 process(es) it started left its process group (setsid or setpgid) and outlived it: "
                      "benchlab killed them (a benchmark's helpers should end with it)"]


def test_a_binary_printing_more_results_than_the_limit_is_read_up_to_it(lab, tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_OUTPUT_RECORDS", 3)
    result, _ = run_script(lab, tmp_path,
                           "#!/bin/sh\nfor k in 1 2 3 4 5 6 7 8; do printf 'n%d\\t1\\t100\\t240\\n' $k; done\n")
    assert [record.bench for record in result.records] == ["n1", "n2", "n3", "n4"]
    assert [fault.reason for fault in result.faults] == [
        "printed more than 3 results, the rest was not read (the limit is MAX_OUTPUT_RECORDS in benchlab/limits.py)"]


def test_a_runs_results_are_bounded_in_all_its_processes_not_per_process(lab, tmp_path, monkeypatch):
    # Each line is a record of one sample: 1500 + 24 bytes held (records.HELD_*). Three
    # processes of five records each, within every per-process limit; the run may hold 12.
    monkeypatch.setattr(limits, "MAX_RUN_RESULT_BYTES", 12 * 1524)
    write(tmp_path / "out.sh", "#!/bin/sh\nfor k in 1 2 3 4 5; do printf 'n%d\\t1\\t100\\t240\\n' $k; done\n",
          executable=True)
    runner, _ = make_runner(lab)
    [unit] = runner.plan(targets(lab, str(tmp_path / "out.sh")))
    first, second, third = (runner.run_unit(unit, process=k) for k in range(3))
    assert [len(result.records) for result in (first, second, third)] == [5, 5, 2]
    assert first.faults == second.faults == [] and runner.full
    assert runner.held_bytes == 12 * 1524
    assert [fault.reason for fault in third.faults] == [
        "the run's results reached 17.9 KiB in memory, the limit of a run in all its processes (MAX_RUN_RESULT_BYTES "
        "in benchlab/limits.py): this process's results past it were not read, and no further process runs "
        "(run fewer processes or benchmarks: --processes, --filter)"]
