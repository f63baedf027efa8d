"""`benchlab run` end to end: exact output, errors and exit codes."""
import json
import shlex

import pytest

from conftest import REPO, SMALL_BENCH, sweep_plain, write

from benchlab.cli.run import NO_PRIOR_NOTE
from benchlab.storage.store import open_store

FAST = ("--samples", "8", "--time-limit", "0.05")

CRASHER = """\
    #include <signal.h>
    #include <stdio.h>
    int main(void) {
        printf("Getpid\\t0\\t1000\\t50\\n");   /* one result, then a crash */
        fflush(stdout);
        fprintf(stderr, "about to crash\\n");
        raise(SIGSEGV);
        return 0;
    }
"""
HANGER = """\
    #include <stdio.h>
    #include <unistd.h>
    int main(void) { fprintf(stderr, "waiting forever\\n"); for (;;) pause(); }
"""


def without_load_lines(stderr: str) -> str:
    """stderr without the lines a busy machine adds (statistics/contention.py: the run's
    waited share, figures with short samples), which depend on the load, not the code."""
    return "".join(line for line in stderr.splitlines(keepends=True)
                   if not line.startswith(("the machine was busy: ", "short samples: ")))


def test_run_prints_the_table_stores_the_run_and_reuses_builds(project, benchlab):
    write(project / "suite" / "small.c", SMALL_BENCH)
    first = benchlab("run", "suite", *FAST)
    assert first.exit_code == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].split() == ["TEST", "PARAM", "native", "(ns)", "ITERATIONS"]
    rows = {tuple(line.split()[:2]) for line in lines[2:]}
    assert {("copy", "16"), ("copy", "1024")} <= rows
    # stderr is not a terminal here: one progress line per process instead of a bar (5 by default)
    progress = "".join(f"[{k}/5] small on native\n" for k in range(1, 6))
    assert without_load_lines(first.stderr) == progress + NO_PRIOR_NOTE + "\nsaved as run 1 (benchlab show 1); 1 compiled, 0 from the build cache\n"

    second = benchlab("run", "suite", *FAST)
    assert second.exit_code == 0
    assert without_load_lines(second.stderr) == progress + NO_PRIOR_NOTE + "\nsaved as run 2 (benchlab show 2); 0 compiled, 1 from the build cache\n"


def test_native_and_wasm_columns_with_ratio_to_the_first(project, benchlab):
    write(project / "small.c", SMALL_BENCH)
    result = benchlab("run", "small.c", "--platform", "native", "--platform", "wasm", *FAST, "--filter", "copy")
    assert result.exit_code == 0, result.stderr
    header, _, *rows = result.stdout.splitlines()
    assert header.split()[2:6] == ["native", "(ns)", "wasm", "(ns)"]
    copy_1024 = next(row for row in rows if row.split()[:2] == ["copy", "1024"])
    # the wasm cell is "median (ratio)" with the ratio to native printed to 3 decimals
    assert "(" in copy_1024 and copy_1024.count(".") >= 1


