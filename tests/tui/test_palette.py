"""The command palette (ctrl+p) judges every action on the screen under it: the registry's
reason where one does not apply, choosing it says that reason and runs nothing; one Quit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.command import CommandList, CommandPalette
from textual.message import Message
from textual.notifications import Notify

from memtui.commands import BY_NAME, MemtuiCommands
from memtui.screens.main import MainScreen
from tests.support.app import digest, make_app, press, settle

RECENT_FILE = "project_gc_concurrent_mark.md"


def notes(posted: list[Message]) -> list[str]:
    return [str(m.notification.message) for m in posted if isinstance(m, Notify)]


async def palette_options(pilot: Any, query: str) -> list[str]:
    """Open the palette, type ``query``, and return every option's text (title and help)."""
    await press(pilot, "ctrl+p")
    assert isinstance(pilot.app.screen, CommandPalette)
    for char in query:
        await pilot.press(char)
    await settle(pilot)
    await settle(pilot)
    options = pilot.app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_palette_gives_each_action_its_reason_on_the_screen_under_it(
        demo_root: Path) -> None:
    """On the Working set with a recent file selected, Pin applies (its help is shown) and
    Restore does not, for the registry's reason; nothing reads "not on this screen"."""
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.main.view().select_path(RECENT_FILE)
        await settle(pilot)
        await press(pilot, "ctrl+p")
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        provider = MemtuiCommands(app.screen_stack[-2])
        reasons = dict((c.name, r) for c, r in provider.applicability())
        assert reasons["pin_entry"] is None
        assert reasons["restore_entry"] == "the file is not archived"
        assert "not on this screen" not in reasons.values()
        await press(pilot, "escape")
        shown = await palette_options(pilot, "restore")
        assert any("Restore" in text and "not here: the file is not archived" in text
                   for text in shown), shown
        await press(pilot, "escape")
        shown = await palette_options(pilot, "pin")
        pin = next(text for text in shown if "Pin / unpin" in text)
        assert BY_NAME["pin_entry"].help[:40] in pin and "not here" not in pin


async def test_typed_pin_where_it_does_not_apply_says_why_and_changes_nothing(
        demo_root: Path) -> None:
    """The Inbox selects no file: pin chosen from the palette answers with the reason and the
    folder is untouched."""
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        await press(pilot, "6")
        assert app.main.selected_path() is None
        before = digest(demo_root)
        shown = await palette_options(pilot, "pin")
        assert "Pin / unpin" in shown[0] and "not here: select a memory file first" in shown[0]
        await press(pilot, "enter")
        assert isinstance(app.screen, MainScreen)
        assert "Pin / unpin: select a memory file first" in notes(posted)
        assert digest(demo_root) == before


async def test_typed_pin_where_it_applies_pins(demo_root: Path) -> None:
    """On the Working set with a recent file selected, pin chosen from the palette pins it."""
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.main.view().select_path(RECENT_FILE)
        await settle(pilot)
        assert app.workspace is not None and not app.workspace.file(RECENT_FILE).pinned
        shown = await palette_options(pilot, "pin")
        assert "Pin / unpin" in shown[0] and "not here" not in shown[0]
        await press(pilot, "enter")
        await settle(pilot)
        assert app.workspace.file(RECENT_FILE).pinned
        assert "pinned: true" in (demo_root / RECENT_FILE).read_text(encoding="utf-8")


async def test_the_palette_lists_quit_once(demo_root: Path) -> None:
    """memtui's Quit (q) is the only one: Textual's system Quit is left out."""
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        shown = await palette_options(pilot, "quit")
        quits = [text for text in shown if text.startswith("Quit")]
        assert len(quits) == 1, shown
        assert "(q)" in quits[0]
