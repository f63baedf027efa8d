"""Plotly figure specifications (plain dicts: `data` and `layout`), one builder per chart kind.

The specs are drawn by plotly.js in the page (plotly's own bundled build, written beside
index.html). They are built as dicts rather than through plotly.graph_objects: the page
needs JSON only, and the tests validate every spec with graph_objects instead, which
names a misspelt property.

Plotly reads the text it draws (titles, names, category labels, hover text) as a small
HTML dialect, so every user string goes through `text()` first: `<script>` in a
benchmark's name is shown as written, never taken as a tag.
"""
from __future__ import annotations

import dataclasses
import html
import math
from typing import Any, Sequence

import numpy as np

from benchlab.output.figures import UNINFORMATIVE_WORD, interval_bounds_text
from benchlab import stats
from benchlab.statistics import combine
from benchlab.statistics.compare import row_name, uninformative_interval
from benchlab.records import printable

#: Process i's colour in every distribution chart (plotly's default cycle).
PALETTE = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880",
           "#ff97ff", "#fecb52")
#: By verdict (statistics/compare.py); a "not slower" row that is faster is green.
VERDICT_COLOURS = {"slower": "#d62728", "not slower": "#7f7f7f", "inconclusive": "#ff7f0e", "faster": "#2ca02c"}
#: A value axis spanning more than this factor is drawn logarithmic: wasm's 100x next to
#: native's 1x, or a 100 us round trip next to a 200 ns call, would otherwise flatten one side.
LOG_AXIS_SPAN = 100
#: A set log axis's margin beyond its values, a fraction of the decades it spans.
LOG_AXIS_PAD = 0.06
#: Tukey's fences: a box's whiskers reach the furthest sample within 1.5 IQR of it, the
#: samples beyond are drawn as points (Criterion's and R's boxplot), and those beyond 3 IQR
#: (a preemption of 100,000 ns next to a 1 ns box) are left out and counted instead, or
#: the axis would run to them and flatten every box to a line.
WHISKER_IQR = 1.5
FAR_OUT_IQR = 3.0
ROW_HEIGHT_PX = 26
CHART_HEIGHT_PX = 340


@dataclasses.dataclass
class Chart:
    """One chart of the page: its element id, heading (plain text), spec and caption."""

    id: str
    title: str
    data: list[dict[str, Any]]
    layout: dict[str, Any]
    caption: str = ""
    #: The benchmark (bench, param, counter, sweep) a per-benchmark chart shows: the summary links to it.
    key: tuple | None = None

    @property
    def height(self) -> int:
        return int(self.layout.get("height", CHART_HEIGHT_PX))

    def spec(self) -> dict[str, Any]:
        return {"data": self.data, "layout": self.layout}


def text(value: Any) -> str:
    """A user string as plotly's HTML dialect shows it literally, control characters escaped."""
    return html.escape(printable(value), quote=False)


def name_of(key: tuple) -> str:
    """bench/param [counter] @sweep, as `benchlab compare` names a row."""
    return row_name(key)


#: The legend above the plot, left-aligned: below it, it lands on the x axis's title
#: (plotly places both by fractions of the plot's height), and plotly widens the top
#: margin to fit it however many rows it wraps to.
LEGEND = {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}


def base_layout(height: int = CHART_HEIGHT_PX, **extra: Any) -> dict[str, Any]:
    layout = {"height": height, "margin": {"l": 70, "r": 20, "t": 30, "b": 50},
              "legend": dict(LEGEND), "hovermode": "closest"}
    layout.update(extra)
    return layout