def test_crash_and_hang_are_reported_in_their_rows_and_other_results_kept(project, benchlab):
    write(project / "suite" / "crash.c", CRASHER)
    write(project / "suite" / "hang.c", HANGER)
    write(project / "suite" / "ok.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab("run", "suite", "--timeout", "1", "--processes", "2")
    assert result.exit_code == 1
    out = result.stdout
    assert "Getpid" in out and "50" in out          # the crasher's result before the crash is kept
    assert "Read" in out and "240" in out           # the healthy binary is untouched
    assert "FAILED: killed by SIGSEGV" in out
    assert "FAILED: timed out after 1 s" in out
    failures = out[out.index("failures:"):].splitlines()
    assert failures[1:] == [
        "crash on native: killed by SIGSEGV (in 2 processes)", "    about to crash",
        "hang on native: timed out after 1 s (in 2 processes)", "    waiting forever"]


def test_a_source_that_does_not_compile_is_tried_once_and_reported_once(project, benchlab):
    write(project / "suite" / "broken.c", '#include "benchlab.h"\nBL_BENCH(x, n) { not_declared; }\nBL_MAIN()\n')
    write(project / "suite" / "ok.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab("run", "suite", "--processes", "3", "--seed", "1")
    assert result.exit_code == 1
    # One progress line for the broken source (its other 2 processes have nothing to run), 3 for ok.sh.
    lines = result.stderr.splitlines()
    assert sum("broken on native" in line for line in lines) == 1
    assert sum("ok.sh on native" in line for line in lines) == 3
    failures = result.stdout[result.stdout.index("failures:"):].splitlines()
    assert failures[1] == "broken on native: does not compile for native"
    assert any("not_declared" in line for line in failures[2:])  # the compiler's message
    # Every planned unit is done: `show` names nothing missing.
    shown = benchlab("show", "latest")
    assert "FAILED: does not compile for native" in shown.stdout and "missing" not in shown.stdout + shown.stderr


def test_json_out_keeps_every_record_with_samples(project, benchlab):
    write(project / "b.sh", "#!/bin/sh\nprintf 'x,time,10,100\\nx,time,10,120\\nx,time,10,110\\n'\n", executable=True)
    result = benchlab("run", "b.sh", "--out", "result.json", "--processes", "3")
    assert result.exit_code == 0
    document = json.loads((project / "result.json").read_text())
    # every process's samples, and which process took them
    assert [r["reported"]["process"] for r in document["records"]] == [0, 1, 2]
    for record in document["records"]:
        assert record["samples"] == [10.0, 12.0, 11.0] and record["format"] == "b63csv"
        assert record["summary"]["median"] == 11.0
    assert document["rows"][0]["cells"]["native"]["median"] == 11.0
    assert document["run"]["context"]["seed"] >= 0


@pytest.mark.parametrize("args, message", [
    (["run", "nothing_like_this"],
     "error: no benchmark matches 'nothing_like_this' (give a suite directory, a C file, an executable, "
     "a workload name, or a prefix of a file in the current directory)\n"),
    (["run", "b.sh", "--platform", "jvm"],
     "error: unknown platform 'jvm' (from --platform) (use one of: native, wasm, qemu, valgrind, callgrind, "
     "or define [platforms.jvm] in benchlab.toml)\n"),
    (["run", "b.sh", "--format", "xml"],
     "error: Invalid value for '--format': 'xml' is not one of 'table', 'json', 'table-csv', 'markdown'. "
     "(see 'benchlab run --help')\n"),
    (["run", "b.sh", "--out", "result.xyz"],
     "error: cannot tell the format of --out result.xyz from its suffix "
     "(add --format table|json|table-csv|markdown, or name the file .txt, .json, .csv, .md or .markdown)\n"),
    (["run", "b.sh", "--sweep", "threads"],
     "error: --sweep 'threads' is not FLAG=V1,V2,... (write e.g. --sweep threads=1,2,4)\n"),
    (["show", "7"], None),
    (["run", "b.sh", "--processes", "0"],
     "error: Invalid value for '--processes' / '-N': 0 is not in the range 1<=x<=1000. (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--precision=-1"],
     "error: Invalid value for '--precision': -1.0 is not in the range 0<x<=100.0. (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--precision=0"],
     "error: Invalid value for '--precision': 0.0 is not in the range 0<x<=100.0. (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--process-precision=-1"],
     "error: Invalid value for '--process-precision': -1.0 is not in the range 0<=x<=100.0. "
     "(see 'benchlab run --help')\n"),
    # the time budget (issue 20): checked before anything is built or run
    (["run", "b.sh", "--time", "0"],
     "error: Invalid value for '--time': 0.0 is not in the range 0<x<=1000000000.0. (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--time", "-1"],
     "error: Invalid value for '--time': -1.0 is not in the range 0<x<=1000000000.0. (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--time", "abc"],
     "error: Invalid value for '--time': 'abc' is not a number (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--fast", "--rigorous"],
     "error: --fast and --rigorous are presets of how many processes run: give one of them\n"),
    (["run", "b.sh", "--rigorous", "-N", "3"],
     "error: --processes and --rigorous each decide how many processes run: give one of them (--time S and "
     "--precision PCT go together: rounds until PCT or S seconds)\n"),
    (["run", "b.sh", "--fast", "--time", "3"],
     "error: --fast and --time each decide how many processes run: give one of them (--time S and "
     "--precision PCT go together: rounds until PCT or S seconds)\n"),
    (["run", "b.sh", "--precision=abc"],
     "error: Invalid value for '--precision': 'abc' is not a number (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--precision=nan"],
     "error: Invalid value for '--precision': 'nan' is not a finite number (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--schedule=other"],
     "error: Invalid value for '--schedule': 'other' is not one of 'rounds', 'sequential'. "
     "(see 'benchlab run --help')\n"),
    # the header's own minimum (benchlab.limits), checked before anything is built or run
    (["run", "b.sh", "--samples", "2"],
     "error: Invalid value for '--samples': 2 is not in the range 3<=x<=1000000. (see 'benchlab run --help')\n"),
    (["run", "b.sh", "--time-limit", "inf"],
     "error: Invalid value for '--time-limit': 'inf' is not a finite number (see 'benchlab run --help')\n"),
])
def test_usage_errors_are_one_line_and_exit_2(project, benchlab, args, message):
    write(project / "b.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    if message is None:
        message = (f"error: no run with id 7 in sqlite:///{project}/.benchlab/results.db "
                   "(list runs with: benchlab runs)\n")
    assert result.stderr == message


def test_bad_config_is_one_line_naming_file_key_and_fix(project, benchlab):
    write(project / "benchlab.toml", '[platforms.remote]\ncommand = ["ssh", "box"]\n')
    result = benchlab("run")
    assert result.exit_code == 2
    assert result.stderr == (
        'error: benchlab.toml: platforms.remote.command: has no "{exe}" element (add "{exe}" where the '
        'benchmark binary goes, e.g. ["qemu-aarch64", "{exe}", "{args}"])\n')


def test_unparseable_line_is_a_warning_naming_binary_and_line(project, benchlab):
    write(project / "b.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\nRead one hundred\\n'\n", executable=True)
    result = benchlab("run", "b.sh", "--no-store", "--processes", "1")
    assert result.exit_code == 0
    assert result.stderr == ("[1/1] b.sh on native\n"
                             "warning: b.sh: line 2 is not valid lind output (want test<TAB>param<TAB>loops<TAB>avg_ns), "
                             "ignored: 'Read one hundred'\n")


def test_prefix_targets_pick_files_in_the_suites(project, benchlab):
    for name in ("fs_read", "fs_write", "ipc_pipe"):
        write(project / "suites" / "sys" / f"{name}.sh", f"#!/bin/sh\nprintf '{name}\\t1\\t100\\t240\\n'\n",
              executable=True)
    result = benchlab("run", "fs_", "--no-store")
    assert result.exit_code == 0
    tests = [line.split()[0] for line in result.stdout.splitlines()[2:] if line.strip() and line[0] not in "?~"]
    assert tests == ["fs_read", "fs_write"]


def test_sweep_reports_throughput_and_linearity(project, benchlab):
    # A stand-in for a threaded CSB-style binary: -t=N threads give 100*N ops/ms up to 2, then 300.
    write(project / "scale.sh", """\
        #!/bin/sh
        n=${1#-t=}
        if [ "$n" -le 2 ]; then t=$((100 * n)); else t=300; fi
        printf 'num_threads=%s;algo_name=scale;throughput_min=%s;throughput_max=%s;\\n' "$n" "$t" "$t"
        """, executable=True)
    result = benchlab("run", "scale.sh", "--sweep", "threads=1,2,4", "--no-store")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "scale throughput: throughput (ops/ms) and linearity vs THREADS" in out
    scaling = out[out.index("linearity vs THREADS"):].splitlines()
    body = [sweep_plain(line).split() for line in scaling[3:6]]
    assert body == [["1", "100", "(1.000)"], ["2", "200", "(1.000)"], ["4", "300", "(0.750)"]]
    assert scaling[3].split()[2] == "+-0%"  # one exact figure per process, the same in every one


def test_workloads_are_timed_from_outside(project, benchlab):
    write(project / "benchlab.toml", """\
        [workloads.nap]
        command = ["sleep", "0.2"]
        runs = 3
        warmups = 1
        """)
    result = benchlab("run", "nap", "--format", "json", "--no-store")
    assert result.exit_code == 0, result.stderr
    records = {r["counter"]: r for r in json.loads(result.stdout)["records"]}
    assert set(records) == {"user", "sys", "wall", "max_rss"}
    assert len(records["wall"]["samples"]) == 3
    assert all(0.2 <= wall < 1.0 for wall in records["wall"]["samples"])
    assert all(user < 0.1 for user in records["user"]["samples"])  # sleeping is not computing
    assert records["max_rss"]["unit"] == "KiB" and records["max_rss"]["summary"]["median"] > 0


def test_prebuilt_wasm_module_runs_only_on_wasm_platforms(project, benchlab):
    from conftest import compile_c
    source = write(project / "src" / "w.c", '#include <stdio.h>\nint main(void){printf("W\\t1\\t10\\t5\\n");return 0;}\n')
    compile_c(source, project / "w.wasm", wasm=True)
    result = benchlab("run", "w.wasm", "--platform", "native", "--platform", "wasm", "--no-store", "--processes", "1")
    assert result.exit_code == 0, result.stderr
    [row] = [line.split() for line in result.stdout.splitlines()[2:3]]
    assert row == ["W", "1", "-", "5?", "10"]  # no native cell: a .wasm file has no native build


def test_google_benchmark_executable_is_asked_for_json(project, benchlab, gbench_binary):
    result = benchlab("run", str(gbench_binary), "--samples", "3", "--filter", "BM_memset", "--format", "json",
                      "--no-store", "--arg", "--benchmark_min_time=0.01")
    assert result.exit_code == 0, result.stderr
    records = json.loads(result.stdout)["records"]
    assert {(r["bench"], r["param"], r["counter"]) for r in records} == {
        ("BM_memset", 64, "time"), ("BM_memset", 1024, "time"),
        ("BM_memset", 64, "cpu_time"), ("BM_memset", 1024, "cpu_time")}
    assert all(r["format"] == "gbench" and len(r["samples"]) == 3 for r in records)


def test_a_binary_whose_median_disagrees_with_its_samples_is_flagged(project, benchlab):
    line = '{"type":"result","bench":"odd","param":null,"samples":[1.0,2.0,3.0],"median":7.5}'
    write(project / "odd.sh", f"#!/bin/sh\necho '{line}'\n", executable=True)
    result = benchlab("run", "odd.sh", "--no-store", "--processes", "1")
    assert result.exit_code == 0
    assert result.stderr == ("[1/1] odd.sh on native\n"
                             "warning: odd.sh: odd: the binary reports median 7.5 but its samples give 2; "
                             "using 2 (a header/Python statistics mismatch: please report it)\n")
    assert result.stdout.splitlines()[2].split()[:2] == ["odd", "2?"]


def copy_from_repo(project, *paths):
    import shutil
    from conftest import REPO
    for path in paths:
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / path, project / path)


