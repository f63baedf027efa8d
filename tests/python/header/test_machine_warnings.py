"""The header warns about a machine that adds noise (bl__warn_machine): a frequency
governor other than performance, turbo or boost on, as nanobench does; `benchlab run`
passes each warning on once. Tested in a mount namespace whose /sys/devices/system/cpu
is a tmpfs holding the files a cpufreq driver would (needs root: skipped elsewhere)."""
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import HEADER, compile_c, write


CPU = "/sys/devices/system/cpu"
TINY = """#include "benchlab.h"
BL_BENCH(nothing, n) { for (uint64_t i = 0; i < n; i++) BL_KEEP(i); }
BL_MAIN()
"""
NOISY = {"cpu0/cpufreq/scaling_governor": "powersave", "intel_pstate/no_turbo": "0", "cpufreq/boost": "1"}
STEADY = {"cpu0/cpufreq/scaling_governor": "performance", "intel_pstate/no_turbo": "1", "cpufreq/boost": "0"}


def in_fake_sysfs(files: dict[str, str], argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """`argv` in a mount namespace where CPU holds only `files` (path under CPU: text)."""
    steps = [f"mount -t tmpfs none {CPU}"]
    for path, text in files.items():
        target = f"{CPU}/{path}"
        steps.append(f"mkdir -p {shlex.quote(target.rsplit('/', 1)[0])} && echo {shlex.quote(text)} > {shlex.quote(target)}")
    script = " && ".join(steps) + ' && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", *argv], capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="module")
def fake_sysfs():
    if shutil.which("unshare") is None or in_fake_sysfs({}, ["true"]).returncode != 0:
        pytest.skip("needs root and unshare -m (util-linux) to give a process its own /sys/devices/system/cpu")


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "warning:" in line]


def test_the_header_warns_about_the_governor_turbo_and_boost_and_how_to_fix_each(fake_sysfs, tmp_path):
    program = compile_c(write(tmp_path / "tiny.c", TINY), tmp_path / "tiny")
    noisy = in_fake_sysfs(NOISY, [str(program), "--time-limit=0.01"])
    assert noisy.returncode == 0, noisy.stderr
    assert warnings(noisy.stderr) == [
        'benchlab: warning: CPU frequency governor is "powersave"; frequency changes add noise '
        "(fix: cpupower frequency-set --governor performance; silence: BL_NO_WARN=1)",
        "benchlab: warning: CPU turbo is on; the clock follows temperature and load "
        "(fix: echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo; silence: BL_NO_WARN=1)",
        "benchlab: warning: CPU boost is on; the clock follows temperature and load "
        "(fix: echo 0 > /sys/devices/system/cpu/cpufreq/boost; silence: BL_NO_WARN=1)"]
    assert warnings(in_fake_sysfs(STEADY, [str(program), "--time-limit=0.01"]).stderr) == []
    assert warnings(in_fake_sysfs({}, [str(program), "--time-limit=0.01"]).stderr) == []  # no cpufreq driver (a VM)
    silenced = in_fake_sysfs(NOISY, ["env", "BL_NO_WARN=1", str(program), "--time-limit=0.01"])
    assert warnings(silenced.stderr) == []


def test_benchlab_run_passes_each_warning_on_once(fake_sysfs, tmp_path):
    (tmp_path / "include").mkdir()
    shutil.copy(HEADER, tmp_path / "include")
    write(tmp_path / "tiny.c", TINY)
    done = in_fake_sysfs({"cpufreq/boost": "1"}, [sys.executable, "-m", "benchlab", "run", "tiny.c",
                                                  "--processes", "3", "--time-limit", "0.01", "--no-store"],
                         cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert warnings(done.stderr) == ["warning: CPU boost is on; the clock follows temperature and load "
                                     "(fix: echo 0 > /sys/devices/system/cpu/cpufreq/boost; silence: BL_NO_WARN=1)"]
