"""A small C program with known costs per function, and buckets for it: what the profile
tests (profiling/test_session.py) and the profile command's tests (cli/test_profile.py)
both build and read."""
from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

COSTS_C = textwrap.dedent("""\
    #include <stdint.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    volatile uint64_t sink;
    #define WORK(m) uint64_t x = 0; \\
        for (uint64_t i = 0; i < (m); i++) { x += i * i; __asm__ volatile("" :: "r"(x)); } sink = x;
    __attribute__((noinline, aligned(64))) void heavy(uint64_t n) { WORK(n) }
    __attribute__((noinline, aligned(64))) void light(uint64_t n) { WORK(n) }
    __attribute__((noinline, aligned(64))) void both(uint64_t n, uint64_t k) { heavy(k * n); light(n); }
    int main(int argc, char **argv) {
        if (argc > 1 && strcmp(argv[1], "abort") == 0) abort();
        uint64_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 1000, k = argc > 2 ? strtoull(argv[2], 0, 10) : 3;
        if (argc > 3) { FILE *f = fopen(argv[3], "w"); fputs("ran\\n", f); fclose(f); }
        for (int r = 0; r < 10; r++) both(n, k);
        return 0;
    }
""")

#: Iterations of light() per call: ~0.4 s of CPU for the whole program under perf,
#: ~20 M instructions under callgrind.
PERF_N = "25000000"
CALLGRIND_N = "500000"

BUCKETS_TOML = textwrap.dedent("""\
    [buckets]
    heavy = ["^heavy$"]
    light = ["^light$"]
    caller = ["^both$"]
""")


def build_costs(directory: Path) -> Path:
    source = directory / "costs.c"
    source.write_text(COSTS_C)
    binary = directory / "costs"
    subprocess.run(["cc", "-O1", "-g", "-fno-omit-frame-pointer", str(source), "-o", str(binary)], check=True)
    return binary
