"""``memtui validate``, ``memtui loaded`` and ``memtui list``: read-only looks at memory roots."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    UsageError,
    add_budget_options,
    budget_config,
    console,
    esc,
    find_roots,
    plain,
    print_json,
    rel_root,
    report_interrupted,
    report_pending,
)

NO_RECORD_ENV = "MEMTUI_NO_PRESSURE"


def register(subparsers: Subparsers) -> None:
    validate = subparsers.add_parser(
        "validate",
        help="check roots against every rule; exit 1 on errors",
        description="Check memory roots against every validator rule. Exit 0 when there are no "
        "errors (warnings allowed), 1 when there are, 2 on a usage or I/O error.",
    )
    validate.add_argument("path", nargs="?", help="a memory root or a folder holding roots")
    validate.add_argument("--json", action="store_true", help="print JSON (see README)")
    validate.add_argument("--quiet", action="store_true",
                          help="print nothing when clean, only the errors otherwise")
    validate.add_argument("--no-record", action="store_true",
                          help=f"do not append to .memory-pressure.jsonl (also: {NO_RECORD_ENV}=1)")
    add_budget_options(validate)
    validate.set_defaults(func=run_validate)

    loaded = subparsers.add_parser(
        "loaded",
        help="show exactly what the loader reads from MEMORY.md and where it cuts",
        description="Print exactly the text an agent loads from MEMORY.md at session start, "
        "where the loader cuts, and which entries fall past the cut.",
    )
    loaded.add_argument("path", nargs="?", help="a memory root or a folder holding roots")
    loaded.add_argument("--json", action="store_true", help="print JSON (see README)")
    loaded.add_argument("--raw", action="store_true",
                        help="print only the file's bytes of the lines that load, exactly as "
                        "written, and nothing else")
    add_budget_options(loaded)
    loaded.set_defaults(func=run_loaded)

    listing = subparsers.add_parser(
        "list",
        help="list the roots found and their budget use",
        description="List every memory root found (at PATH, below it, or by discovery) with its "
        "files, budget use and finding counts.",
    )
    listing.add_argument("path", nargs="?", help="a folder to look in (default: discovery)")
    listing.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_budget_options(listing)
    listing.set_defaults(func=run_list)


def _load(root: Path, args: argparse.Namespace) -> Any:
    """A root's snapshot, read through its stat cache (saved: the parsed index is kept)."""
    from memtui.core.statcache import load_cached
    from memtui.core.store import RootError

    try:
        snapshot, cache = load_cached(root, budget_config(args))
    except RootError as exc:
        raise UsageError(str(exc)) from None
    cache.save()
    return snapshot


def _counts(findings: list[Any]) -> tuple[int, int]:
    errors = sum(1 for f in findings if f.severity == "error")
    return errors, len(findings) - errors


# ---------------------------------------------------------------- validate


def validate_json(root: Path, budget: Any, findings: list[Any]) -> dict[str, Any]:
    """The stable JSON object of one validated root (documented in the README)."""
    errors, _ = _counts(findings)
    return {
        "root": str(root),
        "ok": errors == 0,
        "budget": budget.to_json(),
        "findings": [f.to_json() for f in findings],
    }


def run_validate(args: argparse.Namespace) -> int:
    from memtui.core.budget import record_budget
    from memtui.core.statcache import validate_root
    from memtui.core.store import RootError

    roots = find_roots(args.path)
    record = not (args.no_record or os.environ.get(NO_RECORD_ENV))
    results = []
    for root in roots:
        try:
            result = validate_root(root, budget_config(args))  # through the stat cache
        except RootError as exc:
            raise UsageError(str(exc)) from None
        if record:
            record_budget(result.root, result.budget)
        results.append(result)
    failed = any(_counts(r.findings)[0] for r in results)
    if args.json:
        objects = [validate_json(r.root, r.budget, r.findings) for r in results]
        print_json(objects[0] if len(objects) == 1 else objects)
        return EXIT_FINDINGS if failed else EXIT_OK
    if args.quiet:  # plain text: no Rich to import for the hook-like use
        for r in results:
            if _counts(r.findings)[0]:
                sys.stdout.write(plain(rel_root(r.root, args.path)) + "\n" + "".join(
                    f"  {f.severity:7} {f.rule} {plain(f.path)}{f':{f.line}' if f.line else ''} "
                    f"{plain(f.message)}\n" for f in r.findings if f.severity == "error"))
        return EXIT_FINDINGS if failed else EXIT_OK
    out = console()
    for r in results:
        errors, warnings = _counts(r.findings)
        out.print(f"[bold]{esc(rel_root(r.root, args.path))}[/]  {_budget_text(r.budget)}")
        _print_findings(out, r.findings)
        verdict = "[green]ok[/]" if not errors else "[red]failed[/]"
        out.print(
            f"{verdict}: {errors} error{'s' * (errors != 1)}, "
            f"{warnings} warning{'s' * (warnings != 1)} in {r.files} file{'s' * (r.files != 1)}\n"
        )
    return EXIT_FINDINGS if failed else EXIT_OK


