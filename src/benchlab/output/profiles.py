"""Profiles as text and JSON: the table `benchlab profile` prints, and bucket moves between
two runs as `benchlab compare` shows them."""
from __future__ import annotations

from typing import Any

from rich.cells import cell_len

from benchlab.profiling import perf
from benchlab.output.exporters.json import document_text
from benchlab.output.fitting import MIN_CUT, shortened, wrapped
from benchlab.records import printable

#: Spaces between the profile table's columns.
GAP_BETWEEN = 2


def profile_rows(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, list[dict[str, Any]]]]:
    """Stored profile_buckets rows grouped: {(platform, target): {"self": [...], "inclusive": [...]}}."""
    grouped: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}
    for row in sorted(rows, key=lambda r: (r["platform"], r["target"], r["kind"], r["position"])):
        grouped.setdefault((row["platform"], row["target"]), {"self": [], "inclusive": []})[row["kind"]].append(row)
    return grouped


def profile_json(info: dict[str, Any], rows: list[dict[str, Any]], run_id: int | None) -> str:
    """Every bucket as {bucket, share, samples, ...}, "other" included, with its platform."""
    buckets = []
    for (platform, target), kinds in profile_rows(rows).items():
        inclusive = {row["bucket"]: row for row in kinds["inclusive"]}
        for row in kinds["self"]:
            entry = {"bucket": row["bucket"], "share": row["share"], "samples": row["samples"],
                     "platform": platform, "target": target, "top_symbols": row["top_symbols"] or []}
            if row["bucket"] in inclusive:
                entry["inclusive_share"] = inclusive[row["bucket"]]["share"]
                entry["inclusive_samples"] = inclusive[row["bucket"]]["samples"]
            buckets.append(entry)
    document = {"run": run_id, "profiler": info.get("profiler"), "unit": info.get("unit"),
                "event": info.get("event"), "call_graph": info.get("call_graph"), "target": info.get("target"),
                "totals": info.get("totals"), "buckets": buckets}
    return document_text(document, indent=1)


def profile_table(info: dict[str, Any], rows: list[dict[str, Any]], run_id: int | None,
                  width: int | None = None) -> str:
    """The buckets of each (platform, target) as a table, within `width` columns when one is
    given (output/fitting.py's terminal_width): long library names are cut with …, then
    bucket and function names; the headings and notes wrap."""
    lines = []
    for (platform, target), kinds in profile_rows(rows).items():
        lines += wrapped([_heading(info, platform, target)], width, "  ")
        inclusive = {row["bucket"]: row for row in kinds["inclusive"]}
        table = [("BUCKET", "SELF", info.get("unit", "samples").upper(), "INCLUSIVE" if inclusive else "")]
        for row in kinds["self"]:
            incl = inclusive.get(row["bucket"])
            table.append((printable(row["bucket"]), f"{row['share']:.2f}%", str(row["samples"]),
                          f"{incl['share']:.2f}%" if incl else ""))
            for symbol in row["top_symbols"] or []:
                table.append((f"  {printable(symbol['symbol'])}", f"{symbol['share']:.2f}%", str(symbol["samples"]),
                              _short_dso(symbol["dso"])))
        lines += _columns(_fitted(table, width))
    notes = []
    if any(row["kind"] == "inclusive" for row in rows):
        notes.append("SELF: % of samples in the bucket's own functions (they add up to 100%); INCLUSIVE: in them "
                     "or in what they call (they overlap)")
    if run_id is not None:
        notes.append(f"saved as run {run_id} (benchlab compare RUN {run_id}; benchlab gate --bucket \"NAME<PCT%\")")
    return "\n".join(lines + wrapped(notes, width)) + "\n"


def _heading(info: dict[str, Any], platform: str, target: str) -> str:
    total = (info.get("totals") or {}).get(platform, {})
    count, left_out = total.get("total", 0), total.get("left_out", 0)
    if info.get("profiler") == "callgrind":
        how = f"callgrind, {count:,} instructions"
    else:
        how = (f"perf {info.get('event')} every {perf.PERIOD_NS // 1000} us, {count:,} samples "
               f"({count * perf.PERIOD_NS / 1e9:.2f} s of CPU time)")
    body = info.get("body")
    inside = f"; inside {body} only ({left_out:,} samples outside it left out)" if body and left_out else (
        f"; inside {body} only" if body else "")
    return f"{target} on {platform}: {how}{inside}"


def _short_dso(dso: str) -> str:
    return dso.rsplit("/", 1)[-1] if dso else ""


def _fitted(table: list[tuple[str, ...]], width: int | None) -> list[tuple[str, ...]]:
    """The table's library names (last column), then its bucket and function names (first),
    cut to what `width` leaves them after the figures' columns (MIN_CUT at least): a
    function's name says more than its library's."""
    for column in (len(table[0]) - 1, 0):
        widths = [max(cell_len(row[i]) for row in table) for i in range(len(table[0]))]
        over = sum(widths) + GAP_BETWEEN * (len(widths) - 1) - width if width else 0
        if over > 0 and widths[column] > MIN_CUT:
            keep = max(MIN_CUT, widths[column] - over)
            table = [row[:column] + (_cut_cell(row[column], keep),) + row[column + 1:] for row in table]
    return table


def _cut_cell(cell: str, keep: int) -> str:
    """A name cut to `keep` cells; a function's indent under its bucket stays."""
    indent = cell[:len(cell) - len(cell.lstrip(" "))]
    return indent + shortened(cell[len(indent):], keep - len(indent))


def _columns(table: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    out = []
    for row in table:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:3], widths[1:3])]
        cells += [cell.rjust(width) if i == 3 and not row[0].startswith("  ") else cell.ljust(width)
                  for i, (cell, width) in enumerate(zip(row[3:], widths[3:]), start=3)]
        out.append((" " * GAP_BETWEEN).join(cells).rstrip())
    return out


# -- compare: bucket shares moving between two runs --------------------------------------------


def bucket_moves(a_rows: list[dict[str, Any]], b_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (platform, kind, bucket) present in either run: both shares and B - A in
    percentage points; a bucket one run lacks is 0% there (nothing of it was sampled)."""
    a = {(r["platform"], r["kind"], r["bucket"]): r for r in a_rows}
    b = {(r["platform"], r["kind"], r["bucket"]): r for r in b_rows}
    order = [key for key in b if key in a] + [key for key in a if key not in b] + [key for key in b if key not in a]
    moves = []
    for key in order:
        share_a = a[key]["share"] if key in a else 0.0
        share_b = b[key]["share"] if key in b else 0.0
        moves.append({"platform": key[0], "kind": key[1], "bucket": key[2], "a": share_a, "b": share_b,
                      "change_pp": share_b - share_a})
    return sorted(moves, key=lambda m: (m["platform"], m["kind"] != "self"))


def moves_text(moves: list[dict[str, Any]], a_label: str, b_label: str, markdown: bool = False) -> str:
    heads = ("BUCKET", "PLATFORM", "KIND", f"A ({a_label})", f"B ({b_label})", "CHANGE")
    rows = [(printable(m["bucket"]), m["platform"], m["kind"], f"{m['a']:.2f}%", f"{m['b']:.2f}%", f"{m['change_pp']:+.2f} pp")
            for m in moves]
    lines = ["profile buckets: share of samples, and its change in percentage points (B - A)"]
    if markdown:
        lines += ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(heads)]
        lines.append("  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip())
        lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines) + "\n"
