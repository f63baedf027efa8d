"""The header's table for people: `lowest` after subtracting the empty loop (issue 18:
`lowest: 0.00ns` on every suites/calls row, the sample whose round's empty loop ran
slowest). It is the lowest raw sample less the empty loop's median, and says so."""
import re
import subprocess

from conftest import REPO

CONTEXT = "lowest: the lowest raw sample less the empty loop's median"
#: A row's median is a figure, or under load `~0 (<2.1ns)` for a call within the empty loop's
#: noise; this test is about `lowest`, which stays above zero either way.
ROW = re.compile(r"median: (?P<median>[\d.]+ns|~0 \(<[\d.]+ns\)).*lowest: (?P<lowest>[\d.]+)ns\s+\[p75: (?P<p75>[\d.]+)ns")


def test_lowest_is_the_lowest_raw_sample_less_the_empty_loop(tmp_path):
    exe = tmp_path / "calls"
    subprocess.run(["cc", "-O2", f"-I{REPO / 'include'}", str(REPO / "suites" / "calls" / "calls.c"), "-o", str(exe)],
                   check=True)
    table = subprocess.run([str(exe), "--format=table", "--samples=60"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    assert CONTEXT in table[1]
    rows = [ROW.search(line) for line in table[2:] if "median:" in line]
    assert len(rows) == 10 and all(rows)
    for row in rows:
        assert float(row["lowest"]) > 0  # a call costs more than nothing, whatever one round's loop did
    raw = subprocess.run([str(exe), "--format=table", "--samples=60", "--no-subtract"], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert CONTEXT not in raw[1] and raw[1].startswith("raw figures")