def _budget_text(budget: Any) -> str:
    colour = "red" if budget.over_lines or budget.over_bytes else (
        "yellow" if budget.utilization >= 0.9 else "green")
    return (
        f"[{colour}]{budget.lines}/{budget.max_lines} lines · {budget.bytes:,}/{budget.max_bytes:,} "
        f"{budget.unit} · {budget.utilization:.0%}[/] · ~{budget.tokens:,} tokens"
    )


def _print_findings(out: Any, findings: Any) -> None:
    """One finding a line; on a terminal narrower than a finding, wrapped at word boundaries
    with the continuation lines indented under the rule (piped output keeps one a line)."""
    from rich.table import Table

    from .common import PIPED_WIDTH

    if out.width >= PIPED_WIDTH or not findings:
        for finding in findings:
            out.print(_finding_text(finding))
        return
    grid = Table.grid()
    grid.add_column(no_wrap=True, width=10)
    grid.add_column(overflow="fold")
    for finding in findings:
        colour = "red" if finding.severity == "error" else "yellow"
        where = finding.path + (f":{finding.line}" if finding.line else "")
        grid.add_row(f"  [{colour}]{finding.severity:7}[/]",
                     f"[bold]{finding.rule}[/] [cyan]{esc(where)}[/] {esc(finding.message)}")
    out.print(grid, soft_wrap=False)


def _finding_text(finding: Any) -> str:

    colour = "red" if finding.severity == "error" else "yellow"
    where = finding.path + (f":{finding.line}" if finding.line else "")
    return (
        f"  [{colour}]{finding.severity:7}[/] [bold]{finding.rule}[/] "
        f"[cyan]{esc(where)}[/] {esc(finding.message)}"
    )


# ---------------------------------------------------------------- loaded


def run_loaded(args: argparse.Namespace) -> int:
    from memtui.core.budget import budget_of, index_loaded_text, lines_past_cut, loaded_file_bytes
    from memtui.core.model import LineKind

    roots = find_roots(args.path)
    objects = []
    out = console()
    interrupted = False
    for root in roots:
        snapshot = _load(root, args)
        interrupted |= report_interrupted(snapshot, args.path)
        budget = budget_of(snapshot)
        data = index_loaded_text(snapshot.index, budget) if snapshot.index.exists else b""
        past = lines_past_cut(snapshot.index, budget)
        by_number = {line.number: line for line in snapshot.index.lines}
        stripped = [by_number[n] for n in budget.stripped]
        reason = _cut_reason(budget)
        if args.raw:
            sys.stdout.flush()
            sys.stdout.buffer.write(loaded_file_bytes(snapshot.index, budget)
                                    if snapshot.index.exists else b"")
            sys.stdout.buffer.flush()
            continue
        if args.json:
            objects.append(
                {
                    "root": str(snapshot.root),
                    "budget": budget.to_json(),
                    "cut_line": budget.cut_line,
                    "cut_reason": reason,
                    "warning": budget.warning(),
                    "loader": budget.loader,
                    "stripped": [{"line": line.number, "text": line.raw} for line in stripped],
                    "loaded": data.decode("utf-8", "replace"),
                    "past_cut": [
                        {
                            "line": line.number,
                            "kind": line.kind.value,
                            "target": line.resolved or line.target or line.glob or None,
                            "text": line.raw,
                        }
                        for line in past
                        if line.kind in (LineKind.ENTRY, LineKind.REGION)
                    ],
                }
            )
            continue
        _rule(out, f"{esc(rel_root(snapshot.root, args.path))}/MEMORY.md — what the {budget.loader} "
              "loader reads", style="cyan")
        if not snapshot.index.exists:
            out.print("[red]no MEMORY.md: the agent loads nothing from this folder[/]")
            continue
        _print_stripped(out, budget, stripped)
        sys.stdout.flush()
        out.file.flush()
        sys.stdout.write(plain(data.decode("utf-8", "replace"), lines=True))
        if data and not data.endswith(b"\n"):
            sys.stdout.write("\n")
        sys.stdout.flush()
        if budget.cut_line is None:
            _rule(out, f"end — all {budget.lines} lines load · {_budget_text(budget)}", style="green")
            continue
        _rule(out, f"✂ the loader cuts here, at {esc(budget.cut_where())} ({reason})", style="red")
        warning = budget.warning()
        if warning is not None:
            out.print("Claude Code tells the agent, after what loaded:", markup=False)
            out.print(f"> WARNING: {warning}", markup=False)
        entries = [ln for ln in past if ln.kind in (LineKind.ENTRY, LineKind.REGION)]
        out.print(
            f"[red]{len(past)} line(s) never load[/], among them {len(entries)} "
            f"entr{'y' if len(entries) == 1 else 'ies'}:"
        )

        for line in entries:
            what = line.resolved or line.target or f"region {line.glob}"
            out.print(f"  line {line.number}: [cyan]{esc(what)}[/]")
    if args.json:
        print_json(objects[0] if len(objects) == 1 else objects)
    return EXIT_FINDINGS if interrupted else EXIT_OK


