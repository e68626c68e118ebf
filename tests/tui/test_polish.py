"""The first hour's polish: panes that fit their rows, a gutter that stays, counts that agree,
what a broken index is called, titles taken from the link text, fuzzy matches best first."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from memtui.screens.dream import DreamScreen
from memtui.screens.index_text import IndexTextScreen
from memtui.screens.merge_review import MergeReviewScreen
from memtui.widgets.index_text import IndexText
from memtui.widgets.working_set import WorkingSetPane
from tests.support.app import make_app, press, screen_lines, settle


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


def region_lines(app: Any, widget: Widget) -> list[str]:
    """The screen's text inside a widget's content region."""
    region = widget.content_region
    lines = screen_lines(app)[region.y:region.bottom]
    return [line[region.x:region.right] for line in lines]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
async def test_merge_review_shows_both_files_and_wraps_under_the_text(
        demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "5", "m")
        assert isinstance(app.screen, MergeReviewScreen)
        sides = app.screen.query_one("#merge-sides")
        lines = region_lines(app, sides)
        text = "\n".join(lines)
        # both files' first heading is in view, whatever the width
        assert "# GC operations runbook" in text and "# GC runbook: running" in text, text
        columns = [lines[0].index("− reference_gc_operations.md")]  # where the markers stand
        if size[0] >= 120:
            columns.append(lines[0].index("+ reference_gc_runbook.md"))
        for line in lines:
            for column in columns:
                assert line[column] in "−+~ " and line[column + 1] == " ", (column, line)
        # (lines of the pair are wider than a column: the check above met their continuations)
        width = sides.content_region.width // len(columns)
        body = (demo_root / "reference_gc_operations.md").read_text(encoding="utf-8")
        assert max(len(line) for line in body.splitlines()) > width


async def test_a_title_without_a_hook_takes_the_hooks_room(make_root: Any) -> None:
    """The description sits in the link text (as in real folders): the title is shown, not a
    short cut of it beside an empty hook column."""
    title = ("Beats evolution STAGE 2 IMPLEMENTED - the compiler with verify, an atomic swap "
             "and a regression test")
    root = make_root({
        "MEMORY.md": f"# Memory\n\n- [{title}](project_beats.md)\n- [Short](project_short.md) — a hook\n",
        "project_beats.md": "---\nname: Beats\ndescription: the compiler\ntype: project\n---\n\nBody.\n",
        "project_short.md": "---\nname: Short\ndescription: s\ntype: project\n---\n\nBody.\n",
    })
    app = make_app(root, read_only=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        row = next(line for line in screen_lines(app) if "Beats evolution" in line)
        assert title[:60] in row, row
        assert "(no hook)" in row
        short = next(line for line in screen_lines(app) if "Short" in line)
        assert "a hook" in short
        assert row.index("project ") == short.index("project ")  # the type column stays put


async def test_a_memory_md_folder_is_named_in_the_app(make_root: Any) -> None:
    root = make_root({"a.md": "---\nname: A\ndescription: a\ntype: user\n---\n\nBody.\n",
                      "MEMORY.md/old.md": "---\nname: Old\ndescription: o\ntype: user\n---\n"})
    app = make_app(root, read_only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        shown = " ".join(" ".join(screen_lines(app)).split())
        assert "MEMORY.md here is not read (a folder, not a file)" in shown, shown
        await press(pilot, "2")
        shown = " ".join(" ".join(screen_lines(app)).split())
        assert "MEMORY.md is a folder, not a file" in shown, shown


async def test_a_binary_memory_md_is_one_problem_in_the_app(make_root: Any) -> None:
    root = make_root({"MEMORY.md": random.Random(24).randbytes(3000),
                      "a.md": "---\nname: A\ndescription: a\ntype: user\n---\n\nBody.\n"})
    app = make_app(root, read_only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        rules = [f.rule for f in app.workspace.findings]
        assert "index-missing" in rules and "neutralized-text" not in rules, rules
        await press(pilot, "2")
        shown = " ".join(" ".join(screen_lines(app)).split())
        assert "MEMORY.md is not text" in shown, shown


async def test_the_inbox_counts_files_as_the_files_tab_does(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        files = len(app.workspace.snapshot.files)
        await press(pilot, "6")
        shown = " ".join(" ".join(screen_lines(app)).split())
        assert f"Files {files}" in shown
        assert (f"first look: {files} files, MEMORY.md and MEMORY-archive.md remembered as seen"
                in shown), shown


async def test_the_filter_puts_the_best_match_first(demo_root: Path) -> None:
    """A typo ("relase") matches many entries alike by partial ratio: the entries whose own word
    it is ("Release train") come before those that only hold a longer one ("releases"), and a
    title before a hook."""
    app = make_app(demo_root, read_only=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "slash", *"relase")
        pinned = app.main.query_one("#pane-pinned", WorkingSetPane)
        recent = app.main.query_one("#pane-recent", WorkingSetPane)
        titles = [row.title for row in pinned.rows]
        assert titles[0].startswith("Release train"), titles
        titles = [row.title for row in recent.rows]
        force_push = titles.index("Never force-push release branches")
        schema = next(i for i, t in enumerate(titles) if t.startswith("Schema changes"))
        assert force_push < schema, titles  # "release" in its title, not only in its hook
        assert pinned.highlighted is not None and pinned.highlighted.title.startswith("Release")


@pytest.mark.parametrize("view", ["5", "6"], ids=["consolidate", "inbox"])
async def test_a_stacked_detail_pane_has_no_bar_down_its_side(demo_root: Path, view: str) -> None:
    app = make_app(demo_root, read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, view)
        lines = screen_lines(app)
        bars = [line for line in lines if line.startswith("│") and not line.endswith("│")]
        assert not bars, "\n".join(lines)


async def test_without_a_baseline_the_inbox_does_not_speak_of_a_last_look(demo_root: Path) -> None:
    app = make_app(demo_root, read_only=True)  # read-only: no baseline may be written
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "6")
        shown = " ".join(" ".join(screen_lines(app)).split())
        assert "no baseline yet" in shown
        assert "since the last" not in shown, shown


async def test_the_status_line_ends_on_a_word_when_the_folder_does_not_fit(demo_root: Path) -> None:
    app = make_app(demo_root, read_only=True)  # read-only and marks: the counts fill the line
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "space", "j", "space")
        status = screen_lines(app)[-2].rstrip()
        assert "✓ 2 marked" in status and "⚠ 1 warning" in status, status
        assert not status.endswith("·"), status
        assert not status.endswith("…"), status


async def test_a_notice_reaches_the_right_edge_and_leaves_no_letter_beside_it(demo_root: Path) -> None:
    from textual.widgets._toast import Toast

    app = make_app(demo_root, read_only=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        app.notify("a notice of three rows", timeout=30)
        await settle(pilot)
        toast = app.screen.query_one(Toast)
        assert toast.region.right == app.size.width, toast.region  # no column of what is under it shows


async def test_a_notice_over_a_dialog_leaves_its_buttons_in_sight(demo_root: Path) -> None:
    from textual.widgets._toast import Toast

    from memtui.screens.confirm import ConfirmChange

    app = make_app(demo_root)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "tab")  # Pinned → Recent
        app.notify("pinned something · u undoes it", timeout=30)  # the notice of the change before
        await press(pilot, "a")
        assert isinstance(app.screen, ConfirmChange)
        await settle(pilot)
        buttons = app.screen.query_one(".dialog-buttons").region
        toast = app.screen.query_one(Toast).region
        assert buttons.height and not toast.overlaps(buttons), (toast, buttons)


async def test_the_inbox_diff_wraps_under_its_text(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 50)) as pilot:  # narrow: the detail under the list
        await settle(pilot)
        edited = demo_root / "reference_release_train.md"
        long_line = "RC builds " + "now need the upgrade test from the previous minor " * 3
        edited.write_text(edited.read_text(encoding="utf-8") + long_line + "\n", encoding="utf-8")
        await press(pilot, "ctrl+r", "6")
        detail = app.main.query_one("#inbox-detail")
        lines = region_lines(app, detail)
        added = next((i for i, line in enumerate(lines) if line.startswith("+RC builds")), None)
        assert added is not None, "\n".join(screen_lines(app))
        assert lines[added + 1].startswith(" ") and lines[added + 1].strip(), lines
        for line in lines[added + 1:]:
            if not line.strip():
                break
            assert line[0] == " ", lines  # a continuation: under the text, not the marker


async def test_dream_boxes_say_checked_by_their_glyph(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.plan is not None
        items = screen.items_list
        kinds = [item.kind for item in screen.plan.items]

        def rows() -> list[str]:
            return [items.render_line(y).text for y in range(len(kinds))]

        checked = [item.checked for item in screen.plan.items]
        assert [row.startswith("▐X▌") for row in rows()] == checked, rows()  # the demo's shorten waits unchecked
        assert [row.startswith("▐ ▌") for row in rows()] == [not c for c in checked], rows()
        assert checked[0] and checked[1]
        await press(pilot, "j", "space")  # uncheck the second item
        drawn = rows()
        assert drawn[1].startswith("▐ ▌") and drawn[0].startswith("▐X▌"), drawn
        for row, kind in zip(drawn, kinds):
            assert f" {kind} " in row, (kind, row)  # a long kind stands apart from its files
