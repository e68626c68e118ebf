"""``memtui list``: the memory roots found (at PATH, below it, or by discovery) with their files,
budget use and finding counts, grouped by project and layer."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    EXIT_OK,
    Subparsers,
    UsageError,
    add_budget_options,
    add_plain_option,
    budget_config,
    console,
    err_console,
    esc,
    find_roots,
    plain_wanted,
    print_json,
    print_plain,
    rel_root,
    report_pending,
    table_cells,
)
from .loaded import load_snapshot
from .validate import finding_counts

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rich.console import Console

    from memtui.core.judge.layers import CrossDuplicate, Layered
    from memtui.core.model.snapshot import Snapshot
    from memtui.core.rules.budget import Budget


def register(subparsers: Subparsers) -> None:
    listing = subparsers.add_parser(
        "list",
        help="list the roots found and their budget use",
        description="List every memory root found (at PATH, below it, or by discovery) with its "
        "files, budget use and finding counts.",
    )
    listing.add_argument("path", nargs="?", help="a folder to look in (default: discovery)")
    listing.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_plain_option(listing)
    add_budget_options(listing)
    from .fleet import add_fleet_options

    add_fleet_options(listing)
    listing.set_defaults(func=run_list)


def project_roots() -> tuple[list[Path], Path | None, dict[Path, str]]:
    """The current project's layers, as ``memtui list`` without PATH finds them
    (:func:`_listed_roots`)."""
    return _listed_roots(None)


def _listed_roots(path: str | None) -> tuple[list[Path], Path | None, dict[Path, str]]:
    """The roots ``list`` shows, the project's auto-memory folder when it holds nothing yet, and
    why Claude Code does not use some of them (root -> reason: auto memory off,
    blockReadsOutsideWorkingDirectories).

    With no PATH: the roots at or below the current folder, then Claude Code's folders for this
    project (DESIGN §1.1) — its auto memory, its agents' memories, the user-level agent memories
    (team memory is part of the auto memory's root).
    """
    if path is not None:
        return find_roots(path), None, {}
    from memtui.core.roots.discover import TEAM, claude_roots, roots_under

    cwd = Path.cwd()
    roots = roots_under(cwd)
    missing = None
    inactive: dict[Path, str] = {}
    for found in claude_roots(cwd):
        if found.kind == TEAM:
            continue
        if not found.enabled:
            inactive.setdefault(found.path, found.why)
        if found.path in roots:
            continue
        if found.holds_memory():
            roots.append(found.path)
        elif found.kind == "auto" and found.enabled:
            missing = found.path
    return roots, missing, inactive


@dataclass(frozen=True)
class Listed:
    """What ``list`` shows of one root (``snapshot`` only when it had to be read; ``budget``
    None for a folder that does not exist yet)."""

    root: Path
    files: int
    other_files: tuple[str, ...]
    nested_roots: tuple[str, ...]
    budget: Budget | None
    errors: int
    warnings: int
    snapshot: Snapshot | None


def to_json(row: Listed, layer: str, project: Path | None, duplicates: Sequence[CrossDuplicate],
            inactive_because: str | None = None) -> dict[str, Any]:
    """The stable JSON object of one listed root (documented in the README); ``inactive_because``
    says why Claude Code does not use it."""
    return {
        "root": str(row.root),
        "layer": layer,
        "project": str(project) if project else None,
        "exists": row.budget is not None,
        "active": inactive_because is None,
        "inactive_because": inactive_because,
        "files": row.files,
        "other_files": len(row.other_files),
        "nested_roots": list(row.nested_roots),
        "budget": row.budget.to_json() if row.budget is not None else None,
        "errors": row.errors,
        "warnings": row.warnings,
        "duplicates_across_layers": [d.to_json() for d in duplicates
                                     if str(row.root) in (d.root_a, d.root_b)],
    }


def _missing_json(root: Path) -> dict[str, Any]:
    """The JSON of the project's auto-memory folder that does not exist yet."""
    from memtui.core.judge.layers import MACHINE_LOCAL, project_of

    return to_json(Listed(root, 0, (), (), None, 0, 0, None), MACHINE_LOCAL, project_of(root), ())


def _listed(root: Path, args: argparse.Namespace, read: bool) -> Listed:
    """A root validated through its stat cache (its kept answer when nothing changed); read
    (``read``) when its files are needed."""
    from memtui.core.model.journal import pending_records
    from memtui.core.read.store import RootError, list_root
    from memtui.core.stores.statcache import validate_root

    try:
        result = validate_root(root, budget_config(args))
        snapshot = result.snapshot if result.snapshot is not None or not read else load_snapshot(root, args)
        listing = list_root(root) if snapshot is None else None
    except RootError as exc:
        raise UsageError(str(exc)) from None
    report_pending(result.root, pending_records(result.root) if snapshot is None
                   else snapshot.interrupted, args.path)  # counted among its errors
    errors, warnings = finding_counts(result.findings)
    if snapshot is not None:
        return Listed(snapshot.root, len(snapshot.files), snapshot.other_files,
                      snapshot.nested_roots, result.budget, errors, warnings, snapshot)
    assert listing is not None
    return Listed(result.root, result.files, tuple(sorted(listing.other)),
                  tuple(sorted(listing.nested)), result.budget, errors, warnings, None)


def run_list(args: argparse.Namespace) -> int:
    if getattr(args, "all", False):
        from .fleet import run_fleet

        return run_fleet(args)
    from rich.table import Table

    from memtui.core.judge.layers import cross_layer_duplicates, layered

    roots, missing, inactive = _listed_roots(args.path)
    layers = layered(roots)
    shared: dict[str, int] = {}  # roots of a project with another root are read: duplicates
    for item in layers:
        if item.project is not None:
            shared[str(item.project)] = shared.get(str(item.project), 0) + 1
    rows = [_listed(item.root, args, item.project is not None and shared[str(item.project)] > 1)
            for item in layers]
    duplicates = _duplicates_by_project(layers, [row.snapshot for row in rows],
                                        cross_layer_duplicates)
    if args.json:
        print_json([to_json(row, item.layer, item.project, duplicates, inactive.get(row.root))
                    for item, row in zip(layers, rows)]
                   + ([_missing_json(missing)] if missing is not None else []))
        return EXIT_OK
    out = console()
    plainly = plain_wanted(args, out)  # every row names its layer, whole; no note, no legend
    names = [rel_root(row.root, args.path) for row in rows] + ([str(missing)] if missing else [])
    # the root keeps its width on a narrow terminal (the figures after it are short); the
    # layer and the bytes give way first
    narrow = out.width < 120
    root_width = min(max(map(len, names), default=4), max(16, out.width - (38 if narrow else 70)))
    table = Table(title=f"{len(rows)} memory root{'s' * (len(rows) != 1)}", title_justify="left")
    table.add_column("layer", no_wrap=True)
    table.add_column("root", overflow="fold", min_width=root_width)
    table.add_column("files", justify="right", no_wrap=True)
    table.add_column("lines", justify="right", no_wrap=True)
    units = rows[0].budget.unit if rows and rows[0].budget is not None else "bytes"
    table.add_column(units, justify="right", no_wrap=True)
    table.add_column("use", justify="right", no_wrap=True)
    table.add_column("errors", justify="right", no_wrap=True)
    table.add_column("warnings", justify="right", no_wrap=True)
    previous = None
    for item, row in zip(layers, rows):
        budget, errors, warnings = row.budget, row.errors, row.warnings
        assert budget is not None  # a root that was read
        group = (item.project, item.layer)
        if previous is not None and group != previous:
            table.add_section()
        shown_layer = item.layer if group != previous or plainly else ""
        previous = group
        over = budget.over_lines or budget.over_bytes
        use_style = "red" if over else "yellow" if budget.utilization >= 0.9 else "green"
        table.add_row(
            shown_layer,
            esc(rel_root(row.root, args.path))
            + (f" [dim]({esc(inactive[row.root])})[/]" if row.root in inactive and not plainly
               else ""),
            str(row.files),
            f"{budget.lines}/{budget.max_lines}",
            f"{budget.bytes:,}/{budget.max_bytes:,}",
            f"[{use_style}]{budget.utilization:.0%}{' OVER' if over else ''}[/]",
            f"[red]{errors}[/]" if errors else "0",
            f"[yellow]{warnings}[/]" if warnings else "0",
        )
    if missing is not None:
        table.add_section()
        table.add_row("machine-local", esc(missing), "[dim]none yet[/]", "", "", "", "", "")
    if plainly:  # the facts in two layers are no row: said on stderr, so stdout is the rows
        print_plain(out, *table_cells(table))
        _print_duplicates(err_console(), duplicates, args.path)
        return EXIT_OK
    if narrow:
        for header in ("layer", units, "warnings"):
            if root_width + sum(len(str(c.header)) + 3 for c in table.columns if c.header != "root") + 4 \
                    <= out.width:
                break
            table.columns = [c for c in table.columns if c.header != header]
    out.print(table)
    _print_duplicates(out, duplicates, args.path)
    return EXIT_OK


def _print_duplicates(out: Console, duplicates: Sequence[CrossDuplicate], base: str | None) -> None:
    if duplicates:
        out.print(f"[yellow]{len(duplicates)} fact{'s' * (len(duplicates) != 1)} kept in two "
                  "layers[/] (keep one: archive the other copy):")
        for d in duplicates:
            out.print(f"  {esc(rel_root(Path(d.root_a), base))}/{esc(d.a)}  ≈  "
                      f"{esc(rel_root(Path(d.root_b), base))}/{esc(d.b)}  "
                      f"[dim]similarity {d.similarity:.2f}[/]")


def _duplicates_by_project(layers: Sequence[Layered], snapshots: Sequence[Snapshot | None],
                           find: Callable[[list[Snapshot]], list[CrossDuplicate]]) -> list[CrossDuplicate]:
    """Cross-layer duplicates among the roots of each project (roots of no project: none)."""
    groups: dict[str, list[Snapshot]] = {}
    for item, snapshot in zip(layers, snapshots):
        if item.project is not None and snapshot is not None:
            groups.setdefault(str(item.project), []).append(snapshot)
    return [d for group in groups.values() for d in find(group)]
