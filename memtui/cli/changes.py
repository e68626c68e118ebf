"""``memtui changes [PATH] [--json] [--mark-seen] [--revert FILE]`` — what changed outside memtui
since the last look, and taking one change back.

PATH is a root (or a file in one: then only that file's change is shown and marked).  The first
look seeds the baseline and says so.  ``--mark-seen`` takes what is listed as seen.  ``--revert
FILE`` writes back the bytes last seen (an added file moves to ``archive/``) through the gate, as
one undoable change (:mod:`memtui.core.review`).  Exit 0 (changes are news, not errors; a revert
applied), 1 a revert refused, 2 on a usage or I/O error.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import (
    EXIT_OK,
    EXIT_USAGE,
    Subparsers,
    budget_config,
    console,
    err_console,
    esc,
    print_json,
)


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "changes",
        help="list what changed outside memtui since the last look",
        description="List the files added, changed, removed or renamed outside memtui since the "
        "last look (memtui's own changes are not news), newest first, with a diff and the "
        "validator findings each change introduced. The first look seeds the baseline.",
    )
    parser.add_argument("path", nargs="?", metavar="PATH",
                        help="a memory root, or a file in one (default: discovered)")
    parser.add_argument("--mark-seen", action="store_true", help="take what is listed as seen")
    parser.add_argument("--no-diff", action="store_true", help="list the changes without diffs")
    parser.add_argument("--revert", metavar="FILE",
                        help="take back the outside change of FILE: the bytes last seen are written "
                        "back through the gate (an added file moves to archive/); undo with "
                        "`memtui undo`")
    parser.add_argument("--dry-run", action="store_true",
                        help="with --revert: show the change and the verdict, write nothing")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run, verb="changes", max_lines=200, max_bytes=25_000)


def _escape(text: str) -> str:
    return esc(text)


def run(args: argparse.Namespace) -> int:
    from memtui.core import seen, write
    from memtui.core.seen_store import SeenError
    from memtui.core.store import RootError, load_root

    from .verbs import Exit, changing, root_of_path, say_recovered

    try:
        with changing(args):
            root = root_of_path(args.path or args.revert)
    except Exit as exc:
        return exc.code
    if args.revert:
        return _revert(args, root)
    only: str | None = None
    if args.path:
        given = Path(args.path).expanduser().absolute()
        if given.is_file():
            only = given.relative_to(root).as_posix()
    try:
        with changing(args):
            say_recovered(write.recover(root))
    except Exit as exc:
        return exc.code
    try:
        snapshot = load_root(root, budget_config(args))
        result = _named(seen.inbox(snapshot), snapshot)
        changes = [c for c in result.changes if only is None or only in (c.path, c.old_path)]
        marked = 0
        if args.mark_seen and changes:
            marked = seen.mark_seen(snapshot, None if only is None else [only])
    except (SeenError, RootError, OSError) as exc:
        err_console().print(f"[bold red]memtui changes:[/] {_escape(str(exc))}")
        return EXIT_USAGE
    if args.json:
        value = result.to_json()
        value["changes"] = [c.to_json() for c in changes]
        value["marked_seen"] = marked
        print_json(value)
        return EXIT_OK
    out = console()
    where = f" (kept in {result.store}: the folder cannot be written)" if result.in_cache else ""
    if result.seeded:
        out.print(f"first look at {_escape(str(root))}: {result.tracked} files remembered as seen"
                  f"{_escape(where)}; changes made outside memtui from now on will be listed here")
        return EXIT_OK
    for name in result.quarantined:
        out.print(f"[yellow]ignored a stored entry that is not a plain path inside the root:[/] "
                  f"{_escape(name)!r}")
    if not changes:
        out.print(f"nothing changed outside memtui since the last look{_escape(where)}")
        return EXIT_OK
    from rich.syntax import Syntax

    style = {"added": "green", "changed": "yellow", "removed": "red", "renamed": "cyan"}
    out.print(f"{len(changes)} change{'s' if len(changes) != 1 else ''} outside memtui since the "
              f"last look{_escape(where)}:")
    for change in changes:
        label = f"{change.old_path} → {change.path}" if change.old_path else change.path
        by = f" [dim](session {_escape(change.session)})[/]" if change.session else ""
        out.print(f"[{style[change.kind]}]{change.kind:<8}[/] {_escape(label)}{by}")
        if change.note:
            out.print(f"  [dim]{_escape(change.note)}[/]")
        for f in change.findings:
            where_line = f"{f.path}:{f.line}" if f.line else f.path
            colour = "red" if f.severity == "error" else "yellow"
            out.print(f"  [{colour}]{f.severity}[/] {f.rule} {_escape(where_line)} — {_escape(f.message)}")
        if change.diff and not args.no_diff:
            out.print(Syntax(change.diff.rstrip("\n"), "diff", theme="ansi_dark",
                             background_color="default"))
    shown = {id(f) for c in changes for f in c.findings}
    others = [f for f in result.findings if id(f) not in shown] if only is None else []
    if others:
        out.print("also new since the last look:")
        for f in others:
            where_line = f"{f.path}:{f.line}" if f.line else f.path
            out.print(f"  {f.severity} {f.rule} {_escape(where_line)} — {_escape(f.message)}")
    if marked:
        out.print(f"[green]marked {marked} change{'s' if marked != 1 else ''} as seen[/]")
    else:
        out.print("[dim]mark them seen with `memtui changes --mark-seen`[/]")
    return EXIT_OK


def _named(inbox: Any, snapshot: Any) -> Any:
    """The inbox with the session that wrote each change, from the file or the transcripts."""
    from memtui.core import review
    from memtui.core.usage import usage_of

    if not inbox.changes:
        return inbox
    try:
        usage = usage_of(snapshot)
    except (OSError, ValueError):
        return review.with_sessions(inbox, snapshot)
    return review.with_sessions(inbox, snapshot, {p: u.writers for p, u in usage.files.items()})


def _revert(args: argparse.Namespace, root: Path) -> int:
    """Take back one outside change through the gate (``--revert FILE``)."""
    from memtui.core import review

    from .verbs import Exit, apply_changeset

    given = Path(args.revert).expanduser()
    target = given.absolute()
    try:
        rel = target.relative_to(root).as_posix()
    except ValueError:
        rel = given.as_posix()  # a root-relative path (a removed file exists nowhere)
    try:
        return apply_changeset(args, root, lambda snapshot: review.revert(snapshot, rel), diff=True)
    except Exit as exc:
        return exc.code
