"""Seeds for the fuzzers: real outputs of real programs, in every format benchlab reads.

Generated, not frozen: benchlab binaries built from the header print jsonl (time,
counters, unsupported counters, throughput), csv, lind and csb; a Google Benchmark
binary built against Debian's libbenchmark-dev prints its JSON; and the seed documents'
own lind and csb lines are added as written there. Each run of the fuzzers starts
from what this checkout's header and the installed Google Benchmark print today.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEADER_DIR = REPO / "include"

#: Small programs shared with the tests (tests/programs/).
PROGRAMS = REPO / "tests" / "programs"
#: A baseline, a plain benchmark and a parameterised one: every kind of result record.
SMALL_BENCH = (PROGRAMS / "small_bench.c").read_text()

GBENCH_SOURCE = (PROGRAMS / "gbench.cc").read_text()

#: The Lind seed's lines (lind-benchmarks.md: fs_read natively, under Lind and with a grate).
LIND_LINES = "Read\t1\t1000000\t240\nRead\t1024\t1000000\t252\nRead\t4096\t1000000\t267\nRead\t10240\t1000\t389\n"
#: The CSB seed's bm_empty line (csb-builtin-benchmarks.md), key by key as documented.
CSB_LINE = (
    "num_threads=12;init_sz=0;max_noise=0;duration=1;op0_dist=1024;algo_name=bm_empty;op0_nop_max=45591572;"
    "op0_nop_min=48;op0_nop_sum=33593277606;op0_nop_count=301374035;op0_nop_succ_count=301374035;"
    "op0_nop_skipped_count=0;op0_nop_avg=111.47;op0_nop_succ_percent=100.00;op0_nop_histogram=1065349,298380235,"
    "1348724,576159,308,72,25,18,8,12,2,2,12,5,1,0,1,1,54,498,495,262,127,77,50,62,111,35,34,135,107,55,30,409,78,"
    "15,115,44,22,12,16,15,97,48,22,7,6,9,5,7,3,1,4,4,3,2,2,2,1,20;univ_max=45591572;univ_min=48;"
    "univ_sum=33593277606;univ_count=301374035;univ_succ_count=301374035;univ_skipped_count=0;univ_avg=111.47;"
    "univ_succ_percent=100.00;throughput_max=301356.86886647;throughput_min=297071.55882159;"
    "throughput_max_ts=301379324.85379922;throughput_min_ts=297085649.67780507;ticks_to_ms=3792322;"
    "duration_max_ms=1014483;duration_max_clk=3847063730;duration_min_ms=1000057;duration_min_clk=3792255584;"
    "sys_time=11978;usr_time=12113860;max_rss_kb=2508;\n")
#: B63's documented plaintext output (its examples/baseline.c, abridged).
B63_LINES = "basic,time,16777215,233781738\nbasic,time,16777215,228961470\nbasic_half,time,33554431,227525646\n"

FORMATS = ("jsonl", "gbench", "lind", "csb", "b63csv")
FAST = ("--samples=8", "--time-limit=0.05", "--seed=7")


def _compile(source: Path, output: Path, *flags: str) -> Path | None:
    built = subprocess.run(["cc", "-O2", f"-I{HEADER_DIR}", str(source), "-o", str(output), *flags],
                           capture_output=True, text=True)
    return output if built.returncode == 0 else None


def _run(argv: list[str]) -> str:
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, env={**os.environ, "BL_NO_WARN": "1"})
    return out.stdout


def build(directory: Path) -> dict[str, list[str]]:
    """{format: [real outputs]}, built and run in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    seeds: dict[str, list[str]] = {name: [] for name in (*FORMATS, "other")}
    seeds["lind"].append(LIND_LINES)
    seeds["csb"].append(CSB_LINE)
    seeds["b63csv"].append(B63_LINES)
    if (HEADER_DIR / "benchlab.h").exists():
        (directory / "small.c").write_text(SMALL_BENCH)
        small = _compile(directory / "small.c", directory / "small")
        if small:
            seeds["jsonl"].append(_run([str(small), "--format=jsonl", *FAST]))
            seeds["b63csv"].append(_run([str(small), "--format=csv", *FAST]))
            seeds["lind"].append(_run([str(small), "--format=lind", *FAST]))
            seeds["other"].append(_run([str(small), "--format=table", *FAST]))
        counters = _compile(REPO / "examples" / "counters.c", directory / "counters")
        if counters:
            # jemalloc-allocated is never supported here: an unsupported counter record
            for fmt, key in (("jsonl", "jsonl"), ("csv", "b63csv")):
                seeds[key].append(_run([str(counters), "--counters=time,jemalloc-allocated,allocs,page-faults",
                                        "--samples=4", "--time-limit=0.05", "--filter=malloc", f"--format={fmt}"]))
        hash_map = _compile(REPO / "suites" / "concurrency" / "hash_map.c", directory / "hash_map", "-pthread")
        if hash_map:
            seeds["jsonl"].append(_run([str(hash_map), "-t=2", "-d=0.05", "--seed=3", "--format=jsonl"]))
            seeds["csb"].append(_run([str(hash_map), "-t=2", "-d=0.05", "--format=csb"]))
            seeds["csb"].append(_run([str(hash_map), "-t=1", "-d=0.05", "--latency-every=0", "--format=csb"]))
    (directory / "gb.cc").write_text(GBENCH_SOURCE)
    built = subprocess.run(["g++", "-O2", str(directory / "gb.cc"), "-o", str(directory / "gb"), "-lbenchmark",
                            "-lpthread"], capture_output=True, text=True)
    if built.returncode == 0:
        seeds["gbench"].append(_run([str(directory / "gb"), "--benchmark_format=json", "--benchmark_repetitions=3",
                                     "--benchmark_min_time=0.01"]))
    return {name: [text for text in texts if text.strip()] for name, texts in seeds.items()}


def load(directory: Path) -> dict[str, list[str]]:
    """The seeds, built once per directory (scripts/fuzz keeps them between runs)."""
    cached = directory / "seeds.json"
    if cached.exists():
        return json.loads(cached.read_text())
    seeds = build(directory)
    cached.write_text(json.dumps(seeds))
    return seeds
