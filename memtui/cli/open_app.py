"""``memtui [PATH] [--read-only]``: find the roots, then open the app on them (``--demo`` opens it
on a fresh copy, :func:`memtui.cli.main._run_demo`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import UsageError, budget_config


def run(args: argparse.Namespace) -> int:
    """Open the app; the exit code for the shell (a folder that cannot be opened is a usage error)."""
    from memtui.app import MemtuiApp
    from memtui.core.discover import discover
    from memtui.core.store import RootError, check_root

    path = Path(args.path).expanduser() if args.path else None
    try:
        roots = discover(path)
    except RootError as exc:
        if path is None:
            raise UsageError(str(exc)) from None
        try:
            roots = [check_root(path)]  # no MEMORY.md: the app shows the empty states
        except RootError as missing:
            raise UsageError(str(missing)) from None
    app = MemtuiApp(roots, read_only=args.read_only, config=budget_config(args))
    return int(app.run() or 0)
