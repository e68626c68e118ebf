"""Every key answers: a key that does not apply says why; read-only hides change keys and says so;
the command palette finds every action of the registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Footer

from memtui.commands import COMMANDS, MemtuiCommands
from memtui.screens.confirm import ConfirmChange
from tests.support.app import digest, make_app, press, screen_lines, settle
from tests.support.roots import topic

PINNED_FILE = "value_never_lose_referenced_blobs.md"
RECENT_FILE = "project_gc_concurrent_mark.md"


def notes(posted: list[Message]) -> list[str]:
    return [str(m.notification.message) for m in posted if isinstance(m, Notify)]


async def answer_of(pilot: Any, posted: list[Message], key: str) -> str:
    """The one notification pressing ``key`` gave (fails when it gave none)."""
    before = len(notes(posted))
    await press(pilot, key)
    new = notes(posted)[before:]
    assert len(new) == 1, (key, new)
    return new[0]


@pytest.mark.parametrize("path, key, says", [
    (PINNED_FILE, "d", "pinned files do not decay"),
    (RECENT_FILE, "r", "the file is not archived"),
    (RECENT_FILE, "P", "already has an entry"),
    (RECENT_FILE, "o", "only one memory root"),
    (RECENT_FILE, "f", "quick fixes apply to the findings of the Problems view"),
    (RECENT_FILE, "x", "select a candidate in the Consolidate view"),
    (RECENT_FILE, "ctrl+r", "reading the folder again"),
])
async def test_a_key_that_does_nothing_here_says_why(demo_root: Path, path: str, key: str,
                                                      says: str) -> None:
    before = digest(demo_root)
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(path)
        await settle(pilot)
        assert says in await answer_of(pilot, posted, key)
        assert not isinstance(app.screen, ConfirmChange)
    assert digest(demo_root) == before


async def test_read_only_hides_change_keys_shows_a_badge_and_answers(demo_root: Path) -> None:
    posted: list[Message] = []
    app = make_app(demo_root, read_only=True)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FILE)
        await settle(pilot)
        footer_keys = {binding.key for _, binding, enabled, _ in app.screen.active_bindings.values()
                       if enabled and binding.show}
        change_keys = {key for c in COMMANDS if c.writes for key in c.keys.split(",")}
        assert footer_keys and not footer_keys & change_keys
        rendered = " ".join(str(w.render()) for w in app.screen.query(Footer).results())
        assert "Undo" not in rendered and "Pin" not in rendered
        assert "read-only" in str(app.main.query_one("#status").render())
        for key in ("p", "d", "a", "u", "R"):
            assert "read-only" in await answer_of(pilot, posted, key)


async def test_an_empty_folder_in_read_only_does_not_offer_r(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    app = make_app(root, read_only=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        text = str(app.main.query_one("#no-index").render())
        assert "Press R" not in text and "read-only" in text


async def test_the_palette_finds_every_registry_action(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        provider = MemtuiCommands(app.screen)
        for command in COMMANDS:
            if command.name == "command_palette":
                continue
            hits = [hit async for hit in provider.search(command.label)]
            assert any(command.label in str(hit.text) for hit in hits), command.name
        for word in ("pin", "undo", "rebuild", "archive", "reload", "files"):
            assert [hit async for hit in provider.search(word)], word


async def test_choosing_an_action_that_does_not_apply_says_why(demo_root: Path) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+p")
        for char in "restore":
            await pilot.press(char)
        await settle(pilot)
        await settle(pilot)
        await press(pilot, "enter")
        assert any("Restore: " in note for note in notes(posted)), notes(posted)


CHANGE_HINTS = ("press p", "f fixes", "(f)", "m / enter", "x  reject", "s / enter", "n marks")


@pytest.mark.parametrize("read_only", [True, False], ids=["read-only", "writable"])
async def test_no_text_offers_a_change_key_in_read_only(make_root: Any, read_only: bool) -> None:
    """An empty Pinned pane, Problems (headings, header, detail) and Consolidate's detail name
    their change keys only when changes are possible."""
    root = make_root({
        "MEMORY.md": "# M\n\n## Recent\n- [A](a.md) — a\n",
        "a.md": topic("a", body="Registry shim for legacy clients and their catalog.\n"),
        "b.md": topic("b", body="Registry shim for legacy clients and their catalog!\n"),
    })
    app = make_app(root, read_only=read_only)
    shown: list[str] = []
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for view, moves in (("1", ()), ("2", ()), ("2", ("down",)), ("5", ())):
            await press(pilot, view, *moves)
            shown.extend(screen_lines(app))
    text = "\n".join(shown)
    if read_only:
        assert "no pinned entries" in text
        assert not [hint for hint in CHANGE_HINTS if hint in text], text
    else:  # the same screens do offer them when writable: the test can fail
        assert "press p" in text and "f fixes" in text and "m / enter" in text