def value_axis(title: str, values: Sequence[float], non_negative: bool = True) -> dict[str, Any]:
    """A value axis: logarithmic when the values span more than LOG_AXIS_SPAN (and are all
    above 0), else linear, never below 0 for a quantity that cannot be (a time, a rate)."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    log = bool(finite) and min(finite) > 0 and max(finite) / min(finite) > LOG_AXIS_SPAN
    axis = {"title": {"text": text(title)}, "type": "log" if log else "linear", "zeroline": not log}
    if log:
        # Set, not autoranged: an error bar down to 0 would stretch a log axis to 1e-48.
        low, high = math.log10(min(finite)), math.log10(max(finite))
        axis["range"] = [low - LOG_AXIS_PAD * (high - low), high + LOG_AXIS_PAD * (high - low)]
    elif non_negative:
        axis["rangemode"] = "nonnegative"
    return axis


#: Characters of a commit shown on a run's tick: git's own short form.
SHORT_COMMIT = 7


def run_label(point: "TrendPoint") -> str:
    """A run on a category axis, as its tick reads: the run, and under it its git commit, so
    that a step in a trend line names the commit it came with without a hover. Not its date:
    runs minutes apart (or one run alone) on a date axis get ticks like 12:44:38.9995; the
    date is in the hover."""
    return f"run {point.run_id}<br>{text(short_commit(point.commit))}"


def short_commit(commit: str) -> str:
    """A commit as `git log --oneline` shortens it, `+` kept (uncommitted changes); "no commit"
    for a run outside a git checkout."""
    if not commit or commit == "-":
        return "no commit"
    return commit[:SHORT_COMMIT] + ("+" if commit.endswith("+") else "")


# -- per benchmark: the distribution of samples, per process ------------------------------------

def process_values(record) -> np.ndarray:
    """A process's samples as its figures see them: less the body's share of the empty loop
    of the same round (stats.summarize)."""
    samples = np.asarray(record.samples, dtype=float)
    if record.overhead_samples and len(record.overhead_samples) == len(samples):
        share = record.figures.share_subtracted
        samples = samples - share * np.asarray(record.overhead_samples, dtype=float)
    return samples


@dataclasses.dataclass
class BoxStats:
    """A process's box: quartiles (type 7, as stats.py), whiskers at Tukey's fences, the
    samples beyond them up to FAR_OUT_IQR (drawn as points) and how many lie further."""

    box: dict[str, float]
    outliers: list[float]
    far_out: int
    furthest: float | None


def box_stats(values: np.ndarray, clamp: bool) -> BoxStats:
    """The box of `values`; clamped at 0 as the figures are when the empty loop was subtracted."""
    s = np.sort(values)
    if clamp:
        s = np.maximum(s, 0.0)
    q1, median, q3 = (stats.quantile(s, q) for q in (0.25, 0.5, 0.75))
    iqr = q3 - q1
    low, high = q1 - WHISKER_IQR * iqr, q3 + WHISKER_IQR * iqr
    inside = s[(s >= low) & (s <= high)]
    beyond = s[(s < low) | (s > high)]
    far = (beyond < q1 - FAR_OUT_IQR * iqr) | (beyond > q3 + FAR_OUT_IQR * iqr)
    furthest = float(beyond[far][np.argmax(np.abs(beyond[far] - median))]) if far.any() else None
    box = {"q1": q1, "median": median, "q3": q3, "lowerfence": float(inside[0]), "upperfence": float(inside[-1])}
    return BoxStats(box, [float(v) for v in beyond[~far]], int(far.sum()), furthest)


def distribution(chart_id: str, key: tuple, by_platform: list[tuple[str, Any, list]]) -> Chart:
    """One panel per platform, each with its own scale: a box per process (quartiles,
    whiskers at Tukey's fences, the samples beyond them as points, those beyond 3 IQR
    counted in the hover and the caption) and the figure (diamond, and the grey band across
    the panel) with its 99% interval. Processes that disagree show as boxes at different
    heights, which one process's own interval cannot show."""
    data: list[dict[str, Any]] = []
    layout = base_layout(showlegend=False)
    shapes, far_out = [], []
    width = (1 - PANEL_GAP * (len(by_platform) - 1)) / len(by_platform)
    for index, (platform, figure, processes) in enumerate(by_platform):
        suffix = "" if index == 0 else str(index + 1)
        axes = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
        non_negative = _non_negative(processes)
        traces, drawn, far = _process_boxes(processes, axes, figure.unit)
        far_out += [(platform, *item) for item in far]
        figures = figure.figures
        low, high = figures.interval or (figure.median, figure.median)
        low = max(0.0, low) if non_negative else low  # a time or a rate has no interval below 0
        data += traces
        data.append({
            "type": "scatter", "mode": "markers", "x": ["figure"], "y": [figure.median], **axes,
            "error_y": {"type": "data", "symmetric": False, "array": [high - figure.median],
                        "arrayminus": [figure.median - low], "thickness": 2, "width": 8, "color": "#111"},
            "marker": {"symbol": "diamond", "size": 11, "color": "#111"}, "name": "figure",
            "hovertemplate": f"{text(platform)}: %{{y:.4g}} {interval_bounds_text(figure.median, (low, high))} "
                             f"{text(figure.unit)}"
                             f"<br>{_figure_meaning(figure)}<extra></extra>"})
        raw = figures.raw_median
        if raw is not None:  # the figure before the empty loop was subtracted, beside it
            overhead = 0.0 if figures.overhead is None else figures.overhead
            data.append({
                "type": "scatter", "mode": "markers", "x": ["raw"], "y": [raw], **axes, "name": "raw",
                "marker": {"symbol": "diamond-open", "size": 11, "color": "#111"},
                "hovertemplate": f"{text(platform)}: raw %{{y:.4g}} {text(figure.unit)}, before subtracting "
                                 f"{figures.share_subtracted:.3g} of the empty loop's "
                                 f"{overhead:.4g}: quote it for a throughput-bound "
                                 f"body of a few cycles<extra></extra>"})
        shapes.append({"type": "rect", "xref": f"x{suffix} domain", "x0": 0, "x1": 1, "yref": f"y{suffix}",
                       "y0": low, "y1": high, "fillcolor": "#999", "opacity": 0.18, "line": {"width": 0},
                       "layer": "below"})
        start = index * (width + PANEL_GAP)
        layout[f"xaxis{suffix}"] = {"domain": [start, start + width], "anchor": f"y{suffix}", "type": "category",
                                    "title": {"text": text(platform)}}
        title = f"{key[2]} ({figure.unit})" if index == 0 else ""
        # An interval down to 0 does not keep the panel linear: on a log axis its bar runs off the bottom.
        values = [*drawn, high, figure.median, *([low] if low > 0 or not non_negative else []),
                  *([raw] if raw is not None else [])]
        layout[f"yaxis{suffix}"] = {"anchor": f"x{suffix}", **value_axis(title, values, non_negative)}
    layout["shapes"] = shapes
    return Chart(chart_id, name_of(key), data, layout, _far_out_caption(far_out, by_platform[0][1].unit), key=key)


