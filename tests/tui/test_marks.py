"""Marks: space marks a file, * marks every file a filter shows, esc clears; a file verb on marked
files is one change — one confirm dialog, one journal record, one undo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memtui.core.model.journal import list_records
from memtui.screens.confirm import ConfirmChange
from tests.support.app import digest, make_app, press, settle

RECENT_FIRST = "project_gc_concurrent_mark.md"


async def type_text(pilot: Any, text: str) -> None:
    for char in text:
        await pilot.press("space" if char == " " else char)
    await settle(pilot)


def status(app: Any) -> str:
    return str(app.main.query_one("#status").render())


async def test_mark_five_archive_them_in_one_change_and_undo_it(demo_root: Path) -> None:
    before = digest(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        await settle(pilot)
        marked = []
        for _ in range(5):
            marked.append(app.selected_path())
            await press(pilot, "space", "j")
        assert app.marks == frozenset(marked) and len(marked) == 5
        assert "5 marked" in status(app)
        await press(pilot, "a")
        dialog = app.screen
        assert isinstance(dialog, ConfirmChange) and dialog.plan.accepted
        assert all(f"move    {p} → archive/{p}" in dialog.plan.operations for p in marked)
        await press(pilot, "y")
        assert not isinstance(app.screen, ConfirmChange)
        for path in marked:
            assert not (demo_root / path).exists() and (demo_root / "archive" / path).is_file()
        assert len(list_records(demo_root)) == 1
        assert app.marks == frozenset() and "marked" not in status(app)
        await press(pilot, "u")
        assert digest(demo_root) == before


async def test_mark_all_on_a_filter_then_decay(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await type_text(pilot, "feedback")
        await press(pilot, "enter")
        shown = app.main.view("working").shown_paths()
        assert shown and all(p.startswith("feedback_") for p in shown)
        await press(pilot, "asterisk")
        assert app.marks == frozenset(shown)
        await press(pilot, "d")
        assert isinstance(app.screen, ConfirmChange)
        await press(pilot, "y")
        index = (demo_root / "MEMORY.md").read_text(encoding="utf-8")
        archive_index = (demo_root / "MEMORY-archive.md").read_text(encoding="utf-8")
        for path in shown:
            assert f"]({path})" not in index  # out of the working set …
            assert (demo_root / path).is_file() and f"]({path})" in archive_index  # … still reachable
        assert len(list_records(demo_root)) == 1
        assert not [f for f in app.workspace.findings if f.rule == "orphan" and f.path in shown]


async def test_space_toggles_and_esc_clears(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        first = app.selected_path()
        await press(pilot, "space")
        assert app.marks == {first}
        assert "✓" in str(app.main.view("files").file_list.render_line(0))
        await press(pilot, "space")
        assert app.marks == frozenset()
        await press(pilot, "space", "j", "space")
        assert len(app.marks) == 2
        await press(pilot, "escape")
        assert app.marks == frozenset() and "marked" not in status(app)
