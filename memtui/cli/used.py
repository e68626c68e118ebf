"""``memtui used [PATH] [--json]`` — which memory files the agent actually read (DESIGN §12).

Read from Claude Code's own session transcripts, read-only: per file "read in N of the last M
sessions" and when last, and the files that are dead (indexed, never read), missing (read, no
index reaches them) or hallucinated (a pointer followed to a file that is not there).  PATH is a
root, a folder holding roots, or one memory file (then only its line).  Exit 0 (evidence is a
fact, not an error), 2 on a usage or I/O error.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .common import (
    EXIT_OK,
    Subparsers,
    UsageError,
    add_loader_option,
    budget_config,
    console,
    esc,
    find_roots,
    positive_int,
    print_json,
    rel_root,
)

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from memtui.core.judge.usage import Usage


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "used",
        help="which memory files the agent read, from Claude Code's transcripts",
        description="Read Claude Code's session transcripts (read-only) for evidence of use: per "
        "memory file the sessions that read it and when last; index entries no session read "
        "(dead), files read that no index reaches (missing), and pointers followed to a file "
        "that does not exist (hallucinated).",
    )
    parser.add_argument("path", nargs="?", metavar="PATH",
                        help="a memory root, a folder holding roots, or a memory file")
    parser.add_argument("--sessions", type=positive_int, default=20, metavar="M",
                        help="how many of the latest sessions count (default 20)")
    parser.add_argument("--transcripts", metavar="DIR",
                        help="the folder of session transcripts (default: the root's Claude Code "
                        "project folder)")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_loader_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memtui.core.judge.usage import usage_of
    from memtui.core.read.store import RootError
    from memtui.core.stores.statcache import load_cached

    only: str | None = None
    path = args.path
    if path is not None and Path(path).expanduser().is_file():
        from memtui.core.model.claude_settings import nearest_root

        given = Path(path).expanduser().absolute()
        found = nearest_root(str(given))
        if found is None:
            raise UsageError(f"{path}: not in a memory root (no MEMORY.md above it)")
        only = given.relative_to(found).as_posix()
        path = found
    folder = None
    if args.transcripts:
        folder = Path(args.transcripts).expanduser().absolute()
        if not folder.is_dir():
            raise UsageError(f"--transcripts: {args.transcripts}: no such folder")
    reports = []
    for root in _roots(str(path) if path is not None else None):
        try:
            snapshot, cache = load_cached(root, budget_config(args))
        except RootError as exc:
            raise UsageError(str(exc)) from None
        cache.save()
        reports.append(usage_of(snapshot, folder, args.sessions))
    if args.json:
        objects = [u.to_json(only) for u in reports]
        print_json(objects[0] if len(objects) == 1 else objects)
        return EXIT_OK
    out = console()
    for usage in reports:
        _print(out, usage, only, args.path)
    return EXIT_OK


def _roots(path: str | None) -> list[Path]:
    """The roots to report: PATH's; without one, the root the current folder is in, else the
    project's auto memory (the sessions' own memory, not an agent's found below the current
    folder), else what discovery finds."""
    if path is not None:
        return find_roots(path)
    from memtui.core.model.claude_settings import nearest_root
    from memtui.core.roots.discover import AUTO, claude_roots

    here = Path.cwd()
    inside = nearest_root(str(here / "MEMORY.md"))
    if inside is not None and Path(inside) == here:
        return [here]
    auto = next((r for r in claude_roots(here) if r.kind == AUTO), None)
    if auto is not None and auto.enabled and auto.holds_memory():
        return [auto.path]
    return find_roots(None)


def _print(out: Console, usage: Usage, only: str | None, base: str | None) -> None:
    name = rel_root(usage.root, base)
    if usage.folder is None or usage.total_sessions == 0:
        out.print(f"[bold]{esc(name)}[/]: {esc(usage.note or 'no sessions')}")
        return
    older = usage.total_sessions - usage.sessions
    out.print(f"[bold]{esc(name)}[/] — the last {usage.sessions} session{'s' * (usage.sessions != 1)}"
              + (f" (of {usage.total_sessions})" if older else "")
              + f" in {esc(str(usage.folder))}: {len(usage.active)} read, {len(usage.dead)} dead, "
              f"{len(usage.missing)} missing, {len(usage.hallucinated)} hallucinated")
    shell = sum(1 for u in usage.files.values() if u.shell)
    agents = sorted({a for u in usage.files.values() for a in u.agents})
    out.print("  [dim]reads counted: the Read tool, memory recall, Bash commands that read a "
              f"memory file (cat, head, sed -n, grep: {shell} file{'s' * (shell != 1)}, marked "
              "shell)" + (f", and subagents' reads ({esc(', '.join(agents))})" if agents else "")
              + "[/]")
    if only is not None:
        out.print(f"  {esc(only)}: {esc(usage.describe(only))}")
        for h in usage.hallucinated:
            if h.path == only:
                out.print(f"  [red]hallucinated[/]: read in {len(h.sessions)} session(s), absent")
        return
    files = sorted(usage.files.values(), key=lambda u: u.path)
    files.sort(key=lambda u: u.last_read, reverse=True)
    files.sort(key=lambda u: u.read_in, reverse=True)
    width = len(str(usage.sessions))
    for use in files:
        status = usage.status(use.path)
        mark = {"dead": " [yellow]dead[/]", "missing": " [magenta]missing[/]"}.get(status, "")
        if use.shell:
            mark += f" [dim]shell {use.shell}[/]"
        if use.agents:
            mark += f" [dim]by {esc(', '.join(use.agents))}[/]"
        last = use.last_read[:10] if use.last_read else "never     "
        out.print(f"  {use.read_in:>{width}}/{usage.sessions}  {last}  {esc(use.path)}{mark}")
    for h in usage.hallucinated:
        where = f" ({h.index}:{h.line})" if h.line else ""
        out.print(f"  [red]hallucinated[/] {esc(h.path)}{esc(where)}: read in {len(h.sessions)} "
                  f"session{'s' * (len(h.sessions) != 1)}, last {h.last[:10]}, and it does not exist")
    if usage.skipped:
        out.print(f"  [dim]{usage.skipped} transcript line{'s' * (usage.skipped != 1)} not understood "
                  "(skipped)[/]")
    if usage.unreadable:
        out.print(f"  [dim]could not read: {esc(', '.join(usage.unreadable))}[/]")