def _non_negative(processes: list) -> bool:
    """A quantity that cannot be below 0: after the empty loop is subtracted (clamped at
    0, as the figures are), or when no sample is (a time, a rate, a count)."""
    return all(r.overhead_samples is not None or min(r.samples, default=0.0) >= 0 for r in processes)


def _number(value: float) -> str:
    """167,400 rather than 1.674e+05; 4 significant digits below 1000."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def _far_out_caption(far_out: list[tuple[str, str, int, float]], unit: str) -> str:
    """What the boxes leave out, said under the chart: how many samples, where, the furthest."""
    if not far_out:
        return ""
    count = sum(n for _, _, n, _ in far_out)
    furthest = max((value for *_, value in far_out), key=abs)
    where = ", ".join(f"{label} on {platform}: {n}" for platform, label, n, _ in far_out)
    return (f"Not drawn: {count} sample{'s' if count > 1 else ''} beyond {FAR_OUT_IQR:g} IQR of their process's "
            f"box ({where}; the furthest {_number(furthest)} {unit}), such as a preemption: the axis would run to "
            "them and flatten the boxes. The medians and intervals include them.")


def _figure_meaning(figure) -> str:
    """What the diamond and its interval are: combine.py's figure of several processes, or
    one process's median and its interval within the run."""
    figures = figure.figures
    if figures.processes > 1:
        return f"mean of {figures.processes} process medians; 99% interval: {figures.ci_scope or combine.RERUN}"
    return f"median; 99% interval: {figures.ci_scope or stats.WITHIN_RUN}"


#: The space between two platforms' panels, a fraction of the chart's width.
PANEL_GAP = 0.06


def _process_boxes(processes: list, axes: dict[str, str], unit: str):
    """Per process a box and its outlier points: the traces, every value drawn (for the
    axis), and (label, count, furthest) of each process with samples left out."""
    traces, drawn, far_out = [], [], []
    for index, record in enumerate(processes):
        values = process_values(record)
        if not record.supported or values.size == 0:
            continue
        process = record.process if record.process is not None else index
        found = box_stats(values, clamp=record.overhead_samples is not None)
        # The copies of `--sweep instances=N` are processes of the figure too: one box each.
        copy = record.reported.get("copy")
        label = f"p{process}" if copy is None else f"p{process} c{copy}"
        name = f"process {process}" if copy is None else f"process {process}, copy {copy}"
        if found.far_out:
            far_out.append((label, found.far_out, found.furthest))
            name += f" ({found.far_out} beyond {FAR_OUT_IQR:g} IQR not drawn, the furthest {_number(found.furthest)})"
        colour = PALETTE[process % len(PALETTE)]
        traces.append({"type": "box", "x": [label], **{k: [v] for k, v in found.box.items()}, **axes,
                       "name": text(name), "marker": {"color": colour}, "hoverinfo": "y+name"})
        if found.outliers:
            traces.append({"type": "scatter", "mode": "markers", "x": [label] * len(found.outliers),
                           "y": found.outliers, **axes, "name": text(f"{name}: beyond {WHISKER_IQR:g} IQR"),
                           "marker": {"symbol": "circle-open", "size": 6, "color": colour},
                           "hovertemplate": f"%{{y:.4g}} {text(unit)}<extra>{text(name)}: outlier</extra>"})
        drawn += [found.box["lowerfence"], found.box["upperfence"], *found.outliers]
    return traces, drawn, far_out


# -- per suite: ratio bars against the first platform -------------------------------------------

#: The hatching of a bar whose interval bounds nothing ("uninformative").
UNINFORMATIVE_PATTERN = "/"


@dataclasses.dataclass
class RatioBar:
    binary: str
    name: str
    platform: str
    ratio: float
    low: float
    high: float

    @property
    def informative(self) -> bool:
        return not uninformative_interval(self.ratio, self.low, self.high)


#: A ratio axis's ticks, sparsest first: the first set that puts MIN_RATIO_TICKS ticks in the
#: axis's range is used (1x, 2x, 5x, 10x for wasm's 30x; 0.9x, 1x, 1.1x for a 5% difference).
RATIO_TICK_MANTISSAS = ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.1, 1.2, 1.3, 1.5, 1.7, 2, 2.5, 3, 4, 5, 6, 7, 8, 9))
#: Steps of a narrow ratio axis's ticks (0.98x, 1x, 1.02x), where no set above gives enough.
RATIO_TICK_STEPS = (0.05, 0.02, 0.01, 0.005, 0.002, 0.001)
MIN_RATIO_TICKS = 3
#: The least margin of a ratio axis beyond its values, as a factor: a bar at 1.01x is not on the edge.
RATIO_AXIS_MIN_PAD = 1.02