def test_thread_sweep_of_the_concurrency_suite_shows_throughput_and_linearity(project, benchlab):
    copy_from_repo(project, "suites/concurrency/empty.c", "suites/concurrency/hash_map.c")
    # --time-limit is the threaded mode's default -d (docs/threads.md): 0.2 s per run
    result = benchlab("run", "suites/concurrency", "--sweep", "threads=1,2", "--time-limit", "0.2",
                      "--out", "result.json", "--no-store", "--processes", "2")
    assert result.exit_code == 0, result.stderr
    # no record ignored: progress lines only, each unit twice (two processes), in shuffled rounds
    progress = result.stderr.splitlines()
    assert sorted(line.split("] ", 1)[1] for line in progress) == sorted(
        f"{name} on native {threads}" for name in ("empty", "hash_map") for threads in (1, 2) for _ in range(2))
    assert [line.split("]")[0] for line in progress] == [f"[{i}/8" for i in range(1, 9)]
    out = result.stdout
    header, _, *lines = out.splitlines()
    # no PARAM column: a threaded record's param is its thread count, which THREADS shows
    assert header.split() == ["TEST", "THREADS", "COUNTER", "UNIT", "native", "ITERATIONS"]
    rows = [line.split() for line in lines[:lines.index("")]]
    keys = [tuple(row[:4]) for row in rows]
    for threads in ("1", "2"):
        assert ("empty", threads, "throughput", "ops/s") in keys
        assert ("hash_map", threads, "throughput", "ops/s") in keys
        for op in ("op0_lookup", "op1_insert", "op2_delete"):
            assert ("hash_map", threads, f"latency:{op}", "ns") in keys
    # ITERATIONS of a threaded run is its total operations, and says so
    assert all(row[-1] == "ops" and row[-2].isdigit() for row in rows)
    # one sweep table per target, of throughput only: latencies are not throughputs
    titles = [line for line in out.splitlines() if "linearity vs" in line]
    assert titles == ["empty throughput: throughput (ops/s) and linearity vs THREADS",
                      "hash_map throughput: throughput (ops/s) and linearity vs THREADS"]
    rows = json.loads((project / "result.json").read_text())["rows"]
    for bench, title in zip(("empty", "hash_map"), titles):
        # the figure of each thread count: its processes combined
        figure = {int(r["sweep"]): r["cells"]["native"]["median"] for r in rows
                  if r["test"] == bench and r["counter"] == "throughput"}
        table = out[out.index(title):].splitlines()[3:5]
        # linearity: throughput at N over N x throughput at 1
        lines = [sweep_plain(line).split(maxsplit=2) for line in table]
        assert lines[0] == ["1", f"{figure[1]:.0f}", "(1.000)"]
        # under load the linearity's interval may bound nothing: then it says so instead of a number
        assert lines[1][:2] == ["2", f"{figure[2]:.0f}"]
        assert lines[1][2] in (f"({figure[2] / (2 * figure[1]):.3f})", "(linearity uninformative)")


