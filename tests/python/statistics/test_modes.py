"""benchlab.statistics.modes: processes that fall into two modes, and the table's mark."""
import numpy as np

from benchlab.output.exporters import EXPORTERS
from benchlab.output.figures import MARK_MODES
from benchlab.output.table import Table
from benchlab.records import Interval, Record
from benchlab.statistics.modes import Mode, process_modes


def test_two_tight_groups_far_apart_are_two_modes_with_their_shares():
    # getpid on this host: about 160 or about 230 ns a process (issue 38)
    assert process_modes([160, 231, 158, 229, 161]) == (Mode(159.66666666666666, 0.6), Mode(230.0, 0.4))


def test_one_group_a_lone_odd_process_or_a_small_gap_is_no_split():
    assert process_modes([160, 162, 158, 159, 161]) == ()
    assert process_modes([160, 230, 158, 159, 161]) == ()        # one process: an outlier, not a mode
    assert process_modes([100, 100.5, 101, 102, 102.5]) == ()     # 1% apart: layout, not a state
    assert process_modes([100, 110, 120, 130, 140]) == ()         # spread evenly: no gap 3x the modes' range
    assert process_modes([160, 230]) == ()                        # two modes need two processes each


def test_a_process_whose_own_interval_reaches_across_the_gap_denies_the_split():
    tight = [Interval(m - 2, m + 2) for m in (160, 231, 158, 229, 161)]
    assert process_modes([160, 231, 158, 229, 161], tight) != ()
    wide = list(tight)
    wide[0] = Interval(150, 235)  # the process at 160 could have been at 230
    assert process_modes([160, 231, 158, 229, 161], wide) == ()


def _process(median: float, process: int) -> Record:
    return Record(bench="getpid", param=None, samples=list(median * (1 + np.linspace(-0.003, 0.003, 30))),
                  iterations=1000, platform="native", binary="sys", reported={"process": process})


def test_the_table_marks_a_figure_of_two_modes_and_says_them_under_it():
    records = [_process(m, i) for i, m in enumerate((160, 231, 158, 229, 161))]
    table = Table(["native"], records, [])
    [row] = table.rows
    assert MARK_MODES in row.cells["native"].marks
    assert row.cells["native"].record.figures.modes == ((159.66666666666666, 0.6), (230.0, 0.4))
    text = EXPORTERS["table"](table)
    assert "^  getpid on native: modes 160 (60%), 230 (40%) of 5 processes" in text
    one_mode = Table(["native"], [_process(m, i) for i, m in enumerate((160, 161, 158, 159, 161))], [])
    assert MARK_MODES not in one_mode.rows[0].cells["native"].marks
