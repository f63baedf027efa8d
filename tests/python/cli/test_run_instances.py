"""`benchlab run --sweep instances=N`: N copies of a binary at once, summed and stored."""
import json
import os
import resource

import pytest

from conftest import FAST, SMALL_BENCH, compile_c, sweep_plain, write

#: A CSB-style binary whose throughput says which copy it is: copy k (its scratch
#: directory is .../copyK) does 100 - 10k ops/ms, so the sums are known exactly.
BY_COPY = """\
    #!/bin/sh
    k=${PWD##*copy}
    printf 'num_threads=1;algo_name=scale;throughput_min=%s;throughput_max=%s;\\n' $((100 - 10 * k)) $((100 - 10 * k))
    """

#: Records CLOCK_MONOTONIC at its start and end (in a file named by its pid) and, between
#: them, waits until COPIES copies have started (a file each in the directory argv[1]):
#: copies run one after another never end (exit 4 after a minute), copies run at once all
#: overlap, whatever the load. Prints one lind line: its time per iteration.
NAPPER = """\
    #include <dirent.h>
    #include <stdio.h>
    #include <string.h>
    #include <time.h>
    #include <unistd.h>
    #define COPIES 4
    static long long now(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
    }
    static int started(const char *dir) {
        int n = 0;
        struct dirent *entry;
        DIR *d = opendir(dir);
        if (!d) return 0;
        while ((entry = readdir(d)) != NULL) n += strncmp(entry->d_name, "started-", 8) == 0;
        closedir(d);
        return n;
    }
    int main(int argc, char **argv) {
        long long start = now(), end;
        const char *dir = argc > 1 ? argv[1] : ".";
        char path[4096];
        FILE *out;
        int waited;
        snprintf(path, sizeof path, "%s/started-%d", dir, (int)getpid());
        out = fopen(path, "w");
        if (!out) return 3;
        fclose(out);
        for (waited = 0; started(dir) < COPIES; waited++) {
            if (waited > 60000) return 4;
            usleep(1000);
        }
        end = now();
        snprintf(path, sizeof path, "%s/times-%d", dir, (int)getpid());
        out = fopen(path, "w");
        if (!out) return 3;
        fprintf(out, "%lld %lld\\n", start, end);
        fclose(out);
        printf("nap\\t0\\t1000\\t%.1f\\n", (end - start) / 1000.0);
        return 0;
    }
"""


def table(out: str, title_part: str) -> list[list[str]]:
    """The rows of the sweep table whose title contains `title_part`, split on 2+ spaces, each cell
    without its intervals and marks (sweep_plain: tests/python/output/test_table.py checks those)."""
    import re
    lines = out[out.index(title_part):].splitlines()
    rows = []
    for line in lines[3:]:
        if not line.strip() or line[0] in "?~!":
            break
        rows.append([sweep_plain(cell) for cell in re.split(r"\s{2,}", line.strip())])
    return rows


def test_copies_start_together_and_overlap(project, benchlab):
    binary = compile_c(write(project / "src" / "napper.c", NAPPER), project / "napper")
    times = project / "times"
    times.mkdir()
    result = benchlab("run", str(binary), "--sweep", "instances=4", "--processes", "1", "--arg", str(times),
                      "--format", "json", "--no-store")
    assert result.exit_code == 0, result.stderr
    windows = [tuple(map(int, path.read_text().split())) for path in times.glob("times-*")]
    assert len(windows) == 4  # four copies ran, each its own process
    starts, ends = [w[0] for w in windows], [w[1] for w in windows]
    assert max(starts) < min(ends)  # all four ran at once (each waited for the others to start)
    records = json.loads(result.stdout)["records"]
    assert sorted(r["reported"]["copy"] for r in records) == [0, 1, 2, 3]
    for record in records:
        start, end = record["reported"]["window_s"]
        # the launcher's window: after the release (the gate holds every copy until all are
        # started; without it the first copy would start before the release). No bound on
        # how long: that depends on how busy the machine is.
        assert 0 <= start < end
        assert record["reported"]["copy_rusage"]["wall_s"] == pytest.approx(end - start, abs=1e-5)
        # the copy's own rusage: one thread waiting computes no longer than it exists
        assert record["reported"]["copy_rusage"]["user_s"] <= record["reported"]["copy_rusage"]["wall_s"]


