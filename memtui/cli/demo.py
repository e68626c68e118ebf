"""``memtui demo --out DIR``: write a fresh copy of the bundled demo memory folder."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, UsageError, console


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="write a copy of the bundled demo memory folder",
        description="Write a fresh copy of the bundled demo memory folder (a fictional project's "
        "memory with a few honest defects) to play with. The bundled copy is never changed.",
    )
    parser.add_argument("--out", metavar="DIR", help="where to write it (default: a new temp folder)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memtui.core.demo import copy_demo
    from memtui.core.store import RootError

    try:
        target = copy_demo(args.out)
    except RootError as exc:
        raise UsageError(str(exc)) from None
    console().print(f"demo memory written to [bold]{target}[/]")
    console().print(f"next: [cyan]memtui validate {target}[/] or [cyan]memtui {target}[/]")
    return EXIT_OK
