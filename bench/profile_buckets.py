"""A profile of a real workload, folded into buckets, checked against perf's own report.

Builds bench/profile/zcompress.c (zlib's deflate -9 over 32 MB of generated text, zlib
linked statically from Debian's libz.a so that its static functions have symbols),
profiles it with `benchlab profile --buckets bench/profile/zlib_buckets.toml
--keep-data DIR`, and then reads the same perf.data with `perf report --stdio
--no-children -F overhead,sample,dso,sym`, summing perf's self percentages per bucket
here (first match in file order, independently of benchlab's code). It prints both,
and checks that

  - benchlab's buckets add up to 100% +- 0.1;
  - the top bucket is the same in both;
  - every bucket agrees with the sum of perf's percentages within their rounding:
    perf prints each symbol's percent to 0.01, so a bucket of k symbols may differ by
    up to k x 0.005 pp (the kernel bucket has dozens of one-sample symbols);
  - and exactly, in samples: perf report's sample counts summed per bucket are
    benchlab's.

It times nothing: the figures are shares of samples. Exit 1 when a check fails.

    .venv/bin/python bench/profile_buckets.py [MEGABYTES]     (default 32; about 15 s)
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHLAB = str(HERE.parent / ".venv" / "bin" / "benchlab")
SOURCE = HERE / "profile" / "zcompress.c"
BUCKETS = HERE / "profile" / "zlib_buckets.toml"
LIBZ = Path("/usr/lib/x86_64-linux-gnu/libz.a")
#: perf report prints each percent rounded to 0.01: each row is within this of the exact share.
ROUNDING_PP = 0.005

#: A line of `perf report -F overhead,sample,dso,sym`: `  45.12%   2680  zcompress  [.] longest_match`.
REPORT_LINE = re.compile(r"^\s+([\d.]+)%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(.+?)\s*$")


def build(directory: Path) -> Path:
    if not LIBZ.exists():
        sys.exit(f"{LIBZ} is missing: apt-get install zlib1g-dev")
    binary = directory / "zcompress"
    subprocess.run(["cc", "-O2", "-g", str(SOURCE), "-o", str(binary), str(LIBZ)], check=True)
    return binary


def profile(binary: Path, data_dir: Path, megabytes: str) -> dict:
    out = subprocess.run(["nice", "-n", "19", BENCHLAB, "profile", "--buckets", str(BUCKETS), "--format", "json",
                          "--no-store", "--keep-data", str(data_dir), "--", str(binary), megabytes],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"benchlab profile failed ({out.returncode}): {out.stderr.strip()}")
    return json.loads(out.stdout)


def perf_report_rows(data: Path) -> dict[tuple[str, str], tuple[float, int]]:
    """perf's own self percentage and sample count per (dso, symbol) of the same perf.data."""
    report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children", "-g", "none",
                             "-F", "overhead,sample,dso,sym"], capture_output=True, text=True, check=True).stdout
    rows: dict[tuple[str, str], tuple[float, int]] = {}
    for line in report.splitlines():
        found = REPORT_LINE.match(line)
        if found:
            key = (found.group(3), found.group(5))
            percent, samples = rows.get(key, (0.0, 0))
            rows[key] = (percent + float(found.group(1)), samples + int(found.group(2)))
    return rows


def fold_by_hand(rows: dict[tuple[str, str], tuple[float, int]]) -> dict[str, list]:
    """The buckets file read again here: the first bucket (in file order) with a pattern
    that matches, a string over the symbol, a table over symbol and/or dso; else other.
    Per bucket: [sum of perf's percents, sum of its sample counts, rows summed]."""
    table = tomllib.loads(BUCKETS.read_text())["buckets"]
    folded = {name: [0.0, 0, 0] for name in [*table, "other"]}
    for (dso, symbol), (percent, samples) in rows.items():
        name = next((name for name, patterns in table.items()
                     if any(_matches(pattern, dso, symbol) for pattern in patterns)), "other")
        folded[name][0] += percent
        folded[name][1] += samples
        folded[name][2] += 1
    return folded


def _matches(pattern, dso: str, symbol: str) -> bool:
    if isinstance(pattern, str):
        return re.search(pattern, symbol) is not None
    return all(re.search(pattern[key], dso if key == "dso" else symbol) for key in pattern)


def main() -> int:
    megabytes = sys.argv[1] if len(sys.argv) > 1 else "32"
    scratch = Path(tempfile.mkdtemp(prefix="bench-profile-"))
    try:
        binary = build(scratch)
        document = profile(binary, scratch / "data", megabytes)
        ours = {b["bucket"]: b["share"] for b in document["buckets"]}
        theirs = fold_by_hand(perf_report_rows(scratch / "data" / "native" / "perf.data"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    total = document["totals"]["native"]["total"]
    samples = {b["bucket"]: b["samples"] for b in document["buckets"]}
    print(f"zlib deflate -9 of {megabytes} MB of text: {total} perf samples ({document['event']}, every 250 us)")
    print(f"{'BUCKET':10} {'benchlab':>10} {'perf report':>12} {'difference':>11} {'(rounding)':>10}"
          f" {'samples':>8} {'perf report':>11}")
    for name in ours:
        percent, counted, rows = theirs[name]
        print(f"{name:10} {ours[name]:9.2f}% {percent:11.2f}% {ours[name] - percent:+8.3f} pp {rows * ROUNDING_PP:7.3f} pp"
              f" {samples[name]:8} {counted:11}")
    top_ours = max(ours, key=ours.get)
    top_theirs = max(theirs, key=lambda name: theirs[name][0])
    beyond = [name for name in ours if abs(ours[name] - theirs[name][0]) > theirs[name][2] * ROUNDING_PP + 1e-9]
    miscounted = [name for name in ours if samples[name] != theirs[name][1]]
    checks = [(f"buckets add up to {sum(ours.values()):.4f}% (100 +- 0.1)", abs(sum(ours.values()) - 100) <= 0.1),
              (f"top bucket: benchlab {top_ours}, perf report {top_theirs}", top_ours == top_theirs),
              ("every bucket within perf report's rounding" + (f" except {', '.join(beyond)}" if beyond else ""),
               not beyond),
              ("every bucket's samples equal perf report's" + (f" except {', '.join(miscounted)}" if miscounted else ""),
               not miscounted)]
    for text, passed in checks:
        print(f"{'ok  ' if passed else 'FAIL'} {text}")
    return 0 if all(passed for _, passed in checks) else 1


if __name__ == "__main__":
    os.chdir(HERE.parent)
    sys.exit(main())