def test_throughput_is_summed_over_copies_with_linearity(project, benchlab):
    write(project / "scale.sh", BY_COPY, executable=True)
    result = benchlab("run", "scale.sh", "--sweep", "instances=1,2,4", "--processes", "2", "--out", "r.json",
                      "--no-store")
    assert result.exit_code == 0, result.stderr
    # 1 copy: 100; 2: 100 + 90 = 190; 4: 100 + 90 + 80 + 70 = 340 ops/ms
    rows = table(result.stdout, "linearity), per copy")
    assert [row[:3] for row in rows] == [["1", "100 (1.000)", "100"], ["2", "190 (0.950)", "95"],
                                         ["4", "340 (0.850)", "85"]]
    # overlap: none for one copy; a percentage for several (a shell script lasts milliseconds,
    # so on a loaded machine its copies may hardly overlap: shown, not hidden)
    assert rows[0][3] == "-" and all(row[3].endswith("%") and 0 <= int(row[3][:-1]) <= 100 for row in rows[1:])
    title = next(line for line in result.stdout.splitlines() if "per copy" in line)
    assert title == ("scale throughput (1 thread per copy): throughput (ops/ms) summed over copies (linearity), "
                     "per copy, and overlap vs INSTANCES")
    header = result.stdout.splitlines()[0].split()
    assert header[:2] == ["TEST", "PARAM"] and "INSTANCES" in header
    # the main table: one copy's figure, the copies (and processes) of each count combined
    rows = {r["sweep"]: r["cells"]["native"]["median"] for r in json.loads((project / "r.json").read_text())["rows"]}
    assert rows == {"1": 100, "2": 95, "4": 85}
    # every (process, copy) of every count is a record of its own
    records = json.loads((project / "r.json").read_text())["records"]
    seen = sorted((r["sweep"]["value"], r["reported"]["process"], r["reported"]["copy"]) for r in records)
    assert seen == sorted((str(n), p, k) for n in (1, 2, 4) for p in (0, 1) for k in range(n))
    assert all(r["sweep"]["flag"] == "instances" and r["reported"]["instances"] == int(r["sweep"]["value"])
               for r in records)
    # each copy is a fresh process with a layout of its own (drawn per copy, not per round)
    four = [r["reported"] for r in records if r["sweep"]["value"] == "4" and r["reported"]["process"] == 0]
    assert len({(r["env_pad"], r["stack_offset"]) for r in four}) == 4


def test_time_per_iteration_is_summed_as_iterations_per_second(project, benchlab):
    # 250 ns per iteration in each copy: 4e6 iterations/s per copy, 8e6 for two
    write(project / "t.sh", "#!/bin/sh\nprintf 'op\\t0\\t1000\\t250\\n'\n", executable=True)
    result = benchlab("run", "t.sh", "--sweep", "instances=1,2", "--processes", "1", "--no-store")
    assert result.exit_code == 0, result.stderr
    rows = table(result.stdout, "linearity), per copy")
    assert [row[:3] for row in rows] == [["1", "4000000 (1.000)", "4000000"], ["2", "8000000 (1.000)", "4000000"]]
    assert "op 0 time: throughput (ops/s) summed over copies" in result.stdout


def test_a_failing_copy_is_named_and_the_others_are_kept_as_incomplete(project, benchlab):
    write(project / "flaky.sh", """\
        #!/bin/sh
        k=${PWD##*copy}
        printf 'num_threads=1;algo_name=flaky;throughput_min=%s;\\n' $((100 - 10 * k))
        if [ "$k" = 1 ]; then echo "copy one gives up" >&2; exit 3; fi
        """, executable=True)
    result = benchlab("run", "flaky.sh", "--sweep", "instances=1,2", "--processes", "1", "--out", "r.json")
    assert result.exit_code == 1
    document = json.loads((project / "r.json").read_text())
    assert document["faults"] == [{"binary": "flaky.sh", "platform": "native", "reason": "copy 1 of 2: exit status 3",
                                   "stderr_tail": ["copy one gives up"], "sweep": {"flag": "instances", "value": "2"},
                                   "process": None, "kind": "failed", "copy": 1}]
    two = [r for r in document["records"] if r["sweep"]["value"] == "2"]
    # both copies' records are kept (copy 1 printed before it failed), marked incomplete
    assert sorted(r["reported"]["copy"] for r in two) == [0, 1]
    assert all(r["reported"]["incomplete"] is True and r["reported"]["failed_copies"] == [1] for r in two)
    one = [r for r in document["records"] if r["sweep"]["value"] == "1"]
    assert "incomplete" not in one[0]["reported"]
    text = result.stdout
    # the sum of a round with a failed copy is not of 2 copies: said so (no complete round to use)
    assert table(text, "linearity), per copy")[1][:2] == ["2", "190 (0.950) [copy 1 of 2 failed]"]
    assert "flaky.sh on native instances=2: copy 1 of 2: exit status 3" in text