def ratio_axis(title: str, values: Sequence[float]) -> dict[str, Any]:
    """A logarithmic axis of ratios that always holds 1 (the bars grow from it), ticked with
    explicit labels such as 0.5x, 1x, 2x, 20x: plotly's own log ticks label 0.5 as "5" and 20
    as "2", which reads as 5x and 2x."""
    finite = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    low, high = math.log10(min([1.0, *finite])), math.log10(max([1.0, *finite]))
    pad = max(LOG_AXIS_PAD * (high - low), math.log10(RATIO_AXIS_MIN_PAD))
    low, high = low - pad, high + pad
    ticks = ratio_ticks(10 ** low, 10 ** high)
    return {"title": {"text": text(title)}, "type": "log", "range": [low, high], "tickvals": ticks,
            "ticktext": [f"{tick:g}×" for tick in ticks], "zeroline": False}


def ratio_ticks(low: float, high: float) -> list[float]:
    """Tick values between `low` and `high` (> 0): the sparsest of RATIO_TICK_MANTISSAS's sets
    that gives MIN_RATIO_TICKS, with 1 among them whenever it is in range."""
    decades = range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
    for mantissas in RATIO_TICK_MANTISSAS:
        ticks = sorted({round(m * 10 ** d, 12) for d in decades for m in mantissas if low <= m * 10 ** d <= high})
        if len(ticks) >= MIN_RATIO_TICKS:
            return _thinned(ticks)
    for step in RATIO_TICK_STEPS:
        ticks = [round(k * step, 12) for k in range(math.ceil(low / step), math.floor(high / step) + 1)]
        if len(ticks) >= MIN_RATIO_TICKS:
            return _thinned(ticks)
    return [round(v, 12) for v in np.linspace(low, high, MIN_RATIO_TICKS)]


#: Ticks a ratio axis shows at most: beyond, every other one is dropped (1 kept).
MAX_RATIO_TICKS = 12


def _thinned(ticks: list[float]) -> list[float]:
    while len(ticks) > MAX_RATIO_TICKS:
        keep = ticks.index(1.0) % 2 if 1.0 in ticks else 0
        ticks = ticks[keep::2]
    return ticks


def ratios(chart_id: str, title: str, first: str, bars: list[RatioBar]) -> Chart:
    """One bar per (benchmark, platform) growing from 1 to its ratio to the first platform (up:
    slower than it, down: faster), with its 99% interval; benchmarks grouped under their
    program on the axis; each platform named as "PLATFORM / FIRST" in the legend."""
    data = []
    for platform in dict.fromkeys(bar.platform for bar in bars):
        mine = [bar for bar in bars if bar.platform == platform]
        data.append({
            # base 1, size ratio - 1: the bar runs from 1 to the ratio on the log axis.
            "type": "bar", "name": text(f"{platform} ÷ {first}"), "base": 1,
            "x": [[text(bar.binary) for bar in mine], [text(bar.name) for bar in mine]],
            "y": [bar.ratio - 1 for bar in mine],
            # An uninformative interval (down to 0) is not drawn as a whisker, whose absence would
            # read as exact: the bar is hatched and labelled instead, and the hover says why.
            "error_y": {"type": "data", "symmetric": False,
                        "array": [bar.high - bar.ratio if bar.informative else 0 for bar in mine],
                        "arrayminus": [bar.ratio - bar.low if bar.informative else 0 for bar in mine]},
            "marker": {"pattern": {"shape": ["" if bar.informative else UNINFORMATIVE_PATTERN for bar in mine]}},
            "text": ["" if bar.informative else UNINFORMATIVE_WORD for bar in mine], "textposition": "outside",
            "customdata": [[bar.ratio, _interval_words(bar)] for bar in mine],
            "hovertemplate": f"{text(platform)} ÷ {text(first)}: %{{customdata[0]:.3f}}× "
                             "%{customdata[1]}<extra></extra>"})
    values = [v for bar in bars for v in ((bar.ratio, bar.low, bar.high) if bar.informative else (bar.ratio,))]
    platforms = list(dict.fromkeys(bar.platform for bar in bars))
    axis_title = (f"{platforms[0]} ÷ {first}" if len(platforms) == 1 else f"platform ÷ {first}") + \
        " (1×: as fast)"
    layout = base_layout(height=CHART_HEIGHT_PX + 120, barmode="group", yaxis=ratio_axis(axis_title, values),
                         xaxis={"type": "multicategory", "automargin": True, "tickangle": -90},
                         shapes=[_horizontal_line(1.0)], margin={"l": 70, "r": 20, "t": 30, "b": 60},
                         showlegend=True)
    return Chart(chart_id, title, data, layout)


def _interval_words(bar: RatioBar) -> str:
    if not bar.informative:
        return "(99% interval uninformative: as wide as the ratio)"
    return f"[{bar.low:.3f}, {bar.high:.3f}]"


def _horizontal_line(y: float) -> dict[str, Any]:
    return {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": y, "y1": y,
            "line": {"color": "#444", "width": 1, "dash": "dot"}}


# -- against a baseline: change per benchmark with intervals ------------------------------------

#: The change axis spans at least this many noise floors either side of 0, so that the band of
#: noise is a visible part of it...
CHANGE_AXIS_MIN_FLOORS = 5
#: ...and reaches no further than this many times the typical row's change (the median of the
#: rows' distances from 0, at least the floor): a row beyond (one benchmark at +1,800% among rows
#: within 2%) is drawn at the edge as an arrow labelled with its change, instead of stretching the
#: axis until the band and every other interval are a line.
CHANGE_AXIS_CLIP = 10
#: The axis's margin beyond the furthest value it holds, a fraction of its span.
CHANGE_AXIS_PAD = 0.06


