"""bench/csb_harness.py's table (part of bench/run and its --quick): rendered from
synthetic figures, no benchmark runs. Each row's figures are the medians of its runs,
the ratio is harness / bare loop of the same row, the issue's verdict reads the empty
target at -t 1, and the table fits in 100 columns with a revision's column beside.

usage: python bench_csb_harness_test.py REPO_ROOT
"""
import sys

sys.path.insert(0, f"{sys.argv[1]}/bench")
import csb_harness as ch  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def synthetic(empty_t1):
    """Three runs per cell; the median of (x, 2x, 100x) is 2x whatever the outlier."""
    results = []
    for i, row in enumerate(ch.ROWS):
        harness = empty_t1 if i == 0 else 3.0 + i
        figures = {"harness": [harness / 2, harness, 50 * harness], "every op timed": [25.0, 26.0, 90.0],
                   "bare loop": [0.8, 1.0 + i, 40.0], "main harness": [24.0, 24.5, 99.0]}
        results.append({"row": row, "figures": figures, "lines": {}})
    return results


def main():
    text = ch.render(synthetic(1.5), 3, 1.0)
    lines = text.splitlines()
    check(all(len(line) <= 100 for line in lines), f"a line over 100 columns: {max(len(line) for line in lines)}")
    check(lines[0].startswith("ns per operation per thread, median of 3 runs of 1 s"), f"title: {lines[0]!r}")
    check(lines[1].split()[-1] == "ratio" and "main harness" in lines[1], f"header: {lines[1]!r}")
    first = lines[3].split()
    # empty op0=1024, -t 1: harness 1.50, every op timed 26.00, bare loop 1.00, main 24.50, ratio 1.50
    check(first[:4] == ["empty", "op0=1024", "1", "1.50"] and first[-1] == "1.50", f"row 1: {lines[3]!r}")
    third = lines[5].split()
    # two_nops: harness 5.00, bare 3.00: ratio 1.67
    check(third[-1] == "1.67" and third[-3] == "3.00", f"row 3: {lines[5]!r}")
    check(lines[-1] == "figure to reach: empty at -t 1 at most 10 ns/op: 1.50 ns/op (met)", f"verdict: {lines[-1]!r}")
    slow = ch.render(synthetic(12.0), 3, 1.0).splitlines()[-1]
    check(slow.endswith("12.00 ns/op (NOT met)"), f"verdict over 10 ns: {slow!r}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"bench_csb_harness_test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
