"""`benchlab calibrate`: an A/A of benchlab's reference kernels as separate runs, stored as
the machine's prior, shown by `stats`, used where a figure has no identical-code history."""
import math

import pytest

from benchlab.measuring import calibration
from benchlab.statistics import noise
from benchlab.storage.store import open_store


@pytest.fixture(autouse=True)
def calibrate_at_once(monkeypatch):
    """Calibrations here run back to back, not spread over DEFAULT_SPAN_S: the tests check
    what is stored and said, not the machine."""
    monkeypatch.setattr(calibration, "DEFAULT_SPAN_S", 0.0)


def test_the_a_a_level_is_the_mean_rule_over_every_difference():
    # Four runs of 3 processes: the run level is half the mean squared log difference of
    # their means less what their processes explain; every difference is a degree of freedom.
    runs = [[99.0, 100.0, 101.0], [101.0, 102.0, 103.0], [99.0, 100.0, 101.0], [101.0, 102.0, 103.0]]
    level = calibration.aa_level(runs)
    means = [100.0, 102.0, 100.0, 102.0]
    squares = [math.log(b / a) ** 2 for a, b in zip(means, means[1:])]
    explained = sum(1 / a ** 2 / 3 + 1 / b ** 2 / 3 for a, b in zip(means, means[1:])) / 3
    assert level.variance == pytest.approx((sum(squares) / 3 - explained) / 2)
    assert (level.df, level.earlier_runs, level.source) == (3, 4, noise.MACHINE_PRIOR)
    # An A/A's process spread is the plain mean of its runs' CV^2 (nothing clipped), 4 x 2 df.
    cv2 = sum((1 / m) ** 2 for m in means) / 4
    assert level.process_cv2 == pytest.approx(cv2) and level.process_df == 8


def test_calibrate_stores_one_prior_per_kind_and_stats_shows_it(project, benchlab):
    result = benchlab("calibrate", "--runs", "3", "-N", "2", "--db", "sqlite:///cal.db")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["KIND", "KERNEL", "FIGURE"]
    assert [line.split()[:2] for line in lines[1:4]] == [["loop-bound", "memcpy64"], ["latency-bound", "chain100"],
                                                         ["syscall", "getpid"]]
    assert "3 runs of 2 processes" in lines[4] and "stored as its prior" in lines[4]
    assert "calibrating" in result.stderr
    store = open_store("sqlite:///cal.db")
    from benchlab.measuring import context
    priors = store.machine_priors(noise.Machine.of(context.machine()))
    store.close()
    assert sorted(row["kind"] for row in priors) == sorted(noise.KINDS)
    assert all(row["runs"] == 3 and row["df"] == 2 and row["process_df"] == 3 for row in priors)
    assert all(row["process_cv2"] > 0 for row in priors)  # two processes never agree exactly in ns
    # A run of new code in that store: its figure's noise is the prior's, and stats says so.
    (project / "one.c").write_text('#include "benchlab.h"\nBL_BENCH(spin, n) { for (uint64_t i = 0; i < n; i++) '
                                   'BL_CLOBBER(); }\nBL_MAIN()\n')
    run = benchlab("run", "one.c", "-N", "3", "--db", "sqlite:///cal.db", "--time-limit", "0.002")
    assert run.exit_code == 0, run.stderr
    stats = benchlab("stats", "latest", "--db", "sqlite:///cal.db").stdout
    assert stats.splitlines()[1].startswith("machine prior (")
    assert "  noise from    machine prior (" in stats
    assert "a rerun of as many processes, with the machine prior (benchlab calibrate)" in stats


def test_calibrate_on_a_loaded_machine_says_the_load(project, benchlab, monkeypatch):
    monkeypatch.setattr(calibration, "load_average", lambda: 7.5)
    result = benchlab("calibrate", "--runs", "3", "-N", "2", "--db", "sqlite:///cal.db")
    assert result.exit_code == 0
    assert "warning: the machine is loaded (1-minute load average 7.50" in result.stderr
    assert "load average 7.50" in result.stdout


def test_bad_flags_are_refused_before_anything_runs(project, benchlab):
    for args in (["--runs", "2"], ["-N", "1"], ["--runs", "x"]):
        result = benchlab("calibrate", *args, "--db", "sqlite:///cal.db")
        assert result.exit_code == 2 and result.stderr.startswith("error:"), args


def test_the_runs_are_spread_over_the_span(project, benchlab):
    # Run k starts span * k / runs seconds after the first. An injected clock moves 1 s at
    # each reading and by what is slept, whatever the runs take: started at 0, run 0 reads 1
    # (no wait), run 1 reads 2 and waits 8 to 10, run 2 reads 11 and waits 9 to 20, run 3
    # reads 21 and waits 9 to 30.
    from benchlab.config import load_config
    from benchlab.measuring import context as run_context

    class Clock:
        now, slept = 0.0, []

        def read(self):
            self.now += 1
            return self.now - 1

        def sleep(self, seconds):
            self.slept.append(seconds)
            self.now += seconds

    clock = Clock()
    result = calibration.calibrate(load_config(cwd=project), run_context.machine(), runs=4, processes=2, span=40,
                                   clock=clock.read, sleep=clock.sleep)
    assert clock.slept == [8.0, 9.0, 9.0] and result.runs == 4 and result.seconds == 31.0
    assert benchlab("calibrate", "--span", "-1", "--db", "sqlite:///cal.db").exit_code == 2
