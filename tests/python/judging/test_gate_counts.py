"""`gate --judge counts` (statistics/basis.py, judging/gate.py): each benchmark judged on
callgrind's exact counts where both runs have them, each counter at its own threshold, on time
where only time can judge it (not counted, system-call bound), and every output saying which.
The runs are stored here with set figures, as tests/python/measuring/test_gate.py's are."""
import json
from pathlib import Path

import pytest

from benchlab.config import load_config
from benchlab.errors import ExitCode, UserError
from benchlab.judging import gate
from benchlab.measuring import remeasure
from benchlab.measuring.ab import Pair
from benchlab.measuring.platforms import resolve_platforms
from benchlab.measuring.runner import Unit
from benchlab.judging.sides import compare_sides
from benchlab.judging.thresholds import Thresholds
from benchlab.measuring.targets import Target
from benchlab.output import junit
from benchlab.output.comparisons import answer_text
from benchlab.records import Record
from benchlab.statistics import basis
from benchlab.statistics.compare import INCONCLUSIVE, NOT_SLOWER, SLOWER
from benchlab.storage.store import open_store
from conftest import write
from junit_schema import read_junit, verdicts as junit_verdicts


@pytest.fixture
def store(project):
    (project / ".benchlab").mkdir()
    opened = open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}")
    yield opened
    opened.close()


def config_with(project, text: str = ""):
    write(project / "benchlab.toml", "[gate]\ncalibrate = false\n" + text)
    return load_config()


def timed(bench: str, medians: list[float]) -> list[Record]:
    """One time record per process of `bench` on native, each of median `medians[i]`."""
    records = []
    for process, median in enumerate(medians):
        record = Record(bench=bench, param=None, samples=[median * 0.999, median, median * 1.001],
                        platform="native", binary="k")
        record.reported["process"] = process
        records.append(record)
    return records


def counted(bench: str, counts: dict[str, float], system_calls: float | None = 0.0, processes: int = 2):
    """callgrind's records of `bench`, as the callgrind platform writes them: one exact sample a
    counter, `deterministic`, and the system calls an iteration (None: a run from before they were
    counted)."""
    records = []
    for process in range(processes):
        for counter, value in counts.items():
            reported = {"process": process, "deterministic": True}
            if system_calls is not None:
                reported["system_calls"] = system_calls
            records.append(Record(bench=bench, param=None, counter=counter, unit="cycles" if "cycles" in counter
                                  else "instructions", samples=[value], iterations=1000, platform="callgrind",
                                  binary="k", reported=reported))
    return records


def stored(store, records: list[Record]) -> int:
    return store.import_run(["benchlab", "run", "k.c"], ["native", "callgrind"], {}, records, [], [], "complete", 0)


#: Time that cannot decide anything at 2% (processes 20% apart), the same on both sides.
NOISY = [100.0, 120.0, 90.0, 110.0]
#: The kernels of the table in docs/ci.md, in figures: a CPU-bound one that does 3% more work, a
#: memory-bound one whose instructions stay and whose misses grow by 3% of its estimated cycles,
#: one that does one system call an iteration and got 30% slower in the kernel, and one unchanged.
BASELINE = [*timed("cpu", NOISY), *counted("cpu", {"instructions": 1000, "estimated-cycles": 1100}),
            *timed("memory", NOISY), *counted("memory", {"instructions": 500, "estimated-cycles": 2000}),
            *timed("syscall", [100.0, 100.1, 99.9, 100.0]),
            *counted("syscall", {"instructions": 8, "estimated-cycles": 8}, system_calls=1.0),
            *timed("same", NOISY), *counted("same", {"instructions": 300, "estimated-cycles": 300})]
CANDIDATE = [*timed("cpu", NOISY), *counted("cpu", {"instructions": 1030, "estimated-cycles": 1133}),
             *timed("memory", NOISY), *counted("memory", {"instructions": 500, "estimated-cycles": 2060}),
             *timed("syscall", [130.0, 130.1, 129.9, 130.0]),
             *counted("syscall", {"instructions": 8, "estimated-cycles": 8}, system_calls=1.0),
             *timed("same", NOISY[::-1]), *counted("same", {"instructions": 300, "estimated-cycles": 300})]


def verdicts(answer) -> dict[tuple, tuple]:
    return {(c.key[0], c.key[2]): (c.verdict, c.judged_on, c.judged_on_reason, round(c.threshold, 6))
            for c in answer.comparisons}