def test_a_complete_round_is_preferred_to_one_with_a_failed_copy(project, benchlab):
    # copy 1 fails in the first process only (a marker file left by its first run)
    write(project / "once.sh", f"""\
        #!/bin/sh
        k=${{PWD##*copy}}
        printf 'num_threads=1;algo_name=once;throughput_min=%s;\\n' $((100 - 10 * k))
        if [ "$k" = 1 ] && mkdir {project}/failed-once 2>/dev/null; then kill -SEGV $$; fi
        """, executable=True)
    result = benchlab("run", "once.sh", "--sweep", "instances=1,2", "--processes", "2", "--no-store")
    assert result.exit_code == 1
    rows = table(result.stdout, "linearity), per copy")
    assert [row[:3] for row in rows] == [["1", "100 (1.000)", "100"], ["2", "190 (0.950)", "95"]]
    assert "once.sh on native instances=2: copy 1 of 2: killed by SIGSEGV" in result.stdout


@pytest.mark.parametrize("values, message", [
    ("0", "each value must be a whole number of copies from 1 to 1024 (got '0')"),
    ("1,-1", "each value must be a whole number of copies from 1 to 1024 (got '-1')"),
    ("1,1.5", "each value must be a whole number of copies from 1 to 1024 (got '1.5')"),
    ("two", "each value must be a whole number of copies from 1 to 1024 (got 'two')"),
    ("1,1025", "each value must be a whole number of copies from 1 to 1024 (got '1025')"),
])
def test_bad_instance_counts_are_one_error_before_anything_runs(project, benchlab, values, message):
    write(project / "never.sh", f"#!/bin/sh\ntouch {project}/ran\n", executable=True)
    result = benchlab("run", "never.sh", "--sweep", f"instances={values}")
    assert result.exit_code == 2
    assert result.stderr == f"error: --sweep instances={values}: {message} (write e.g. --sweep instances=1,2,4)\n"
    assert not (project / "ran").exists() and not (project / ".benchlab").exists()


def test_a_count_given_twice_and_counts_past_the_ulimits_are_errors(project, benchlab, monkeypatch):
    write(project / "never.sh", "#!/bin/sh\nexit 0\n", executable=True)
    result = benchlab("run", "never.sh", "--sweep", "instances=1,2,2")
    assert result.stderr == "error: --sweep instances=1,2,2: 2 is given twice (give each count of copies once)\n"
    real = resource.getrlimit

    def limits(which):
        return (256, 256) if which == resource.RLIMIT_NOFILE else real(which)
    monkeypatch.setattr(resource, "getrlimit", limits)
    result = benchlab("run", "never.sh", "--sweep", "instances=1,100")
    assert result.exit_code == 2
    assert result.stderr == ("error: --sweep instances=1,100: 100 copies need about 364 open files in benchlab, over "
                             "the limit of 256 (ulimit -n) (raise it (ulimit -n 364) or sweep fewer instances)\n")
    monkeypatch.setattr(resource, "getrlimit", lambda which: (150, 150) if which == resource.RLIMIT_NPROC else (4096, 4096))
    result = benchlab("run", "never.sh", "--sweep", "instances=100")
    assert result.stderr == ("error: --sweep instances=100: 100 copies need 200 processes, over the limit of 150 "
                             "processes (ulimit -u) (raise it (ulimit -u) or sweep fewer instances)\n")


