"""`benchlab profile`, and what compare and gate make of stored profiles: the json shape,
the store on both engines, bucket moves in percentage points, the bucket gate's exit
codes, a benchlab binary's body, and one clear error (nothing stored) per bad input."""
from __future__ import annotations

import json
import subprocess
import textwrap

import pytest
from conftest import write
from profile_programs import BUCKETS_TOML, CALLGRIND_N, PERF_N, build_costs

from benchlab.storage.store import open_store


@pytest.fixture
def costs(project):
    return build_costs(project)


@pytest.fixture
def buckets_file(project):
    return write(project / "b.toml", BUCKETS_TOML)


def profile_json(benchlab, *args, buckets="b.toml"):
    result = benchlab("profile", "--buckets", buckets, "--format", "json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def self_shares(document) -> dict[str, float]:
    return {b["bucket"]: b["share"] for b in document["buckets"]}


def test_json_lists_every_bucket_with_share_and_samples_other_included(project, benchlab, costs, buckets_file):
    document = profile_json(benchlab, "--instructions", "--", "./costs", CALLGRIND_N)
    assert [b["bucket"] for b in document["buckets"]] == ["heavy", "light", "caller", "other"]
    assert all({"bucket", "share", "samples"} <= set(b) for b in document["buckets"])
    assert document["profiler"] == "callgrind" and document["unit"] == "instructions" and document["run"] == 1
    total = document["totals"]["native"]["total"]
    assert sum(b["samples"] for b in document["buckets"]) == total
    assert sum(b["share"] for b in document["buckets"]) == pytest.approx(100, abs=1e-9)
    shares = self_shares(document)
    assert shares["heavy"] == pytest.approx(75, abs=0.5) and shares["light"] == pytest.approx(25, abs=0.3)
    [caller] = [b for b in document["buckets"] if b["bucket"] == "caller"]
    assert caller["inclusive_share"] == pytest.approx(shares["heavy"] + shares["light"], abs=0.01)


def test_the_table_shows_shares_and_top_symbols(project, benchlab, costs, buckets_file):
    result = benchlab("profile", "--buckets", "b.toml", "--instructions", "--no-store", "--", "./costs", "20000")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("costs on native: callgrind, ") and lines[0].endswith(" instructions")
    assert lines[1].split() == ["BUCKET", "SELF", "INSTRUCTIONS", "INCLUSIVE"]
    assert lines[2].split()[0] == "heavy" and lines[3].split()[0] == "heavy" and lines[3].split()[-1] == "costs"
    assert "saved as run" not in result.stdout


def test_a_profile_is_stored_and_read_back_the_same_on_both_engines(project, benchlab, costs, buckets_file, db_url):
    document = profile_json(benchlab, "--instructions", "--db", db_url, "--", "./costs", "20000")
    store = open_store(db_url)
    rows = store.load_profile(document["run"])
    assert store.latest_profiled_run() == document["run"]
    selfs = [r for r in rows if r["kind"] == "self"]
    assert [(r["bucket"], r["samples"], r["share"], r["top_symbols"]) for r in selfs] == [
        (b["bucket"], b["samples"], b["share"], b["top_symbols"]) for b in document["buckets"]]
    assert [r["share"] for r in rows if r["kind"] == "inclusive"] == [b["inclusive_share"] for b in document["buckets"]]
    run, records, faults = store.load_run(document["run"])
    assert run["status"] == "complete" and records == [] and faults == []
    assert run["context"]["profile"]["buckets"] == {"heavy": ["^heavy$"], "light": ["^light$"], "caller": ["^both$"]}
    assert run["context"]["profile"]["totals"]["native"]["total"] == document["totals"]["native"]["total"]
    shown = benchlab("show", str(document["run"]), "--db", db_url, "--format", "json")
    assert json.loads(shown.stdout)["buckets"] == document["buckets"]
    table = benchlab("show", str(document["run"]), "--db", db_url).stdout.splitlines()
    assert table[0].startswith("costs on native: callgrind, ") and table[2].split()[0] == "heavy"
    store.delete_run(document["run"])  # its buckets go with it
    assert store.load_profile(document["run"]) == [] and store.latest_profiled_run() is None
    store.close()


def test_compare_shows_bucket_shares_moving_in_percentage_points(project, benchlab, costs, buckets_file):
    three = profile_json(benchlab, "--instructions", "--", "./costs", "200000", "3")   # heavy 75%
    one = profile_json(benchlab, "--instructions", "--", "./costs", "200000", "1")     # heavy 50%
    result = benchlab("compare", str(three["run"]), str(one["run"]))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "profile buckets: share of samples, and its change in percentage points (B - A)"
    heavy = lines[2].split()
    expected = self_shares(one)["heavy"] - self_shares(three)["heavy"]
    assert heavy[:3] == ["heavy", "native", "self"] and heavy[-2:] == [f"{expected:+.2f}", "pp"]
    assert expected == pytest.approx(-25, abs=0.5)
    document = json.loads(benchlab("compare", str(three["run"]), str(one["run"]), "--format", "json").stdout)
    light = next(m for m in document["buckets"] if m["bucket"] == "light" and m["kind"] == "self")
    assert light["change_pp"] == pytest.approx(self_shares(one)["light"] - self_shares(three)["light"], abs=1e-12)
    assert light["change_pp"] == pytest.approx(25, abs=0.5)


def test_the_bucket_gate_passes_only_with_the_margin_and_exits_3_otherwise(project, benchlab, costs, buckets_file):
    heavy = self_shares(profile_json(benchlab, "--instructions", "--", "./costs", "20000"))["heavy"]
    limit = f"{heavy + 0.7:.4f}"  # 0.7 pp above the share
    passed = benchlab("gate", "--bucket", f"heavy<{limit}%", "--margin", "0.5pp")
    assert passed.exit_code == 0, passed.stderr
    assert passed.stdout.splitlines()[1].endswith("(margin 0.5 pp): passed")
    failed = benchlab("gate", "--bucket", f"heavy<{limit}%", "--margin", "1pp")
    assert failed.exit_code == 3
    assert failed.stderr.startswith(f"bucket gate failed: bucket heavy on native: {heavy:.2f}% of instructions (self), "
                                    f"under {float(limit):g}% by +0.70 pp (margin 1 pp): FAILED")
    # Just under with no margin passes; over fails; ">" asks the other way round.
    assert benchlab("gate", "--bucket", f"heavy<{heavy + 0.01:.4f}%").exit_code == 0
    assert benchlab("gate", "--bucket", f"heavy<{heavy - 0.01:.4f}%").exit_code == 3
    assert benchlab("gate", "--bucket", f"light>20%", "--margin", "1pp").exit_code == 0
    assert benchlab("gate", "--bucket", f"light>30%").exit_code == 3
    # every limit is checked: one failing fails the gate
    assert benchlab("gate", "--bucket", "heavy<90%", "--bucket", "light<10%").exit_code == 3


def test_the_bucket_gate_reads_the_latest_profiled_run_or_run(project, benchlab, costs, buckets_file):
    first = profile_json(benchlab, "--instructions", "--", "./costs", "20000", "1")   # heavy 50%
    second = profile_json(benchlab, "--instructions", "--", "./costs", "20000", "3")  # heavy 75%
    write(project / "b.sh", "#!/bin/sh\nprintf 'Read\\t1\\t100\\t240\\n'\n", executable=True)
    assert benchlab("run", "b.sh", "--processes", "1").exit_code == 0  # the latest run, without a profile
    latest = benchlab("gate", "--bucket", "heavy<60%")
    assert latest.exit_code == 3 and latest.stdout.startswith(f"profile of run {second['run']}:")
    chosen = benchlab("gate", "--bucket", "heavy<60%", str(first["run"]))
    assert chosen.exit_code == 0 and chosen.stdout.startswith(f"profile of run {first['run']}:")
    no_profile = benchlab("gate", "--bucket", "heavy<60%", "latest")
    assert (no_profile.exit_code, no_profile.stderr) == (2, "error: run 3 has no profile (give a run stored by "
                                                            "benchlab profile (or leave out RUN for the latest one))\n")
    unknown = benchlab("gate", "--bucket", "dispatch<30%")
    assert unknown.stderr == ("error: run 2's profile has no bucket 'dispatch' "
                              "(its buckets are: caller, heavy, light, other)\n")


def test_gate_usage_errors(project, benchlab):
    assert benchlab("gate").stderr == ('error: give --baseline RUN, or --bucket "NAME<PCT%", or both '
                                       "(see 'benchlab gate --help')\n")
    bad = benchlab("gate", "--bucket", "dispatch=30")
    assert (bad.exit_code, bad.stderr) == (2, "error: --bucket 'dispatch=30' is not NAME<PCT% or NAME>PCT% "
                                              '(write e.g. --bucket "dispatch<30%")\n')
    margin = benchlab("gate", "--bucket", "dispatch<30%", "--margin", "1%")
    assert margin.exit_code == 2 and "is not a number of percentage points" in margin.stderr
    empty = benchlab("gate", "--bucket", "dispatch<30%")
    assert empty.exit_code == 2 and empty.stderr.startswith("error: no run in ") and "has a profile" in empty.stderr


BENCH_C = textwrap.dedent("""\
    #include "benchlab.h"
    static uint64_t (*volatile step)(uint64_t) = 0;
    __attribute__((noinline)) static uint64_t square(uint64_t x) { return x * x; }
    BL_BASELINE(empty, n) { for (uint64_t i = 0; i < n; i++) BL_CLOBBER(); }
    BL_BENCH(squares, n) { uint64_t s = 0; for (uint64_t i = 0; i < n; i++) { s += square(i); BL_KEEP(s); } }
    BL_BENCH(spin, n) { uint64_t x = 0; for (uint64_t i = 0; i < n; i++) { x += i * i; BL_KEEP(x); } }
    BL_MAIN()
""")

BENCH_BUCKETS = '[buckets]\nbody = ["^bl__body_squares"]\nsquare = ["^square"]\n'


def test_a_benchmark_is_profiled_inside_its_body_only(project, benchlab):
    write(project / "bench.c", BENCH_C)
    write(project / "b.toml", BENCH_BUCKETS)
    counted = profile_json(benchlab, "bench.c", "--filter", "squares", "--instructions", "--time-limit", "0.2")
    shares = self_shares(counted)
    # callgrind counts inside bl__body_squares only: the body and what it calls, nothing of the harness.
    assert shares["body"] + shares["square"] == pytest.approx(100, abs=0.01) and shares["square"] > 10
    sampled = profile_json(benchlab, "bench.c", "--filter", "squares", "--time-limit", "0.3")
    totals = sampled["totals"]["native"]
    # perf samples the whole process; those outside the body (the baseline, the empty loop,
    # start-up) are left out: about two thirds, as rounds give each series the same time.
    assert totals["left_out"] > totals["total"] > 100
    [body] = [b for b in sampled["buckets"] if b["bucket"] == "body"]
    assert body["inclusive_share"] == pytest.approx(100, abs=1e-9)
    assert self_shares(sampled)["body"] + self_shares(sampled)["square"] > 90


def test_a_benchmark_binary_needs_a_filter_that_selects_one_benchmark(project, benchlab):
    write(project / "bench.c", BENCH_C)
    none = benchlab("profile", "bench.c", "--no-store")
    assert none.stderr == "error: bench has 2 benchmarks (spin, squares): a profile is of one (give --filter NAME)\n"
    two = benchlab("profile", "bench.c", "--filter", "s", "--no-store")
    assert two.stderr == ("error: --filter 's' matches 2 benchmarks (spin, squares) of bench "
                          "(give a filter that selects one of: spin, squares, empty)\n")


# -- one error each, nothing stored ---------------------------------------------------------


def assert_error_and_nothing_stored(project, result, message: str) -> None:
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"error: {message}\n")
    database = project / ".benchlab" / "results.db"
    if database.exists():
        assert open_store(f"sqlite:///{database}").list_runs() == []