def _print_stripped(out: Any, budget: Any, stripped: list[Any]) -> None:
    """Say which profile measured the index and show what it stripped before counting."""

    if budget.loader == "raw":
        out.print("[dim]loader raw: the file loads as it is (frontmatter and comments count)[/]")
        return
    if not stripped:
        out.print(f"[dim]loader {budget.loader}: nothing to strip (no frontmatter, no comment blocks)[/]")
        return
    out.print(f"[dim]loader {budget.loader}: {len(stripped)} line(s) of frontmatter, HTML comment "
              "blocks and blank lines at either end are stripped before counting; they never "
              "load:[/]")
    for line in stripped:
        out.print(f"[dim]  {line.number:>4} │ {esc(line.raw)}[/]")
    _rule(out, style="dim")


def _rule(out: Any, title: str = "", style: str = "") -> None:
    """A rule across the terminal; piped (no terminal width), 80 columns, not a thousand."""
    from rich.rule import Rule

    from .common import PIPED_WIDTH

    from rich.text import Text

    # piped: 80 columns, or as many as the title needs (a rule never cuts its title)
    width = max(80, Text.from_markup(title).cell_len + 8) if out.width >= PIPED_WIDTH else out.width
    out.print(Rule(title, style=style), width=width)


def _cut_reason(budget: Any) -> str | None:
    if budget.cut_line is None:
        return None
    if budget.over_lines and budget.loaded_count == budget.max_lines:
        return f"line cap {budget.max_lines}"
    return f"{budget.unit[:-1]} cap {budget.max_bytes:,}"


# ---------------------------------------------------------------- list


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
    from memtui.core.discover import TEAM, claude_roots, roots_under

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


def _missing_row(root: Path) -> dict[str, Any]:
    from memtui.core.layers import MACHINE_LOCAL, project_of

    project = project_of(root)
    return {"root": str(root), "layer": MACHINE_LOCAL, "project": str(project) if project else None,
            "exists": False, "active": True, "inactive_because": None, "files": 0, "other_files": 0, "nested_roots": [], "budget": None,
            "errors": 0, "warnings": 0, "duplicates_across_layers": []}


@dataclass(frozen=True)
class _Listed:
    """What ``list`` shows of one root (``snapshot`` only when it had to be read)."""

    root: Path
    files: int
    other_files: tuple[str, ...]
    nested_roots: tuple[str, ...]
    budget: Any
    errors: int
    warnings: int
    snapshot: Any


