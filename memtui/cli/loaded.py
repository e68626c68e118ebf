"""``memtui loaded``: exactly what the loader reads from ``MEMORY.md``, and where it cuts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    piped,
    plain,
    print_json,
    rel_root,
    report_pending,
)
from .validate import budget_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from memtui.core.model.index_read import PastEntries
    from memtui.core.model.snapshot import Snapshot
    from memtui.core.read.store import IndexOnly
    from memtui.core.rules.budget import Budget
    from memtui.core.rules.budget_read import Loaded


def register(subparsers: Subparsers) -> None:
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


def load_snapshot(root: Path, args: argparse.Namespace) -> Snapshot:
    """A root's snapshot, read through its stat cache (saved: the parsed index is kept)."""
    from memtui.core.read.store import RootError
    from memtui.core.stores.statcache import load_cached

    try:
        snapshot, cache = load_cached(root, budget_config(args))
    except RootError as exc:
        raise UsageError(str(exc)) from None
    cache.save()
    return snapshot


def load_index(root: Path, args: argparse.Namespace) -> IndexOnly:
    """A root's index parsed as a full load parses it, from one listing and one read."""
    from memtui.core.read.store import RootError, load_index_only

    try:
        return load_index_only(root, budget_config(args))
    except RootError as exc:
        raise UsageError(str(exc)) from None


def to_json(snapshot: Snapshot | IndexOnly, loaded: Loaded) -> dict[str, Any]:
    """The stable JSON object of what one root's loader reads (documented in the README)."""
    from memtui.core.rules.budget import sent_warning

    budget = loaded.budget
    return {
        "root": str(snapshot.root),
        "budget": budget.to_json(),
        "cut_line": budget.cut_line,
        "cut_reason": _cut_reason(budget),
        "warning": sent_warning(budget),
        "loader": budget.loader,
        "stripped": [{"line": number, "text": raw} for number, raw in loaded.stripped],
        "loaded": loaded.text.decode("utf-8", "replace"),
        "past_cut": [
            {"line": number, "kind": kind.value, "target": target or None, "text": raw}
            for number, kind, target, raw in loaded.past
        ],
    }


def run_loaded(args: argparse.Namespace) -> int:
    from memtui.core.rules.budget_read import loaded_of

    roots = find_roots(args.path)
    objects = []
    out: Console | None = None  # made for the first root printed as text: --raw and --json need none
    interrupted = False
    for root in roots:
        snapshot = load_index(root, args)  # the index alone: nothing here reads a topic file
        interrupted |= report_pending(snapshot.root, snapshot.interrupted, args.path)
        loaded = loaded_of(snapshot.index, snapshot.config)
        if args.raw:
            sys.stdout.flush()
            sys.stdout.buffer.write(loaded.file_bytes)
            sys.stdout.buffer.flush()
            continue
        if args.json:
            objects.append(to_json(snapshot, loaded))
            continue
        if out is None:
            out = console()
        _print_loaded(out, snapshot, loaded, args.path)
    if args.json:
        print_json(objects[0] if len(objects) == 1 else objects)
    return EXIT_FINDINGS if interrupted else EXIT_OK


