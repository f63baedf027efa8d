"""Percentages as users write them: `--max-regression 2%`, `--noise-floor 0.5%`, `getpid = 5`.

One rule for every flag and benchlab.toml threshold: a number is a percent, with or
without its `%` sign (`2` and `2%` are both two percent). A bare number between 0 and 1
is refused: `0.02` reads as a fraction (2%) to some and as 0.02% to others, so it must
carry its sign (`0.02%`) or be written as the percent it means (`2`).
"""
from __future__ import annotations

import math
from typing import Any

import click


class PercentError(ValueError):
    """What is wrong with a percentage, and how to write it."""

    def __init__(self, what: str, fix: str):
        super().__init__(f"{what} ({fix})")
        self.what, self.fix = what, fix


def parse(value: Any, name: str, *, maximum: float = 100.0) -> float:
    """`value` (a string such as '2%' or '2', or a number) as a percent from 0 to `maximum`."""
    signed = isinstance(value, str) and value.strip().endswith("%")
    text = value.strip().removesuffix("%").strip() if isinstance(value, str) else value
    try:
        number = float(text) if not isinstance(text, bool) else math.nan
    except (TypeError, ValueError):
        raise PercentError(f"{name} {value!r} is not a percentage", f"write e.g. {name} 2%") from None
    if not math.isfinite(number) or not 0 <= number <= maximum:
        raise PercentError(f"{name} {value!r} is not a percentage from 0 to {maximum:g}", f"write e.g. {name} 2%")
    if not signed and 0 < number < 1:
        raise PercentError(f"{name} {value!r} is ambiguous: a fraction ({number:.0%}) or {number:g}%?",
                           f"write {name} {number * 100:g}% for the fraction, or {name} {number:g}% for {number:g} percent")
    return number


class Percent(click.ParamType):
    """A click option's value parsed by `parse`: the percent as a float."""

    name = "percent"

    def __init__(self, maximum: float = 100.0):
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, float):
            return value
        flag = param.opts[0] if param is not None and param.opts else "value"
        try:
            return parse(value, flag, maximum=self.maximum)
        except PercentError as error:
            self.fail(f"{error.what}; {error.fix}", param, ctx)