def test_counter_rows_and_unsupported_counters_are_shown_stored_and_exported(project, benchlab):
    copy_from_repo(project, "examples/counters.c")
    result = benchlab("run", "examples/counters.c", "--samples", "5", "--time-limit", "0.05", "--filter", "map",
                      "--counters", "time,jemalloc-allocated,page-faults,allocs", "--processes", "1")
    assert result.exit_code == 0, result.stderr
    assert without_load_lines(result.stderr) == ("[1/1] counters on native\n" + NO_PRIOR_NOTE + "\n"
                             "saved as run 1 (benchlab show 1); 1 compiled, 0 from the build cache\n")
    header, _, *lines = result.stdout.splitlines()
    assert header.split() == ["TEST", "PARAM", "COUNTER", "UNIT", "native", "ITERATIONS"]
    rows = [line.split(maxsplit=3) for line in lines[:4]]
    assert [row[:3] for row in rows] == [["map_touch_unmap", "time", "ns"], ["map_touch_unmap", "jemalloc-allocated", "bytes"],
                                         ["map_touch_unmap", "page-faults", "events"], ["map_touch_unmap", "allocs", "calls"]]
    # a long reason is a footnote, so that it does not widen the table
    assert rows[1][3] == "not supported [1]"
    assert "[1] not supported: the program is not linked with jemalloc (mallctl not found)" in lines
    assert rows[3][3].split()[0].rstrip("?~") == "1"      # one malloc per iteration

    shown = benchlab("show", "1")
    assert shown.exit_code == 0 and shown.stdout == result.stdout
    document = json.loads(benchlab("show", "1", "--format", "json").stdout)
    [stored] = [r for r in document["records"] if r["counter"] == "jemalloc-allocated"]
    assert stored["samples"] == [] and stored["reported"]["supported"] is False
    [row] = [r for r in document["rows"] if r["counter"] == "jemalloc-allocated"]
    assert row["cells"]["native"] == {
        "status": "unsupported", "reason": "the program is not linked with jemalloc (mallctl not found)"}


