"""`--format json` writes null for what is not a finite number, never NaN or Infinity,
which JSON parsers other than Python's refuse (issue 31)."""
import json
import math

from benchlab.output.comparisons import render
from benchlab.output.exporters.json import document_text
from benchlab.statistics.compare import Comparison


def strict(text: str):
    """JSON as a strict parser reads it: NaN and Infinity are errors."""
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def test_a_document_writes_null_for_nan_and_infinities_at_any_depth():
    text = document_text({"ratio": math.inf, "low": -math.inf, "rows": [{"x": math.nan, "y": 1.5}]}, indent=1)
    assert strict(text) == {"ratio": None, "low": None, "rows": [{"x": None, "y": 1.5}]}


def test_a_comparison_against_zero_is_written_with_null_ratio():
    zero = Comparison(key=("Read", 1, "time", None), platform="native", unit="ns", a=0.0, b=5.0, ratio=math.inf,
                      low=math.inf, high=math.inf, floor=0.01, scope="within one process", processes=(1, 1))
    text = render([zero], "run 1", "run 2", "json")
    [row] = strict(text)["comparisons"]
    assert (row["a"], row["b"], row["ratio"], row["ratio_ci"]) == (0.0, 5.0, None, [None, None])
