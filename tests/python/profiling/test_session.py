"""benchlab.profiling: real perf and callgrind output of a small C program whose functions
have known costs, folded into buckets; the buckets file's checks; perf's preconditions."""
from __future__ import annotations

import base64
import io
import json
import random
import re
import shutil
import subprocess
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from benchlab.profiling import callgrind
from benchlab.errors import UserError
from benchlab.profiling import perf
from benchlab.profiling.buckets import OTHER, fold_self, load_buckets, stack_inclusive
from benchlab.profiling.session import Plan, profile_with_callgrind, profile_with_perf
from benchlab.profiling.symbols import has_symbols, unresolved_warning
from profile_programs import BUCKETS_TOML, CALLGRIND_N, COSTS_C, PERF_N, build_costs  # noqa: F401

#: heavy() runs the same loop as light(), K times as long (K = argv[2], default 3); both()
#: calls the two; main calls both() 10 times. Aligned alike, so that under perf the loops
#: cost the same per iteration too. argv[3]: a file to write first (to see that it ran).
#: argv[1] "abort": the program aborts.
@pytest.fixture(scope="module")
def costs(tmp_path_factory) -> Path:
    return build_costs(tmp_path_factory.mktemp("costs"))


@pytest.fixture
def buckets(tmp_path):
    path = tmp_path / "b.toml"
    path.write_text(BUCKETS_TOML)
    return load_buckets(path)


def plan_of(argv: list[str], cwd: Path) -> Plan:
    return Plan("costs", "native", argv, str(cwd), {"PATH": "/usr/bin:/bin"})


def shares(profile, kind="self") -> dict[str, float]:
    chosen = profile.self_shares if kind == "self" else profile.inclusive_shares
    return {share.bucket: share.share for share in chosen}


# -- real profiles --------------------------------------------------------------------------


def test_callgrind_counts_heavy_three_times_light(costs, buckets, tmp_path):
    profile = profile_with_callgrind(plan_of([str(costs), CALLGRIND_N], tmp_path), buckets, 120, tmp_path)
    self_ = shares(profile)
    assert list(self_) == ["heavy", "light", "caller", OTHER]
    # Each loop iteration is the same 6 instructions: 3:1 of the instructions, less start-up.
    assert self_["heavy"] == pytest.approx(75, abs=0.5) and self_["light"] == pytest.approx(25, abs=0.3)
    assert self_["heavy"] / self_["light"] == pytest.approx(3, rel=1e-4)
    assert sum(self_.values()) == pytest.approx(100, abs=1e-9)
    assert sum(s.samples for s in profile.self_shares) == profile.total and profile.unit == "instructions"
    # both() does almost nothing itself, but everything happens below it.
    inclusive = shares(profile, "inclusive")
    assert self_["caller"] < 0.01 and inclusive["caller"] == pytest.approx(self_["heavy"] + self_["light"], abs=0.01)
    assert inclusive["heavy"] == pytest.approx(self_["heavy"], abs=1e-9)
    top = profile.self_shares[0].top[0]
    assert (top["symbol"], Path(top["dso"]).name) == ("heavy", "costs")


def test_callgrind_counts_are_the_same_run_after_run(costs, buckets, tmp_path):
    counted = []
    for index in range(2):
        workdir = tmp_path / str(index)
        workdir.mkdir()
        profile = profile_with_callgrind(plan_of([str(costs), "20000"], workdir), buckets, 120, workdir)
        counted.append([(s.bucket, s.samples) for s in profile.self_shares if s.bucket != OTHER])
    assert counted[0] == counted[1]
    assert counted[0][0][1] / counted[0][1][1] == pytest.approx(3, rel=1e-3)


