"""The journal view (J): the open root's changes, newest first, undone ones marked."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.screens.index_text import IndexTextScreen
from memtui.screens.journal import JournalList, JournalScreen
from tests.support.app import RECENT_FIRST, make_app, press, screen_lines, settle


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_the_journal_lists_changes_newest_first_and_marks_the_undone(
        demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "J")
        await settle(pilot)
        assert isinstance(app.screen, JournalScreen)
        assert app.screen.query_one(JournalList).items == []
        assert any("no change recorded here yet" in line for line in screen_lines(app))
        await press(pilot, "escape")
        assert app.main.view("working").select_path(RECENT_FIRST)
        await settle(pilot)
        await press(pilot, "p")  # pin
        await settle(pilot)
        await press(pilot, "u")  # and take it back
        await settle(pilot)
        await press(pilot, "J")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, JournalScreen)
        rows = screen.query_one(JournalList).items
        assert [(r.kind, r.undone) for r in rows] == [("undo", False), ("do", True)]  # type: ignore[union-attr]
        text = "\n".join(screen_lines(app))
        assert "(undone) pin" in text and "(undo) undo: pin" in text, text
        await press(pilot, "down", "enter")  # the pin: its file, in the Files view
        await settle(pilot)
        assert not isinstance(app.screen, JournalScreen)
        assert app.main.active_view_name == "files" and app.selected_path() == RECENT_FIRST


async def test_a_change_of_the_index_alone_opens_the_index_text(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        await settle(pilot)
        await press(pilot, "d")  # decay: the entry moves, the file is not touched
        await settle(pilot)
        await press(pilot, "J")
        await settle(pilot)
        entry = app.screen.query_one(JournalList).items[0]
        assert RECENT_FIRST not in entry.paths and "MEMORY.md" in entry.paths  # type: ignore[union-attr]
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(app.screen, IndexTextScreen)
