"""After a change the app updates what it shows from the files the change touched: the result is
what a fresh load shows, and only the rows that changed are drawn again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style

from memtui.core.rules.budget import FILL_TARGET
from memtui.services.scoring import Scorer, scan
from memtui.services.workspace import full_workspace
from memtui.widgets.budget_gauge import BudgetGauge, state_of
from memtui.widgets.files_view import FileList
from memtui.widgets.row_list import RowList
from memtui.widgets.working_set import WorkingSetPane
from tests.support.app import NOW, make_app, press, settle

RECENT_FIRST = "project_gc_concurrent_mark.md"
LISTS = ("#pane-pinned", "#pane-recent", "#pane-regions", "#files-list")


def screen_text(app: Any) -> dict[str, list[str]]:
    """The text of every line each list draws now (the cursor's style aside)."""
    out = {}
    for selector in LISTS:
        widget = app.main.query_one(selector, RowList)
        out[selector] = [widget.render_line(y).text for y in range(widget.size.height)]
    return out


def spy_on_rows(monkeypatch: pytest.MonkeyPatch, *classes: type) -> list[str]:
    """Note every row these lists draw (``list-id:path``) in the list returned."""
    drawn: list[str] = []
    for cls in classes:
        original = cls.render_item

        def spy(self: Any, item: Any, width: int, original: Any = original) -> Any:
            drawn.append(f"{self.id}:{item.path or item.number}")
            return original(self, item, width)

        monkeypatch.setattr(cls, "render_item", spy)
    return drawn


async def test_after_a_pin_and_its_undo_the_app_shows_what_a_fresh_load_shows(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        for key in ("p", "u", "p"):
            await press(pilot, key)
            fresh = full_workspace(demo_root)
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
    drawn = spy_on_rows(monkeypatch, FileList, WorkingSetPane)
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


async def test_moving_the_focus_draws_again_only_the_cursor_rows(demo_root: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = spy_on_rows(monkeypatch, WorkingSetPane)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        recent = app.main.query_one("#pane-recent", WorkingSetPane)
        regions = app.main.query_one("#pane-regions", WorkingSetPane)
        recent.focus()
        await settle(pilot)
        assert len(recent.items) > 2 and regions.items
        drawn.clear()
        regions.focus()  # the cursor rows of both panes change their look; nothing else does
        await settle(pilot)
        assert set(drawn) <= {f"pane-recent:{recent.highlighted.path}",
                              f"pane-regions:{regions.highlighted.path or regions.highlighted.number}"}
        assert f"pane-recent:{recent.highlighted.path}" in drawn
        # every line still cached is the line a fresh drawing gives
        for pane in (recent, regions):
            kept = [list(pane.render_line(y)) for y in range(pane.size.height)]
            pane._forget_lines()
            assert kept == [list(pane.render_line(y)) for y in range(pane.size.height)]


async def test_the_budget_gauge_lays_the_screen_out_only_when_its_height_changes(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    layouts: list[bool] = []
    original = BudgetGauge.refresh

    def spy(self: Any, *regions: Any, **options: Any) -> Any:
        layouts.append(bool(options.get("layout")))
        return original(self, *regions, **options)

    monkeypatch.setattr(BudgetGauge, "refresh", spy)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        gauge = app.main.query_one(BudgetGauge)
        budget = gauge.budget
        assert budget is not None and budget.cut_line is None
        height = gauge.size.height
        layouts.clear()
        gauge.show(replace(budget, lines=budget.lines + 1), gauge.pressure, 0)  # one more line
        await settle(pilot)
        assert layouts and not any(layouts)
        assert "lines" in gauge.render().plain and f"{budget.lines + 1}/" in gauge.render().plain
        layouts.clear()
        gauge.show(replace(budget, lines=budget.lines + 1), gauge.pressure, 0)  # nothing new
        await settle(pilot)
        assert layouts == []
        gauge.show(replace(budget, cut_line=7), gauge.pressure, 2)  # the cut adds a line
        await settle(pilot)
        assert any(layouts)
        assert gauge.size.height == height + 1


@given(used=st.integers(0, 600), cap=st.integers(0, 400), width=st.integers(1, 90))
def test_the_budget_bar_has_the_mark_the_fill_and_the_track_cell_by_cell(used: int, cap: int,
                                                                         width: int) -> None:
    roles = {"ok": Style(color="green"), "warn": Style(color="yellow"), "error": Style(color="red"),
             "mark": Style(bold=True), "track": Style(dim=True)}
    gauge = BudgetGauge()
    gauge._styles = dict(roles)
    bar = gauge._bar(used, cap, width)
    fraction = used / cap if cap else 0.0
    role, _ = state_of(fraction)
    filled = min(width, round(min(fraction, 1.0) * width))
    mark = min(width - 1, round(FILL_TARGET * width))
    cells = [(segment.text, segment.style) for segment in bar.render(Console(width=200))]
    expected = [("┃" if i < filled else "│", roles["mark"]) if i == mark else
                ("█", roles[role]) if i < filled else ("░", roles["track"]) for i in range(width)]
    assert [(char, style) for text, style in cells for char in text] == expected


async def test_after_a_pin_the_scores_are_those_of_the_folder_as_it_is_now(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        before = app.workspace
        await press(pilot, "p")  # the rescore starts after the frame showing the pin
        shown = app.workspace
        assert shown is not None and before is not None and shown.snapshot != before.snapshot
        assert shown.staleness == Scorer().score(shown.snapshot, NOW)
        assert shown.candidates == scan(shown.snapshot)


async def test_an_undo_reuses_the_findings_the_writer_made(demo_root: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import memtui.services.workspace as workspace_module

    validated: list[object] = []
    original = workspace_module.findings_cache

    def counted(snapshot: Any) -> Any:
        validated.append(snapshot)
        return original(snapshot)

    monkeypatch.setattr(workspace_module, "findings_cache", counted)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        validated.clear()  # (the load validates the folder, of course)
        for key in ("p", "u"):
            await press(pilot, key)
            assert validated == []  # the undo put old times back; its findings were kept as made
            shown = app.workspace
            assert shown is not None and shown.cache is not None
            assert shown.cache.snapshot is shown.snapshot
            assert shown.findings == full_workspace(demo_root).findings
            validated.clear()  # (the fresh load above validates, of course)


async def test_the_collector_is_off_from_a_changes_key_to_the_frame_showing_it(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    import memtui.app as app_module

    during: list[bool] = []
    original = app_module.workspace_after

    def noted(*args: Any) -> Any:
        during.append(gc.isenabled())
        return original(*args)

    monkeypatch.setattr(app_module, "workspace_after", noted)
    assert gc.isenabled()
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main.view("working").select_path(RECENT_FIRST)
        await press(pilot, "p")
        assert during == [False]
        assert gc.isenabled() and not app_module._gc_held
        await press(pilot, "u", "u")  # the second has nothing to undo: refused at once
        assert during == [False, False]
        assert gc.isenabled() and not app_module._gc_held


async def test_moving_the_focus_repaints_the_two_lists_not_the_screen(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.screen import Screen

    frames: list[tuple[bool, set[str]]] = []  # (whole screen, the widgets drawn again)
    original = Screen._on_timer_update

    def noted(self: Any) -> None:
        frames.append((self._repaint_required, {w.id or "" for w in self._dirty_widgets}))
        original(self)

    monkeypatch.setattr(Screen, "_on_timer_update", noted)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.main.query_one("#pane-recent", WorkingSetPane).focus()
        await settle(pilot)
        frames.clear()
        app.main.query_one("#pane-regions", WorkingSetPane).focus()
        await settle(pilot)
        drawn = set().union(*(ids for _, ids in frames))
        assert {"pane-recent", "pane-regions"} <= drawn  # their borders and cursor rows
        assert not any(whole for whole, _ in frames)