def test_perf_samples_heavy_about_three_times_light(costs, buckets, tmp_path):
    profile = profile_with_perf(plan_of([str(costs), PERF_N], tmp_path), buckets, perf.check_perf(), "dwarf", 120,
                                tmp_path)
    self_ = shares(profile)
    assert profile.total >= 1000 and profile.unit == "samples"
    # Sampling on a shared machine: the split of CPU time between two equal loops, 3:1.
    assert self_["heavy"] / (self_["heavy"] + self_["light"]) == pytest.approx(0.75, abs=0.06)
    assert self_["heavy"] + self_["light"] > 90
    assert sum(self_.values()) == pytest.approx(100, abs=1e-9)
    inclusive = shares(profile, "inclusive")
    # DWARF unwinding: every sample in heavy or light has both() on its stack (gcc 12 sets up no
    # frame pointer in a leaf even with -fno-omit-frame-pointer, so fp would lose both()).
    assert inclusive["caller"] >= self_["heavy"] + self_["light"] - 0.5


def test_perf_script_is_read_as_perf_report_reads_it(costs, tmp_path):
    """The same perf.data, two readers: our parse of `perf script` and perf's own report."""
    data = tmp_path / "perf.data"
    subprocess.run(perf.record_argv(data, perf.check_perf(), "fp", [str(costs), PERF_N]), check=True,
                   capture_output=True)
    stacks = perf.read_stacks(data)
    leaves = Counter()
    for stack, weight in stacks.items():
        leaves[stack[0][0]] += weight
    total = sum(leaves.values())
    report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--sort", "sym", "--no-children"],
                            capture_output=True, text=True, check=True).stdout
    for name in ("heavy", "light"):
        theirs = float(re.search(rf"^\s+([\d.]+)%\s+\[\.\] {name}\s*$", report, re.M).group(1))
        assert 100 * leaves[name] / total == pytest.approx(theirs, abs=0.006), name


def test_parse_script_reads_stacks_and_single_frames():
    text = ("    250000 \n\t    1139 heavy (/tmp/costs)\n\t    1180 both (/tmp/costs)\n\n"
            "    250000 \n\t ffffffff81 exc_page_fault ([kernel.kallsyms])\n\t       0 [unknown] ([unknown])\n\n"
            "    250000 \n\t    1139 heavy (/tmp/costs)\n\t    1180 both (/tmp/costs)\n\n"
            "    250000      7f41 operator new(unsigned long) (/usr/lib/libstdc++.so.6)\n")
    stacks = perf.parse_script(text.splitlines(keepends=True))
    assert stacks == Counter({(("heavy", "/tmp/costs"), ("both", "/tmp/costs")): 2,
                              (("exc_page_fault", "[kernel.kallsyms]"), ("[unknown]", "[unknown]")): 1,
                              (("operator new(unsigned long)", "/usr/lib/libstdc++.so.6"),): 1})


def test_callgrind_parse_separates_self_and_call_costs():
    text = textwrap.dedent("""\
        events: Ir
        positions: line
        ob=/bin/p
        fl=p.c
        fn=main
        5 10
        cfn=both
        calls=1 7
        7 400
        fn=both
        7 4
        cob=/lib/libc.so.6
        cfn=memcpy
        calls=2 9
        7 96
        8 300
        ob=/lib/libc.so.6
        fn=memcpy
        9 96
    """)
    counts = callgrind.parse(text.splitlines(), callgrind.Counts())
    assert counts.self_costs == Counter({("main", "/bin/p"): 10, ("both", "/bin/p"): 304,
                                         ("memcpy", "/lib/libc.so.6"): 96})
    assert counts.calls == Counter({(("main", "/bin/p"), ("both", "/bin/p")): 400,
                                    (("both", "/bin/p"), ("memcpy", "/lib/libc.so.6")): 96})
    assert counts.inclusive(lambda location: location[0] == "both") == 400


# -- buckets --------------------------------------------------------------------------------


