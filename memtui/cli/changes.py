"""``memtui changes [PATH] [--json] [--mark-seen] [--revert FILE]`` — what changed outside memtui
since the last look, and taking one change back.

PATH is a root (or a file in one: then only that file's change is shown and marked).  The first
look seeds the baseline and says so.  ``--mark-seen`` takes what is listed as seen.  ``--revert
FILE`` writes back the bytes last seen (an added file moves to ``archive/``) through the gate, as
one undoable change (:mod:`memtui.core.verbs.review`).  Exit 0 (changes are news, not errors; a revert
applied), 1 a revert refused, or a change to the root was interrupted (reported, not recovered:
only ``--mark-seen`` or a revert, a change, recovers it), 2 on a usage or I/O error (one line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    Subparsers,
    budget_config,
    console,
    esc,
    plain,
    print_diff,
    print_json,
)

if TYPE_CHECKING:
    from rich.console import Console

    from memtui.core.model.snapshot import Snapshot
    from memtui.core.stores.seen import Change, Inbox


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
    parser.add_argument("--revert", metavar="FILE", action="append",
                        help="take back the outside change of FILE: the bytes last seen are written "
                        "back through the gate (an added file moves to archive/); undo with "
                        "`memtui undo`; given more than once, the reverts are one change")
    parser.add_argument("--dry-run", action="store_true",
                        help="with --revert: show the change and the verdict, write nothing")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run, verb="changes", max_lines=200, max_bytes=25_000)


def _escape(text: str) -> str:
    return esc(text)


#: over this many changes, the list is written as plain lines in one pass (no diffs, no styling):
#: a crafted or huge baseline must not cost a Rich render per line
LONG_LIST = 200


def run(args: argparse.Namespace) -> int:
    """List (and with ``--mark-seen`` take as seen) the changes; every error is one line.

    Without ``--mark-seen`` this is a read-only command: no recovery of an interrupted change
    (it is reported, exit 1, as the other read-only commands do) and nothing created in the
    root — a first baseline goes to the user's cache unless the root already keeps one.
    """
    from memtui.core import write
    from memtui.core.model.journal import JournalError
    from memtui.core.model.safepath import UnsafePath
    from memtui.core.read.store import RootError, load_root
    from memtui.core.stores import seen
    from memtui.core.stores.seen_store import SeenError

    from .common import note_applied, os_error_words, report_interrupted
    from .verbs import changing, fail, root_of_path, say_recovered

    with changing(args):
        root = root_of_path(args.path or (args.revert[0] if args.revert else None))
    if args.revert:
        return _revert(args, root)
    try:
        with changing(args):
            only: str | None = None
            if args.path:
                given = Path(args.path).expanduser().absolute()
                if given.is_file():
                    only = given.relative_to(root).as_posix()
            config = budget_config(args)
            if args.mark_seen:  # a change: an interrupted one is finished first
                say_recovered(write.recover(root))
            snapshot = load_root(root, config)
            result = _named(seen.inbox(snapshot, create_in_root=args.mark_seen), snapshot)
            changes = [c for c in result.changes if only is None or only in (c.path, c.old_path)]
            marked = 0
            if args.mark_seen and changes:
                marked = seen.mark_seen(snapshot, None if only is None else [only])
                note_applied(f"{marked} marked seen")
    except OSError as exc:  # the seen store could not be written (a full disk …)
        return fail(args, f"cannot keep what was seen: {os_error_words(exc)}", EXIT_USAGE)
    except (SeenError, RootError, JournalError, UnsafePath) as exc:
        return fail(args, str(exc), EXIT_USAGE)
    interrupted = report_interrupted(snapshot) if not args.mark_seen else False
    code = EXIT_FINDINGS if interrupted else EXIT_OK
    if args.json:
        value = result.to_json()
        value["changes"] = [c.to_json() for c in changes]
        value["marked_seen"] = marked
        print_json(value)
        return code
    out = console()
    where = f" (kept in {result.store}: the folder cannot be written)" if result.in_cache else ""
    if result.in_cache and seen_store_writable(root):
        where = f" (kept in {result.store}: a look changes nothing in the folder)"
    if result.seeded:
        tracked = seen.tracked_words(result.tracked, snapshot)
        out.print(f"first look at {_escape(str(root))}: {tracked} remembered as seen"
                  f"{_escape(where)}; changes made outside memtui from now on will be listed here")
        return code
    for name in result.quarantined:
        out.print(f"[yellow]ignored a stored entry that is not a plain path inside the root:[/] "
                  f"{_escape(name)!r}")
    if not changes:
        out.print(f"nothing changed outside memtui since the last look{_escape(where)}")
        return code
    agent = sum(1 for c in changes if c.by is not None)
    header = (f"{len(changes)} change{'s' if len(changes) != 1 else ''} outside memtui since the "
              f"last look{where}:")
    if agent:
        header = (f"{len(changes)} change{'s' if len(changes) != 1 else ''} since the last look"
                  f"{where}, {agent} of them the agent's through memtui's MCP server:")
    if len(changes) > LONG_LIST:
        _print_long(changes, header)
    else:
        _print_changes(out, changes, header, args.no_diff)
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
    return code


def seen_store_writable(root: Path) -> bool:
    """Whether the root itself could hold the baseline (it is kept in the cache by choice)."""
    from memtui.core.stores.seen_store import root_writable

    return root_writable(root)


def _print_changes(out: Console, changes: list[Change], header: str, no_diff: bool) -> None:
    """Each change with its findings and diff, styled."""
    style = {"added": "green", "changed": "yellow", "removed": "red", "renamed": "cyan"}
    out.print(_escape(header))
    for change in changes:
        label = f"{change.old_path} → {change.path}" if change.old_path else change.path
        by = f" [dim](session {_escape(change.session)})[/]" if change.session else ""
        if change.by is not None:
            by = f" [dim](agent write: {_escape(change.by.words())}, journal {_escape(change.record)})[/]"
        out.print(f"[{style[change.kind]}]{change.kind:<8}[/] {_escape(label)}{by}")
        if change.note:
            out.print(f"  [dim]{_escape(change.note)}[/]")
        for f in change.findings:
            where_line = f"{f.path}:{f.line}" if f.line else f.path
            colour = "red" if f.severity == "error" else "yellow"
            out.print(f"  [{colour}]{f.severity}[/] {f.rule} {_escape(where_line)} — {_escape(f.message)}")
        if change.diff and not no_diff:
            print_diff(out, change.diff)


def _print_long(changes: list[Change], header: str) -> None:
    """A long list in one pass: a plain line a change (and a finding), notes said once, no diffs."""
    lines = [plain(header)]
    notes: dict[str, int] = {}
    for change in changes:
        label = f"{change.old_path} → {change.path}" if change.old_path else change.path
        by = f" (session {plain(change.session)})" if change.session else ""
        if change.by is not None:
            by = f" (agent write: {plain(change.by.words())}, journal {plain(change.record)})"
        lines.append(f"{change.kind:<8} {plain(label)}{by}")
        if change.note:
            notes[change.note] = notes.get(change.note, 0) + 1
        for f in change.findings:
            where_line = f"{f.path}:{f.line}" if f.line else f.path
            lines.append(f"  {f.severity} {f.rule} {plain(where_line)} — {plain(f.message)}")
    for note, count in notes.items():
        lines.append(f"({count:,} of them: {plain(note)})")
    lines.append(f"(diffs are left out of a list of over {LONG_LIST} changes: "
                 "`memtui changes FILE` shows one file's, --json all of them)")
    sys.stdout.write("\n".join(lines) + "\n")


def _named(inbox: Inbox, snapshot: Snapshot) -> Inbox:
    """The inbox with the session that wrote each change, from the file or the transcripts."""
    from memtui.core.judge.usage import usage_of
    from memtui.core.verbs import review

    if not inbox.changes:
        return inbox
    try:
        usage = usage_of(snapshot)
    except (OSError, ValueError):
        return review.with_sessions(inbox, snapshot)
    return review.with_sessions(inbox, snapshot, usage.writers_of())


def _revert(args: argparse.Namespace, root: Path) -> int:
    """Take back outside changes through the gate (``--revert FILE``, one change for all)."""
    from memtui.core.verbs import review

    from .common import EXIT_FINDINGS
    from .verbs import apply_changeset

    rels = []
    for name in args.revert:
        given = Path(name).expanduser()
        try:
            rels.append(given.absolute().relative_to(root).as_posix())
        except ValueError:
            rels.append(given.as_posix())  # a root-relative path (a removed file exists nowhere)
    code = apply_changeset(args, root, lambda snapshot: review.revert_all(snapshot, rels),
                           diff=True)
    if code == EXIT_FINDINGS and len(rels) == 1 and not args.json:
        _say_together(root, rels[0])
    return code


def _say_together(root: Path, rel: str) -> None:
    """After a refused revert: the other outside change to revert first, or with it."""
    from memtui.core.model.changeset import Refusal
    from memtui.core.read.store import RootError, load_root
    from memtui.core.verbs import review

    try:
        hint = review.revert_order(load_root(root), rel)
    except (RootError, OSError, Refusal):
        return
    if hint is None:
        return
    other, how = hint
    both = f"memtui changes --revert {rel} --revert {other}"
    if how == "covers":
        line = (f"{rel} cannot be reverted alone; revert {other} instead: taking it back takes "
                f"its line out of {rel} too, which is then as last seen: memtui changes --revert "
                f"{other}")
    elif how == "first":
        line = f"Revert {other} first, then {rel} — or both as one change: {both}"
    else:
        line = f"{rel} cannot be reverted alone: revert it with {other} as one change: {both}"
    console().print(line, markup=False)