def test_a_crashing_target_is_an_error_and_nothing_is_stored(project, benchlab, costs, buckets_file):
    result = benchlab("profile", "--buckets", "b.toml", "--", "./costs", "abort")
    assert result.exit_code == 2 and result.stderr.startswith(
        "error: costs on native killed by SIGABRT under perf record")
    assert_error_and_nothing_stored(project, result, result.stderr[len("error: "):-1])
    counted = benchlab("profile", "--buckets", "b.toml", "--instructions", "--", "./costs", "abort")
    assert counted.exit_code == 2 and counted.stderr.startswith(
        "error: costs on native killed by SIGABRT under callgrind")


def test_a_target_that_exits_early_is_an_error(project, benchlab, costs, buckets_file):
    result = benchlab("profile", "--buckets", "b.toml", "--", "./costs", "1")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: costs ran for only ")
    assert result.stderr.endswith("ms of CPU time): it exited too early to profile (give it more work (at least "
                                  "25 ms of CPU time), or use --instructions, which counts every instruction however "
                                  "short the run)\n")
    assert_error_and_nothing_stored(project, result, result.stderr[len("error: "):-1])


def test_an_out_path_in_a_missing_directory_is_refused_before_anything_runs(project, benchlab, costs, buckets_file):
    result = benchlab("profile", "--buckets", "b.toml", "--out", "nowhere/p.json", "--", "./costs", "20000", "3",
                      "ran.txt")
    assert_error_and_nothing_stored(project, result, "--out nowhere/p.json: the directory nowhere does not exist "
                                                     "(create it first, or give another path)")
    assert not (project / "ran.txt").exists()
    written = benchlab("profile", "--buckets", "b.toml", "--instructions", "--out", "p.json", "--", "./costs", "20000")
    assert written.exit_code == 0 and json.loads((project / "p.json").read_text())["buckets"][0]["bucket"] == "heavy"


