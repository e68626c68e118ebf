"""The first hour's polish: panes that fit their rows, a gutter that stays, counts that agree,
what a broken index is called, titles taken from the link text, fuzzy matches best first."""

from __future__ import annotations

from pathlib import Path

from memtui.screens.index_text import IndexTextScreen
from memtui.widgets.index_text import IndexText
from memtui.widgets.working_set import WorkingSetPane
from tui_support import make_app, press, settle


def shown(text: IndexText) -> list[str]:
    """The rows the index text draws now, as plain text (what is on screen)."""
    return [text.render_line(y).text.rstrip() for y in range(text.scrollable_content_region.height)]


async def test_the_index_text_keeps_its_line_numbers_when_scrolled_sideways(demo_root: Path) -> None:
    index = demo_root / "MEMORY.md"
    long_line = "- [A long entry](project_long.md) — " + "word " * 60
    index.write_text(index.read_text(encoding="utf-8") + long_line + "\n", encoding="utf-8")
    app = make_app(demo_root, read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "i")
        assert isinstance(app.screen, IndexTextScreen)
        text = app.screen.query_one(IndexText)
        before = shown(text)
        await press(pilot, *["l"] * 12)
        assert text.scroll_offset.x > 0
        after = shown(text)
        for y, (was, now) in enumerate(zip(before, after)):
            assert now[:6] == was[:6], (y, was, now)  # the number and its mark stay
        assert after[0].startswith("   1 │")
        assert after[0] != before[0]  # the text itself moved


async def test_the_pinned_pane_fits_its_rows_after_unpin_and_undo(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        pinned = app.main.query_one("#pane-pinned", WorkingSetPane)
        rows = len(pinned.items)
        assert rows == 3 and pinned.outer_size.height == rows + 2  # two border lines
        await press(pilot, "p")  # unpin the first pinned file
        assert len(pinned.items) == rows - 1
        assert pinned.outer_size.height == rows + 1, "an empty row is left"
        await press(pilot, "u")
        assert len(pinned.items) == rows
        assert pinned.outer_size.height == rows + 2
