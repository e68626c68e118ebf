"""Undo and redo say whether there is anything to take back: the footer shows u only when a change
can be undone, the palette lists Undo and Redo as they apply, and the keys say why not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.widgets._footer import FooterKey

from memtui.commands import BY_NAME
from memtui.commands.palette import MemtuiCommands
from tests.support.app import RECENT_FIRST, make_app, press, screen_lines, settle


def footer_keys(app: Any) -> set[str]:
    """The keys the footer shows."""
    return {key.key for key in app.screen.query(FooterKey)}


async def palette_help(app: Any, label: str) -> str:
    """What the palette says under a command (its help, or why it does not apply here)."""
    hits = [hit async for hit in MemtuiCommands(app.screen).search(label)]
    return next(str(hit.help) for hit in hits if str(hit.text).startswith(label + "  ("))


async def answer(pilot: Any, posted: list[Message], key: str) -> list[str]:
    """The notifications pressing ``key`` gave."""
    before = len(posted)
    await press(pilot, key)
    return [m.notification.message for m in posted[before:] if isinstance(m, Notify)]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
async def test_undo_and_redo_are_offered_only_when_there_is_something_to_take_back(
        demo_root: Path, size: tuple[int, int]) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=size, message_hook=posted.append) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        await settle(pilot)
        assert "u" not in footer_keys(app)
        assert "Undo" not in screen_lines(app)[-1]
        assert app.check_action("command", ("undo_change",)) is False
        assert app.check_action("command", ("redo_change",)) is False
        assert (await palette_help(app, "Undo")).startswith("not here: nothing to undo")
        assert (await palette_help(app, "Redo")).startswith("not here: nothing to redo")
        assert any(says.startswith("Undo: nothing to undo") for says in await answer(pilot, posted, "u"))
        assert any(says.startswith("Redo: nothing to redo") for says in await answer(pilot, posted, "U"))

        await press(pilot, "p")  # a change: now it can be undone
        assert "pinned: true" in (demo_root / RECENT_FIRST).read_text(encoding="utf-8")
        assert "u" in footer_keys(app)
        # on the screen at every width: on a narrow one Undo comes right after Help and Quit
        assert "u Undo" in screen_lines(app)[-1]
        assert app.check_action("command", ("undo_change",)) is True
        assert await palette_help(app, "Undo") == BY_NAME["undo_change"].help
        assert (await palette_help(app, "Redo")).startswith("not here: nothing to redo")

        await press(pilot, "u")  # the only change taken back: nothing left to undo, one to redo
        assert "pinned: true" not in (demo_root / RECENT_FIRST).read_text(encoding="utf-8")
        assert "u" not in footer_keys(app)
        assert app.check_action("command", ("undo_change",)) is False
        assert app.check_action("command", ("redo_change",)) is True
        assert await palette_help(app, "Redo") == BY_NAME["redo_change"].help

        await press(pilot, "U")
        assert "pinned: true" in (demo_root / RECENT_FIRST).read_text(encoding="utf-8")
        assert "u" in footer_keys(app)
        assert app.check_action("command", ("redo_change",)) is False


async def test_a_folder_with_changes_in_its_journal_offers_undo_at_once(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        await settle(pilot)
        await press(pilot, "p")
    app = make_app(demo_root)  # opened again: the journal still holds the pin
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.check_action("command", ("undo_change",)) is True
        assert "u" in footer_keys(app)