def _listed(root: Path, args: argparse.Namespace, read: bool) -> _Listed:
    """A root validated through its stat cache (its kept answer when nothing changed); read
    (``read``) when its files are needed."""
    from memtui.core.write.journal import pending_records
    from memtui.core.statcache import validate_root
    from memtui.core.store import RootError, list_root

    try:
        result = validate_root(root, budget_config(args))
        snapshot = result.snapshot if result.snapshot is not None or not read else _load(root, args)
        listing = list_root(root) if snapshot is None else None
    except RootError as exc:
        raise UsageError(str(exc)) from None
    report_pending(result.root, pending_records(result.root) if snapshot is None
                   else snapshot.interrupted, args.path)  # counted among its errors
    errors, warnings = _counts(result.findings)
    if snapshot is not None:
        return _Listed(snapshot.root, len(snapshot.files), snapshot.other_files,
                       snapshot.nested_roots, result.budget, errors, warnings, snapshot)
    assert listing is not None
    return _Listed(result.root, result.files, tuple(sorted(listing.other)),
                   tuple(sorted(listing.nested)), result.budget, errors, warnings, None)


def run_list(args: argparse.Namespace) -> int:
    from rich.table import Table

    from memtui.core.layers import cross_layer_duplicates, layered

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
        print_json(
            [
                {
                    "root": str(row.root),
                    "layer": item.layer,
                    "project": str(item.project) if item.project else None,
                    "exists": True,
                    "active": row.root not in inactive,
                    "inactive_because": inactive.get(row.root),
                    "files": row.files,
                    "other_files": len(row.other_files),
                    "nested_roots": list(row.nested_roots),
                    "budget": row.budget.to_json(),
                    "errors": row.errors,
                    "warnings": row.warnings,
                    "duplicates_across_layers": [d.to_json() for d in duplicates
                                                 if str(row.root) in (d.root_a, d.root_b)],
                }
                for item, row in zip(layers, rows)
            ] + ([_missing_row(missing)] if missing is not None else [])
        )
        return EXIT_OK
    out = console()
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
    table.add_column(rows[0].budget.unit if rows else "bytes", justify="right", no_wrap=True)
    table.add_column("use", justify="right", no_wrap=True)
    table.add_column("errors", justify="right", no_wrap=True)
    table.add_column("warnings", justify="right", no_wrap=True)
    previous = None
    for item, row in zip(layers, rows):
        budget, errors, warnings = row.budget, row.errors, row.warnings
        group = (item.project, item.layer)
        if previous is not None and group != previous:
            table.add_section()
        shown_layer = item.layer if group != previous else ""
        previous = group
        over = budget.over_lines or budget.over_bytes
        use_style = "red" if over else "yellow" if budget.utilization >= 0.9 else "green"
        table.add_row(
            shown_layer,
            esc(rel_root(row.root, args.path))
            + (f" [dim]({esc(inactive[row.root])})[/]" if row.root in inactive else ""),
            str(row.files),
            f"{budget.lines}/{budget.max_lines}",
            f"{budget.bytes:,}/{budget.max_bytes:,}",
            f"[{use_style}]{budget.utilization:.0%}{' OVER' if over else ''}[/]",
            f"[red]{errors}[/]" if errors else "0",
            f"[yellow]{warnings}[/]" if warnings else "0",
        )
    if missing is not None:
        table.add_section()
        table.add_row("machine-local", str(missing), "[dim]none yet[/]", "", "", "", "", "")
    if narrow:
        for header in ("layer", "bytes", "warnings"):
            if root_width + sum(len(c.header) + 3 for c in table.columns if c.header != "root") + 4 \
                    <= out.width:
                break
            table.columns = [c for c in table.columns if c.header != header]
    out.print(table)
    if duplicates:

        out.print(f"[yellow]{len(duplicates)} fact{'s' * (len(duplicates) != 1)} kept in two "
                  "layers[/] (keep one: archive the other copy):")
        for d in duplicates:
            out.print(f"  {esc(rel_root(Path(d.root_a), args.path))}/{esc(d.a)}  ≈  "
                      f"{esc(rel_root(Path(d.root_b), args.path))}/{esc(d.b)}  "
                      f"[dim]similarity {d.similarity:.2f}[/]")
    return EXIT_OK


def _duplicates_by_project(layers: list[Any], snapshots: list[Any], find: Any) -> list[Any]:
    """Cross-layer duplicates among the roots of each project (roots of no project: none)."""
    groups: dict[str, list[Any]] = {}
    for item, snapshot in zip(layers, snapshots):
        if item.project is not None and snapshot is not None:
            groups.setdefault(str(item.project), []).append(snapshot)
    return [d for group in groups.values() for d in find(group)]
