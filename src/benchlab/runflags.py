"""`benchlab run`'s flags that reach the benchmark binary, in one table: each row is the
command's option, its benchlab.toml key (if it has one), the flag the binary is given and
whether it is part of a figure's identity.

cli/run.py makes its click options from the rows (`--samples N`), config.py its `[run]`
keys and their checks (`run.samples`), measuring/runner.py the binary's argv
(`--samples=N`) and the settings that join a figure's identity; docs/cli.md's option
and benchlab.toml tables name every row, which tests/python/test_runflags.py checks.
Adding such a flag is one row here, its field in runner.RunOptions and its lines in the
docs. (Google Benchmark binaries get their own spellings of two of them in runner.py.)

This module imports nothing of click or of the layers above the base (config.py reads it).
"""
from __future__ import annotations

import dataclasses
from typing import Any

from benchlab.limits import limit

#: The kinds of value a flag takes.
WHOLE, NUMBER, CHOICE, TEXT, TEXTS, OFF = "whole", "number", "choice", "text", "texts", "off"
#: The header reads --seed as an unsigned 64-bit number: every --seed takes 0 to this.
MAX_SEED = 2**64 - 1


@dataclasses.dataclass(frozen=True)
class RunFlag:
    #: The option of `benchlab run` (and the name docs/cli.md gives it).
    option: str
    #: Its field of runner.RunOptions; also its key among a figure's settings (noise.py).
    field: str
    #: WHOLE or NUMBER (within minimum..maximum, above minimum when `above`), one of `choices`,
    #: TEXT, TEXTS (the option repeated) or OFF (a switch that turns the binary's default off).
    kind: str
    #: The binary's flag: `--samples` becomes `--samples=N`, an OFF flag is given bare.
    binary: str
    help: str
    metavar: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    above: bool = False
    choices: tuple[str, ...] = ()
    #: Its key in benchlab.toml's [run] (used when the option is not given), or None; only a
    #: WHOLE or NUMBER row has one (config.py checks the keys within the option's bounds).
    config_key: str | None = None
    #: Whether a given value is part of a figure's identity: it moves the figure without
    #: changing the code (runner.measurement_settings).
    setting: bool = False

    @property
    def param(self) -> str:
        """The option's name as a Python identifier (click's parameter: `process_precision`)."""
        return self.option.lstrip("-").replace("-", "_")

    @property
    def default(self) -> Any:
        """The value in RunOptions when neither the option nor benchlab.toml gives one."""
        return {TEXTS: (), OFF: True}.get(self.kind)

    def given(self, value: Any) -> bool:
        """Whether `value` (RunOptions') is one the binary is told (an empty --counters is not)."""
        return value not in (None, "", ()) and not (self.kind == OFF and value)

    def arguments(self, value: Any) -> list[str]:
        """The binary's arguments for `value` (RunOptions'): none for the binary's own default."""
        if not self.given(value):
            return []
        if self.kind == OFF:
            return [self.binary]
        if self.kind == TEXTS:
            return [f"{self.binary}={item}" for item in value]
        return [f"{self.binary}={_number(value) if self.kind == NUMBER else value}"]


def _number(value: float) -> str:
    """A number for a binary's flag: short (2, not 2.0), and the value given, to the last digit
    (0.1234567 is not 0.123457, as :g alone would write it)."""
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


#: In the order the binary is given them (after --format=jsonl).
RUN_FLAGS: tuple[RunFlag, ...] = (
    RunFlag("--samples", "samples", WHOLE, "--samples", metavar="N", minimum=limit("MIN_SAMPLES"),
            maximum=limit("MAX_SAMPLES"), config_key="samples", setting=True,
            help="Samples per benchmark in each process (--samples=N; default: as --precision needs)."),
    RunFlag("--time-limit", "time_limit", NUMBER, "--time-limit", metavar="S", minimum=0, above=True,
            maximum=limit("MAX_TIME_LIMIT_S"), config_key="time_limit", setting=True,
            help="Sampling time per benchmark in each process, once it has 10 samples (--time-limit=S)."),
    RunFlag("--seed", "seed", WHOLE, "--seed", metavar="N", minimum=0, maximum=MAX_SEED, config_key="seed",
            help="Seed passed to every binary (default: random, recorded)."),
    RunFlag("--filter", "filters", TEXTS, "--filter", metavar="TEXT",
            help="Only benchmarks whose name contains TEXT."),
    RunFlag("--counters", "counters", TEXT, "--counters", metavar="LIST", setting=True,
            help="Counters for benchlab binaries (--counters=LIST, e.g. time,page-faults,allocs; docs/counters.md)."),
    RunFlag("--process-precision", "precision", NUMBER, "--precision", metavar="PCT", minimum=0,
            maximum=limit("MAX_PRECISION_PCT"), setting=True,
            help="In each process, stop a benchmark once its median's interval is within +-PCT% "
                 "(the header's --precision=PCT; 0: off)."),
    RunFlag("--schedule", "schedule", CHOICE, "--schedule", choices=("rounds", "sequential"), setting=True,
            help="rounds: every benchmark of a program sampled in shuffled rounds (default); "
                 "sequential: one after another."),
    RunFlag("--no-subtract", "subtract", OFF, "--no-subtract",
            help="Table figures as measured, without subtracting the empty loop's cost."),
)
#: The rows that benchlab.toml's [run] also takes, by key.
BY_CONFIG_KEY = {flag.config_key: flag for flag in RUN_FLAGS if flag.config_key}


def resolved(given: dict[str, Any], configured: dict[str, Any]) -> dict[str, Any]:
    """RunOptions' values of the rows: the option as given, else benchlab.toml's, else the
    default (the binary's own). `given` and `configured` are by field; None is not given."""
    values = {}
    for flag in RUN_FLAGS:
        value = given.get(flag.field)
        if value is None:
            value = configured.get(flag.field)
        values[flag.field] = flag.default if value is None else value
    return values
