"""The fuzzers as Hypothesis tests, with a budget: short in pytest (tests/fuzz/test_fuzz.py),
long in scripts/fuzz (at least 100,000 inputs per target), which runs this module.

    python tests/fuzz/fuzzing.py [--inputs N] [--target NAME]... [--seed S]

prints, per target, the inputs tried and the failures found (distinct bugs, each with
the smallest input Hypothesis could shrink it to); exit status 1 if any.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Callable

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
import seeds as corpus  # noqa: E402
import fuzz_targets as targets  # noqa: E402
import fuzz_names  # noqa: E402

#: Longest CPU time one input may take (issue 11): beyond it, a failure.
DEADLINE_MS = 2000
#: Inputs per target in scripts/fuzz unless --inputs says otherwise.
LONG_INPUTS = 100_000
#: Inputs per Hypothesis run (see run_target).
CHUNK = 10_000

RESULT = '{"type":"result","bench":"a","param":null,"iterations":10,"samples":[1.0,2.0,3.0]%s}'
GB = '{"context":{},"benchmarks":[%s]}'

#: Issue 11's inputs, run first by every fuzzer of their format (Hypothesis's explicit examples).
REGRESSIONS: dict[str, list] = {
    "lind": ["Read\t" + "9" * 4400 + "\t10\t5\n", "Read\t1\t10\t1e999\n", "Read\t1\t10\t-5\n", "Read\t1\t0\t5\n"],
    "jsonl": [
        '{"type":"result","bench":"a","samples":[' + "9" * 400 + "]}", RESULT % ',"iterations":1e999',
        RESULT % ',"iterations":-5', '{"type":"result","samples":' + "[" * 100_000,
        '{"type":"context","schema":1}\n{"type":"result","bench":"a","samples":[' + "9" * 5000 + "]}",
        RESULT % ',"median":{}', RESULT % ',"median":"fast"',
        '{"type":"throughput","target":"t","threads":2,"throughput":5.0,"ops":[1]}',
        '{"type":"throughput","target":"t","threads":0,"throughput":5.0}',
        '{"type":"result","bench":"a","param":1.5,"samples":[1.0]}', RESULT % ',"sample_iterations":["x",1,1]',
    ],
    "gbench": [
        GB % '{"name":"BM","iterations":1,"cpu_time":1}', GB % '{"iterations":1,"real_time":1,"cpu_time":1}',
        GB % '{"name":"BM","real_time":1,"cpu_time":1}', GB % '{"name":"BM","iterations":1,"real_time":1}',
        '{"context":{},"benchmarks":5}', GB % '5,"x",null,[]', GB % '{"name":"BM","iterations":1,"real_time":NaN,"cpu_time":1}',
        GB % '{"name":"BM","iterations":1e999,"real_time":1,"cpu_time":1}',
        '{"context":{},"benchmarks":' + "[" * 100_000 + "]" * 100_000 + "}",
    ],
    "csb": ["num_threads=2;algo_name=x;throughput_min=nan;\n", "num_threads=0;algo_name=x;throughput_min=5;\n",
            "num_threads=2;throughput_min=5;ticks_to_ms=inf;op0_a_avg=3;\n",
            # found by the long run: an operation name no column can hold
            "num_threads=2;throughput_min=5;op" + "9" * 300 + "_nop_avg=3;ticks_to_ms=1000000;\n"],
    "b63csv": ["a,time,10,100\na,time,10,abc\n", "a,time,10,nan\n", "a,time,10,100\n" + "b" * 140_000 + ",time,10,100\n",
               'a,time,10,100\r"x\ry",time,10,5\n', "a,time," + "9" * 400 + ",100\n"],
    "config": ["[run]\ntimeout = inf\n", "[run]\ntimeout = nan\n", "[run]\ntime_limit = nan\n",
               '[platforms.x]\ncommand = ["{exe}", "a\\u0000b"]\n', '[platforms.x]\ncommand = ["{exe}"]\nenv = { A = "\\u0000" }\n',
               '[platforms.x]\ncommand = ["{exe}"]\nlaunchers = [["a\\u0000"]]\n', "a = " + "[" * 5000,
               "a = " + "9" * 5000 + "\n", '[workloads."a/b"]\ncommand = ["true"]\n'],
    "run": [
        (["run", "suite", "--timeout", "inf"], {}), (["run", "suite", "--timeout=nan"], {}), (["run", "suite", "--time-limit", "nan"], {}),
        (["run", "suite", "--out", "missing/out.json"], {}), (["run", "suite", "--filter", "nothing"], {
            name: ("", 2, "benchlab: no benchmark matches --filter=nothing (see --list)") for name in targets.BINARIES}),
        (["run", "suite", "--db", "sqlite:///junk.db"], {}), (["run", "suite", "--db", "postgresql+psycopg2://localhost/x"], {}),
        (["run", "suite", "--db", "sqlite:///file:ro.db?mode=ro&uri=true"], {}), (["run", "suite", "--arg", "a\0b"], {}),
        (["run", "suite", "--format", "json", "--out", "out.json"], {
            "lind.sh": ("Read\t1\t10\t1e999\nRead\t2\t10\t5\n", 0, ""), "jsonl.sh": (RESULT % ',"median":{}', 0, ""),
            "gb.sh": (GB % '{"name":"BM","iterations":1,"real_time":NaN,"cpu_time":1}', 0, "")}),
        (["show", "-99999999999999999999"], {}), (["runs", "--limit", "99999999999999999999"], {}),
    ],
}
REGRESSIONS["detect"] = [text for name in ("lind", "jsonl", "gbench", "csb", "b63csv") for text in REGRESSIONS[name]]


@dataclasses.dataclass
class Target:
    name: str
    strategy: Callable[[dict], st.SearchStrategy]
    #: Builds the function that checks one input, given the seeds and a scratch directory.
    check: Callable[[dict, Path], Callable]
    #: A context to run the whole target in (the run fuzzer's stubbed project), or None.
    setup: Callable[[Path], object] | None = None


def _parser(name: str) -> Target:
    return Target(name, lambda seeds: targets.outputs(seeds, name), lambda seeds, d: targets.parser_target(name))


TARGETS: dict[str, Target] = {
    **{name: _parser(name) for name in ("jsonl", "gbench", "lind", "csb", "b63csv")},
    "detect": Target("detect", lambda seeds: targets.outputs(seeds), lambda seeds, d: targets.detect_target),
    "config": Target("config", lambda seeds: st.one_of(targets.configs(), st.text(max_size=200)),
                     lambda seeds, d: lambda text: targets.config_target(text, d)),
    "run": Target("run", lambda seeds: targets.run_inputs(seeds),
                  lambda seeds, d: None, setup=lambda d: targets.CliProject(d / "project")),
}

#: `benchlab import` of each format it reads (issue 18): mutated files, some gzip'd, some cut.
TARGETS.update({f"import-{fmt}": Target(f"import-{fmt}",
                                        lambda seeds, fmt=fmt: targets.import_files(targets.import_seeds(seeds), fmt),
                                        lambda seeds, d, fmt=fmt: targets.import_target(fmt, d))
                for fmt in targets.IMPORT_FORMATS})
#: Issue 18's import files, (text, packing, --format given, --max-size), run first by their format's fuzzer.
REGRESSIONS.update({
    "import-pyperf": [('{"version": "1.0", "metadata": {"name": "a", "unit": ["second"]}, '
                       '"benchmarks": [{"runs": [{"values": [1e-6]}]}]}', None, False, None)],
    "import-lind": [("Read\t1\t1000\t240\nRead\t2\t1000\t25", None, False, None)],
    "import-csb": [("num_threads=1;algo_name=a;throughput_min=5;\nnum_threads=2;algo_name=a;throughput_min=9",
                    "gzip", True, None)],
    "import-b63csv": [("basic,time,16777215,233781738\nbasic,time,16777215,2289", None, True, None)],
    "import-gbench": [(" " * 70_000, "gzip", False, "64K")],
})

#: Issue 18's other surfaces (fuzz_names.py): names through every printer and the store, and
#: through the report page; buckets files; output and config paths.
TARGETS.update({
    "names": Target("names", lambda seeds: fuzz_names.named_runs(), lambda seeds, d: fuzz_names.names_target(d)),
    "report-names": Target("report-names", lambda seeds: fuzz_names.named_runs(),
                           lambda seeds, d: fuzz_names.report_target(d)),
    "buckets": Target("buckets", lambda seeds: fuzz_names.buckets_files(), lambda seeds, d: fuzz_names.buckets_target(d)),
    "paths": Target("paths", lambda seeds: fuzz_names.output_paths(), lambda seeds, d: fuzz_names.paths_target(d)),
})


@dataclasses.dataclass
class Outcome:
    target: str
    inputs: int
    failures: list[BaseException]
    seconds: float


def run_target(name: str, seeds: dict, inputs: int, directory: Path, *, derandomize: bool = False,
               seed: int | None = None) -> Outcome:
    """Run one fuzzer for `inputs` inputs (plus its regression cases); never raises for a failure it finds.

    Long runs go in rounds of CHUNK inputs, each a Hypothesis run of its own: Hypothesis
    remembers every input of a run (to avoid repeats), which would grow without bound
    over 100,000. A bug found in several rounds is counted once."""
    target = TARGETS[name]
    count = [0]
    started = time.perf_counter()
    project = target.setup(directory) if target.setup else None
    check = (lambda item: project.run(*item)) if project else target.check(seeds, directory)

    def one(item) -> None:
        count[0] += 1
        # The 2 s limit is on this input's own work. CPU time, not the wall clock: on a shared
        # machine (three fuzzers on two cores) wall time grew 2-3x and flagged inputs that cost
        # ~1 s. And with the garbage collector held off: a full collection walks all that
        # Hypothesis keeps of the round's earlier inputs (0.4-1.4 GB in the run target after
        # thousands of inputs), 0.7 s of CPU and more on whichever input it happens to land.
        gc.disable()
        try:
            cpu = time.process_time()
            check(item)
            spent = time.process_time() - cpu
        finally:
            gc.enable()
        assert spent <= DEADLINE_MS / 1000, f"{spent:.2f} s of CPU on one input (the limit is {DEADLINE_MS / 1000:g} s)"

    failures: dict[tuple, BaseException] = {}
    with project.active() if project is not None else contextlib.nullcontext():
        for round_number, start in enumerate(range(0, max(inputs, 1), CHUNK)):
            test = given(target.strategy(seeds))(one)
            if round_number == 0:
                for case in REGRESSIONS.get(name, []):
                    test = example(case)(test)
            test = settings(max_examples=min(CHUNK, inputs - start), deadline=None, derandomize=derandomize,
                            database=None, report_multiple_bugs=True, print_blob=True,
                            suppress_health_check=list(HealthCheck),
                            phases=[Phase.explicit, Phase.generate, Phase.shrink])(test)
            if seed is not None and not derandomize:
                test = hypothesis_seed(seed + round_number)(test)
            try:
                test()
            except BaseExceptionGroup as group:
                for failure in group.exceptions:
                    failures.setdefault(_signature(failure), failure)
            except Exception as failure:  # noqa: BLE001 - a failure of the code under test, reported below
                failures.setdefault(_signature(failure), failure)
    return Outcome(name, count[0], list(failures.values()), time.perf_counter() - started)


def _signature(failure: BaseException) -> tuple:
    """The same bug found twice: the same exception type raised at the same line."""
    frames = traceback.extract_tb(failure.__traceback__)
    return (type(failure).__name__, *((frames[-1].filename, frames[-1].lineno) if frames else ()))


def describe(failure: BaseException) -> str:
    """A failure in a few lines: what, where, and the input Hypothesis shrank it to (its notes)."""
    frames = traceback.extract_tb(failure.__traceback__)
    where = next((f"{frame.filename}:{frame.lineno} ({frame.name})" for frame in reversed(frames)
                  if "/benchlab/" in frame.filename or "/fuzz/" in frame.filename), "?")
    message = (str(failure).splitlines() or [""])[0][:300]
    notes = "\n".join(getattr(failure, "__notes__", []))
    if len(notes) > 1500:
        notes = notes[:1500] + f"... ({len(notes)} characters)"
    return f"  {type(failure).__name__}: {message}\n    at {where}\n    " + notes.replace("\n", "\n    ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=LONG_INPUTS, help=f"inputs per target (default {LONG_INPUTS})")
    parser.add_argument("--target", action="append", choices=list(TARGETS), help="only this target (repeatable)")
    parser.add_argument("--seed", type=int, help="Hypothesis's random seed, to repeat a run")
    parser.add_argument("--corpus", type=Path, default=Path(".benchlab/fuzz"),
                        help="where the seed outputs are built and kept (default .benchlab/fuzz)")
    options = parser.parse_args(argv)
    seeds = corpus.load(options.corpus)
    print(f"seeds: {', '.join(f'{len(texts)} {name}' for name, texts in seeds.items())} (in {options.corpus})",
          flush=True)
    print(f"{'target':<8} {'inputs':>9} {'failures':>9} {'seconds':>9}", flush=True)
    failed = 0
    for name in options.target or list(TARGETS):
        with tempfile.TemporaryDirectory(prefix=f"fuzz-{name}-") as scratch:
            outcome = run_target(name, seeds, options.inputs, Path(scratch), seed=options.seed)
        print(f"{name:<8} {outcome.inputs:>9} {len(outcome.failures):>9} {outcome.seconds:>9.1f}", flush=True)
        for failure in outcome.failures:
            print(describe(failure), flush=True)
        failed += len(outcome.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
