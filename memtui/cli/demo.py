"""``memtui demo --out DIR``: write a fresh copy of the bundled demo project and its memory."""

from __future__ import annotations

import argparse

from .common import EXIT_OK, Subparsers, UsageError, console


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="write a copy of the bundled demo project and its memory folder",
        description="Write a fresh copy of the bundled demo: a small fictional project (a git work "
        "tree with a history, built now) and its memory folder DIR/memory (with a few honest "
        "defects) to play with. The bundled copy is never changed.",
    )
    parser.add_argument("--out", metavar="DIR",
                        help="where to write it: a new or empty folder (default: a new temp folder)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memtui.core.read.demo import copy_demo, demo_has_history
    from memtui.core.read.store import RootError

    try:
        root = copy_demo(args.out)
    except RootError as exc:
        raise UsageError(str(exc)) from None
    out = console()
    project = root.parent
    if demo_has_history(root):
        out.print(f"demo project (a git work tree) written to [bold]{project}[/], "
                  f"its memory to [bold]{root}[/]")
        stale = f"memtui stale {root}"
    else:
        out.print(f"demo project written to [bold]{project}[/] (no git here, so no history), "
                  f"its memory to [bold]{root}[/]")
        stale = f"memtui stale --repo {project} {root}"
    out.print(f"next: [cyan]memtui {root}[/], [cyan]memtui validate {root}[/] or [cyan]{stale}[/]")
    return EXIT_OK
