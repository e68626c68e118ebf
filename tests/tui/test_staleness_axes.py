"""The Staleness view names its two axes apart: the action follows the score (age and what is
missing), the refs column says what became of the references — "evergreen" beside "prune" read
as a contradiction."""

from __future__ import annotations

from pathlib import Path

from tests.support.app import make_app, press, screen_lines, settle

OLD_NOTE = "project_rate_limiting.md"  # nothing to verify here, old: prune


async def test_the_columns_and_the_preview_name_both_axes(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "4")
        lines = screen_lines(app)
        heading = next(line for line in lines if "score" in line and "action" in line)
        assert " refs " in heading and "class" not in heading
        row = next(line for line in lines if OLD_NOTE in line)
        assert "prune" in row and "no refs" in row and "evergreen" not in row
        assert app.main.view("staleness").select_path(OLD_NOTE)
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "score 95, from the age" in text and "and what is missing" in text
        assert "no refs — 0 found" in text and "(class evergreen)" in text
        await press(pilot, "slash", *"class:no")  # the facet takes the new words too
        assert OLD_NOTE in app.main.view("staleness").shown_paths()
        header = str(app.main.query_one("#stale-header").render())
        assert "matches nothing" not in header  # (it said so while the rows matched)
        await press(pilot, *"_refs")
        assert app.main.view("staleness").filter_text == "class:no_refs"
        assert OLD_NOTE in app.main.view("staleness").shown_paths()
