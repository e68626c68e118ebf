"""Every real-world corpus root opens, and every view draws, without an exception."""

from __future__ import annotations

import pytest

from memtui.screens.main import VIEWS
from tests.support.app import make_app, press, settle
from tests.support.roots import corpus_roots

ROOTS = corpus_roots()


@pytest.mark.skipif(not ROOTS, reason="the corpora under ../shared/corpora are absent")
async def test_every_corpus_root_opens_and_every_view_draws() -> None:
    """One app session opens each root in turn (as the root picker does) and shows every view."""
    app = make_app(*ROOTS, read_only=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")  # the picker: open the first root
        for root in ROOTS:
            app.open_root(root)
            await settle(pilot)
            assert app.workspace is not None and app.workspace.complete, root
            assert app.workspace.root == root.absolute()
            for name in VIEWS:
                app.main.show_view(name)
                await settle(pilot)
            app.main.show_view("working")
            await settle(pilot)
            app.main.next_pane(1)  # tab, then j: the Recent pane's cursor and preview
            focused = app.screen.focused
            if focused is not None and hasattr(focused, "action_cursor_down"):
                focused.action_cursor_down()
            await settle(pilot)  # the preview draws once the cursor moved (no debounce in tests)
            assert app.workspace.staleness is not None, root
        await press(pilot, "question_mark", "escape")
