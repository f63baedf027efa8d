"""Judging: two sides compared and answered.

Which noise floor and threshold a row is judged at (thresholds.py, one rule for every
command), the sides `compare` and `gate` hold against each other (sides.py), the gate's
judgment (gate.py), `ab`'s flow (ab.py) and the answer over the rows' verdicts
(judgment.py). What runs (the interleaved rounds, the gate's re-measurement) is
measuring/'s; the statistics of a comparison are statistics/'s.
"""
