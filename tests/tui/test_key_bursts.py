"""Keys that arrive in one burst after ``/`` (a paste, a fast typist, a multiplexer) belong to
the filter: none of them runs a command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events

from memtui.screens.main import MainScreen
from tests.support.app import digest, make_app, settle


async def burst(pilot: Any, text: str) -> None:
    """``text`` as the terminal delivers a burst: every key queued before the first is handled."""
    driver = pilot.app._driver
    for char in text:
        key = {"/": "slash", " ": "space"}.get(char, char)
        event = events.Key(key, char)
        event.set_sender(pilot.app)
        driver.send_message(event)
    await settle(pilot)


@pytest.mark.parametrize("view", ["1", "3", "4"])
@pytest.mark.parametrize("text", ["/pin", "/macro", "/dream", "/undo sup"])
async def test_a_burst_after_slash_goes_into_the_filter(demo_root: Path, view: str,
                                                        text: str) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(view)
        await settle(pilot)
        before = digest(demo_root)
        await burst(pilot, text)
        assert isinstance(app.screen, MainScreen), app.screen  # no merge review, no dream
        filter_bar = app.main.view().filter_bar
        assert filter_bar is not None and filter_bar.value == text[1:]
        assert filter_bar.has_focus
        assert digest(demo_root) == before  # nothing pinned, nothing undone


async def test_slash_typed_in_the_filter_is_a_character(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await burst(pilot, "/archive/")
        filter_bar = app.main.view().filter_bar
        assert filter_bar is not None and filter_bar.value == "archive/"