def test_counts_judge_each_counter_exactly_and_a_system_call_bound_row_falls_back_to_time(store, project):
    config = config_with(project)
    stored(store, BASELINE), stored(store, CANDIDATE)
    time = gate.judge_gate(config, store, gate.Request(run="2", baseline="1"))
    # --judge time: every row on its own figures; the noisy time rows cannot be decided
    assert time.judgment.exit_code == ExitCode.REGRESSION
    assert {c.key[0] for c in time.judgment.undecided} == {"cpu", "memory", "same"}
    assert all(c.judged_on is None for c in time.comparisons)

    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="1", judge="counts"))
    assert verdicts(answer) == {
        ("cpu", "instructions"): (SLOWER, "counts", None, 0.02),             # 1.03x exactly
        ("cpu", "estimated-cycles"): (SLOWER, "counts", None, 0.02),
        ("memory", "instructions"): (NOT_SLOWER, "counts", None, 0.02),      # 1.0000x: instructions stay flat
        ("memory", "estimated-cycles"): (SLOWER, "counts", None, 0.02),      # the misses: 1.03x
        ("syscall", "time"): (SLOWER, "time", "system-call bound", 0.02),    # 1.30x, by time
        ("same", "instructions"): (NOT_SLOWER, "counts", None, 0.02),
        ("same", "estimated-cycles"): (NOT_SLOWER, "counts", None, 0.02)}
    rows = {(c.key[0], c.key[2]): c for c in answer.comparisons}
    assert rows[("memory", "estimated-cycles")].low == rows[("memory", "estimated-cycles")].high == 1.03
    assert not any(c.verdict == INCONCLUSIVE for c in answer.comparisons)   # decided: every row
    assert answer.judgment.exit_code == ExitCode.REGRESSION
    assert answer.judgment.lines[-1] == "gate failed: 4 slower beyond the threshold"
    assert answer.notes == [
        "stored figures only: 1 is not a baseline (benchlab baseline save NAME RUN keeps its binaries for the gate "
        "to run again)",
        "--judge counts: 3 benchmark(s) judged on counts (instructions at 2%, estimated-cycles at 2%; a benchmark's "
        "own [gate.max_regression] wins), their 3 other row(s) not judged",
        "judged on time: syscall: system-call bound: 1 system call(s) an iteration beside 8 estimated cycles: about "
        "96% of its cycles in the kernel at 200 a call, which callgrind does not count"]


def test_each_counter_has_its_threshold_and_a_benchmarks_own_wins(store, project):
    config = config_with(project, "[gate.max_regression]\ncpu = 1\n[gate.counter_thresholds]\ninstructions = 5\n"
                                  "estimated_cycles = 1\n")
    assert config.counter_thresholds == {"instructions": 0.05, "estimated-cycles": 0.01}
    stored(store, BASELINE), stored(store, CANDIDATE)
    request = gate.Request(run="2", baseline="1", judge="counts", counter_thresholds={"estimated-cycles": 5.0})
    got = verdicts(gate.judge_gate(config, store, request))
    # the flag's 5% for estimated-cycles over the file's 1%; the file's 5% for instructions; cpu's own 1% over both
    assert got[("memory", "estimated-cycles")] == (NOT_SLOWER, "counts", None, 0.05)
    assert got[("memory", "instructions")] == (NOT_SLOWER, "counts", None, 0.05)
    assert got[("cpu", "instructions")] == got[("cpu", "estimated-cycles")] == (SLOWER, "counts", None, 0.01)
    # a counter named by a threshold is judged too: the misses where a run has them
    assert gate.counter_thresholds(config, request) == {"instructions": 0.05, "estimated-cycles": 0.05}


def test_old_runs_without_estimated_cycles_or_system_calls_are_judged_on_what_they_have(store, project):
    """A baseline stored before estimated-cycles and system calls were counted: instructions
    judge, said; a benchmark callgrind never counted is judged on time, said."""
    config = config_with(project)
    old = [*timed("cpu", NOISY), *counted("cpu", {"instructions": 1000}, system_calls=None),
           *timed("alone", [100.0, 100.1, 99.9, 100.0])]
    new = [*timed("cpu", NOISY), *counted("cpu", {"instructions": 1000, "estimated-cycles": 1500}),
           *timed("alone", [100.0, 100.1, 99.9, 100.0])]
    stored(store, old), stored(store, new)
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="1", judge="counts"))
    assert verdicts(answer) == {("cpu", "instructions"): (NOT_SLOWER, "counts", None, 0.02),
                                ("alone", "time"): (NOT_SLOWER, "time", "not counted", 0.02)}
    assert answer.judgment.exit_code == ExitCode.OK
    assert answer.notes[2:] == [
        "judged on time: alone: not counted: no estimated-cycles or instructions counts of it in both runs "
        "(run --platform callgrind counts them)"]
    # the system calls of the candidate's count stand in for the baseline's that has none
    assert [c.system_calls for c in answer.comparisons if c.deterministic] == [0.0]