def write_buckets(tmp_path, text: str):
    path = tmp_path / "b.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_the_first_matching_bucket_wins_in_file_order(tmp_path):
    buckets = load_buckets(write_buckets(tmp_path, """\
        [buckets]
        exact = ["^xdb::main$"]
        interpreter = ["^xdb::", "decode"]
        libc = [{ dso = "libc\\\\.so" }]
        memory = [{ symbol = "mem", dso = "libc" }]
    """))
    costs = Counter({("xdb::main", "/bin/xdb"): 30, ("xdb::decode_op", "/bin/xdb"): 20, ("decode", "/bin/xdb"): 10,
                     ("memcpy", "/lib/libc.so.6"): 25, ("memcpy", "/bin/xdb"): 5, ("start", "/bin/xdb"): 10})
    folded = {s.bucket: (s.samples, s.share) for s in fold_self(costs, buckets)}
    # memcpy of libc is in libc, which comes first, so "memory" gets nothing; xdb::main is "exact".
    assert folded == {"exact": (30, 30.0), "interpreter": (30, 30.0), "libc": (25, 25.0), "memory": (0, 0.0),
                      OTHER: (15, 15.0)}
    assert sum(share for _, share in folded.values()) == 100


def test_inclusive_counts_a_stack_once_per_bucket_and_other_only_without_one(tmp_path):
    buckets = load_buckets(write_buckets(tmp_path, '[buckets]\nrun = ["^run$"]\nstep = ["^step$"]\n'))
    stacks = Counter({(("step", "p"), ("run", "p"), ("run", "p"), ("main", "p")): 6,
                      (("run", "p"), ("main", "p")): 2, (("main", "p"),): 2})
    assert stack_inclusive(stacks, buckets) == {"run": 8, "step": 6, OTHER: 2}


def test_without_a_buckets_file_each_dso_is_a_bucket():
    from benchlab.profiling.buckets import by_dso
    costs = Counter({("a", "/bin/p"): 3, ("b", "/bin/p"): 1, ("memcpy", "/lib/libc.so.6"): 6})
    assert [(s.bucket, s.samples) for s in fold_self(costs, by_dso())] == [("libc.so.6", 6), ("p", 4)]


RE2_FIX = ("fix the pattern: RE2 is Python's re without backreferences, look-around or possessive repeats, "
           "with repeats up to {1000} and \\z for \\Z; escape . ( [ with a backslash")


@pytest.mark.parametrize("text, message", [
    ('[buckets]\nx = ["(unclosed"]\n',
     f"b.toml: buckets.x[0]: '(unclosed' is not a valid regular expression (RE2): missing ): (unclosed ({RE2_FIX})"),
    # What Python's re has and RE2 has not: one error each, naming the bucket and the pattern.
    ('[buckets]\nx = ["a", "(a)\\\\1"]\n',
     f"b.toml: buckets.x[1]: '(a)\\1' is not a valid regular expression (RE2): invalid escape sequence: \\1 "
     f"({RE2_FIX})"),
    ('[buckets]\nlook = ["(?=x)y"]\n',
     f"b.toml: buckets.look[0]: '(?=x)y' is not a valid regular expression (RE2): invalid perl operator: (?= "
     f"({RE2_FIX})"),
    ('[buckets]\nx = ["a{1001}"]\n',
     f"b.toml: buckets.x[0]: 'a{{1001}}' is not a valid regular expression (RE2): invalid repetition size: {{1001}} "
     f"({RE2_FIX})"),
    ('[buckets]\nx = "^a"\n', 'b.toml: buckets.x must be a non-empty list of regular expressions (got a string) '
                              '(write x = ["regex", ...])'),
    ('[buckets]\nx = [1]\n', "b.toml: buckets.x[0] must be a regular expression string or a table (got a number) "
                             "(quote the regex)"),
    ('[buckets]\nx = []\n', 'b.toml: buckets.x must be a non-empty list of regular expressions (got a list) '
                            '(write x = ["regex", ...])'),
    ('[buckets]\nx = [{ dsso = "libc" }]\n', "b.toml: buckets.x[0]: unknown key 'dsso' "
                                            '(a pattern table has symbol and/or dso: { dso = "libc\\\\.so" })'),
    ('[bucket]\nx = ["a"]\n', "b.toml: unknown key 'bucket' "
                              '(a buckets file has one table, [buckets]: NAME = ["regex", ...])'),
    ('[buckets]\nother = ["a"]\n', "b.toml: buckets.other: 'other' is the bucket of what no pattern matches "
                                   "(give this bucket another name)"),
    ('[buckets]\n', 'b.toml: no [buckets] table, or an empty one '
                    '(add e.g. [buckets] then dispatch = ["^xdb::main", "decode"])'),
    ('[buckets\n', "b.toml is not valid TOML: "),
])
def test_a_bad_buckets_file_is_one_error_naming_the_key(tmp_path, text, message):
    path = write_buckets(tmp_path, text)
    with pytest.raises(UserError) as error:
        load_buckets(path)
    if message.endswith(": "):  # tomllib's own words follow
        assert str(error.value).startswith(f"{tmp_path}/{message}")
    else:
        assert str(error.value) == f"{tmp_path}/{message}"


