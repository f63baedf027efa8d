import subprocess

from benchlab.limits import HEADER, header_limits, limit


def test_limits_are_read_from_the_header_the_binaries_check(small_bench_binary):
    assert limit("MIN_SAMPLES") == 3 and limit("MAX_SAMPLES") == 1_000_000
    assert limit("MAX_PRECISION_PCT") == 100
    assert "BL__MIN_SAMPLES" in HEADER.read_text()
    # The binary's own check uses the same number: one below it is refused, it is accepted.
    low = int(limit("MIN_SAMPLES"))
    refused = subprocess.run([str(small_bench_binary), f"--samples={low - 1}", "--list"], capture_output=True, text=True)
    accepted = subprocess.run([str(small_bench_binary), f"--samples={low}", "--list"], capture_output=True, text=True)
    assert refused.returncode == 2 and f"from {low} to" in refused.stderr
    assert accepted.returncode == 0


def test_every_limit_line_parses_as_a_number(tmp_path):
    header = tmp_path / "h.h"
    header.write_text("#define BL__A 3\n#define BL__B 0.5\n#define BL__C(x) x\n#define BL__D \"s\"\n")
    assert header_limits(header) == {"A": 3.0, "B": 0.5}