def test_threaded_target_on_wasm_is_not_supported_and_says_why(project, benchlab):
    copy_from_repo(project, "examples/threads.c")
    result = benchlab("run", "examples/threads.c", "--platform", "native", "--platform", "wasm",
                      "--time-limit", "0.2", "--format", "markdown", "--no-store", "--processes", "1")
    assert result.exit_code == 0, result.stderr
    [row] = [line for line in result.stdout.splitlines() if "| throughput |" in line]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[:4] == ["shared_counter", "1", "throughput", "ops/s"]
    assert float(cells[4].rstrip("?~")) > 0
    assert cells[5] == "not supported [1]"
    assert "- [1] not supported: threads are not available on wasm32-wasi (no pthreads in wasi-libc)" \
        in result.stdout.splitlines()


def test_processes_run_in_shuffled_rounds_with_a_different_layout_each(project, benchlab):
    # Each script logs when it ran and reports the size of the padding and the stack offset it got.
    for name in ("a", "b"):
        write(project / "suite" / f"{name}.sh",
              f"#!/bin/sh\necho {name} >> {project}/order.log\n"
              "printf 'Pad\\t1\\t1\\t%d\\n' ${#BENCHLAB_LAYOUT_PAD}\n"
              "printf 'Stack\\t1\\t1\\t%d\\n' ${BL_STACK_OFFSET:-0}\n", executable=True)
    result = benchlab("run", "suite", "--processes", "4", "--seed", "9", "--format", "json")
    assert result.exit_code == 0, result.stderr
    order = (project / "order.log").read_text().split()
    # four rounds, each runs every binary once
    assert len(order) == 8 and all(sorted(order[i:i + 2]) == ["a", "b"] for i in range(0, 8, 2))
    records = json.loads(result.stdout)["records"]
    pads = [r["samples"][0] for r in records if r["bench"] == "Pad"]
    stacks = [r["samples"][0] for r in records if r["bench"] == "Stack"]
    assert len(pads) == 8 and len(set(pads)) > 4 and all(0 <= p <= 4096 for p in pads)
    assert len(set(stacks)) > 4 and all(s % 16 == 0 and 0 <= s < 4096 for s in stacks)
    assert all(r["reported"]["env_pad"] == r["samples"][0] for r in records if r["bench"] == "Pad")

    (project / "order.log").unlink()
    same = benchlab("run", "suite", "--processes", "3", "--no-randomize-layout", "--format", "json")
    pads = {r["samples"][0] for r in json.loads(same.stdout)["records"] if r["bench"] == "Pad"}
    assert pads == {0.0}


