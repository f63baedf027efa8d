"""BL__PHASE_TIMES (bench/one_process.py --phases): a build with it prints where one
process's wall time went, phase by phase; a build without it prints nothing of the kind.
The counts are checked, not the times: how many samples, readings and calls each phase
saw follows from the exact sample count (-s) alone."""
import re
import subprocess

from conftest import compile_c, write

# libloong's dialect: its -s N is an exact count, which no time limit cuts however busy the
# machine (bl__dialect_sampling); with --precision=0 every benchmark takes exactly N samples.
TWO = """#include "benchlab.h"
BL_BENCH(add, n) { uint64_t s = 0; for (uint64_t i = 0; i < n; i++) s += i; BL_KEEP(s); }
BL_BENCH(mul, n) { uint64_t s = 1; for (uint64_t i = 0; i < n; i++) s *= i | 1; BL_KEEP(s); }
BL_MAIN_AS(libloong)
"""
EXACTLY_12 = ["-s", "12", "--precision=0", "--format=csv"]
PHASE = re.compile(r"^phase (\w+) +(\d+\.\d+) ms +(\d+)$")
PHASES = ["timer", "context", "calibration", "calibration_empty", "samples", "samples_empty", "contention",
          "rounds", "figures", "output", "main"]


def phases(stderr: str) -> dict[str, tuple[float, int]]:
    found = [PHASE.match(line) for line in stderr.splitlines()]
    return {m.group(1): (float(m.group(2)), int(m.group(3))) for m in found if m}


def test_phase_counts_follow_the_samples(tmp_path):
    binary = compile_c(write(tmp_path / "two.c", TWO), tmp_path / "two",
                       flags=("-std=c99", "-Wall", "-Wextra", "-Werror", "-DBL__PHASE_TIMES"))
    done = subprocess.run([str(binary), *EXACTLY_12], capture_output=True, text=True, check=True)
    seen = phases(done.stderr)
    assert list(seen) == PHASES
    counts = {name: count for name, (_, count) in seen.items()}
    # 12 rounds of 2 benchmarks and the empty loop beside them; two readings around each sample
    assert counts["samples"] == 24 and counts["samples_empty"] == 12 and counts["contention"] == 2 * 36
    assert counts["calibration"] == 2 and counts["calibration_empty"] == 1
    assert counts["timer"] == counts["context"] == counts["rounds"] == counts["figures"] == 1
    assert counts["output"] == counts["main"] == 1
    spent = {name: ms for name, (ms, _) in seen.items()}
    assert spent["samples"] + spent["samples_empty"] + spent["contention"] <= spent["rounds"] <= spent["main"]


def test_no_phases_without_the_macro(tmp_path):
    binary = compile_c(write(tmp_path / "two.c", TWO), tmp_path / "two", flags=("-std=c99", "-Wall", "-Werror"))
    done = subprocess.run([str(binary), *EXACTLY_12], capture_output=True, text=True, check=True)
    assert "\nadd," in done.stdout and phases(done.stderr) == {}
