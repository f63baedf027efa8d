"""`benchlab stats RUN [NAME]...`: what each figure of a stored run rests on, as `pyperf
stats` shows a benchmark: its processes one by one (median, interval within that
process, samples, why sampling stopped, where it started and with what layout), the
spread of their medians, the distribution of the samples, the figure before the empty
loop's cost was subtracted, and what the printed interval covers. The figures and
intervals are `show`'s (combine.figures, with the run level of the machine's earlier runs).
"""
from __future__ import annotations

import sys

import click

from benchlab import stats
from benchlab.statistics import contention, noise
from benchlab.cli.common import config_of, db_option, open_store
from benchlab.statistics.combine import process_groups
from benchlab.errors import UserError
from benchlab.output.fitting import MIN_GAP, Column, Narrower, fit, terminal_width, wrapped
from benchlab.records import Record, Summary, printable
from benchlab.output.figures import (MIN_SAMPLES_FOR_CI, UNINFORMATIVE_WORD, WORKLOAD_FORMAT, figure_interval,
                                     format_value, half_width_text, percent_text)
from benchlab.statistics.combine import figures

#: The per-process table's columns: heading, and the cell of one process's record.
PROCESS_COLUMNS = (
    ("process", lambda r: "-" if r.process is None else str(r.process)),
    ("median", lambda r: format_value(r.median)),
    ("raw", lambda r: "-" if r.figures.raw_median is None else format_value(r.figures.raw_median)),
    ("99% within its run", lambda r: "-" if r.format == WORKLOAD_FORMAT else _interval_text(figure_interval(r))),
    ("samples", lambda r: str(len(r.samples))),
    ("stopped at", lambda r: str(r.reported.get("stopped", "-"))),
    ("preempted", lambda r: contention.share_text(r.contention)),
    ("start CPU", lambda r: str(r.reported.get("start_cpu", "-"))),
    ("stack offset", lambda r: str(r.reported.get("stack_offset", "-"))),
    ("env pad", lambda r: str(r.reported.get("env_pad", "-"))),
)
#: The columns a narrow terminal keeps: process, median, its interval, samples.
KEPT_COLUMNS = (0, 1, 3, 4)
#: A figure's lines are indented by two; a wrapped line goes on under its label's value.
INDENT, LABEL_INDENT = "  ", " " * 14


# ignore_unknown_options: so that `stats -1` is the latest run, as for show.
@click.command("stats", context_settings={"ignore_unknown_options": True})
@click.argument("run_id", metavar="RUN", default="latest")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@db_option
@click.pass_context
def command(context: click.Context, run_id: str, names: tuple[str, ...], db_url: str | None) -> int:
    """Per figure of stored run RUN ('latest', an id, -N, a baseline's name), or of those
    whose benchmark name contains a NAME: its processes, their spread, its samples, and
    what its 99% interval covers (as `pyperf stats`)."""
    store = open_store(config_of(context), db_url)
    number = store.resolve_run_id(run_id)
    run, records, _ = store.load_run(number)
    history = store.run_levels(number, run["context"])
    groups = [g for g in process_groups(records) if not names or any(n in g[0].bench for n in names)]
    if not groups:
        listed = sorted({r.bench for r in records})
        raise UserError(f"run {number} has no benchmark whose name contains {' or '.join(map(repr, names))}"
                        if names else f"run {number} has no measured figures",
                        f"its benchmarks: {', '.join(listed)}" if listed else "pick a run from `benchlab runs`")
    width = terminal_width(sys.stdout)
    heading = [_run_heading(run), _prior_line(store.machine_priors(noise.Machine.of(run["context"])))]
    click.echo("\n".join(wrapped(heading, width, "  ")))
    for group in groups:
        [figure] = figures(group, history)
        click.echo("")
        click.echo("\n".join(figure_lines(figure, group, width)))
    return 0


