"""`benchlab report`: stored runs as a summary page and the pages it links to, opened from disk.

The flow: check --out (before anything is read), load the runs (by default the latest with
measurements), compare them once, build the sections (sections.py, one function each,
charts.py for their plotly specs), lay them out as pages (pages.py), summarize them on the
first screen (summary.py), write every page and its scripts into a temporary directory
beside --out (page.py), and rename it into place, so that --out is either the new report
whole or what it was before.
"""
from __future__ import annotations

import dataclasses
import datetime
import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any

from benchlab.bundled import version as benchlab_version
from benchlab.errors import UserError
from benchlab.judging.thresholds import Thresholds
from benchlab.output.htmlreport import page, pages, sections, summary
from benchlab.output.htmlreport.history import History, read_history
from benchlab.output.htmlreport.runs import (DEFAULT_HISTORY_RUNS, StoredRun, check_not_empty, load, load_default,
                                              load_id, load_reference)
from benchlab.records import printable

__all__ = ["build", "check_out", "DEFAULT_HISTORY_RUNS"]


def check_out(out: Path) -> None:
    """--out must be a new directory, an empty one, or an earlier report's, in a writable parent."""
    from benchlab.paths import check_path_length
    check_path_length("--out", out)  # a name over 255 bytes: one error, not an OSError on the first stat
    parent = out.absolute().parent
    shown, shown_parent = printable(str(out)), printable(str(parent))  # a path's controls escaped, one line
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {shown} is a file", "give a directory: the report is DIR/index.html and its scripts")
    if not parent.is_dir():
        raise UserError(f"--out {shown}: the directory {shown_parent} does not exist",
                        "create it first, or give another path")
    if out.is_dir() and any(out.iterdir()) and not (out / page.STAMP).exists():
        raise UserError(f"--out {shown} holds files that are not an earlier benchlab report",
                        "give a new or empty directory (an earlier report's directory is replaced)")
    try:
        tempfile.TemporaryDirectory(dir=parent).cleanup()
    except OSError as exc:
        raise UserError(f"--out {shown}: cannot write in {shown_parent}: {exc.strerror}",
                        "give a directory you can write") from None


def build(store, run_texts: list[str], baseline: str | None, out: Path, *,
          thresholds: Thresholds = Thresholds(), history_limit: int = DEFAULT_HISTORY_RUNS) -> Path:
    """Write the report of `run_texts` (as `show` names runs; none: the latest run with
    measurements) into `out`; the path of index.html. `thresholds`: each row's noise floor and
    threshold (judging/thresholds.py; without --max-regression the floor alone, as compare)."""
    check_not_empty(store)
    notes: list[str] = []
    if run_texts:
        subjects = [load(store, text) for text in run_texts]
        anchor = max(subjects, key=lambda s: s.id)
    else:
        subject, anchor = load_default(store)
        subjects = [subject]
        if anchor is not subject:
            notes.append(f"Run {subject.id} is the latest run with measurements; the runs after it (up to run "
                         f"{anchor.id}) are profiles, shown under Profiles.")
    reference = load_reference(store, baseline) if baseline else None
    latest = max(subjects, key=lambda s: s.id)
    # The history up to the anchor: a profile stored after the run shown is still in Profiles.
    history = read_history(store, anchor, latest, history_limit)
    judged = Judged(thresholds)
    pages, found_summary = _pages(subjects, reference, latest, history, judged, store)
    found_summary.notes[:0] = notes
    context = {
        "title": _title(subjects, reference), "version": benchlab_version(), "summary": found_summary, "pages": pages,
        "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "runs": _run_rows(subjects, reference, history), "plotly_js": page.PLOTLY_JS, "report_js": page.REPORT_JS,
    }
    return _write_whole(out, context)


@dataclasses.dataclass
class Judged:
    """How comparisons are judged: each row at its noise floor and threshold."""

    thresholds: Thresholds

    @property
    def default_floor(self) -> float:
        """The floor of a benchmark without its own: the changes chart's band."""
        return self.thresholds.default_floor

    def compare(self, before: StoredRun, after: StoredRun) -> list:
        return self.thresholds.judge(sections.comparisons(before, after, self.thresholds.floor_of))


def _pages(subjects: list[StoredRun], reference: tuple[str, StoredRun] | None, latest: StoredRun,
           history: History, judged: Judged, store) -> tuple[list[pages.Page], summary.Summary]:
    """The detail pages in the order of the navigation, and the summary that links to them."""
    new_id = sections.ChartIds()
    left_out: list[str] = []
    found: list[pages.Page] = []
    default_floor = judged.default_floor
    pairs = [(label, before, after, judged.compare(before, after))
             for label, before, after in _comparisons(subjects, reference, history, store)]
    if not pairs:
        left_out.append("changes (nothing to compare with: give --baseline NAME or two runs, or store another run)")
    for label, before, after, compared in pairs:
        found += pages.whole(f"changes-{after.id}.html", f"Run {after.id} against {label}", "Changes", [_noted(
            sections.changes(label, after, compared, default_floor, new_id), left_out,
            f"changes of run {after.id} against {label} (no benchmark in common)")])
    ratio_bars = {stored.id: sections.ratio_bars(stored) for stored in subjects}
    for stored in subjects:
        found += pages.whole(f"run-{stored.id}.html", "table, platforms, scaling", f"Run {stored.id}", [
            sections.run_table(stored),
            _noted(sections.platform_ratios(stored, ratio_bars[stored.id], new_id), left_out,
                   f"platform ratios of run {stored.id} (one platform)"),
            _noted(sections.sweeps(stored, new_id), left_out, f"scaling of run {stored.id} (no --sweep)")])
        found += pages.per_program(f"run-{stored.id}", f"Run {stored.id}: samples", sections.benchmarks(stored, new_id))
    trends = sections.trend_findings(latest, history)
    if not trends:
        left_out.append(f"history ({summary.no_history_reason(latest, history)})")
    found += pages.per_program("history", "History", sections.trends(latest, history, trends, new_id))
    found += pages.whole("workloads.html", "Workloads", "Workloads and profiles", [_noted(
        sections.workloads(latest, history, new_id), left_out, f"workloads (none in run {latest.id})")])
    profiled = sections.profile_groups(_scope(subjects, reference, history), store.load_profile)
    found += pages.whole("profiles.html", "Profile buckets", "Workloads and profiles", [_noted(
        sections.profiles(profiled, new_id), left_out,
        "profile buckets (no run here has a profile: benchlab profile stores one)")])
    moves = summary.profile_moves(sections.latest_moves(profiled), bool(profiled))
    return found, _summary(subjects, history, pairs, trends, ratio_bars, moves, found, left_out)