def test_a_time_budget_runs_rounds_until_spent_and_the_plan_lists_them(project, benchlab):
    # Each process of each script logs itself: a budget runs whole rounds, every binary once each.
    for name in ("a", "b"):
        write(project / "suite" / f"{name}.sh",
              f"#!/bin/sh\necho {name} >> {project}/order.log\nprintf 'Read\\t1\\t100\\t24%d\\n' $$\n",
              executable=True)
    result = benchlab("run", "suite", "--time", "1.5", "--format", "json")
    assert result.exit_code == 0, result.stderr
    order = (project / "order.log").read_text().split()
    rounds = len(order) // 2
    assert rounds >= 2 and len(order) == 2 * rounds
    assert all(sorted(order[i:i + 2]) == ["a", "b"] for i in range(0, len(order), 2))
    document = json.loads(result.stdout)
    assert len(document["run"]["context"]["plan"]) == len(order)  # the rounds added as they started
    note = [line for line in result.stderr.splitlines() if "processes of each binary in" in line]
    assert note and note[0].startswith(f"{rounds} processes of each binary in ")
    assert note[0].endswith("the --time budget of 1.5 s is spent")
    shown = json.loads(benchlab("show", "latest", "--format", "json").stdout)
    assert shown["run"]["status"] == "complete"


def test_run_level_precision_stops_once_every_interval_is_narrow_enough(project, benchlab):
    write(project / "b.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t24%d\\n' $(( $$ % 3 ))\n", executable=True)
    result = benchlab("run", "b.sh", "--precision", "50", "--no-store")
    assert result.exit_code == 0, result.stderr
    assert "3 processes of each binary in " in result.stderr
    assert "every figure's rerun interval is within +-50% (widest: Read/1 on native, +-" in result.stderr


def test_a_failed_process_is_reported_and_the_others_are_combined(project, benchlab):
    # The second process of this binary crashes; the other three are combined.
    write(project / "flaky.sh",
          f"#!/bin/sh\necho x >> {project}/count\n"
          f"[ $(wc -l < {project}/count) -eq 2 ] && {{ echo 'lost my file' >&2; exit 3; }}\n"
          "printf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab("run", "flaky.sh", "--processes", "4", "--no-store")
    assert result.exit_code == 1
    row = next(line for line in result.stdout.splitlines() if line.startswith("Read"))
    assert "240" in row and "[3 of 4 processes]" in row
    assert "FAILED" not in result.stdout  # no failed row: the figure stands on the other processes
    assert "flaky.sh on native: exit status 3\n    lost my file\n" in result.stdout



OTHER_BENCH = """\
    #include "benchlab.h"
    BL_BENCH(fs_read_like, n) { uint64_t x = 0; for (uint64_t i = 0; i < n; i++) { x += i; BL_KEEP(x); } }
    BL_MAIN()
"""


def test_a_filter_matching_nothing_in_one_binary_is_not_a_failure(project, benchlab):
    write(project / "suite" / "small.c", SMALL_BENCH)
    write(project / "suite" / "other.c", OTHER_BENCH)
    result = benchlab("run", "suite", *FAST, "--filter", "fs_read", "--no-store", "--processes", "1")
    assert result.exit_code == 0, result.stdout
    assert "FAILED" not in result.stdout
    assert [line.split()[0] for line in result.stdout.splitlines()[2:] if not line.startswith("?")] == ["fs_read_like"]
    assert without_load_lines(result.stderr) == "[1/2] other on native\n[2/2] small on native\n"


def test_a_filter_matching_nothing_anywhere_is_one_error_and_stores_nothing(project, benchlab):
    write(project / "suite" / "small.c", SMALL_BENCH)
    write(project / "suite" / "other.c", OTHER_BENCH)
    result = benchlab("run", "suite", *FAST, "--filter", "nothing_like_it", "--processes", "1")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "[1/2] other on native\n[2/2] small on native\n"
        "error: --filter 'nothing_like_it' matches no benchmark in any binary (list a binary's benchmarks with its "
        "--list; a filter is a substring of NAME or NAME/PARAM=V)\n")
    assert benchlab("runs").stdout.splitlines()[2:] == []