def test_without_system_calls_on_either_side_the_check_is_said_to_be_skipped(store, project):
    config = config_with(project)
    stored(store, counted("cpu", {"instructions": 1000}, system_calls=None))
    stored(store, counted("cpu", {"instructions": 1000}, system_calls=None))
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="1", judge="counts"))
    assert answer.notes[-1] == ("judged on counts: cpu: its runs did not count system calls (recorded before "
                                "benchlab counted them): not checked for being system-call bound")


def test_the_system_call_rule_at_its_boundary():
    # 1 call at 200 cycles beside 600 estimated cycles: a quarter in the kernel, judged on time
    assert basis.kernel_share(1, 600) == 0.25 == basis.SYSTEM_CALL_BOUND
    assert basis.kernel_share(1, 601) < basis.SYSTEM_CALL_BOUND
    assert basis.kernel_share(0, 0) == 0.0 and basis.kernel_share(0.5, 0) == 1.0


@pytest.mark.parametrize("cycles, judged_on", [(600, "time"), (601, "counts")])
def test_a_benchmark_at_the_boundary_is_judged_as_the_rule_says(store, project, cycles, judged_on):
    config = config_with(project)
    for _ in range(2):
        stored(store, [*timed("b", [100.0, 100.1, 99.9, 100.0]),
                       *counted("b", {"instructions": cycles, "estimated-cycles": cycles}, system_calls=1.0)])
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="1", judge="counts"))
    assert {c.judged_on for c in answer.comparisons} == {judged_on}


def test_a_system_call_bound_benchmark_without_time_is_judged_on_counts_and_said(store, project):
    config = config_with(project)
    stored(store, counted("sys", {"instructions": 8, "estimated-cycles": 8}, system_calls=1.0))
    stored(store, counted("sys", {"instructions": 9, "estimated-cycles": 9}, system_calls=1.0))
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="1", judge="counts"))
    assert {c.judged_on_reason for c in answer.comparisons} == {"system-call bound, no time"}
    assert answer.judgment.exit_code == ExitCode.REGRESSION
    assert answer.notes[-1].endswith("which callgrind does not count; but no time figures of it in both runs "
                                     "(run --platform native times it)")


def test_every_output_says_what_each_row_was_judged_on(store, project):
    config = config_with(project)
    stored(store, BASELINE), stored(store, CANDIDATE)
    answer = gate.judge_gate(config, store, gate.Request(run="2", baseline="1", judge="counts"))
    table = answer_text(answer, "table").splitlines()
    assert table[0].split()[-2:] == ["JUDGED", "ON"]
    assert [line.split()[0] for line in table if line.endswith("time (system-call bound)")] == ["syscall"]
    assert sum(1 for line in table if line.endswith(" counts")) == 6
    document = json.loads(answer_text(answer, "json"))
    assert {(row["test"], row["counter"], row["judged_on"], row["judged_on_reason"])
            for row in document["comparisons"] if row["test"] in ("syscall", "memory")} == {
        ("syscall", "time", "time", "system-call bound"), ("memory", "instructions", "counts", None),
        ("memory", "estimated-cycles", "counts", None)}
    markdown = answer_text(answer, "markdown")
    assert "| JUDGED ON |" in markdown and "| time (system-call bound) |" in markdown
    write(project / "junit.xml", junit.render(answer))
    root = read_junit(project / "junit.xml")     # valid by junit-10.xsd
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert cases["syscall on native"].find("system-out").text == "judged on time (system-call bound)"
    assert cases["memory [estimated-cycles] on callgrind"].find("system-out").text == "judged on counts"
    assert junit_verdicts(root)["memory [instructions] on callgrind"] == "passed"
    assert junit_verdicts(root)["syscall on native"] == "failure:slower"
    # --judge time prints what it always did: no column, no field
    plain = gate.judge_gate(config, store, gate.Request(run="2", baseline="1"))
    assert "JUDGED" not in answer_text(plain, "table")
    assert "judged_on" not in answer_text(plain, "json")