def _summary(subjects: list[StoredRun], history: History, pairs, trends, ratio_bars, moves,
             found: list[pages.Page], left_out: list[str]) -> summary.Summary:
    where = pages.locations(found)
    links = lambda kind, key: where.get((kind, key[:4]))  # noqa: E731
    verdicts = [summary.verdicts(label, after, compared, f"changes-{after.id}.html" if compared else None, links)
                for label, _before, after, compared in pairs]
    latest = max(subjects, key=lambda s: s.id)
    shifts, more = summary.shifts(trends, links)
    failures = [line for stored in subjects for line in summary.failures(stored)]
    nothing = None if pairs else (
        f"Nothing to compare run {latest.id} with: it is the first stored run of its machine with measurements. "
        "Store another run (benchlab run), or give a baseline (benchlab report --baseline NAME).")
    return summary.Summary(
        subject=[summary.subject_line(stored) for stored in subjects], notes=[],
        measured=[summary.measured(stored) for stored in subjects],
        verdicts=verdicts, nothing_to_compare=nothing, history=summary.history_sentence(latest, history, trends),
        shifts=shifts, shifts_more=more,
        platforms=[line for stored in subjects for line in summary.platform_lines(stored, ratio_bars[stored.id])],
        moves=moves[0], profiles=moves[1],
        failures=failures[:summary.FAILURES_SHOWN], failures_more=max(0, len(failures) - summary.FAILURES_SHOWN),
        left_out=left_out)


def _scope(subjects: list[StoredRun], reference, history: History) -> list[StoredRun]:
    """Every run the report names, once each, in history's order (date, then id)."""
    runs = {stored.id: stored for stored in [*history.runs, *subjects, *([reference[1]] if reference else [])]}
    return sorted(runs.values(), key=lambda stored: (stored.date, stored.id))


def _noted(section, left_out: list[str], why: str):
    if section is None:
        left_out.append(why)
    return section


def _comparisons(subjects: list[StoredRun], reference, history: History, store):
    """(label, A, B) pairs: each run against the baseline; else each later run against the
    first given; else the run against the previous run of its machine (loaded whole: the
    history holds its row)."""
    if reference is not None:
        label, run = reference
        return [(label, run, stored) for stored in subjects]
    if len(subjects) > 1:
        return [(f"run {subjects[0].id}", subjects[0], stored) for stored in subjects[1:]]
    # A run of `benchlab profile` stores buckets, not records: nothing to compare with.
    earlier = [stored for stored in history.measured_runs() if stored.id < subjects[0].id]
    if earlier:
        return [(f"run {earlier[-1].id}, the previous run of this machine", load_id(store, earlier[-1].id), subjects[0])]
    return []


def _title(subjects: list[StoredRun], reference: tuple[str, StoredRun] | None) -> str:
    runs = ", ".join(str(s.id) for s in subjects)
    title = f"run {runs}" if len(subjects) == 1 else f"runs {runs}"
    return title + (f" against {reference[0]}" if reference else "")


def _run_rows(subjects: list[StoredRun], reference, history: History) -> list[dict[str, Any]]:
    rows = [(stored, "") for stored in subjects]
    if reference is not None:
        rows.append((reference[1], "--baseline"))
    shown = {stored.id for stored, _ in rows}
    rows += [(stored, "history") for stored in history.runs if stored.id not in shown]
    return [{"id": s.id, "role": role, "date": s.date, "status": s.run.get("status") or "", "host": s.host,
             "cpu": s.context.get("cpu") or "", "commit": s.commit or "-", "platforms": ", ".join(s.platforms),
             "command": shlex.join(str(a) for a in (s.run.get("argv") or []))} for s, role in rows]


def _write_whole(out: Path, context: dict[str, Any]) -> Path:
    """Write into a new directory beside `out`, then rename it to `out` (an earlier report
    there is moved aside first and removed after): no half-written report, ever."""
    parent = out.absolute().parent
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name[:48]}.", dir=parent))  # cut: a 255-byte name stays under the limit
    try:
        # mkdtemp's 0700 would make the report private: give it the mode of any new directory.
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
        page.write(staging, context)
        if out.exists():
            old = staging.with_name(staging.name + ".old")
            os.rename(out, old)
            try:
                os.rename(staging, out)
            except OSError:
                os.rename(old, out)  # the earlier report back in place
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(staging, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise UserError(f"cannot write the report into {printable(str(out))}: {exc.strerror or exc}",
                        "free some space or give another --out; nothing was changed there") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out.absolute() / "index.html"