def test_copies_run_through_a_platform_template(project, benchlab):
    # a launcher in front of every copy, as a container template would be (docs/threads.md)
    write(project / "benchlab.toml", """\
        [platforms.boxed]
        command = ["env", "IN_BOX=yes", "{exe}", "{args}"]
        """)
    write(project / "boxed.sh", """\
        #!/bin/sh
        [ "$IN_BOX" = yes ] || exit 9
        printf 'num_threads=1;algo_name=boxed;throughput_min=50;\\n'
        """, executable=True)
    result = benchlab("run", "boxed.sh", "--platform", "native", "--platform", "boxed", "--sweep", "instances=1,3",
                      "--processes", "1", "--no-store")
    assert result.exit_code == 1  # natively, IN_BOX is not set: every copy fails, named
    assert "boxed.sh on native instances=3: copy 0 of 3: exit status 9" in result.stdout
    lines = result.stdout[result.stdout.index("linearity), per copy"):].splitlines()
    assert [h.strip() for h in lines[1].split("  ") if h.strip()] == [
            "INSTANCES", "native summed", "native per copy", "native overlap",
            "boxed summed", "boxed per copy", "boxed overlap"]
    # under the template, three copies of 50 ops/ms: 150; natively nothing
    assert [row[:6] for row in table(result.stdout, "linearity), per copy")] == [
        ["1", "-", "-", "-", "50 (1.000)", "50"], ["3", "-", "-", "-", "150 (1.000)", "50"]]


def test_stored_instance_runs_show_export_and_compare(project, benchlab):
    write(project / "scale.sh", BY_COPY, executable=True)
    for _ in range(2):
        assert benchlab("run", "scale.sh", "--sweep", "instances=1,2", "--processes", "2").exit_code == 0
    shown = benchlab("show", "1")
    assert shown.exit_code == 0, shown.stderr
    assert [row[:3] for row in table(shown.stdout, "linearity), per copy")] == [
        ["1", "100 (1.000)", "100"], ["2", "190 (0.950)", "95"]]
    exported = benchlab("export", "1", "--format", "jsonl")
    records = [json.loads(line) for line in exported.stdout.splitlines()[1:]]
    assert sorted((r["sweep"]["flag"], r["sweep"]["value"], r["reported"]["process"], r["reported"]["copy"])
                  for r in records) == sorted(("instances", str(n), p, k) for n in (1, 2) for p in (0, 1)
                                              for k in range(n))
    assert all(set(r["reported"]["copy_rusage"]) == {"user_s", "sys_s", "max_rss_kib", "wall_s"} for r in records)
    compared = benchlab("compare", "1", "2", "--format", "json")
    assert compared.exit_code == 0, compared.stderr
    comparisons = json.loads(compared.stdout)["comparisons"]
    # one comparison per count of copies, each copy's figure the same in both runs
    assert sorted((c["sweep"], c["ratio"]) for c in comparisons) == [("1", 1.0), ("2", 1.0)]


def test_copies_of_a_benchlab_binary_start_on_different_cpus(project, benchlab):
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one CPU: nothing to spread over")
    write(project / "small.c", SMALL_BENCH)
    result = benchlab("run", "small.c", *FAST, "--filter", "spin", "--sweep", "instances=2", "--processes", "1",
                      "--no-store", "--format", "json")
    assert result.exit_code == 0, result.stderr
    started = {r["reported"]["copy"]: r["reported"]["start_cpu"] for r in json.loads(result.stdout)["records"]}
    assert started == {0: cpus[0], 1: cpus[1]}


def test_a_hanging_copy_times_out_alone(project, benchlab):
    write(project / "hang1.sh", """\
        #!/bin/sh
        k=${PWD##*copy}
        if [ "$k" = 1 ]; then echo "copy one hangs" >&2; exec sleep 60; fi
        printf 'num_threads=1;algo_name=hang1;throughput_min=70;\\n'
        """, executable=True)
    result = benchlab("run", "hang1.sh", "--sweep", "instances=2", "--processes", "1", "--timeout", "1",
                      "--out", "r.json", "--no-store")
    assert result.exit_code == 1
    assert "hang1.sh on native instances=2: copy 1 of 2: timed out after 1 s" in result.stdout
    [record] = json.loads((project / "r.json").read_text())["records"]
    # copy 0 ran to its end and is kept; its window ended long before copy 1 was killed
    assert record["reported"]["copy"] == 0 and record["reported"]["failed_copies"] == [1]
    assert record["reported"]["window_s"][1] < 0.9
    assert table(result.stdout, "linearity), per copy")[0][:2] == ["2", "70 (1.000) [copy 1 of 2 failed]"]
