"""`benchlab baseline save|list|show|delete`: names for stored runs.

A baseline is a name for a run in the database, dated when it was saved, with the run's
binaries (content-addressed in the database), which `gate` runs again beside the
candidate's (remeasure.py); `delete` frees them. Names are unique, so saving NAME again needs --force, and dated names (nightly-2026-11-22)
accumulate the way the hot-path pipeline keeps baselines/<date>/. The run stays in the
database for as long as a baseline names it (Store.delete_run refuses).
"""
from __future__ import annotations

import sys

import click

from benchlab.cli.common import config_of, db_option, format_option, open_store, out_option, print_run
from benchlab.cli.common import kept as said_kept
from benchlab.measuring.remeasure import kept_binaries
from benchlab.output.fitting import CUT, Column, Narrower, fit, short_date, terminal_width
from benchlab.records import printable

HEADINGS = ("NAME", "RUN", "SAVED", "RUN DATE", "HOST", "COMMIT", "BINARIES")


@click.group("baseline")
def command() -> None:
    """Named runs to compare with: save, list, show and delete baselines."""


# ignore_unknown_options: so that `save NAME -2` is the run before the latest, not an option.
@command.command("save", context_settings={"ignore_unknown_options": True}, short_help="Save a stored run as baseline NAME.")
@click.argument("name")
@click.argument("run", metavar="[RUN]", default="latest")
@click.option("--force", is_flag=True, help="Point an existing baseline NAME at RUN.")
@db_option
@click.pass_context
def save(context: click.Context, name: str, run: str, force: bool, db_url: str | None) -> int:
    """Save stored run RUN (an id, 'latest' (default), -N, or another baseline's name) as baseline NAME, dated now."""
    store = open_store(config_of(context), db_url)
    run_id = store.resolve_run_id(run)
    kept, skipped = kept_binaries(store.load_run(run_id)[0].get("context"))
    previous = store.save_baseline(name, run_id, force=force, kept=kept)
    said_kept(context, f"baseline {name!r} is saved (run {run_id})")
    saved = store.baseline(name)
    for label, why in sorted(skipped.items()):
        click.echo(f"note: {label} is not kept ({why}): benchlab gate judges it on stored figures", err=True)
    if saved["status"] != "complete":
        # Allowed (a failed benchmark need not spoil the others), but a comparison sees only what it stored.
        click.echo(f"warning: run {run_id} is {saved['status']}: a comparison with baseline {name!r} sees only "
                   f"what the run stored (benchlab show {run_id})", err=True)
    was = f"; it was run {previous['run_id']}, saved {previous['saved_at']}" if previous else ""
    binaries = (f"; keeps {saved['binaries']} binaries ({_size(saved['binary_bytes'])}) for benchlab gate to run again"
                if saved["binaries"] else "")
    click.echo(f"saved baseline {name!r} at {saved['saved_at']}: run {run_id} of {saved['started_at']}{was}{binaries}")
    return 0


@command.command("list", short_help="List baselines with their run's date, host and commit.")
@db_option
@click.pass_context
def list_(context: click.Context, db_url: str | None) -> int:
    """List baselines, the latest saved first, with their run's date, host and git commit."""
    store = open_store(config_of(context), db_url)
    rows = []
    for baseline in store.list_baselines():
        commit = (baseline["commit"] or "")[:10] + ("+" if baseline["dirty"] else "")
        kept = f"{baseline['binaries']} ({_size(baseline['binary_bytes'])})" if baseline["binaries"] else "-"
        values = [baseline["name"], str(baseline["run_id"]), baseline["saved_at"], baseline["started_at"],
                  baseline["host"] or "", commit, kept]
        rows.append([printable(value) for value in values])  # escaped: names come from users and imports
    click.echo("\n".join(baselines_table(rows, terminal_width(sys.stdout))))
    return 0


@command.command("show", short_help="Print the run of a baseline, as `benchlab show` does.")
@click.argument("name")
@db_option
@format_option
@out_option
@click.pass_context
def show(context: click.Context, name: str, db_url: str | None, output_format: str | None,
         out_path: str | None) -> int:
    """Print the run baseline NAME names, as `benchlab show RUN` prints it (and with its exit status)."""
    store = open_store(config_of(context), db_url)
    return print_run(store, store.baseline(name)["run_id"], output_format, out_path)


@command.command("delete", short_help="Delete a baseline (not its run).")
@click.argument("name")
@db_option
@click.pass_context
def delete(context: click.Context, name: str, db_url: str | None) -> int:
    """Delete baseline NAME; its run stays stored."""
    store = open_store(config_of(context), db_url)
    kept = store.baseline(name)
    deleted = store.delete_baseline(name)
    said_kept(context, f"baseline {name!r} is deleted (run {deleted['run_id']} stays stored)")
    freed = f"; its {kept['binaries']} binaries ({_size(kept['binary_bytes'])}) are freed" if kept["binaries"] else ""
    click.echo(f"deleted baseline {name!r} (run {deleted['run_id']} stays stored){freed}")
    return 0


def baselines_table(rows: list[list[str]], width: int | None) -> list[str]:
    """The baselines within `width` (output/fitting.py): BINARIES goes first, the dates lose
    their year and seconds, HOST and SAVED go, the name is cut, then COMMIT goes; NAME, RUN
    and the run's date stay."""
    columns = [Column(head, [row[index] for row in rows], right=head == "RUN", cut=head == "NAME")
               for index, head in enumerate(HEADINGS)]
    short = {index: Column(HEADINGS[index], [short_date(row[index]) for row in rows]) for index in (2, 3)}
    steps = [Narrower("BINARIES hidden", {6: None}), Narrower("dates without year and seconds", short),
             Narrower("HOST hidden", {4: None}), Narrower("SAVED hidden", {2: None}), CUT,
             Narrower("COMMIT hidden", {5: None})]
    fitted = fit(columns, steps, width)
    return [*fitted.lines(), *fitted.note_lines("widen the terminal")]


def _size(count: int) -> str:
    return f"{count / 1024:.0f} KiB" if count < 1024 * 1024 else f"{count / 1024 / 1024:.1f} MiB"