@dataclasses.dataclass
class ChangeAxis:
    """The drawn range of a change chart (percent), and where clipped rows are drawn."""

    low: float
    high: float

    def clipped(self, change: float) -> bool:
        return not self.low < change < self.high

    def edge(self, change: float) -> float:
        """Where a clipped row's arrow goes: just inside the edge it is beyond."""
        inset = CHANGE_AXIS_PAD / 2 * (self.high - self.low)
        return self.high - inset if change >= self.high else self.low + inset


def change_axis(comparisons: list, floor: float) -> ChangeAxis:
    """The range of a change chart: every row's change and interval, within the limits of
    CHANGE_AXIS_MIN_FLOORS and CHANGE_AXIS_CLIP (see there), padded."""
    band = 100 * floor
    changes = [100 * (c.ratio - 1) for c in comparisons]
    typical = max(band, float(np.median(np.abs(changes)))) if changes else band
    reach = max(CHANGE_AXIS_MIN_FLOORS * band, CHANGE_AXIS_CLIP * typical)
    ends = [*changes, *(100 * (end - 1) for c in comparisons if not c.uninformative for end in (c.low, c.high)),
            *(100 * (c.limit - 1) for c in comparisons)]  # the gate's limit, when judged at one
    # Only values within reach set the range: one beyond it is an arrow at the edge.
    high = max([CHANGE_AXIS_MIN_FLOORS * band, *(e for e in ends if e <= reach)])
    low = min([-CHANGE_AXIS_MIN_FLOORS * band, *(e for e in ends if e >= -reach)])
    if high - low <= 0:  # a floor of 0 (exact counters) and no change at all
        low, high = -1.0, 1.0
    pad = CHANGE_AXIS_PAD * (high - low)
    return ChangeAxis(low - pad, high + pad)


#: A change chart's hover: the row, its change and verdict, both figures.
CHANGE_HOVER = ("%{y}: %{customdata[4]} (%{customdata[0]})<br>%{customdata[1]:.4g} -> %{customdata[2]:.4g} "
                "%{customdata[3]}<extra></extra>")


def changes(chart_id: str, title: str, comparisons: list, floor: float) -> Chart:
    """Each benchmark's change in percent (B/A - 1) with its 99% interval, coloured by verdict;
    the noise floor is the grey band around 0. Rows beyond the axis (change_axis) are arrows
    at its edge, labelled with their change."""
    axis = change_axis(comparisons, floor)
    names = [text(f"{name_of(c.key)} \u00b7 {c.platform}") for c in comparisons]
    colours = [VERDICT_COLOURS["faster" if c.faster else c.verdict] for c in comparisons]
    changes_pc = [100 * (c.ratio - 1) for c in comparisons]
    # The axis's range is set (change_axis), so a wide interval runs off its edge rather than
    # stretching it; a row drawn at the edge has its interval in the hover only, and an
    # uninformative one is drawn faint (uninformative_intervals), under the others.
    hidden = [axis.clipped(x) or c.uninformative or not (math.isfinite(c.low) and math.isfinite(c.high))
              for c, x in zip(comparisons, changes_pc)]
    customdata = [[verdict_words(c), c.a, c.b, text(c.unit), f"{x:+,.2f}%"] for c, x in zip(comparisons, changes_pc)]
    data = _uninformative_intervals(comparisons, names, changes_pc, axis) + [{
        "type": "scatter", "mode": "markers", "orientation": "h", "name": "change", "y": names, "x": changes_pc,
        "error_x": {"type": "data", "symmetric": False,
                    "array": [0 if hide else 100 * (c.high - c.ratio) for c, hide in zip(comparisons, hidden)],
                    "arrayminus": [0 if hide else 100 * (c.ratio - c.low) for c, hide in zip(comparisons, hidden)],
                    "color": "#444"},
        "marker": {"size": 9, "color": colours}, "customdata": customdata, "hovertemplate": CHANGE_HOVER}]
    clipped = [i for i, x in enumerate(changes_pc) if axis.clipped(x)]
    if clipped:
        data.append(_beyond_axis([names[i] for i in clipped], [changes_pc[i] for i in clipped],
                                 [colours[i] for i in clipped], [customdata[i] for i in clipped], axis))
    clip_note = f"; {len(clipped)} beyond the axis drawn at its edge" if clipped else ""
    layout = base_layout(height=max(CHART_HEIGHT_PX, 80 + ROW_HEIGHT_PX * len(comparisons)),
                         xaxis={"title": {"text": f"change (%), 99% interval; grey: noise floor "
                                                  f"\u00b1{100 * floor:g}%{clip_note}"},
                                "zeroline": True, "range": [axis.low, axis.high], "ticksuffix": "%"},
                         # The rows in compare's order, whichever trace names them first.
                         yaxis={"type": "category", "autorange": "reversed", "automargin": True,
                                "categoryorder": "array", "categoryarray": names},
                         shapes=_change_shapes(comparisons, floor), showlegend=False,
                         margin={"l": 20, "r": 20, "t": 30, "b": 50})
    caption = ("Red: slower; orange: inconclusive; grey: not slower; green: faster. An interval that reaches an "
               "edge goes on beyond it (the table has its ends); a faint one is uninformative, as wide as its "
               "figure or wider.")
    if clipped:
        caption += (" Beyond the axis (drawn as arrows at its edge, so that the noise band and the other intervals "
                    "stay readable): " + ", ".join(f"{names_plain(comparisons[i])} {changes_pc[i]:+,.1f}%"
                                                   for i in clipped) + ".")
    return Chart(chart_id, title, data, layout, caption)


