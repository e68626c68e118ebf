"""After a change the app updates what it shows from the files the change touched: the result is
what a fresh load shows, and only the rows that changed are drawn again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import topic
from tui_support import make_app, press, settle

from memtui.services.workspace import full_workspace
from memtui.widgets.files_view import FileList
from memtui.widgets.row_list import RowList
from memtui.widgets.working_set import WorkingSetPane

RECENT_FIRST = "project_gc_concurrent_mark.md"
LISTS = ("#pane-pinned", "#pane-recent", "#pane-regions", "#files-list")


def screen_text(app: Any) -> dict[str, list[str]]:
    """The text of every line each list draws now (the cursor's style aside)."""
    out = {}
    for selector in LISTS:
        widget = app.main.query_one(selector, RowList)
        out[selector] = [widget.render_line(y).text for y in range(widget.size.height)]
    return out


async def test_after_a_pin_and_its_undo_the_app_shows_what_a_fresh_load_shows(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        for key in ("p", "u", "p"):
            await press(pilot, key)
            fresh = full_workspace(demo_root, record=False)
            shown = app.workspace
            assert shown is not None
            assert shown.files == fresh.files
            assert shown.working_set == fresh.working_set
            assert shown.findings == fresh.findings
            assert dict(shown.mentions) == dict(fresh.mentions)
            assert shown.coverage == fresh.coverage
        await press(pilot, "3")  # the Files view catches up when shown
        drawn = screen_text(app)
    other = make_app(demo_root)
    async with other.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        assert screen_text(other) == drawn


async def test_a_pin_draws_again_only_the_rows_it_changed(demo_root: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    for cls in (FileList, WorkingSetPane):
        original = cls.render_item

        def spy(self: Any, item: Any, width: int, original: Any = original) -> Any:
            drawn.append(f"{self.id}:{item.path or item.number}")
            return original(self, item, width)

        monkeypatch.setattr(cls, "render_item", spy)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 70)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        files = app.main.query_one("#files-list", FileList)
        assert files.select_key(RECENT_FIRST)
        await settle(pilot)
        shown = len(files.items)
        assert 0 < shown < files.size.height  # every row is on screen
        before = {row.path: files.row_state(row) for row in files.items}
        drawn.clear()
        await press(pilot, "p")
        after = {row.path: files.row_state(row) for row in files.items}
        changed = {f"files-list:{path}" for path in after if after[path] != before.get(path)}
        assert f"files-list:{RECENT_FIRST}" in changed
        redrawn = {name for name in drawn if name.startswith("files-list:")}
        assert redrawn == changed
        assert len(changed) < shown
