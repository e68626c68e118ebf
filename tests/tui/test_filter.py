"""The filter: words in any order, the cursor on the best match after each keystroke, empty states
that say they are filtered, and facets the Staleness view does not know named in its header."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memtui.services.search import fuzzy_filter, parse_facets
from tests.support.app import make_app, press, settle

SHIM = "project_v1_catalog_shim.md"
TITLES = ["Registry v1 catalog shim for legacy clients", "GC runbook", "Session: v1 shim removal",
          "Concurrent mark phase for GC"]


@pytest.mark.parametrize("query, found", [
    ("catalog shim", [TITLES[0]]),
    ("shim v1", [TITLES[2], TITLES[0]]),  # equal matches: the words nearer the start first
    ("v1 shim", [TITLES[2], TITLES[0]]),
    ("shim catalog v1", [TITLES[0]]),
    ("runbok", [TITLES[1]]),  # a typo still finds it
    ("gc mark", [TITLES[3]]),
    ("shim zzz", []),
])
def test_words_match_in_any_order(query: str, found: list[str]) -> None:
    assert fuzzy_filter(query, TITLES, str) == found


def test_unknown_facet_names_are_kept_apart() -> None:
    parsed = parse_facets("action:prune bogus:x gc shim", ("action", "class", "type"))
    assert parsed.facets == {"action": "prune"} and parsed.text == "gc shim"
    assert parsed.unknown == ("bogus",)


async def type_filter(pilot: Any, text: str) -> None:
    await press(pilot, "slash")
    for char in text:
        await pilot.press("space" if char == " " else char)
    await settle(pilot)


@pytest.mark.parametrize("view", ["1", "3", "4"])
async def test_shim_v1_finds_the_row_and_the_cursor_is_on_it(demo_root: Path, view: str) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, view)
        await type_filter(pilot, "shim v1")
        assert SHIM in app.main.view().shown_paths()
        assert app.selected_path() == SHIM


async def test_after_filtering_p_pins_the_top_match(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        lower = "reference_gc_operations.md"  # matches "gc runbook" loosely, far down the list
        assert app.main.view("working").select_path(lower)
        await settle(pilot)
        await type_filter(pilot, "gc runbook")
        await press(pilot, "enter")
        top = app.main.screen.focused.rows[0].path
        assert top == "reference_gc_runbook.md" and app.selected_path() == top
        await press(pilot, "p")
        assert "pinned: true" in (demo_root / top).read_text(encoding="utf-8")
        assert "pinned: true" not in (demo_root / lower).read_text(encoding="utf-8")


async def test_an_empty_pane_while_filtering_says_it_is_filtered(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await type_filter(pilot, "catalog shim")
        pinned = app.main.query_one("#pane-pinned")
        assert not pinned.rows
        assert "matches “catalog shim”" in pinned.empty_text and "press p" not in pinned.empty_text


@pytest.mark.parametrize("query, says", [
    ("bogus:x", "unknown facet bogus:"),
    ("action:foo", "action:foo matches nothing (use prune, review, keep)"),
    ("class:foo", "class:foo matches nothing (use no_refs, all_found, some_gone, all_gone, "
                  "superseded, archived, evergreen, fresh, partly, fully)"),
])
async def test_the_staleness_filter_names_what_it_does_not_know(demo_root: Path, query: str,
                                                                says: str) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "4")
        await type_filter(pilot, query)
        header = str(app.main.query_one("#stale-header").render())
        assert says in header
