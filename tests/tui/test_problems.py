"""Problems grouped by rule (folding, counts), rows that show the end of long names, and group
fixes: one reviewed change for every finding of a rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memtui.core.model.journal import list_records
from memtui.screens.confirm import ConfirmChange
from memtui.widgets.problems_view import RuleGroup
from tests.support.app import digest, make_app, press, settle
from tests.support.roots import topic

FAMILY = [f"session_2026-05-23_{part}_notes_from_a_long_day.md" for part in ("a", "b", "c", "d")]


def orphan_root(make_root: Any) -> Path:
    files = {
        "MEMORY.md": "# Memory\n\n## Recent\n- [Alpha](alpha.md) — the alpha fact\n"
                     "- [Gone](gone.md) — a file that is not there\n"
                     "- [Day one](session_2026-05-22_x.md) — the day before\n",
        "alpha.md": topic("Alpha", "the alpha fact"),
        "session_2026-05-22_x.md": topic("Day one", "the day before"),
    }
    files.update({name: topic(f"Session {name[19]}", "a long day") for name in FAMILY})
    return make_root(files)


async def group_row(pilot: Any, rule: str) -> None:
    view = pilot.app.main.view("problems")
    assert view.row_list.select_key(("group", rule))
    await settle(pilot)


async def test_findings_are_grouped_by_rule_and_fold(make_root: Any) -> None:
    app = make_app(orphan_root(make_root))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        items = app.main.view("problems").row_list.items
        groups = {item.rule: item.count for item in items if isinstance(item, RuleGroup)}
        assert groups["orphan"] == 4 and groups["broken-link"] == 1
        await group_row(pilot, "orphan")
        await press(pilot, "enter")
        items = app.main.view("problems").row_list.items
        assert not [i for i in items if not isinstance(i, RuleGroup) and i.rule == "orphan"]
        line = "".join(seg.text for seg in app.main.view("problems").row_list.render_line(0))
        assert "4 errors" in line


async def test_long_names_show_the_end_that_tells_them_apart(make_root: Any) -> None:
    app = make_app(orphan_root(make_root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        finding_list = app.main.view("problems").row_list
        lines = ["".join(seg.text for seg in finding_list.render_line(y)) for y in range(12)]
        rows = [line for line in lines if "…" in line and "_notes" in line]
        assert len(rows) == 4 and len(set(rows)) == 4, lines  # four rows that tell files apart
        for part in ("a", "b", "c", "d"):
            assert any(f"…{part}_notes" in line for line in rows), rows


async def test_a_group_fix_covers_the_orphan_family_with_one_region_and_undo_is_exact(
        make_root: Any) -> None:
    root = orphan_root(make_root)
    before = digest(root)
    app = make_app(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        await group_row(pilot, "orphan")
        await press(pilot, "f")
        assert isinstance(app.screen, ConfirmChange) and app.screen.plan.accepted
        await press(pilot, "y")
        index = (root / "MEMORY.md").read_text(encoding="utf-8")
        region_lines = [line for line in index.splitlines() if line.startswith("- region ")]
        assert region_lines == ["- region `session_2026-05-23_*.md` → 4 session_2026-05-23 notes; "
                                "grep the memory dir"]
        assert not [f for f in app.workspace.findings if f.rule == "orphan"]
        assert len(list_records(root)) == 1
        await press(pilot, "u")
        assert digest(root) == before


async def test_a_group_fix_drops_every_broken_link(make_root: Any) -> None:
    root = orphan_root(make_root)
    app = make_app(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        await group_row(pilot, "broken-link")
        await press(pilot, "f", "y")
        assert "gone.md" not in (root / "MEMORY.md").read_text(encoding="utf-8")
        assert not [f for f in app.workspace.findings if f.rule == "broken-link"]

