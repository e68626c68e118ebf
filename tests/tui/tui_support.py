"""Helpers for driving the real app with Pilot: a demo copy, a fixed clock, settled workers."""

from __future__ import annotations

import hashlib
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from memtui.app import MemtuiApp
from memtui.core.demo import demo_source

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
#: every file of a copied fixture gets this modification time, so mtime-based ages are stable
FIXED_MTIME = datetime(2026, 11, 1, tzinfo=timezone.utc).timestamp()


def freeze_mtimes(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (FIXED_MTIME, FIXED_MTIME))


@pytest.fixture
def demo_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the bundled demo at ``<tmp>/memory``; the current folder is ``<tmp>``.

    Import it into a test module (``from tui_support import demo_root``) to use it.
    """
    monkeypatch.chdir(tmp_path)
    return copy_demo_to(tmp_path / "memory")


def copy_demo_to(root: Path) -> Path:
    shutil.copytree(demo_source(), root, ignore=shutil.ignore_patterns("__pycache__"))
    freeze_mtimes(root)
    return root


def make_app(*roots: Path, **options: Any) -> MemtuiApp:
    """The app on these roots with the fixed clock, no folder watching and no animations."""
    options.setdefault("now", NOW)
    options.setdefault("watch", False)
    app = MemtuiApp(list(roots), **options)
    app.animation_level = "none"
    return app


async def settle(pilot: Any) -> None:
    """Wait until every worker is done and every message they posted is handled.

    ``pilot.pause(0)`` waits for the queued messages and paints, without Pilot's wait for an
    idle CPU (which costs a tenth of a second or more each time).
    """
    quiet = 0
    for _ in range(50):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0)
        if any(worker.is_running for worker in pilot.app.workers):
            quiet = 0
            continue
        quiet += 1
        if quiet >= 3:
            return


async def press(pilot: Any, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def digest(root: Path) -> dict[str, str]:
    """Every file's bytes under a root (dot-folders excluded), by path."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not any(part.startswith(".") for part in rel.split("/")):
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out
