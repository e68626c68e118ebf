"""The search screen: ctrl+f (rebindable, on the palette), results as the Files view's rows with
the snippet beside them, enter opening the hit in its own root."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList, CommandPalette
from textual.widgets import Input

from memtui.commands import help_groups
from memtui.screens.search import SearchScreen, root_labels
from memtui.widgets.files_view import FileList
from tests.support.app import make_app, press, screen_lines, settle
from tests.support.roots import topic


def two_roots(make_root) -> tuple[Path, Path]:
    one = make_root({"MEMORY.md": "# M\n- [Alpha](alpha.md) — the alpha fact\n",
                     "alpha.md": topic("Alpha", body="Nothing about birds.\n")}, name="top/one")
    two = make_root({"MEMORY.md": "# M\n- [Birds](birds.md) — which birds\n"
                                  "- region `old_*.md` → older notes\n",
                     "birds.md": topic("Birds", body="The pelican eats fish.\n"),
                     "old_pelican.md": topic("Old", body="A pelican was here once.\n")}, name="top/two")
    return one, two


def test_roots_the_last_two_folders_would_not_tell_apart_keep_their_whole_path() -> None:
    a, b, c = Path("/x/p1/memory"), Path("/y/p1/memory"), Path("/x/p2/memory")
    assert root_labels([a, b, c]) == {a: "/x/p1/memory", b: "/y/p1/memory", c: "p2/memory"}


async def test_a_hit_opens_in_its_own_root(make_root) -> None:
    one, two = two_roots(make_root)
    app = make_app(one, two)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")  # the root picker: open the first root
        assert app.root == one.absolute()
        await press(pilot, "ctrl+f")
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"pelican")
        await press(pilot, "enter")  # search now; the results take the focus
        results = app.screen.query_one("#search-results", FileList)
        rows = results.shown_paths()
        assert [r.split("/")[-1] for r in rows] == ["old_pelican.md", "birds.md"]  # its name too
        assert rows == ["top/two/old_pelican.md", "top/two/birds.md"]  # the root's last two folders
        assert app.focused is results
        await press(pilot, "down", "enter")
        assert not isinstance(app.screen, SearchScreen)
        assert app.root == two.absolute() and app.main.active_view_name == "files"
        assert app.main.selected_path() == "birds.md"
        assert two.absolute() in app.roots


async def test_the_preview_shows_the_snippet_and_how_the_file_loads(make_root) -> None:
    one, two = two_roots(make_root)
    app = make_app(two)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+f")
        await pilot.press(*"pelican")
        await press(pilot, "enter")
        rows = app.screen.query_one("#search-results", FileList).shown_paths()
        assert rows == ["old_pelican.md", "birds.md"]  # one root searched: no root in the rows
        preview = "\n".join(screen_lines(app))
        assert "reachable only by a region" in preview and "A pelican was here once." in preview
        await press(pilot, "down")
        preview = "\n".join(screen_lines(app))
        assert "loads at session start" in preview and "The pelican eats fish." in preview
        await press(pilot, "ctrl+f", "backspace", "enter")  # the query emptied: no hit, no snippet
        assert "The pelican eats fish." not in "\n".join(screen_lines(app))


async def test_escape_goes_back_and_nothing_found_says_so(make_root) -> None:
    one, _ = two_roots(make_root)
    app = make_app(one)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+f")
        await pilot.press(*"zebra")
        await press(pilot, "enter")
        lines = "\n".join(screen_lines(app))
        assert "0 files match" in lines and "no memory file holds every word" in lines
        await press(pilot, "escape")
        assert not isinstance(app.screen, SearchScreen) and app.root == one.absolute()


async def test_the_key_is_rebindable(make_root) -> None:
    one, _ = two_roots(make_root)
    app = make_app(one, keymap={"search_roots": "ctrl+g"})
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+g")
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"alpha")
        await press(pilot, "enter")
        assert app.focused is app.screen.query_one("#search-results", FileList)
        await press(pilot, "ctrl+g")  # on the screen too: back to the query, its words selected
        query = app.screen.query_one("#search-input", Input)
        assert app.focused is query
        await pilot.press(*"fact")
        assert query.value == "fact"


async def test_help_and_the_palette_know_the_search(make_root) -> None:
    one, _ = two_roots(make_root)
    app = make_app(one)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        rows = [(keys, label) for _, group in help_groups(app.keymap) for keys, label, _ in group]
        assert ("^f", "Search every root") in rows
        await press(pilot, "ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        for char in "search every":
            await pilot.press(char)
        await settle(pilot)
        await settle(pilot)
        options = app.screen.query_one(CommandList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any("Search every root" in text and "not here" not in text for text in shown), shown
        await press(pilot, "enter")
        assert isinstance(app.screen, SearchScreen)
