"""The profile table within a terminal's width (output/profiles.py): library names are cut
first, then bucket and function names, never the figures; headings and notes wrap."""
from benchlab.output.profiles import profile_table

INFO = {"profiler": "perf", "event": "cpu-clock", "unit": "samples", "totals": {"native": {"total": 1234}}}
LONG_FUNCTION = "heavy_function_with_a_very_long_cxx_name<int, std::allocator<int>>"
ROWS = [
    {"platform": "native", "target": "costs", "kind": "self", "position": 0, "bucket": "heavy_and_long_bucket_name",
     "samples": 900, "share": 72.9,
     "top_symbols": [{"symbol": LONG_FUNCTION, "share": 72.9, "samples": 900,
                      "dso": "/usr/lib/x86_64-linux-gnu/libfoo-with-long-name.so.1"}]},
    {"platform": "native", "target": "costs", "kind": "self", "position": 1, "bucket": "other", "samples": 334,
     "share": 27.1, "top_symbols": []},
]


def test_without_a_width_every_name_is_whole():
    lines = profile_table(INFO, ROWS, 7).splitlines()
    assert lines[3] == f"  {LONG_FUNCTION}  72.90%      900  libfoo-with-long-name.so.1"
    assert lines[-1] == 'saved as run 7 (benchlab compare RUN 7; benchlab gate --bucket "NAME<PCT%")'


def test_a_width_cuts_the_library_then_the_names_and_wraps_the_prose():
    lines = profile_table(INFO, ROWS, 7, 60).splitlines()
    assert max(len(line) for line in lines) <= 60
    # the library to MIN_CUT (10), the names to the 31 cells left: 31 + 6 + 7 + 10 + 3 gaps of 2 = 60
    assert lines == ["costs on native: perf cpu-clock every 250 us, 1,234 samples",
                     "  (0.31 s of CPU time)",
                     "BUCKET                             SELF  SAMPLES",
                     "heavy_and_long_bucket_name       72.90%      900",
                     "  heavy_function_with_a_very_l…  72.90%      900  libfoo-wi…",
                     "other                            27.10%      334",
                     "saved as run 7 (benchlab compare RUN 7; benchlab gate",
                     '--bucket "NAME<PCT%")']