def test_the_flags_and_the_file_refuse_what_they_cannot_judge(project, benchlab):
    bad = benchlab("gate", "--baseline", "x", "--judge", "instructions")
    assert bad.exit_code == 2 and "'instructions' is not one of 'time', 'counts'" in bad.stderr
    alone = benchlab("gate", "--baseline", "x", "--counter-threshold", "instructions=1")
    assert alone.exit_code == 2
    assert "--counter-threshold sets what --judge counts judges counts at: add --judge counts" in alone.stderr
    for value, said in (("cycles=1", "'cycles' is not a deterministic counter; name one of instructions, "
                                     "estimated-cycles, I1-misses, D1-misses, LL-misses"),
                        ("instructions", "'instructions' is not COUNTER=PCT"),
                        ("instructions=0.5", "'instructions=0.5': is ambiguous: a fraction (50%) or 0.5%?"),
                        ("instructions=200", "'instructions=200': is not a percentage from 0 to 100")):
        result = benchlab("gate", "--baseline", "x", "--judge", "counts", "--counter-threshold", value)
        assert result.exit_code == 2 and said in result.stderr, (value, result.stderr)
        assert "Traceback" not in result.stderr
    write(project / "benchlab.toml", "[gate.counter_thresholds]\ncycles = 1\n")
    with pytest.raises(UserError) as error:
        load_config()
    assert error.value.what == "benchlab.toml: gate.counter_thresholds.cycles: is not a deterministic counter"
    write(project / "benchlab.toml", "[gate.counter_thresholds]\ninstructions = 0.5\n")
    with pytest.raises(UserError) as error:
        load_config()
    assert "gate.counter_thresholds.instructions" in error.value.what and "ambiguous" in error.value.what


def test_only_pairs_that_time_a_benchmark_judged_on_time_are_run_again(store, project):
    """Counts are exact as stored, and the time of a benchmark judged on counts judges nothing:
    under --judge counts the gate re-measures only a binary with a benchmark judged on time, and
    its benchmarks judged on counts count as decided at once (an endless threshold)."""
    config = config_with(project)
    native, callgrind = resolve_platforms(["native", "callgrind"], config)
    mixed = [*timed("cpu", NOISY), *counted("cpu", {"instructions": 1000, "estimated-cycles": 1100}),
             *timed("syscall", NOISY), *counted("syscall", {"instructions": 8, "estimated-cycles": 8}, system_calls=1.0)]
    only_counted = [Record(bench="other", param=None, samples=[1.0, 1.0, 1.0], platform="native", binary="o",
                           reported={"process": p}) for p in range(2)]
    only_counted += [Record(bench="other", param=None, counter="instructions", unit="instructions", samples=[5.0],
                            iterations=1000, platform="callgrind", binary="o",
                            reported={"process": p, "deterministic": True, "system_calls": 0.0}) for p in range(2)]
    stored(store, mixed + only_counted), stored(store, mixed + only_counted)
    comparisons, _, _ = compare_sides("1", "2", lambda: store, Thresholds.of(config, max_regression=2), family=True)
    found = basis.bases(comparisons, gate.counter_thresholds(config, gate.Request(run="2", baseline="1")))

    def pair(binary, platform):
        unit = Unit(Target(binary, "executable", Path(binary)), platform)
        return Pair(f"{binary}@{platform.name}", unit, unit)
    plan = remeasure.Plan([pair("k", native), pair("k", callgrind), pair("o", native)], {})
    lines = gate.keep_pairs_for_time(plan, comparisons, found)
    assert [p.name for p in plan.pairs] == ["k@native"]
    assert lines == ["counts of k@callgrind judged as stored: callgrind counts the same on every run",
                     "o@native not re-measured: every benchmark of it is judged on counts"]
    assert gate.on_counts(found) == {"cpu", "other"}
    # a benchmark judged on counts is decided at once; one judged on time at its threshold
    decided = Thresholds.of(config, max_regression=2).decider(gate.on_counts(found))
    assert decided(("cpu", None, "time", None), 0.5, 1.5) and not decided(("syscall", None, "time", None), 1.0, 1.03)
    assert decided(("syscall", None, "time", None), 1.0, 1.015)


def test_the_command_passes_its_flags_to_the_judgment(store, project, benchlab):
    config_with(project)
    stored(store, BASELINE), stored(store, CANDIDATE)
    strict = benchlab("gate", "--baseline", "1", "2", "--judge", "counts", "--format", "json")
    assert strict.exit_code == 3
    rows = {(row["test"], row["counter"]): row for row in json.loads(strict.stdout)["comparisons"]}
    assert rows[("cpu", "instructions")]["verdict"] == "slower"
    assert rows[("cpu", "instructions")]["threshold"] == pytest.approx(0.02)
    # 5% for both counters: the CPU- and memory-bound 3% pass; the system-call bound row is still judged on time
    loose = benchlab("gate", "--baseline", "1", "2", "--judge", "counts", "--counter-threshold", "instructions=5",
                     "--counter-threshold", "estimated_cycles=5%", "--format", "json")
    rows = {(row["test"], row["counter"]): row for row in json.loads(loose.stdout)["comparisons"]}
    assert loose.exit_code == 3 and [key for key, row in rows.items() if row["verdict"] == "slower"] == [
        ("syscall", "time")]
    assert rows[("memory", "estimated-cycles")]["threshold"] == pytest.approx(0.05)
    assert "judged on time: syscall: system-call bound" in loose.stderr
