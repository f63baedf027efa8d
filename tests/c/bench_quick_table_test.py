"""bench/run --quick (the last step of scripts/test) prints its figures in at most 100
columns, each beside what it should be, and coverage as hits/pairs: with 3 runs a single
miss is 1/2 of the next-run pairs, which a percentage (50%, 67%) made read like a failure.

The figures are synthetic (made here, no benchmark runs): the quick table of
bench/compare_gbench.py is rendered from them and read back.

usage: python bench_quick_table_test.py REPO_ROOT
"""
import re
import sys

sys.path.insert(0, f"{sys.argv[1]}/bench")
import compare_gbench as cg  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def synthetic():
    p, r, c = cg.Processes(), cg.Runs(), cg.Comparisons()
    for i in range(cg.QUICK["PROCESSES"]):
        p.bl.append({k: {"median": 10.0 + i * 0.01, "median_ci": [9.99 + i * 0.01, 10.01 + i * 0.01], "raw_median": 10.5}
                     for k in cg.KERNELS})
        p.bl[-1]["empty"] = {"median": 0.01, "median_ci": [0, 0.02], "raw_median": 0.4}
        p.bl_wall.append(0.1)
        p.gb.append({k: [10.0 + 0.01 * i + 0.001 * j for j in range(cg.GB_REPETITIONS)] for k in cg.KERNELS})
    # 3 runs; the third run's figure is outside the second run's interval: one miss.
    for figure in (10.0, 10.0, 12.0):
        r.figures.append({k: figure for k in cg.KERNELS})
        r.intervals.append({k: (9.9, 10.1) for k in cg.KERNELS})
        r.wall.append(1.5)
        r.single_figures.append({k: 10.0 for k in cg.KERNELS})
        r.single_intervals.append({k: (9.5, 10.5) for k in cg.KERNELS})
    r.processes = 5
    c.aa = [False] * cg.QUICK["COMPARISONS"]
    c.slow = [True] * cg.QUICK["COMPARISONS"]
    c.slow_ratio = [1.01] * cg.QUICK["COMPARISONS"]
    return p, r, c


def main():
    check(hasattr(cg, "quick_table"), "bench/compare_gbench.py has no quick_table")
    if failures:
        return report()
    lines = cg.quick_table(*synthetic(), [3.0])
    text = "\n".join(lines)
    widest = max(len(line) for line in lines)
    check(widest <= 100, f"the quick table is {widest} columns wide, want at most 100")
    for k in cg.KERNELS:
        if k == "empty":
            continue
        row = [line for line in lines if line[:16].rstrip() == cg.SHORT_LABELS[k]]
        check(len(row) == 1, f"{len(row)} rows for {k}")
        if row:
            cells = row[0].split()
            # run: 1 of 2 next-run pairs; proc: 3 of 3; -N 1: 2 of 2; GB: its t intervals
            check(cells[-4:-1] == ["1/2", "3/3", "2/2"], f"{k}: coverage cells {cells[-4:]}, want 1/2 3/3 2/2 ...")
            check(re.fullmatch(r"\d/\d", cells[-1]) is not None, f"{k}: GB's coverage cell is {cells[-1]!r}, want hits/pairs")
    for target in (">= 95%", "1/2 or 2/3", "checks that it all runs", "at most 1 in 100", "(target: all)"):
        check(target in text, f"the quick table does not say {target!r}")
    check("4/4 processes" in text, "the empty body's count is not 4/4")
    return report()


def report():
    for failure in failures:
        print("FAIL:", failure)
    print(f"bench_quick_table_test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
