"""At 80×24 the working-set pane in use gets the room (the others keep their title and the row
under the cursor), and ``+`` zooms the focused pane to the whole screen and back."""

from __future__ import annotations

from pathlib import Path

from memtui.commands import BY_NAME, key_table_markdown
from tests.support.app import RECENT_FIRST, focus_recent, make_app, press, screen_lines, settle


async def test_the_focused_pane_gets_the_room_at_80x24(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        recent = app.main.query_one("#pane-recent")
        pinned = app.main.query_one("#pane-pinned")
        assert recent.has_focus
        assert recent.content_region.height >= 6  # was 2 of 36 entries
        assert pinned.content_region.height == 1  # its title and the row under its cursor
        await press(pilot, "shift+tab")
        assert pinned.has_focus and pinned.content_region.height == 3  # all 3 pinned entries, no more
        assert recent.content_region.height >= 4  # the room three pinned entries leave (was 1)


async def test_a_pane_in_use_of_few_rows_leaves_the_rest_to_the_fullest_other(demo_root: Path) -> None:
    """Pinned (3 entries) in use at 80x24: it shows its three rows and no empty ones, and Recent (36)
    takes the rows it leaves; Regions keeps its title and one row."""
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pinned = app.main.query_one("#pane-pinned")
        recent = app.main.query_one("#pane-recent")
        regions = app.main.query_one("#pane-regions")
        assert pinned.has_focus  # the first pane that shows anything
        assert pinned.content_region.height == 3
        assert recent.has_class("-room") and recent.content_region.height >= 4
        assert regions.content_region.height == 1
        lines = screen_lines(app)
        assert sum("★" in line for line in lines[:12]) == 3


async def test_plus_zooms_the_focused_pane_and_gives_the_room_back(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        recent = app.main.query_one("#pane-recent")
        await press(pilot, "plus")
        assert app.main.maximized is recent
        assert recent.content_region.height >= 18
        lines = screen_lines(app)
        assert lines[-1].lstrip().startswith("?") and "files" in lines[-2]  # footer, status stay
        await press(pilot, "j")  # the list still moves
        assert app.selected_path() != RECENT_FIRST
        await press(pilot, "plus")
        assert app.main.maximized is None and recent.has_focus
        await press(pilot, "plus", "escape")
        assert app.main.maximized is None


def test_the_zoom_key_is_in_the_registry_help_and_readme() -> None:
    command = BY_NAME["zoom_pane"]
    assert command.keys == "plus" and command.shown_keys == "+"
    assert "| `+` | Zoom pane | `zoom_pane` |" in key_table_markdown()
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "| `+` | Zoom pane | `zoom_pane` |" in readme