def test_a_bad_buckets_file_is_refused_before_anything_runs(project, benchlab, costs):
    write(project / "b.toml", '[buckets]\nheavy = ["^heavy("]\n')
    result = benchlab("profile", "--buckets", "b.toml", "--", "./costs", "20000", "3", "ran.txt")
    assert_error_and_nothing_stored(project, result, "b.toml: buckets.heavy[0]: '^heavy(' is not a valid regular "
                                    "expression (RE2): missing ): ^heavy( (fix the pattern: RE2 is Python's re "
                                    "without backreferences, look-around or possessive repeats, with repeats up to "
                                    "{1000} and \\z for \\Z; escape . ( [ with a backslash)")
    assert not (project / "ran.txt").exists()
    missing = benchlab("profile", "--buckets", "none.toml", "--", "./costs")
    assert missing.stderr == "error: --buckets none.toml: no such file (give the path of a TOML buckets file)\n"


def test_paranoid_perf_events_are_one_error(project, benchlab, costs, buckets_file, monkeypatch, tmp_path):
    from benchlab.profiling import perf
    (tmp_path / "paranoid").write_text("4\n")
    monkeypatch.setattr(perf, "PARANOID_PATH", tmp_path / "paranoid")
    monkeypatch.setattr(perf, "privileged", lambda: False)
    result = benchlab("profile", "--buckets", "b.toml", "--", "./costs", "20000", "3", "ran.txt")
    assert_error_and_nothing_stored(
        project, result, f"perf_event_paranoid is 4 ({tmp_path}/paranoid): this user may not sample processes "
        "(allow it with: sudo sysctl kernel.perf_event_paranoid=2 (user space only) or 1, or run as root, or give "
        "--instructions to count instructions under valgrind's callgrind instead)")
    assert not (project / "ran.txt").exists()
    # --instructions does not need perf at all
    assert benchlab("profile", "--buckets", "b.toml", "--instructions", "--", "./costs", "2000").exit_code == 0