def _prior_line(priors: list[dict]) -> str:
    """The machine's prior (benchlab calibrate), which stands in where a figure has no
    identical-code history."""
    if not priors:
        return "machine prior: none (benchlab calibrate measures it)"
    kinds = "; ".join(f"{row['kind']} {percent_text(row['variance'] ** 0.5)} between runs, "
                      f"{percent_text(row['process_cv2'] ** 0.5)} one process" for row in priors)
    return f"machine prior ({priors[0]['measured_at']}, {priors[0]['runs']} runs): {kinds}"


def _run_heading(run: dict) -> str:
    context = run.get("context") or {}
    return (f"run {run['id']} ({run.get('started_at') or context.get('date', '?')}, {run['status']}); "
            f"host {context.get('host', '?')}, {context.get('cpu', '?')}")


def figure_lines(figure: Record, processes: list[Record], width: int | None = None) -> list[str]:
    """The lines of one figure: `figure` as show combines it, `processes` its records; within
    `width` columns when given (a terminal's: output/fitting.py)."""
    figures, unit = figure.figures, figure.unit
    lines = [_name(figure)]
    if not figure.supported:
        return lines + [f"  not supported: {figure.reason}"]
    if figure.median is None:
        return lines + ["  no samples"]
    low_high = figures.interval
    if figure.format == WORKLOAD_FORMAT:
        lines.append(f"  figure        {format_value(figure.median)} {unit}, median of {_count(len(figure.samples), 'run')}; "
                     f"range {_interval_text(figure_interval(figure))} (too few runs for a 99% interval)")
    elif figure_interval(figure) is None:
        # As show's ? mark: below MIN_SAMPLES_FOR_CI samples a 99% interval is [min, max].
        lines.append(f"  figure        {format_value(figure.median)} {unit}; {_count(len(figure.samples), 'sample')} "
                     f"of one process bound nothing at 99% (at least {MIN_SAMPLES_FOR_CI} do)")
    else:
        if low_high and figure.median and half_width_text(figure.median, low_high) == UNINFORMATIVE_WORD:
            interval = f"99% interval {UNINFORMATIVE_WORD} (as wide as the figure or wider)"
        else:
            half = f" ({half_width_text(figure.median, low_high)})" if low_high and figure.median else ""
            interval = f"99% interval {_interval_text(low_high)}{half}"
        lines.append(f"  figure        {format_value(figure.median)} {unit}, {interval}")
        lines.append(f"  interval of   {figures.ci_scope or '-'}")
    if figures.noise_source:
        spread = ("one process's spread, standing in for runs'" if figures.noise_source == noise.OWN_PROCESSES_WORDS
                  else "spread between runs")
        lines.append(f"  noise from    {figures.noise_source}: {spread} {percent_text(figures.run_sd or 0)}")
    elif figure.counter == "time" and len(processes) > 1:
        lines.append(f"  noise from    {noise.describe(None)}")
    measured = [r for r in processes if r.supported and r.median is not None]
    spread = ""
    if figures.between_cv is not None:
        spread = (f"; CV of their medians {percent_text(figures.between_cv)}; their own intervals "
                  + ("do not all overlap (!)" if figures.disagree else "overlap"))
    outliers = figures.outlier_processes
    if outliers:
        spread += (f"; outlier (!, left out of the figure): process "
                   + ", ".join(str(measured[i].process) if i < len(measured) else str(i) for i in outliers))
    if figures.preempted_processes:
        spread += (f"; most rounds preempted (left out of the figure): process "
                   + ", ".join(str(measured[i].process) if i < len(measured) else str(i)
                               for i in figures.preempted_processes))
    if figures.busy:
        spread += "; busy (#): most rounds of most processes were preempted, and kept"
    if figures.raw_median is not None:
        lines.append(f"  raw           {format_value(figures.raw_median)} {unit}{_raw_note(figures)}")
    lines.append(f"  processes     {len(measured)}{spread}")
    lines.extend(_sample_lines(measured, unit))
    lines.extend(_contention_lines(measured))
    table = _process_table(measured, None if width is None else width - len(INDENT))
    return wrapped(lines, width, LABEL_INDENT) + [INDENT + line for line in table]


