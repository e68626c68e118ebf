"""``memtui [PATH] [--read-only]``: find the roots, then open the app on them (``--demo`` opens it
on a fresh copy, :func:`memtui.cli.main._run_demo`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import UsageError, budget_config, did_you_mean


def run(args: argparse.Namespace) -> int:
    """Open the app; the exit code for the shell (a folder that cannot be opened is a usage error)."""
    from memtui.app import MemtuiApp
    from memtui.core.read.store import RootError, check_root
    from memtui.core.roots.discover import discover

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
    app = MemtuiApp(roots, read_only=args.read_only, config=budget_config(args),
                    keymap=user_keymap())
    return int(app.run() or 0)


def user_keymap() -> dict[str, str]:
    """The keymap of the user's config, its names checked against the registry (a
    :class:`UsageError` names the file and what is wrong)."""
    from memtui.commands import BY_NAME, keymap_conflicts, unknown_in_keymap
    from memtui.core.read.user_config import config_path, configured_keymap

    try:
        keymap = configured_keymap()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    unknown = unknown_in_keymap(keymap)
    if unknown:
        named = ", ".join(f"{name}{did_you_mean(name, BY_NAME)}" for name in unknown)
        raise UsageError(f"{config_path()}: the keymap names no command {named} "
                         "(the ids are in the README's key table)")
    conflicts = keymap_conflicts(keymap)
    if conflicts:
        said = "; ".join(f"{key!r} runs {' and '.join(names)}" for key, names in sorted(conflicts.items()))
        raise UsageError(f"{config_path()}: the keymap gives one key to two commands: {said} "
                         "— give one of them another key (the defaults are in the README's key table)")
    return keymap
