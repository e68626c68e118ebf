"""``memtui undo|redo|log [PATH]`` — walk a root's journal of changes.

Undo applies the inverse of the newest committed change, redo the most recently undone one, both
through the validator's gate; ``log`` lists recent changes, newest first.  Exit codes as for the
verbs: 0 done, 1 refused or nothing to undo/redo, 2 a mistake to fix.
"""

from __future__ import annotations

import argparse

from .common import EXIT_OK, Subparsers, budget_config, console, esc, positive_int, print_hanging, print_json
from .verbs import add_common, changing, report, root_of_path


def register(subparsers: Subparsers) -> None:
    for name, help_text in (
        ("undo", "undo the newest change (through the validator)"),
        ("redo", "redo the most recently undone change"),
    ):
        parser = subparsers.add_parser(name, help=help_text, description=help_text[:1].upper() + help_text[1:] + ".")
        parser.add_argument("path", nargs="?", metavar="PATH", help="the memory root (default: discovered)")
        add_common(parser, root_option=False)
        parser.set_defaults(func=run, verb=name)
    parser = subparsers.add_parser("log", help="list a root's recent changes",
                                   description="List a root's recent changes, newest first.")
    parser.add_argument("path", nargs="?", metavar="PATH", help="the memory root (default: discovered)")
    parser.add_argument("-n", "--limit", type=positive_int, default=20, metavar="N",
                        help="how many changes to show (default 20)")
    parser.add_argument("--json", action="store_true", help="print the changes as JSON")
    parser.set_defaults(func=run_log, verb="log")


def run(args: argparse.Namespace) -> int:
    from memtui.core import write

    with changing(args):
        root = root_of_path(args.path)
        replay = write.undo_plan if args.verb == "undo" else write.redo_plan
        return report(args, write.attempt(root, replay, config=budget_config(args),
                                          dry_run=args.dry_run))
    raise AssertionError("unreachable")  # pragma: no cover


def run_log(args: argparse.Namespace) -> int:
    from memtui.core.model.journal import journal_log

    with changing(args):
        root = root_of_path(args.path)
    entries = journal_log(root, args.limit)
    if args.json:
        print_json({"root": str(root), "changes": [e.to_json() for e in entries]})
        return EXIT_OK
    out = console()
    if not entries:
        out.print("no changes recorded yet")
        return EXIT_OK

    for entry in entries:
        marks = entry.marks()
        mark = f" [dim]({', '.join(marks)})[/]" if marks else ""
        print_hanging(out, f"[dim]{entry.id}[/]  {esc(entry.time)}", f"{esc(entry.description)}{mark}")
    return EXIT_OK
