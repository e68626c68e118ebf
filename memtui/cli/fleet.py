"""``memtui list --all``: the fleet view — every root memtui can find on the machine, one line each
(:mod:`memtui.core.dream.fleet`), sortable by any column; a root that needs a person starts with
``!`` and says why in its last column."""

from __future__ import annotations

import argparse
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from .common import (
    EXIT_OK,
    UsageError,
    budget_config,
    console,
    esc,
    plain_wanted,
    print_json,
    print_plain,
    table_cells,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.table import Table

    from memtui.core.dream.fleet import FleetRow


def add_fleet_options(parser: argparse.ArgumentParser) -> None:
    """``--all``, ``--sort COLUMN``, ``--reverse`` and ``--no-dream`` on ``memtui list``."""
    from memtui.core.dream.fleet import SORT_COLUMNS

    parser.add_argument("--all", action="store_true",
                        help="every root on this machine (Claude Code's projects and agents, the "
                        "current project, the config's roots) as the fleet view")
    parser.add_argument("--sort", choices=SORT_COLUMNS, default=None, metavar="COLUMN",
                        help=f"with --all: sort by one of {', '.join(SORT_COLUMNS)} (default: "
                        "the roots needing attention first)")
    parser.add_argument("--reverse", action="store_true", help="with --all: the other way round")
    parser.add_argument("--no-dream", action="store_true",
                        help="with --all: leave out the dream's item count (a root whose count is "
                        "not kept plans a whole dream for it)")


def run_fleet(args: argparse.Namespace) -> int:
    from memtui.core.dream.fleet import fleet, sort_fleet
    from memtui.core.roots.machine import machine_roots

    if args.path:
        raise UsageError("list: give a PATH or --all, not both")
    try:
        found = machine_roots()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    rows = fleet([(root.path, root.label) for root in found], budget_config(args),
                 dream=not args.no_dream)
    if args.sort:
        rows = sort_fleet(rows, args.sort, descending=args.reverse)
    else:
        rows = sort_fleet(rows, "attention", descending=not args.reverse)
    if args.json:
        print_json([row.to_json() for row in rows])
        return EXIT_OK
    _print(rows, args)
    return EXIT_OK


def _common_folder(roots: list[Path]) -> str:
    """The deepest folder holding every root, when it is not ``/`` and not a root itself."""
    if len(roots) < 2:
        return ""
    base = os.path.commonpath([str(r) for r in roots])
    return "" if base in ("/", "") or any(str(r) == base for r in roots) else base


def _figures(row: FleetRow, now: datetime) -> dict[str, str]:
    """A row's figures as the table shows them (Rich markup, escaped)."""
    from memtui.core.dream.fleet import ago

    budget = row.budget
    out = {"lines": "", "chars": "", "cut": "", "err": "", "warn": f"{row.warnings}"}
    if budget is not None:
        style = "red" if budget.cut_line is not None else "yellow" if budget.utilization >= 0.9 else ""
        lines = f"{budget.lines}/{budget.max_lines}"
        out.update(lines=f"[{style}]{lines}[/]" if style else lines,
                   chars=f"{budget.bytes / 1000:.1f}k/{budget.max_bytes / 1000:.0f}k",
                   cut=f"line {budget.cut_line}" if budget.cut_line is not None else "—",
                   err=f"[red]{row.errors}[/]" if row.errors else "0")
    out["peak"] = (f"{row.pressure_peak:.0%}·{row.pressure_days}d" if row.pressure_peak is not None
                   else "—")
    out["agent"] = ago(row.agent_change, now) + ("~" if row.agent_source == "file time" else "")
    out["dream"] = "—" if row.dream_checked is None else (
        f"{row.dream_checked}" + (f"+{row.dream_waiting}" if row.dream_waiting else ""))
    why = ", ".join(row.attention)
    out["why"] = f"[red]{esc(why)}[/]" if why else (esc(row.problem) if row.problem else "")
    return out


WIDE = ("layer", "files", "lines", "chars", "cut", "err", "warn", "peak", "agent", "dream", "why")


def _table(rows: list[FleetRow], now: datetime, name: Callable[[FleetRow], str],
           plainly: bool = False) -> Table:
    """The wide table: a mark, the root, then the :data:`WIDE` columns (``plainly``: the mark
    empty, not a space, on a root needing no attention)."""
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    table.add_column("!", no_wrap=True)
    table.add_column("root", overflow="fold", ratio=1, min_width=16)
    for column in WIDE:
        table.add_column(column, no_wrap=True,
                         justify="left" if column in ("layer", "why") else "right")
    for row in rows:
        cells = _figures(row, now) | {"layer": esc(row.layer), "files": f"{row.files:,}"}
        table.add_row("[bold red]![/]" if row.attention else "" if plainly else " ", name(row),
                      *[cells[column] for column in WIDE])
    return table


def _print(rows: list[FleetRow], args: argparse.Namespace) -> None:
    """A table on a wide terminal; on a narrow one, two lines a root (its name whole, then its
    figures), so no column is dropped."""
    from memtui.core.dream.fleet import home_short

    out = console()
    plainly = plain_wanted(args, out)
    now = datetime.now(timezone.utc)
    need = sum(1 for row in rows if row.attention)
    base = _common_folder([row.root for row in rows])

    def name(row: FleetRow) -> str:
        return esc(os.path.relpath(row.root, base) if base else home_short(row.root))

    if plainly:  # the roots whole (no common folder taken off), no title, no legend
        table = _table(rows, now, lambda row: esc(row.root), plainly)
        print_plain(out, *table_cells(table))
        return
    out.print(f"[bold]{len(rows)} memory root{'s' * (len(rows) != 1)}[/]"
              + (f" under {esc(home_short(base))}" if base else "")
              + f" · {need} need{'s' * (need == 1)} attention (marked !)")

    if out.width < 120:
        for row in rows:
            cells = _figures(row, now)
            mark = "[bold red]![/]" if row.attention else " "
            out.print(f"{mark} [bold]{name(row)}[/]" + (f"  {cells['why']}" if cells["why"] else ""))
            cut = cells["cut"].replace("line ", "")
            out.print(f"    {cells['lines']} lines  {cells['chars']} chars  cut {cut}  "
                      f"{cells['err']} err  peak {cells['peak']}  agent {cells['agent']}  "
                      f"dream {cells['dream']}")
    else:
        out.print(_table(rows, now, name))
    out.print("[dim]lines and chars against the loader's caps · cut: the first line not loaded · "
              "peak: highest use in the pressure log and its days · agent: the agent's last write "
              "(~ from file times, ? unknown) · dream: items a dream would check (+ left for a "
              "person) · --sort COLUMN to sort[/]")
