"""Are callgrind's instruction counts the same on every run, where time is not?

Runs `benchlab run suites/calls --platform native,callgrind` RUNS times (default 5; each
run 5 processes per platform, the default) in a scratch project, and prints per
benchmark: the instructions per iteration of every callgrind process of every run, their
largest difference (0 when the count is deterministic), and beside it the time figures
of the native runs: the CV of the runs' figures (what a rerun moves) and of all their
processes' medians.

    .venv/bin/python bench/instructions.py [RUNS]      (about a minute on 2 idle cores)
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

BENCHLAB = os.path.abspath(".venv/bin/benchlab")


def scratch_project() -> str:
    """A temporary project with the header and suites/calls."""
    project = tempfile.mkdtemp(prefix="bench-instructions-")
    os.makedirs(f"{project}/include")
    shutil.copy("include/benchlab.h", f"{project}/include/")
    shutil.copytree("suites/calls", f"{project}/calls")
    return project


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values)


def name(record: dict) -> str:
    return record["bench"] if record["param"] is None else f"{record['bench']}/{record['param']}"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    project = scratch_project()
    command = [BENCHLAB, "run", "calls", "--platform", "native,callgrind", "--no-store", "--format", "json"]
    counts: dict[str, list[float]] = {}       # every callgrind process's figure
    run_times: dict[str, list[float]] = {}    # each run's combined native figure
    process_times: dict[str, list[float]] = {}
    try:
        for index in range(runs):
            out = subprocess.run(command, cwd=project, capture_output=True, text=True, check=True).stdout
            document = json.loads(out)
            for record in document["records"]:
                if record["platform"] == "callgrind" and record["counter"] == "instructions":
                    counts.setdefault(name(record), []).extend(record["samples"])
                elif record["platform"] == "native" and record["counter"] == "time":
                    process_times.setdefault(name(record), []).append(record["summary"]["median"])
            for row in document["rows"]:
                cell = row["cells"].get("native")
                if row["counter"] == "time" and cell and cell.get("median") is not None:
                    label = row["test"] if row["param"] is None else f"{row['test']}/{row['param']}"
                    run_times.setdefault(label, []).append(cell["median"])
            print(f"run {index + 1}/{runs} done", file=sys.stderr)
    finally:
        shutil.rmtree(project, ignore_errors=True)
    processes = len(next(iter(counts.values())))
    print(f"suites/calls, {runs} runs of `benchlab run --platform native,callgrind` ({processes} callgrind "
          f"processes per benchmark in all)")
    head = ("benchmark", "instructions/iter", "max difference", "time ns (mean of runs)", "time CV of runs",
            "time CV of processes")
    rows = []
    for bench, values in counts.items():
        times = run_times.get(bench, [])
        rows.append((bench, " ".join(sorted({f"{v:g}" for v in values})), f"{max(values) - min(values):g}",
                     f"{statistics.mean(times):.3f}" if times else "-",
                     f"{cv(times):.2%}" if len(times) > 1 else "-",
                     f"{cv(process_times[bench]):.2%}" if len(process_times.get(bench, [])) > 1 else "-"))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for row in rows:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))
    worst = max(max(v) - min(v) for v in counts.values())
    print(f"largest difference between any two counts of one benchmark: {worst:g}")
    print(f"reproduce: {' '.join(['.venv/bin/python', 'bench/instructions.py', str(runs)])}")


if __name__ == "__main__":
    main()