def test_google_benchmark_with_no_match_is_not_a_failure_either(project, benchlab, gbench_binary):
    write(project / "lind.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab("run", str(gbench_binary), "lind.sh", "--filter", "Read", "--no-store")
    assert result.exit_code == 0, result.stdout
    assert "FAILED" not in result.stdout and result.stdout.splitlines()[2].split()[:2] == ["Read", "1"]


@pytest.mark.parametrize("out, message", [
    ("missing/result.json", "error: --out missing/result.json: the directory missing does not exist "
                            "(create it first, or give another path)\n"),
    ("adir", "error: Invalid value for '--out': File 'adir' is a directory. (see 'benchlab run --help')\n"),
])
def test_a_bad_out_path_is_an_error_before_anything_runs(project, benchlab, out, message):
    (project / "adir").mkdir()
    write(project / "b.sh", "#!/bin/sh\necho ran > ran.txt\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab("run", "b.sh", "--out", out, "--format", "json")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)
    assert not (project / ".benchlab" / "results.db").exists()  # no run begun, nothing ran


def test_a_project_whose_state_directory_cannot_be_made_is_one_error(project, benchlab):
    (project / ".benchlab").write_text("not a directory")
    write(project / "b.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab("run", "b.sh", "--no-store")
    assert result.exit_code == 2
    assert result.stderr == (f"error: cannot create {project}/.benchlab/scratch: Not a directory (builds and scratch "
                             "directories live in .benchlab/ of the project: make it writable)\n")


@pytest.mark.parametrize("args, message", [
    (["--timeout", "inf"], "error: Invalid value for '--timeout': 'inf' is not a finite number "
                           "(see 'benchlab run --help')\n"),
    (["--timeout", "nan"], "error: Invalid value for '--timeout': 'nan' is not a finite number "
                           "(see 'benchlab run --help')\n"),
    (["--time-limit", "nan"], "error: Invalid value for '--time-limit': 'nan' is not a finite number "
                              "(see 'benchlab run --help')\n"),
    (["--time-limit", "0"], "error: Invalid value for '--time-limit': 0.0 is not in the range 0<x<=1000000.0. "
                            "(see 'benchlab run --help')\n"),
    (["--arg", "a\0b"], "error: argument 4 ('a\\x00b') contains a NUL character (remove it)\n"),
])
def test_non_finite_and_nul_flags_are_usage_errors(project, benchlab, args, message):
    write(project / "b.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    result = benchlab("run", "b.sh", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)


def test_flags_of_benchmark_binaries_given_to_a_workload_are_named(project, benchlab):
    write(project / "benchlab.toml", '[workloads.nap]\ncommand = ["true"]\nruns = 2\nwarmups = 0\n')
    result = benchlab("run", "nap", "--samples", "20", "--counters", "allocs", "--no-store")
    assert result.exit_code == 0
    assert result.stderr == (
        "warning: --samples, --counters do not apply to workloads (nap): a workload is timed from outside over "
        "its runs (set workloads.NAME.runs and warmups in benchlab.toml)\n[1/1] nap on native\n")
    user = result.stdout.splitlines()[2].split()
    assert user[:3] == ["nap", "user", "s"] and user[-2:] == ["2", "runs"]
    assert user[4].startswith("[") and "–" in user[4]          # the range of the runs, min–max


def test_a_child_holding_stdout_does_not_outlive_the_run(project, benchlab, tmp_path):
    pidfile = tmp_path / "pid"
    write(project / "forker.sh", f"#!/bin/sh\nsleep 60 &\necho $! > {pidfile}\nprintf 'Read\\t1\\t100\\t240\\n'\n",
          executable=True)
    result = benchlab("run", "forker.sh", "--no-store")
    assert result.exit_code == 0
    from conftest import alive
    import time
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(pid)


def test_a_million_junk_lines_cost_a_few_warnings_and_keep_every_result(project, benchlab):
    write(project / "chatty.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\nyes 'junk' | head -n 1000000\n"
                                 "printf 'Read\\t2\\t100\\t250\\n'\n", executable=True)
    result = benchlab("run", "chatty.sh", "--no-store", "--processes", "1")
    assert result.exit_code == 0
    assert [line.split()[:3] for line in result.stdout.splitlines()[2:4]] == [["Read", "1", "240?"], ["Read", "2", "250?"]]
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1 + 10 + 1  # the progress line, ten warnings, one summary
    assert warnings[-1] == "warning: chatty.sh: 999990 more warnings like these not shown (the first 10 are)"


def test_two_binaries_with_the_same_test_get_a_row_each(project, benchlab):
    write(project / "suite" / "native_fs.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    write(project / "suite" / "grate_fs.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t1102\\n'\n", executable=True)
    result = benchlab("run", "suite", "--no-store", "--processes", "1")
    assert result.exit_code == 0
    header, _, *rows = result.stdout.splitlines()
    assert header.split() == ["TEST", "BINARY", "PARAM", "native", "(ns)", "ITERATIONS"]
    assert [row.split() for row in rows[:2]] == [["Read", "grate_fs.sh", "1", "1102?", "100"],
                                                 ["Read", "native_fs.sh", "1", "240?", "100"]]


def test_each_process_starts_on_the_next_cpu_and_is_released(project, benchlab):
    import os
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one CPU: nothing to spread over")
    write(project / "small.c", SMALL_BENCH)
    result = benchlab("run", "small.c", *FAST, "--processes", "4", "--no-store", "--format", "json")
    assert result.exit_code == 0, result.stderr
    records = json.loads(result.stdout)["records"]
    started = {r["reported"]["process"]: r["reported"]["start_cpu"] for r in records}
    assert started == {k: cpus[k % len(cpus)] for k in range(4)}
    # the header says where it started (its context record: the last process's is kept)
    context = json.loads(result.stdout)["run"]["context"]["binaries"]["small@native"]
    assert context["start_cpu"] == started[3]
    unspread = benchlab("run", "small.c", *FAST, "--processes", "2", "--no-store", "--format", "json",
                        "--no-spread-cpus")
    assert all("start_cpu" not in r["reported"] for r in json.loads(unspread.stdout)["records"])


# -- a platform a source cannot build for: a `-` cell with the reason, not a failure -------------

THREADED = """\
    #include <pthread.h>
    #include "benchlab.h"
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    BL_BENCH(locked, n) {
        for (uint64_t i = 0; i < n; i++) { pthread_mutex_lock(&lock); pthread_mutex_unlock(&lock); }
    }
    BL_MAIN()
"""


def test_a_source_with_threads_is_a_dash_on_wasm_and_the_run_passes(project, benchlab):
    write(project / "suite" / "locked.c", THREADED)
    write(project / "suite" / "small.c", SMALL_BENCH)
    result = benchlab("run", "suite", "--platform", "native", "--platform", "wasm", *FAST, "--processes", "2")
    assert result.exit_code == 0, result.stdout + result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[2:] if line.strip()}
    reason = "not built for wasm32-wasi: includes <pthread.h> (wasi-libc has no threads)"
    assert rows["locked"].split()[1] == "-" and rows["locked"].endswith(f"- ({reason})")
    assert "FAILED" not in result.stdout and "failures:" not in result.stdout
    shown = benchlab("show")  # stored as it was said: the reason is the fault's, the run complete
    assert shown.exit_code == 0 and f"- ({reason})" in shown.stdout
    store = open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}")
    assert [(run["status"], run["exit_code"]) for run in store.list_runs()] == [("complete", 0)]
    store.close()


def test_a_source_that_is_wrong_still_fails_on_wasm(project, benchlab):
    # No thread header: wasm's compile error is the source's own, a failure (exit 1).
    write(project / "broken.c", '#include "benchlab.h"\nBL_BENCH(b, n) { (void)n; undefined_call(); }\nBL_MAIN()\n')
    result = benchlab("run", "broken.c", "--platform", "native", "--platform", "wasm", "--no-store", *FAST)
    assert result.exit_code == 1
    assert "FAILED: does not compile for wasm32-wasi" in result.stdout and "failures:" in result.stdout


def test_the_docs_sweep_example_and_run_suites_exit_0_as_written(benchlab, monkeypatch, tmp_path):
    """docs/cli.md's concurrency sweep, run as written from the repository (wasm is one of
    benchlab.toml's platforms there), then scripts/run-suites's `benchlab run` line with
    quick settings in place of its "$@"."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("BENCHLAB_DB", f"sqlite:///{tmp_path / 'results.db'}")
    example = "benchlab run suites/concurrency --sweep threads=1,2 --time-limit 0.2 --no-store"
    assert f"$ {example}\n" in (REPO / "docs" / "cli.md").read_text()
    result = benchlab(*shlex.split(example)[1:])
    assert result.exit_code == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "- (not built for wasm32-wasi: includes <pthread.h>" in result.stdout
    line = next(line for line in (REPO / "scripts" / "run-suites").read_text().splitlines()
                if line.startswith(".venv/bin/benchlab run "))
    argv = [arg for arg in shlex.split(line)[1:] if arg != "$@"]
    suites = benchlab(*argv, "--processes", "1", "--samples", "3", "--time-limit", "0.01", "--no-store")
    assert suites.exit_code == 0, suites.stdout[-2000:] + suites.stderr[-2000:]


def test_a_calibrated_machine_gives_a_new_programs_figures_its_prior_and_says_nothing(project, benchlab):
    from benchlab.measuring import context
    from benchlab.statistics import noise
    write(project / "suite" / "small.c", SMALL_BENCH)
    store = open_store(f"sqlite:///{project / 'p.db'}")
    store.save_machine_priors(noise.Machine.of(context.machine()), [
        dict(kind="latency-bound", variance=0.004 ** 2, df=9, process_cv2=0.003 ** 2, process_df=20, runs=10, load=0.1),
        dict(kind="loop-bound", variance=0.1 ** 2, df=9, process_cv2=0.2 ** 2, process_df=20, runs=10, load=0.1)])
    store.close()
    result = benchlab("run", "suite", *FAST, "--db", f"sqlite:///{project / 'p.db'}")
    assert result.exit_code == 0 and NO_PRIOR_NOTE not in result.stderr
    assert "this machine's prior, benchlab calibrate" in result.stdout  # the legend says what the ± rests on
