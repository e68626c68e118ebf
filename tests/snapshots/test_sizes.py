"""Every view at 80×24 (the smallest usable terminal: the name column first and never dropped,
the preview stacked under the list, the status line keeping its counts) and at 200×60."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from memtui.core.stores import seen
from tests.support.app import make_app, settle
from tests.support.roots import FIXED_MTIME, freeze_mtimes

VIEWS = {"working": "1", "problems": "2", "files": "3", "staleness": "4", "consolidate": "5"}


def keys_then_settle(*keys: str) -> Any:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
@pytest.mark.parametrize("view", list(VIEWS))
def test_each_view(snap_compare: Any, demo_root: Path, view: str, size: tuple[int, int]) -> None:
    """The view's list with its names readable (working set: Pinned, Recent, Regions; Problems
    grouped by rule; Files and Staleness with column headers, name first); below 120 columns
    the preview sits under the list, above it beside; the status line shows the counts."""
    assert snap_compare(make_app(demo_root), terminal_size=size,
                        run_before=keys_then_settle(VIEWS[view]))


def outside_changes_then_inbox(root: Path) -> Any:
    """Change the folder as an agent would (one file edited, one added, one deleted), read it
    again (ctrl+r) and open the Inbox (6)."""
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        edited = root / "reference_release_train.md"
        edited.write_text(edited.read_text(encoding="utf-8") + "\nRC builds now need the upgrade "
                          "test from the previous minor too.\n", encoding="utf-8")
        (root / "project_new_fact.md").write_text(
            "---\nname: New fact\ndescription: added by an agent\ntype: project\n---\n\n"
            "Something learned today.\n", encoding="utf-8")
        (root / "user_maya_working_style.md").unlink()
        freeze_mtimes(root)
        await pilot.press("ctrl+r")
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        # ctrl+r's two-second notice is gone or not by now depending on the machine's load:
        # the picture is of the Inbox, without it
        pilot.app.clear_notifications()
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_inbox(snap_compare: Any, demo_root: Path, size: tuple[int, int],
               monkeypatch: pytest.MonkeyPatch) -> None:
    """The Inbox (view 6) after changes made outside memtui: the edited, added and deleted files
    listed (kind, name first, the error a change brought), the selected change's findings and
    diff under the list at 80×24 and beside it at 200×60.

    A change's time is the disk's ctime, which a test cannot set: it is fixed here, in UTC."""
    monkeypatch.setattr(seen, "_when", lambda root, path, gone: FIXED_MTIME)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    assert snap_compare(make_app(demo_root), terminal_size=size,
                        run_before=outside_changes_then_inbox(demo_root))


def test_marks_and_confirm_at_80x24(snap_compare: Any, demo_root: Path) -> None:
    """Three files marked (✓ gutter, "3 marked" in the status line), then the one confirm dialog
    archiving all three: their moves listed, the whole diff below, and both buttons whole (one row
    each on a short terminal)."""
    assert snap_compare(make_app(demo_root), terminal_size=(80, 24),
                        run_before=keys_then_settle("tab", "space", "j", "space", "j", "space", "a"))


def test_merge_review_at_80x24(snap_compare: Any, demo_root: Path) -> None:
    """The merge review of the demo's candidate pair at 80×24: both files in one column as a
    unified diff reads (the two names on top, a shared line once, a changed line as its − then
    its + version), a wrapped line hanging under its text, never under the marker column."""
    assert snap_compare(make_app(demo_root), terminal_size=(80, 24),
                        run_before=keys_then_settle("5", "m"))