def _uninformative_intervals(comparisons: list, names: list[str], changes_pc: list[float],
                             axis: ChangeAxis) -> list[dict[str, Any]]:
    """Intervals as wide as their figure, faint: they say "nothing is known" without drawing the
    eye away from the intervals that decide a verdict."""
    rows = [i for i, c in enumerate(comparisons) if c.uninformative and not axis.clipped(changes_pc[i])
            and math.isfinite(c.low) and math.isfinite(c.high)]
    if not rows:
        return []
    return [{"type": "scatter", "mode": "markers", "name": "uninformative interval", "hoverinfo": "skip",
             "y": [names[i] for i in rows], "x": [changes_pc[i] for i in rows], "marker": {"size": 1, "opacity": 0},
             "error_x": {"type": "data", "symmetric": False, "color": "#d0d0d0", "thickness": 1,
                         "array": [100 * (comparisons[i].high - comparisons[i].ratio) for i in rows],
                         "arrayminus": [100 * (comparisons[i].ratio - comparisons[i].low) for i in rows]}}]


def _beyond_axis(names: list[str], changes_pc: list[float], colours: list[str], customdata: list,
                 axis: ChangeAxis) -> dict[str, Any]:
    """The rows beyond the axis: arrows just inside the edge they pass, labelled with their change."""
    return {"type": "scatter", "mode": "markers+text", "name": "beyond the axis", "y": names,
            "x": [axis.edge(x) for x in changes_pc], "text": [row[4] for row in customdata],
            "textposition": ["middle left" if x > 0 else "middle right" for x in changes_pc],
            "marker": {"size": 12, "color": colours,
                       "symbol": ["triangle-right" if x > 0 else "triangle-left" for x in changes_pc]},
            "customdata": customdata, "hovertemplate": CHANGE_HOVER}


def _change_shapes(comparisons: list, floor: float) -> list[dict[str, Any]]:
    """The noise floor's grey band; judged at a --max-regression above it (as the gate), a
    dashed line where "slower" starts."""
    shapes = [{"type": "rect", "yref": "paper", "y0": 0, "y1": 1, "x0": -100 * floor, "x1": 100 * floor,
               "fillcolor": "#bbb", "opacity": 0.3, "line": {"width": 0}, "layer": "below"}]
    judged = [c for c in comparisons if c.threshold and c.threshold > c.floor]
    if judged:
        limit = 100 * max(c.threshold for c in judged)
        shapes.append({"type": "line", "yref": "paper", "y0": 0, "y1": 1, "x0": limit, "x1": limit,
                       "line": {"color": VERDICT_COLOURS["slower"], "width": 1, "dash": "dash"}})
    return shapes


def verdict_words(c) -> str:
    return c.verdict + (", faster" if c.faster else "") + (", interval uninformative" if c.uninformative else "")


def names_plain(c) -> str:
    """A comparison's row as plain text (the template escapes it)."""
    return f"{name_of(c.key)} · {c.platform}"


# -- over history: trend lines with change points -----------------------------------------------

@dataclasses.dataclass
class TrendPoint:
    run_id: int
    date: str
    commit: str
    host: str
    value: float
    low: float
    high: float


def trend(chart_id: str, key: tuple, unit: str, lines: dict[str, list[TrendPoint]],
          change_points: dict[str, list]) -> Chart:
    """Per platform, the figure of each stored run with its interval; hovering a point names
    the run, its date, commit and host. Change points are red crosses at the first run of
    the new level, labelled with the shift."""
    data = []
    # A time or a rate has no interval below 0 (a rerun interval of 3 processes can reach there).
    non_negative = all(p.value >= 0 for points in lines.values() for p in points)
    floor = 0.0 if non_negative else -math.inf
    for index, (platform, points) in enumerate(lines.items()):
        colour = PALETTE[index % len(PALETTE)]
        data.append({
            "type": "scatter", "mode": "lines+markers", "name": text(platform), "line": {"color": colour},
            "x": [run_label(p) for p in points], "y": [p.value for p in points],
            "error_y": {"type": "data", "symmetric": False, "array": [p.high - p.value for p in points],
                        "arrayminus": [p.value - max(floor, p.low) for p in points], "thickness": 1},
            "customdata": [[p.run_id, text(p.commit or "-"), text(p.host or "-"),
                            interval_bounds_text(p.value, (p.low, p.high)), text(p.date)] for p in points],
            "hovertemplate": (f"{text(platform)}, run %{{customdata[0]}}<br>%{{customdata[4]}}"
                              "<br>commit %{customdata[1]}"
                              f"<br>host %{{customdata[2]}}<br>%{{y:.4g}} %{{customdata[3]}} {text(unit)}"
                              "<extra></extra>")})
        found = change_points.get(platform) or []
        if found:
            data.append({
                "type": "scatter", "mode": "markers+text", "name": f"{text(platform)}: change points",
                "x": [run_label(points[c.index]) for c in found], "y": [points[c.index].value for c in found],
                "text": [f"{100 * c.change:+.1f}% at {text(short_commit(points[c.index].commit))}" for c in found],
                "textposition": "top center",
                "marker": {"symbol": "x", "size": 13, "color": "#d62728"},
                "hovertemplate": "change point: %{text} from run "
                                 + "%{customdata}<extra></extra>",
                "customdata": [points[c.index].run_id for c in found]})
    values = [v for points in lines.values() for p in points for v in (p.value, max(floor, p.low), p.high)]
    # The legend even for one platform: the line names its platform.
    layout = base_layout(xaxis=_runs_axis(lines), yaxis=value_axis(f"{key[2]} ({unit})", values, non_negative),
                         showlegend=True)
    return Chart(chart_id, name_of(key), data, layout, key=key)