def _print_loaded(out: Console, snapshot: Snapshot | IndexOnly, loaded: Loaded, base: str | None) -> None:
    """One root's loaded text between rules: what was stripped, the text, the cut and what
    falls past it."""
    budget, data = loaded.budget, loaded.text
    _rule(out, f"{esc(rel_root(snapshot.root, base))}/MEMORY.md — what the {budget.loader} loader "
             "reads", style="cyan")
    if not snapshot.index.exists:
        unread = next((s.reason for s in snapshot.skipped if s.path == snapshot.index.path), None)
        what = f"MEMORY.md not read ({esc(unread)})" if unread else "no MEMORY.md"
        out.print(f"[red]{what}: the agent loads nothing from this folder[/]")
        return
    _print_stripped(out, budget, loaded.stripped)
    sys.stdout.flush()
    out.file.flush()
    sys.stdout.write(plain(data.decode("utf-8", "replace"), lines=True))
    if data and not data.endswith(b"\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()
    if budget.cut_line is None:
        _rule(out, f"end — all {budget.lines} lines load · {budget_text(budget)}", style="green")
        return
    _rule(out, f"✂ the loader cuts here, at {esc(budget.cut_where())} ({_cut_reason(budget)})", style="red")
    from memtui.core.rules.budget import sent_warning

    warning = sent_warning(budget)  # as the agent reads it: neutralized with the text
    if warning is not None:
        out.print("Claude Code tells the agent, after what loaded:", markup=False)
        out.print(f"> WARNING: {warning}", markup=False)
    entries = loaded.past
    out.print(
        f"[red]{loaded.past_lines} line(s) never load[/], among them {len(entries)} "
        f"entr{'y' if len(entries) == 1 else 'ies'}:"
    )
    _print_entries(out, entries)


#: the entries past the cut a terminal shows (piped output lists them all, and so does ``--json``)
PAST_SHOWN = 50


def _print_entries(out: Console, entries: PastEntries) -> None:
    """The entries past the cut, one line each: in a terminal the first :data:`PAST_SHOWN` and a
    count of the rest; piped, every one, written as one block of plain text (a rotted index of
    100,000 entries is listed in a fraction of a second, not a line at a time)."""
    from memtui.core.model.snapshot import LineKind

    whats = entries.targets
    if LineKind.REGION in entries.kinds:
        whats = [target if kind is not LineKind.REGION else f"region {target}"
                 for kind, target in zip(entries.kinds, whats)]
    if piped(out):
        joined = " ".join(whats)  # a space is shown as it is: one look for what needs escaping
        if plain(joined) != joined:
            whats = [plain(what) for what in whats]
        try:
            out.file.write("".join(map("  line {}: {}\n".format, entries.numbers, whats)))
            out.file.flush()
        except BrokenPipeError:
            out.on_broken_pipe()
        return
    for number, what in zip(entries.numbers[:PAST_SHOWN], whats):
        out.print(f"  line {number}: [cyan]{esc(what)}[/]")
    if len(entries) > PAST_SHOWN:
        out.print(f"  … and {len(entries) - PAST_SHOWN:,} more (piped or with --json, every one)")


def _print_stripped(out: Console, budget: Budget, stripped: Sequence[tuple[int, str]]) -> None:
    """Say which profile measured the index and show what it stripped before counting."""
    if budget.loader == "raw":
        out.print("[dim]loader raw: the file loads as it is (frontmatter and comments count)[/]")
        return
    if budget.loader == "claude-code-agent":
        out.print("[dim]loader claude-code-agent (a subagent's memory): Claude Code loads its "
                  "frontmatter and comments too; only blank lines at either end are trimmed[/]")
        if not stripped:
            return
        for number, raw in stripped:
            out.print(f"[dim]  {number:>4} │ {esc(raw)}[/]")
        _rule(out, style="dim")
        return
    if not stripped:
        out.print(f"[dim]loader {budget.loader}: nothing to strip (no frontmatter, no comment blocks)[/]")
        return
    out.print(f"[dim]loader {budget.loader}: {len(stripped)} line(s) of frontmatter, HTML comment "
              "blocks and blank lines at either end are stripped before counting; they never "
              "load:[/]")
    for number, raw in stripped:
        out.print(f"[dim]  {number:>4} │ {esc(raw)}[/]")
    _rule(out, style="dim")


def _cut_reason(budget: Budget) -> str | None:
    if budget.cut_line is None:
        return None
    if budget.over_lines and budget.loaded_count == budget.max_lines:
        return f"line cap {budget.max_lines}"
    return f"{budget.unit[:-1]} cap {budget.max_bytes:,}"


def _rule(out: Console, title: str = "", style: str = "") -> None:
    """A rule across the terminal; piped (no terminal width), 80 columns, not a thousand."""
    from rich.rule import Rule
    from rich.text import Text

    from .common import PIPED_WIDTH

    # piped: 80 columns, or as many as the title needs (a rule never cuts its title)
    width = max(80, Text.from_markup(title).cell_len + 8) if out.width >= PIPED_WIDTH else out.width
    out.print(Rule(title, style=style), width=width)