def test_missing_profilers_are_one_error(project, benchlab, costs, buckets_file, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    sampled = benchlab("profile", "--buckets", "b.toml", "--", "./costs", "20000")
    assert_error_and_nothing_stored(project, sampled, "perf (Linux's profiler) is not installed (apt-get install "
                                    "linux-perf, or give --instructions to count instructions under valgrind's "
                                    "callgrind instead)")
    counted = benchlab("profile", "--buckets", "b.toml", "--instructions", "--", "./costs", "20000")
    assert_error_and_nothing_stored(project, counted, "valgrind (for callgrind's instruction counts) is not installed "
                                    "(apt-get install valgrind, or leave out --instructions to sample with perf)")


def test_the_call_graph_perf_records_is_the_one_stored():
    """One rule says which call graph perf records and which the run's context names: a
    benchlab benchmark's is always DWARF (its samples are kept by the body's frame)."""
    from benchlab.cli.profile import DEFAULT_CALL_GRAPH, _call_graph, _Options

    def options(call_graph):
        return _Options(filter_text=None, time_limit=1.0, timeout=60.0, extra_args=[], call_graph=call_graph)
    assert _call_graph("bl__body_Read", options("fp")) == "dwarf"
    assert _call_graph(None, options("fp")) == "fp"
    assert _call_graph(None, options(None)) == DEFAULT_CALL_GRAPH == "dwarf"


def test_the_bucket_gate_reads_inclusive_shares_with_inclusive(project, benchlab, costs, buckets_file):
    """both() does nothing itself and calls heavy() and light(): its self share is ~0%, its
    inclusive share all of theirs. --inclusive judges the latter."""
    document = profile_json(benchlab, "--instructions", "--", "./costs", "20000")
    [caller] = [b for b in document["buckets"] if b["bucket"] == "caller"]
    assert caller["share"] < 1 and caller["inclusive_share"] > 95  # main's own loop and start-up: the rest
    assert benchlab("gate", "--bucket", "caller<50%").exit_code == 0
    inclusive = benchlab("gate", "--bucket", "caller<50%", "--inclusive")
    assert inclusive.exit_code == 3
    assert inclusive.stderr.startswith(f"bucket gate failed: bucket caller on native: {caller['inclusive_share']:.2f}% "
                                       "of instructions (inclusive), under 50% by ")
    assert benchlab("gate", "--bucket", "caller>95%", "--inclusive").exit_code == 0


def test_call_graph_fp_gives_inclusive_shares_and_none_gives_none(project, benchlab, costs):
    """perf with frame pointers (costs is built with them) walks a sample's stack up to
    main(): main's inclusive share is about all of it. It skips the caller of a function
    without a frame, and gcc 12 gives leaf functions none (docs/cli.md): heavy() and light()
    are leaves, so both() is not seen above them. Without a call graph there are no
    inclusive shares, and the gate says how to get them."""
    write(project / "fp.toml", BUCKETS_TOML + 'main = ["^main$"]\n')
    fp = profile_json(benchlab, "--call-graph", "fp", "--", "./costs", PERF_N, buckets="fp.toml")
    inclusive = {b["bucket"]: b["inclusive_share"] for b in fp["buckets"]}
    shares = self_shares(fp)
    assert shares["heavy"] + shares["light"] > 90 and inclusive["main"] > 95
    # within 1 pp: an fp walk that starts in a frameless function can read a stale return address
    assert inclusive["heavy"] == pytest.approx(shares["heavy"], abs=1)
    assert inclusive["caller"] == pytest.approx(shares["caller"], abs=1)
    stored = open_store(f"sqlite:///{project / '.benchlab' / 'results.db'}")
    assert stored.load_run(fp["run"])[0]["context"]["profile"]["call_graph"] == "fp"
    stored.close()
    none = profile_json(benchlab, "--call-graph", "none", "--", "./costs", PERF_N, buckets="fp.toml")
    assert all(b.get("inclusive_share") is None for b in none["buckets"])
    refused = benchlab("gate", "--bucket", "main<50%", "--inclusive")
    assert refused.exit_code == 2
    assert refused.stderr == (f"error: run {none['run']}'s profile has no inclusive shares (inclusive shares need a "
                              "call graph: profile with --call-graph fp or dwarf)\n")
    assert benchlab("gate", "--bucket", "main<50%").exit_code == 0  # its self shares are there: main's is small
