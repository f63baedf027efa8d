"""Whole-command workloads: the command's own max RSS (issue 11, item 1), and programs that
cannot run on a platform said so (item 15)."""
import os
import re
import shutil
import statistics
import subprocess

import pytest

from benchlab.measuring.build import Builder
from benchlab.config import Workload, load_config
from benchlab.measuring.platforms import builtin_platforms, Platform
from benchlab.measuring.workloads import run_workload
from conftest import compile_c, write

GNU_TIME = "/usr/bin/time"
needs_gnu_time = pytest.mark.skipif(not os.path.exists(GNU_TIME), reason="GNU time (apt-get install time) is missing")

#: Touches every page of N MiB, so the peak resident set is at least that.
ALLOCATE = """\
    #include <stdlib.h>
    #include <string.h>
    int main(int argc, char **argv) {
        size_t size = (size_t)atoi(argv[1]) << 20;
        char *p = malloc(size);
        memset(p, 1, size);
        return size == 0 || p[size / 2] == 1 ? 0 : 1;
    }
"""


def time_v_max_rss(argv, runs=5) -> float:
    """GNU time's 'Maximum resident set size (kbytes)' of argv, the median of a few runs: the reference."""
    figures = []
    for _ in range(runs):
        out = subprocess.run([GNU_TIME, "-v", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             check=True).stderr
        figures.append(int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out).group(1)))
    return statistics.median(figures)


def measured_max_rss(project, argv, runs=5):
    config = load_config()
    launcher = Builder(config).measure_launcher()
    assert not isinstance(launcher, str), launcher
    scratch = project / "scratch"
    scratch.mkdir(exist_ok=True)
    records, faults = run_workload(Workload("w", argv, runs=runs, warmups=0), Platform(builtin_platforms()["native"]),
                                   timeout=60, scratch=str(scratch), root=str(project), launcher=launcher)
    assert faults == []
    return {r.counter: r for r in records}


def assert_close_to_gnu_time(ours: float, reference: float, argv: list[str]) -> None:
    """Within 10% of GNU time's max RSS (KiB), which forks from a small image too, or 256 KiB
    for a program of 1-2 MiB: the pages the loader and libc touch vary by a few dozen between
    launches (1012 against 1152 KiB for a C program, 1620 against 1460 for `sh -c true`, in
    CI). benchlab's Python alone is over 20 MiB: a figure including it is within neither."""
    assert abs(ours - reference) <= max(0.10 * reference, 256), (argv, ours, reference)


@needs_gnu_time
@pytest.mark.parametrize("mib", [0, 64])
def test_max_rss_is_the_commands_own_as_gnu_time_reports_it(project, mib):
    program = compile_c(write(project / "alloc.c", ALLOCATE), project / "alloc")
    reference = time_v_max_rss([str(program), str(mib)])
    records = measured_max_rss(project, [str(program), str(mib)])
    ours = records["max_rss"].median
    assert_close_to_gnu_time(ours, reference, [str(program), str(mib)])
    assert ours >= mib * 1024
    assert records["max_rss"].unit == "KiB" and len(records["max_rss"].samples) == 5


@needs_gnu_time
def test_max_rss_of_real_programs_matches_gnu_time(project):
    data = project / "data.bin"
    data.write_bytes(os.urandom(4 << 20))
    for argv in (["gzip", "-9", "-c", str(data)], ["sort", str(data)], ["sh", "-c", "true"]):
        reference = time_v_max_rss(argv)
        ours = measured_max_rss(project, argv)["max_rss"].median  # the median of 5 runs, as the reference
        assert_close_to_gnu_time(ours, reference, argv)


def test_user_and_wall_seconds_come_from_the_launcher(project):
    records = measured_max_rss(project, ["sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"], runs=2)
    for user, wall in zip(records["user"].samples, records["wall"].samples):
        assert 0 < user <= wall * 1.2


def test_without_a_compiler_max_rss_is_not_supported_rather_than_wrong(project):
    write(project / "benchlab.toml", '[build]\ncc = "no-such-cc"\n')
    launcher = Builder(load_config()).measure_launcher()
    assert launcher == ("the workload launcher cannot be built: the C compiler 'no-such-cc' is not on PATH "
                        "(apt-get install gcc, or set build.cc in benchlab.toml)")
    scratch = project / "s"
    scratch.mkdir()
    records, _ = run_workload(Workload("w", ["true"], runs=1, warmups=0), Platform(builtin_platforms()["native"]),
                              timeout=10, scratch=str(scratch), root=str(project), launcher=launcher)
    rss = next(r for r in records if r.counter == "max_rss")
    assert not rss.supported and rss.samples == [] and rss.reason == launcher
    assert [r.counter for r in records if r.supported] == ["user", "sys", "wall"]


def test_a_program_not_on_path_is_a_fault_saying_what_to_do(project):
    scratch = project / "s"
    scratch.mkdir()
    _, [fault] = run_workload(Workload("w", ["no-such-program-x"], runs=1, warmups=0),
                              Platform(builtin_platforms()["qemu"]), timeout=10, scratch=str(scratch),
                              root=str(project))
    assert fault.reason == ("cannot run: 'no-such-program-x' is not on PATH (install it, or give its full path "
                            "in workloads.w.command)")


def test_a_relative_program_path_is_from_the_project_root(project):
    write(project / "tools" / "hello.sh", "#!/bin/sh\necho hi\n", executable=True)
    scratch = project / "s"
    scratch.mkdir()
    records, faults = run_workload(Workload("w", ["./tools/hello.sh"], runs=1, warmups=0),
                                   Platform(builtin_platforms()["native"]), timeout=10, scratch=str(scratch),
                                   root=str(project))
    assert faults == [] and records


@pytest.mark.skipif(not shutil.which(builtin_platforms()["qemu"].command[0]), reason="qemu-user is missing")
def test_a_script_under_qemu_is_a_fault_naming_a_binary_to_use_instead(project, monkeypatch):
    # A bare name that resolves to a script, as python3 does under pyenv (its shims are bash scripts).
    shim = write(project / "shims" / "python3", "#!/usr/bin/env bash\nexec /usr/bin/python3 \"$@\"\n",
                 executable=True)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}/usr/bin:/bin")
    scratch = project / "s"
    scratch.mkdir()
    qemu = Platform(builtin_platforms()["qemu"])
    _, [fault] = run_workload(Workload("py", ["python3", "-c", "pass"], runs=1, warmups=0), qemu, timeout=30,
                              scratch=str(scratch), root=str(project))
    assert fault.reason == (
        f"cannot run: {shim} is a script (#!/usr/bin/env bash) and {qemu.program()} runs only compiled programs "
        "(give the path of a binary in workloads.py.command, e.g. /usr/bin/python3)")