def _runs_axis(lines: dict[str, list[TrendPoint]]) -> dict[str, Any]:
    """The stored runs as categories in history's order (date, then id): one run alone,
    or runs seconds apart, read as well as runs a week apart."""
    order = sorted({(p.date, p.run_id): run_label(p) for points in lines.values() for p in points}.items())
    return {"type": "category", "categoryorder": "array", "categoryarray": [label for _, label in order],
            "title": {"text": "stored run and its git commit, oldest first (hover a point for its date and host)"},
            "automargin": True}


# -- scalability sweeps: throughput and linearity -----------------------------------------------

def scaling(chart_id: str, key: tuple, flag: str, unit: str, curves: dict[str, list]) -> Chart:
    """Throughput (left) and linearity (right) against the swept value, per platform, as
    the scalability runner plots them; the dotted line is perfect scaling (1.0)."""
    data = []
    for index, (platform, points) in enumerate(curves.items()):
        colour = PALETTE[index % len(PALETTE)]
        xs = [p.value for p in points]
        # `--sweep instances`: the throughput is the copies' sum; hover gives one copy's too.
        copies = all(p.per_copy is not None for p in points)
        throughputs = [(p.throughput, p.low, p.high) for p in points]
        linearities = [(p.linearity, p.linearity_low, p.linearity_high) for p in points]
        data.append({"type": "scatter", "mode": "lines+markers+text", "name": text(platform),
                     "legendgroup": text(platform), "x": xs, "y": [p.throughput for p in points],
                     "line": {"color": colour}, **_point_intervals(throughputs),
                     "customdata": [[p.per_copy, _bounds_words(*t), text(p.marks)] for p, t in zip(points, throughputs)],
                     "hovertemplate": f"{text(flag)} %{{x}}: %{{y:.4g}} {text(unit)} %{{customdata[1]}}"
                                      + (" (%{customdata[0]:.4g} per copy)" if copies else "")
                                      + f" %{{customdata[2]}}<extra>{text(platform)}</extra>"})
        data.append({"type": "scatter", "mode": "lines+markers+text", "name": text(platform),
                     "legendgroup": text(platform), "showlegend": False, "x": xs, "y": [p.linearity for p in points],
                     "xaxis": "x2", "yaxis": "y2", "line": {"color": colour, "dash": "dash"},
                     **_point_intervals(linearities), "customdata": [_bounds_words(*t) for t in linearities],
                     "hovertemplate": f"{text(flag)} %{{x}}: linearity %{{y:.3f}} %{{customdata}}"
                                      f"<extra>{text(platform)}</extra>"})
    # A log axis ticked at the swept values themselves (1, 2, 4, ... or 1, 3, 6): doubling is a step.
    swept = sorted({p.value for points in curves.values() for p in points})
    axis = {"title": {"text": text(flag)}, "type": "log", "tickvals": swept, "ticktext": [f"{v:g}" for v in swept]}
    layout = base_layout(
        xaxis={"domain": [0, 0.45], **axis},
        yaxis={"title": {"text": f"throughput ({text(unit)})"}, "rangemode": "tozero"},
        xaxis2={"domain": [0.55, 1], "anchor": "y2", **axis},
        yaxis2={"title": {"text": "linearity"}, "anchor": "x2", "rangemode": "tozero"},
        shapes=[{"type": "line", "xref": "x2 domain", "x0": 0, "x1": 1, "yref": "y2", "y0": 1, "y1": 1,
                 "line": {"color": "#444", "width": 1, "dash": "dot"}}])
    return Chart(chart_id, name_of((*key, None)), data, layout)


def _point_intervals(points: list[tuple[float, float | None, float | None]]) -> dict[str, Any]:
    """Whiskers for (value, low, high) points; a point whose interval bounds nothing (or that
    has none) gets an open marker and the word beside it rather than no whisker, which would
    read as exact (issue 38)."""
    informative = [low is not None and high is not None and not uninformative_interval(value, low, high)
                   for value, low, high in points]
    return {
        "error_y": {"type": "data", "symmetric": False,
                    "array": [high - value if ok else 0 for (value, _, high), ok in zip(points, informative)],
                    "arrayminus": [value - low if ok else 0 for (value, low, _), ok in zip(points, informative)]},
        "marker": {"symbol": ["circle" if ok else "circle-open" for ok in informative], "size": 8},
        "text": ["" if ok else UNINFORMATIVE_WORD for ok in informative], "textposition": "top center"}


