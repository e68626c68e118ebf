"""Small things: a rejection can be taken back, the successor picker starts on the proposed
successor, the root picker shows lines with lines and bytes with bytes."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memtui.screens.pick_file import PickFileScreen
from memtui.screens.root_picker import RootList
from tests.support.app import make_app, press, settle


async def test_a_rejected_pair_can_be_taken_back(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        pairs = len(app.workspace.candidates.pairs)
        await press(pilot, "x")
        stored = json.loads((demo_root / ".memtui" / "rejected.json").read_text())
        assert len(stored["pairs"]) == 1 and len(app.workspace.candidates.pairs) == pairs - 1
        await press(pilot, "X")
        assert json.loads((demo_root / ".memtui" / "rejected.json").read_text())["pairs"] == []
        assert len(app.workspace.candidates.pairs) == pairs


async def test_the_successor_picker_starts_on_the_proposed_successor(demo_root: Path) -> None:
    app = make_app(demo_root)
    chosen: list[Any] = []
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        choices = ["a.md", "b.md", "proposed.md", "z.md"]
        app.push_screen(PickFileScreen("Supersede x.md by…", choices, preselect="proposed.md"),
                        chosen.append)
        await settle(pilot)
        await press(pilot, "enter")
        assert chosen == ["proposed.md"]


async def test_the_root_picker_shows_lines_and_characters_against_their_caps(make_root: Any) -> None:
    index = "# M\n- [A](a.md) — " + "x" * 2000 + "\n"  # 2 lines of 200 (1%), ~2 kB of 25 kB (8%)
    files = {"MEMORY.md": index, "a.md": "---\nname: A\ndescription: a\ntype: project\n---\nA\n"}
    one, two = make_root(files, name="one"), make_root(files, name="two")
    app = make_app(one, two)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        row_list = app.screen.query_one(RootList)
        line = "".join(seg.text for seg in row_list.render_line(0))
        assert "2/200" in line and "2.0k/25k" in line and "8%" in line, line  # lines, chars, use


def test_a_successor_line_tells_its_two_notes_apart_in_a_narrow_list() -> None:
    from memtui.core.dream.plan import DreamItem
    from memtui.screens.dream import item_prompt, note_tail

    assert note_tail("session_2026-06-10_justify-background-watch.md") == "justify-background-watch"
    assert note_tail("logs/2026-06-10-standup.md") == "standup"
    assert note_tail("feedback_testing.md") == "feedback_testing.md"  # undated: the whole path
    item = DreamItem("successor", ("session_2026-06-10_justify-background-watch.md",
                                   "session_2026-06-10_justify-watch-forever-loop.md"),
                     "why", (), False, lambda s: None, "")
    assert item_prompt(item).plain == "successor justify-background-watch → justify-watch-forever-loop"


def test_the_staleness_breakdown_says_what_declared_a_file_superseded(make_root: Any) -> None:
    """A superseded file's breakdown names the declaration that decided its action (here the
    index's own mark), not only its class."""
    import io

    from rich.console import Console

    from memtui.core.judge.staleness import score_root
    from memtui.core.read.store import load_root
    from memtui.widgets.preview import staleness_table
    from tests.support.roots import topic

    root = make_root({
        "MEMORY.md": "# Memory\n\n- [Old](feedback_old.md) — SUPERSEDED by the new rules below\n"
                     "- [New rules](feedback_new.md) — every rule\n",
        "feedback_old.md": topic("Old", type_="feedback"),
        "feedback_new.md": topic("New rules", type_="feedback"),
    })
    result = score_root(load_root(root), datetime(2026, 12, 1, tzinfo=timezone.utc)).get("feedback_old.md")
    assert result is not None
    console = Console(width=120, file=io.StringIO(), color_system=None)
    console.print(staleness_table(result))
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "refs      superseded — 0 found" in shown and "(class" not in shown  # the word once
    assert "status    MEMORY.md line 3 marks it superseded (“SUPERSEDED by the new rules below”)" in shown


async def test_help_opens_from_the_dream_and_the_merge_review(demo_root: Path) -> None:
    """`?` is the help key on every screen: in the Dream and in Merge review too (it did
    nothing there), and esc comes back to the screen it was opened from."""
    from memtui.screens.dream import DreamScreen
    from memtui.screens.help import HelpScreen
    from memtui.screens.merge_review import MergeReviewScreen

    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for keys, screen in ((("D",), DreamScreen), (("5", "m"), MergeReviewScreen)):
            await press(pilot, *keys)
            assert isinstance(app.screen, screen)
            await press(pilot, "question_mark")
            assert isinstance(app.screen, HelpScreen)
            await press(pilot, "escape")
            assert isinstance(app.screen, screen)
            await press(pilot, "escape")


async def test_help_searches_its_keys(demo_root: Path) -> None:
    """`/` in help narrows the keys to those whose key, name or text holds every word typed
    (typed letters are text there: `q` does not close it); esc clears the search, a second esc
    closes the help."""
    from memtui.screens.help import HelpScreen
    from tests.support.app import screen_lines

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark", "slash", *"successor")
        assert isinstance(app.screen, HelpScreen)
        shown = "\n".join(screen_lines(app))
        assert "Supersede" in shown and "Pin / unpin" not in shown
        await press(pilot, *" quxx")
        assert isinstance(app.screen, HelpScreen)
        assert "no key matches “successor quxx”" in "\n".join(screen_lines(app))
        await press(pilot, "escape")
        assert isinstance(app.screen, HelpScreen) and "Pin / unpin" in "\n".join(screen_lines(app))
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)