def test_no_pattern_can_hang_or_crash_the_folding(tmp_path):
    # Python's re: (a+)+$ backtracks for minutes on 33 a's and a "!", a repeat over 2**32-1 is an
    # OverflowError, 5,000 nested groups a RecursionError. RE2 matches in linear time.
    nested = "(" * 5000 + "a" + ")" * 5000
    buckets = load_buckets(write_buckets(tmp_path, f"""\
        [buckets]
        hang = ["(a+)+$"]
        deep = ["{nested}"]
        huge = ["b{{4294967296}}"]
    """))
    symbol = "a" * 33 + "!"
    started = time.process_time()  # CPU seconds: what other jobs on the machine take does not count
    costs = Counter({(symbol * 300, "p"): 1, ("xa", "p"): 2, ("b{4294967296}", "p"): 3, ("x\udcff", "p"): 4})
    folded = {s.bucket: s.samples for s in fold_self(costs, buckets)}
    assert time.process_time() - started < 5  # re: over 90 s of CPU for the 34-character symbol alone
    # RE2 reads a repeat count it cannot hold as literal text; an undecodable byte matches nothing
    assert folded == {"hang": 2, "deep": 1, "huge": 3, OTHER: 4}
    # found by the fuzzer: with its 5,000 groups captured, the deep pattern took 0.1 s a symbol
    many = Counter({("b" * 1000 + str(index), "p"): 1 for index in range(200)})
    started = time.process_time()
    fold_self(many, buckets)
    assert time.process_time() - started < 1


def test_a_bucket_name_with_a_newline_is_one_line_of_error(tmp_path):
    path = write_buckets(tmp_path, '[buckets]\n"a\\nb\\u001b[2J" = []\n')
    with pytest.raises(UserError) as error:
        load_buckets(path)
    assert str(error.value) == (f"{path}: buckets.a\\nb\\x1b[2J must be a non-empty list of regular expressions "
                                "(got a list) (write a\\nb\\x1b[2J = [\"regex\", ...])")


def test_a_long_bad_pattern_is_shown_cut(tmp_path):
    path = write_buckets(tmp_path, '[buckets]\nx = ["' + "(" * 5000 + '"]\n')
    with pytest.raises(UserError) as error:
        load_buckets(path)
    assert str(error.value).startswith(f"{path}: buckets.x[0]: '{'(' * 80}...' is not a valid regular expression "
                                       f"(RE2): missing ): {'(' * 80}... (fix the pattern")


# -- preconditions --------------------------------------------------------------------------


def fake_paranoid(monkeypatch, tmp_path, value: str, privileged: bool) -> None:
    path = tmp_path / "perf_event_paranoid"
    path.write_text(value + "\n")
    monkeypatch.setattr(perf, "PARANOID_PATH", path)
    monkeypatch.setattr(perf, "privileged", lambda: privileged)


