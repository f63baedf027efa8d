"""The deterministic counters (the `callgrind` platform's: exact, the same on every run) by
name, and their thresholds as users write them: `gate --judge counts --counter-threshold
instructions=1` and benchlab.toml's `[gate.counter_thresholds]` (docs/cli.md, *gate*).

Here, in the base layer, because config.py checks the names and the gate judges by them;
profiling/callgrind.py, which makes the counters, names them from this table.
"""
from __future__ import annotations

from benchlab import percent

INSTRUCTIONS, ESTIMATED_CYCLES = "instructions", "estimated-cycles"
#: Every counter the callgrind platform gives (docs/counters.md).
COUNTERS = (INSTRUCTIONS, ESTIMATED_CYCLES, "I1-misses", "D1-misses", "LL-misses")
#: The counters `gate --judge counts` judges when no threshold names others: the work the
#: code does, and the work with the caches' misses weighed in.
JUDGED_BY_DEFAULT = (INSTRUCTIONS, ESTIMATED_CYCLES)


class CounterError(ValueError):
    """What is wrong with a counter's name or threshold, and how to write it."""

    def __init__(self, what: str, fix: str):
        super().__init__(f"{what} ({fix})")
        self.what, self.fix = what, fix


def counter_name(text: str) -> str | None:
    """The counter `text` names: its name, or with `_` for `-` (`estimated_cycles`, as a
    TOML key is often written), in any case; None when it names none."""
    wanted = text.strip().replace("_", "-").lower()
    return next((name for name in COUNTERS if name.lower() == wanted), None)


def known(text: str, where: str) -> str:
    """`counter_name(text)`, or a CounterError naming `where` and the counters there are."""
    name = counter_name(text)
    if name is None:
        raise CounterError(f"{where}: {text!r} is not a deterministic counter",
                           f"name one of {', '.join(COUNTERS)}")
    return name


def threshold(text: str, where: str = "--counter-threshold") -> tuple[str, float]:
    """`NAME=PCT` (`instructions=1`, `estimated-cycles=2%`) as (counter, percent)."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise CounterError(f"{where} {text!r} is not COUNTER=PCT", f"write e.g. {where} instructions=1%")
    counter = known(name, f"{where} {text!r}")
    try:
        return counter, percent.parse(value, counter)
    except percent.PercentError as error:
        # percent's own words on the value (not a percentage, ambiguous), after the flag's
        said = error.what.removeprefix(f"{counter} {value!r} ")
        raise CounterError(f"{where} {text!r}: {said}", f"write e.g. {where} {counter}=1%") from None
