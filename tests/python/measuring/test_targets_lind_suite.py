"""A directory shaped like the Lind runner's tests/benchmarks/ (issue 28): several programs,
a bench.c of helpers without main() that the runner compiles into each, `// DESCRIPTION:`
lines, and rows whose PARAM is text. The programs are written here from the format the
runner reads (test<TAB>param<TAB>loops<TAB>avg_ns, printed by the helpers' emit_result)."""
from benchlab.config import load_config
from benchlab.measuring.targets import descriptions, resolve_targets
from benchlab.storage.store import open_store
from conftest import write

BENCH_H = """\
long long fake_ns(void);
void emit_result(char *test, int param, long long average, int loops);
void emit_result_string(char *test, char *param, long long average, int loops);
"""
# The helpers: no main(); emit_result prints the runner's line, the string form a text PARAM.
BENCH_C = """\
#include <stdio.h>
#include "bench.h"
long long fake_ns(void) { return 250; }
void emit_result(char *test, int param, long long average, int loops) {
    printf("%s\\t%d\\t%d\\t%lld\\n", test, param, loops, average);
}
void emit_result_string(char *test, char *param, long long average, int loops) {
    printf("%s\\t%s\\t%d\\t%lld\\n", test, param, loops, average);
}
"""
FS_READ = """\
// DESCRIPTION: Issues pread() for buffer of size PARAM.
#include "bench.h"
int main(void) {
    int sizes[2] = {1, 1024};
    for (int i = 0; i < 2; i++) emit_result("Read", sizes[i], fake_ns() + i, 1000000);
    return 0;
}
"""
SYS_GETEUID = """\
// DESCRIPTION: Evaluate kernel-resolved syscall latency using geteuid().
#include "bench.h"
int main(void) { emit_result_string("geteuid", "-", 127, 1000000); return 0; }
"""
IPC_UDS = """\
#include "bench.h"
int main(void) {
    emit_result_string("Unix Domain Socket (RTT)", "(STREAM, 1)", 8399, 1000000);
    emit_result_string("Unix Domain Socket (RTT)", "(DGRAM, 1)", 8107, 1000000);
    return 0;
}
"""


def lind_directory(root):
    suite = root / "tests" / "benchmarks"
    for name, text in (("bench.h", BENCH_H), ("bench.c", BENCH_C), ("fs_read.c", FS_READ),
                       ("sys_geteuid.c", SYS_GETEUID), ("ipc_uds.c", IPC_UDS)):
        write(suite / name, text)
    return suite


def test_a_helpers_file_without_main_joins_every_program_of_its_directory(project):
    lind_directory(project)
    targets = {t.name: t for t in resolve_targets(["tests/benchmarks"], load_config())}
    assert set(targets) == {"fs_read", "sys_geteuid", "ipc_uds"}
    assert {name: [p.name for p in t.companions] for name, t in targets.items()} == {
        "fs_read": ["bench.c"], "sys_geteuid": ["bench.c"], "ipc_uds": ["bench.c"]}
    assert descriptions(list(targets.values())) == {
        "fs_read": "Issues pread() for buffer of size PARAM.",
        "sys_geteuid": "Evaluate kernel-resolved syscall latency using geteuid()."}


def test_run_builds_runs_and_stores_a_lind_directory_with_text_params(project, benchlab):
    lind_directory(project)
    result = benchlab("run", "tests/benchmarks", "--processes", "1")
    assert result.exit_code == 0, result.stdout + result.stderr
    rows = {tuple(line.split()[:3]) for line in result.stdout.splitlines()}
    assert ("Read", "1", "250?") in rows and ("Read", "1024", "251?") in rows
    assert ("geteuid", "-", "127?") in rows
    assert any(line.split()[-3:] == ["1)", "8399?", "1000000"] and "(STREAM, 1)" in line
               for line in result.stdout.splitlines())
    assert "fs_read: Issues pread() for buffer of size PARAM." in result.stdout.splitlines()
    assert "printed no results" not in result.stdout and "no known format" not in result.stderr
    # stored with their text, and shown again from the store with the descriptions
    store = open_store("sqlite:///.benchlab/results.db")
    _, records, _ = store.load_run(1)
    assert sorted(map(repr, {(r.bench, r.param) for r in records})) == sorted(map(repr, {
        ("Read", 1), ("Read", 1024), ("geteuid", "-"), ("Unix Domain Socket (RTT)", "(STREAM, 1)"),
        ("Unix Domain Socket (RTT)", "(DGRAM, 1)")}))
    store.close()
    shown = benchlab("show", "latest")
    assert "sys_geteuid: Evaluate kernel-resolved syscall latency using geteuid()." in shown.stdout
    assert any(line.split()[:3] == ["geteuid", "-", "127?"] for line in shown.stdout.splitlines())


def test_prefixes_run_what_matches_and_name_what_did_not(project, benchlab):
    lind_directory(project)
    write(project / "benchlab.toml", '[run]\nsuites = ["tests/benchmarks"]\n')
    result = benchlab("run", "fs_", "imfs_", "--processes", "1", "--no-store")
    assert result.exit_code == 0
    assert "warning: no benchmark matches 'imfs_' (no file in tests/benchmarks starts with it): left out" in result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()[2:4]] == ["Read", "Read"]
    nothing = benchlab("run", "imfs_", "net_", "--no-store")
    assert nothing.exit_code == 2 and "error: no benchmark matches 'imfs_', 'net_'" in nothing.stderr


def test_build_shared_names_helpers_that_join_every_program(project, benchlab):
    suite = lind_directory(project)
    # a helpers file whose stem is a program's ("fs_util" starts "fs_"): only the key makes it everyone's
    (suite / "bench.c").rename(suite / "fs_util.c")
    write(project / "benchlab.toml", '[build]\nshared = ["tests/benchmarks/fs_util.c"]\n')
    targets = {t.name: t for t in resolve_targets(["tests/benchmarks"], load_config())}
    assert {name: [p.name for p in t.companions] for name, t in targets.items()} == {
        "fs_read": ["fs_util.c"], "sys_geteuid": ["fs_util.c"], "ipc_uds": ["fs_util.c"]}
    write(project / "benchlab.toml", '[build]\nshared = ["tests/benchmarks/nothing.c"]\n')
    result = benchlab("run", "tests/benchmarks", "--no-store")
    assert result.exit_code == 2
    assert "build.shared: 'tests/benchmarks/nothing.c' is not a file" in result.stderr


def test_a_change_of_the_shared_helpers_rebuilds_the_programs(project, benchlab):
    suite = lind_directory(project)
    assert benchlab("run", "tests/benchmarks/fs_read.c", "--no-store", "--processes", "1").exit_code == 0
    write(suite / "bench.c", BENCH_C.replace("return 250;", "return 900;"))
    result = benchlab("run", "tests/benchmarks/fs_read.c", "--processes", "1")
    assert [line.split()[:3] for line in result.stdout.splitlines()[2:4]] == [["Read", "1", "900?"],
                                                                             ["Read", "1024", "901?"]]
    assert "1 compiled, 0 from the build cache" in result.stderr