def _raw_note(figures: Summary) -> str:
    """What the raw figure is beside the figure: the same for a long body, whose share of the
    empty loop is 0 (stats.loop_share), else the one to quote for a throughput-bound body."""
    share = figures.share_subtracted
    if share == 0:
        return (f", the same: none of the empty loop is subtracted from a body over "
                f"{format_value(stats.loop_share_limits()[1])} times its cost")
    part = "the empty loop" if share == 1 else f"{format_value(share)} of the empty loop"
    return (f" before subtracting {part} (quote it for a throughput-bound body of a few cycles: "
            f"docs/formats.md, \"Which figure to quote\")")


def _sample_lines(measured: list[Record], unit: str) -> list[str]:
    """The samples of all processes (after subtracting the empty loop where it was)."""
    per = [r.figures for r in measured]
    total = sum(len(r.samples) for r in measured)
    low = min(r.median if s.min is None else s.min for r, s in zip(measured, per))
    high = max(r.median if s.max is None else s.max for r, s in zip(measured, per))
    lines = [f"  samples       {total}: minimum {format_value(low)}, maximum {format_value(high)} {unit}; "
             f"outside Tukey's fences {sum(s.outliers_low or 0 for s in per)} low, "
             f"{sum(s.outliers_high or 0 for s in per)} high"]
    raws = [s.raw_median for s in per if s.raw_median is not None]
    loops = [s.overhead for s in per if s.overhead is not None]
    if raws and loops:
        lines.append(f"  subtracted    the empty loop: {_span(loops)} {unit} per iteration; "
                     f"before subtracting, medians {_span(raws)} {unit}")
    return lines


def _contention_lines(measured: list[Record]) -> list[str]:
    """What the kernel said the processes' samples lost to other tasks (nothing where no
    process measured it), and samples calibration could not make long against the timer."""
    lines = []
    lost = contention.summed([r.contention for r in measured])
    if lost is not None and lost.preempted is not None:
        rounds = sum(len(r.samples) for r in measured) + (lost.left_out or 0)
        kept = "left out of the figure" if lost.left_out == lost.preempted else (
            f"{lost.left_out} left out of the figure" if lost.left_out else "kept: most rounds were")
        share = lost.waited_share
        waited = f", waited for a CPU {share:.1%} of the sampling time" if share is not None else ""
        lines.append(f"  preempted     {lost.preempted} of {rounds} rounds ({kept}){waited}; "
                     f"{lost.involuntary_switches} involuntary switches")
    short = [r for r in measured if r.short_samples]
    if short:
        lines.append(f"  short samples {len(short)} of {len(measured)} processes: the machine was too busy "
                     f"to make a sample long against the timer (up to a tick of rounding in each)")
    return lines


def _name(record: Record) -> str:
    param = f"/{record.param_name or 'param'}={record.param}" if record.param is not None else ""
    counter = f" [{record.counter}]" if record.counter != "time" else ""
    sweep = f" {record.sweep['flag']}={record.sweep['value']}" if record.sweep else ""
    return printable(f"{record.bench}{param}{counter}{sweep} on {record.platform} ({record.binary})")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _interval_text(interval) -> str:
    if not interval:
        return "-"
    return f"[{format_value(interval[0])}, {format_value(interval[1])}]"


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return format_value(low) if format_value(low) == format_value(high) else f"{format_value(low)}-{format_value(high)}"


def _process_table(measured: list[Record], width: int | None) -> list[str]:
    """The processes one a line within `width` (fitting.py): the columns from the last go
    first (env pad, stack offset, start CPU, preempted, stopped at, raw); the process, its
    median, its interval and samples stay."""
    columns = [Column(heading, [cell(r) for r in measured]) for heading, cell in PROCESS_COLUMNS]
    steps = [Narrower(f"{heading} hidden", {index: None}) for index, (heading, _) in
             reversed(list(enumerate(PROCESS_COLUMNS))) if index not in KEPT_COLUMNS]
    fitted = fit(columns, steps, width, gap=MIN_GAP)
    return [*fitted.lines(rule=False), *fitted.note_lines("widen the terminal", indent=len(INDENT))]