def test_perf_event_paranoid_decides_the_event_or_refuses(monkeypatch, tmp_path):
    fake_paranoid(monkeypatch, tmp_path, "2", privileged=False)
    assert perf.check_perf() == "cpu-clock:u"  # user space only, as the kernel allows at 2
    fake_paranoid(monkeypatch, tmp_path, "1", privileged=False)
    assert perf.check_perf() == "cpu-clock"
    fake_paranoid(monkeypatch, tmp_path, "3", privileged=True)
    assert perf.check_perf() == "cpu-clock"  # root or CAP_PERFMON: the setting does not apply
    fake_paranoid(monkeypatch, tmp_path, "3", privileged=False)
    with pytest.raises(UserError) as error:
        perf.check_perf()
    assert str(error.value) == (
        f"perf_event_paranoid is 3 ({tmp_path}/perf_event_paranoid): this user may not sample processes "
        "(allow it with: sudo sysctl kernel.perf_event_paranoid=2 (user space only) or 1, or run as root, or give "
        "--instructions to count instructions under valgrind's callgrind instead)")


def test_missing_perf_and_valgrind_say_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(UserError) as error:
        perf.check_perf()
    assert str(error.value) == ("perf (Linux's profiler) is not installed (apt-get install linux-perf, or give "
                                "--instructions to count instructions under valgrind's callgrind instead)")
    with pytest.raises(UserError) as error:
        callgrind.check_callgrind()
    assert str(error.value) == ("valgrind (for callgrind's instruction counts) is not installed (apt-get install "
                                "valgrind, or leave out --instructions to sample with perf)")


def test_a_stripped_binary_is_told_from_one_with_symbols(costs, tmp_path):
    stripped = tmp_path / "stripped"
    subprocess.run(["strip", "-o", str(stripped), str(costs)], check=True)
    (tmp_path / "script.sh").write_text("#!/bin/sh\n")
    assert has_symbols(costs) is True and has_symbols(stripped) is False and has_symbols(tmp_path / "script.sh") is None


def test_only_a_share_of_unnamed_samples_over_one_percent_is_warned_about():
    stacks = perf.parse_script(io.StringIO(
        "250000 \n\t 401a [unknown] (/usr/bin/gzip)\n\t 4021 [unknown] (/usr/bin/gzip)\n\n"
        "250000 \n\t 7f00 memcpy (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\t 401b [unknown] (/usr/bin/gzip)\n\n"))
    assert perf.unresolved(stacks) == Counter({"/usr/bin/gzip": 1})  # the leaf only: memcpy is named
    assert unresolved_warning("gzip on native", 101, Counter({"/usr/bin/gzip": 1})) is None
    warning = unresolved_warning("gzip on native", 100, Counter({"/usr/bin/gzip": 95, "/opt/a": 1, "/opt/b": 1,
                                                                  "/opt/c": 1}))
    assert warning == ("gzip on native: 98.0% of the 100 samples have no symbol, only an address (in /usr/bin/gzip "
                       "95.0% (stripped), /opt/a 1.0%, /opt/b 1.0% and 1 more): a bucket by file still counts them, "
                       "a bucket by symbol cannot name them (install its debug symbols, Debian's PACKAGE-dbgsym, or "
                       "build it with symbols: no -s, no strip)")


#: A few MB that gzip -9 takes ~0.2 s of CPU to compress (random base64: no long matches).
GZIP_INPUT_BYTES = 2_400_000


def test_a_stripped_program_is_profiled_and_the_share_left_as_addresses_is_said(project, benchlab, costs):
    data = project / "data.txt"
    data.write_bytes(base64.b64encode(random.Random(7).randbytes(GZIP_INPUT_BYTES)))
    result = benchlab("profile", "--no-store", "--format", "json", "--", "gzip", "-9", "-c", str(data))
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    shares = {b["bucket"]: b["share"] for b in document["buckets"]}
    totals = document["totals"]["native"]
    assert shares["gzip"] > 50 and totals["unresolved"] > 0.5 * totals["total"]
    unnamed = 100 * totals["unresolved"] / totals["total"]
    assert result.stderr.startswith(f"warning: gzip on native: {unnamed:.1f}% of the {totals['total']:,} samples have "
                                    f"no symbol, only an address (in {shutil.which('gzip')} ")
    assert result.stderr.count("\n") == 1 and "(stripped)" in result.stderr
    # A program with its symbols: nothing to say.
    named = benchlab("profile", "--no-store", "--format", "json", "--", str(costs), PERF_N)
    assert named.exit_code == 0 and named.stderr == ""