def _bounds_words(value: float, low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "(no interval)"
    return f"99% interval {interval_bounds_text(value, (low, high))}"


# -- workloads: wall/user/sys and max RSS over runs ---------------------------------------------

def workload_series(chart_id: str, title: str, axis: str, lines: dict[str, list[TrendPoint]]) -> Chart:
    """One line per measure (user, sys, wall; or max RSS) over the stored runs, each point
    the median of the workload's runs with their range, hover naming the run."""
    data = []
    for index, (name, points) in enumerate(lines.items()):
        data.append({
            "type": "scatter", "mode": "lines+markers", "name": text(name),
            "line": {"color": PALETTE[index % len(PALETTE)]},
            "x": [run_label(p) for p in points], "y": [p.value for p in points],
            "error_y": {"type": "data", "symmetric": False, "array": [p.high - p.value for p in points],
                        "arrayminus": [p.value - p.low for p in points]},
            "customdata": [[p.run_id, text(p.commit or "-"), text(p.host or "-"), text(p.date)] for p in points],
            "hovertemplate": (f"{text(name)}, run %{{customdata[0]}}<br>%{{customdata[3]}}<br>commit %{{customdata[1]}}"
                              "<br>host %{customdata[2]}<br>%{y:.4g} (range of its runs)<extra></extra>")})
    layout = base_layout(xaxis=_runs_axis(lines), yaxis={"title": {"text": text(axis)}, "rangemode": "tozero"})
    return Chart(chart_id, title, data, layout)


# -- profile buckets: shares, and their change between runs -------------------------------------

def bucket_shares(chart_id: str, title: str, shares: dict[str, dict[str, float]]) -> Chart:
    """Stacked horizontal bars: per run (a bar), each bucket's share of the samples."""
    buckets = list(dict.fromkeys(b for per_run in shares.values() for b in per_run))
    runs = list(shares)
    data = [{"type": "bar", "orientation": "h", "name": text(bucket), "y": [text(r) for r in runs],
             "x": [shares[r].get(bucket, 0.0) for r in runs],
             "hovertemplate": f"{text(bucket)}: %{{x:.1f}}%<extra>%{{y}}</extra>"} for bucket in buckets]
    layout = base_layout(height=max(200, 120 + 40 * len(runs)), barmode="stack",
                         xaxis={"title": {"text": "share of samples (%)"}, "range": [0, 100]},
                         yaxis={"type": "category", "automargin": True, "autorange": "reversed"},
                         legend={**LEGEND, "traceorder": "normal"})
    return Chart(chart_id, title, data, layout)


@dataclasses.dataclass
class BucketMove:
    """A bucket's change in percentage points between two profiles, with the 99% interval of
    the sampling noise (None: exact counts, no sampling)."""

    bucket: str
    change: float
    low: float | None = None
    high: float | None = None

    @property
    def beyond_noise(self) -> bool:
        """The whole interval on one side of 0 (an exact count: any change)."""
        if self.low is None or self.high is None:
            return self.change != 0
        return self.low > 0 or self.high < 0


#: A move's colour: a larger share beyond the noise, a smaller one, or within it.
MOVE_COLOURS = {"up": "#d62728", "down": "#2ca02c", "noise": "#9e9e9e"}


def bucket_changes(chart_id: str, title: str, moves: list[BucketMove]) -> Chart:
    """Each bucket's change in percentage points between two profiles, with its 99% interval
    of sampling noise where the profile was sampled; grey where that interval holds 0."""
    sampled = any(m.low is not None for m in moves)
    colours = [MOVE_COLOURS["noise" if not m.beyond_noise else "up" if m.change > 0 else "down"] for m in moves]
    bar = {"type": "bar", "orientation": "h", "y": [text(m.bucket) for m in moves], "x": [m.change for m in moves],
           "marker": {"color": colours},
           "customdata": [_move_words(m) for m in moves], "hovertemplate": "%{y}: %{x:+.2f} pp %{customdata}<extra></extra>"}
    if sampled:
        bar["error_x"] = {"type": "data", "symmetric": False, "color": "#333",
                          "array": [(m.high - m.change) if m.high is not None else 0 for m in moves],
                          "arrayminus": [(m.change - m.low) if m.low is not None else 0 for m in moves]}
    axis = "change (percentage points)" + (", 99% interval of sampling noise" if sampled else ", exact counts")
    layout = base_layout(height=max(200, 80 + ROW_HEIGHT_PX * len(moves)), showlegend=False,
                         xaxis={"title": {"text": axis}, "zeroline": True, "ticksuffix": " pp"},
                         yaxis={"type": "category", "automargin": True, "autorange": "reversed"})
    return Chart(chart_id, title, [bar], layout)


def _move_words(move: BucketMove) -> str:
    if move.low is None or move.high is None:
        return "(exact)"
    where = "beyond the sampling noise" if move.beyond_noise else "within the sampling noise"
    return f"[{move.low:+.2f}, {move.high:+.2f}] pp, {where}"
