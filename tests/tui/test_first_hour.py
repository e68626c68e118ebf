"""What a new user meets in the first hour: an editor that cannot start, the gauge at 80 columns,
marks in one list, help that scrolls, esc after a filter, the Dream screen's cursor."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import TextArea
from textual.widgets._footer import FooterKey

from memtui.screens.confirm import ConfirmChange
from memtui.screens.dream import DreamScreen
from memtui.screens.help import HelpScreen
from memtui.screens.merge_review import MergeReviewScreen
from memtui.screens.pick_file import elide_middle
from memtui.screens.root_picker import SORT_ORDER, RootList, RootPickerScreen
from memtui.widgets.status_line import display_path
from tests.support.app import NOW, digest, make_app, notice_hook, press, screen_lines, settle


def suspend_like_a_terminal(app: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Let the headless driver suspend as a terminal's does (Textual's own ``suspend()`` runs):
    record when the app hands the terminal over and when it takes it back."""
    calls: list[str] = []
    driver = type(app._driver)
    monkeypatch.setattr(driver, "can_suspend", True, raising=False)
    monkeypatch.setattr(driver, "suspend_application_mode", lambda self: calls.append("suspend"),
                        raising=False)
    monkeypatch.setattr(driver, "resume_application_mode", lambda self: calls.append("resume"),
                        raising=False)
    return calls


@pytest.mark.parametrize("editor", ["/nonexistent/editor", "memtui-no-such-editor --wait"])
async def test_an_editor_that_cannot_start_gives_the_app_back(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch, editor: str) -> None:
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(demo_root)
    notices: list[str] = []
    async with app.run_test(size=(140, 40), message_hook=notice_hook(notices)) as pilot:
        await settle(pilot)
        calls = suspend_like_a_terminal(app, monkeypatch)
        path = app.selected_path()
        before = (demo_root / path).read_bytes()
        await press(pilot, "e")
        assert calls == ["suspend", "resume"]  # the screen came back
        assert any(m.startswith(f"cannot run the editor '{editor}'") for m in notices), notices
        assert (demo_root / path).read_bytes() == before
        await press(pilot, "3")  # the app still answers keys
        assert app.main.active_view_name == "files"


@pytest.mark.parametrize("size", [(80, 24), (100, 24)], ids=["80x24", "100x24"])
async def test_the_budget_gauge_and_the_root_show_below_120_columns(
        demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        budget = app.workspace.budget
        lines = screen_lines(app)
        gauge = [line for line in lines if line.lstrip().startswith("Budget")]
        assert len(gauge) == 1, lines
        assert f"{budget.lines}/{budget.max_lines} lines" in gauge[0]
        assert f"{budget.utilization:.0%}" in gauge[0]
        status = lines[-2].rstrip()
        assert "✖ 2 errors" in status
        # the folder's last part stays on the line (its start elided when there is no room)
        assert status.endswith(display_path(demo_root)[-12:]), status


async def test_star_marks_the_focused_list_and_pinned_files_ask_again(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        pinned = {p for p, f in app.workspace.snapshot.files.items() if f.pinned}
        assert pinned
        await press(pilot, "tab")  # Pinned → Recent
        recent = app.main.query_one("#pane-recent").shown_paths()
        await press(pilot, "asterisk")
        assert app.marks == frozenset(recent) and not app.marks & pinned
        await press(pilot, "shift+tab", "asterisk")  # now the Pinned pane's files too
        assert pinned <= app.marks
        before = digest(demo_root)
        await press(pilot, "a")
        assert isinstance(app.screen, ConfirmChange)
        warning = str(app.screen.query_one("#confirm-pinned").render())
        assert f"{len(pinned)} of the marked files are pinned" in warning
        await press(pilot, "y")  # the first y only asks again
        assert isinstance(app.screen, ConfirmChange) and digest(demo_root) == before
        assert "included" in str(app.screen.query_one("#confirm-pinned").render())
        await press(pilot, "y")
        assert not isinstance(app.screen, ConfirmChange)
        for path in pinned:
            assert (demo_root / "archive" / path).is_file()


async def test_marks_without_pinned_files_apply_on_one_y(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "tab", "asterisk")
        recent = sorted(app.marks)
        await press(pilot, "a")
        assert isinstance(app.screen, ConfirmChange)
        assert not app.screen.query("#confirm-pinned")
        await press(pilot, "y")
        assert not isinstance(app.screen, ConfirmChange)
        assert all((demo_root / "archive" / path).is_file() for path in recent)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
async def test_help_scrolls_to_its_end_with_j_k_g_G(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        body = app.screen.query_one("#help-body")
        assert body.max_scroll_y > 0  # the table is taller than the dialog at these sizes

        def shows(label: str) -> bool:
            return any(label in line for line in screen_lines(app))

        assert not shows("Leave memtui.")
        await press(pilot, "G")
        assert body.scroll_y == body.max_scroll_y and shows("Leave memtui.")
        await press(pilot, "k")
        assert body.scroll_y == body.max_scroll_y - 1
        await press(pilot, "g")
        assert body.scroll_y == 0 and shows("Change the memory")
        await press(pilot, "j", "j")
        assert body.scroll_y == 2


async def test_esc_after_an_accepted_filter_clears_the_filter(demo_root: Path) -> None:
    app = make_app(demo_root)
    notices: list[str] = []
    async with app.run_test(size=(140, 40), message_hook=notice_hook(notices)) as pilot:
        await settle(pilot)
        everything = len(app.main.query_one("#pane-recent").shown_paths())
        await press(pilot, "slash", "f", "e", "e", "d", "enter")
        view = app.main.view("working")
        assert view.filter_text == "feed" and not view.filter_bar.has_focus
        assert len(app.main.query_one("#pane-recent").shown_paths()) < everything
        await press(pilot, "escape")
        assert view.filter_text == "" and not view.filter_bar.has_class("-active")
        assert len(app.main.query_one("#pane-recent").shown_paths()) == everything
        assert not any("nothing is marked" in m for m in notices), notices
        # with files marked, esc unmarks first; the filter goes with the next esc
        await press(pilot, "slash", "f", "e", "e", "d", "enter", "space")
        assert app.marks
        await press(pilot, "escape")
        assert not app.marks and view.filter_text == "feed"
        await press(pilot, "escape")
        assert view.filter_text == ""


async def test_dream_j_k_move_the_cursor_and_the_header_counts_follow(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.plan is not None
        plan = screen.plan
        assert len(plan.items) >= 2
        items = screen.items_list

        def header() -> str:
            return str(screen.query_one("#dream-title").render())

        assert f"{len(plan.items)} items, {len(plan.default)} checked" in header()
        await press(pilot, "j")
        assert items.highlighted == 1
        await press(pilot, "space")  # toggles the item under the cursor: the second one
        assert screen.selected == plan.default ^ {1}
        assert f"{len(screen.selected)} checked" in header()
        await press(pilot, "k")
        assert items.highlighted == 0
        await press(pilot, "G")
        assert items.highlighted == len(plan.items) - 1
        await press(pilot, "g")
        assert items.highlighted == 0


async def test_the_staleness_view_counts_as_memtui_stale_with_archived_apart(
        demo_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from memtui.cli.main import main

    # at the app's own clock: on another day a demo file's age crosses a threshold
    assert main(["stale", str(demo_root), "--json", "--now", NOW.isoformat()]) == 0
    cli = json.loads(capsys.readouterr().out)["files"]
    prune = sum(1 for row in cli if row["action"] == "prune")
    app = make_app(demo_root)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "4")
        header = str(app.main.query_one("#stale-header").render())
        archived = sum(1 for f in app.workspace.snapshot.files.values() if f.archived)
        assert archived
        assert header.startswith(f"{len(cli)} files · {prune} prune · "), header
        assert f"{archived} archived apart" in header
        stale_list = app.main.query_one("#stale-list")
        paths = [getattr(item, "path", None) for item in stale_list.items]
        cut = paths.index(None)  # the archived heading
        assert sorted(paths[:cut]) == sorted(row["path"] for row in cli)
        assert all(app.workspace.snapshot.files[p].archived for p in paths[cut + 1:])


async def test_a_merge_verdict_names_the_secret_its_gist_adds(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "5", "m")
        screen = app.screen
        assert isinstance(screen, MergeReviewScreen)
        gist = screen.query_one("#merge-gist", TextArea)
        gist.text = gist.text + "\nCI pushes with ghp_" + "A1b2" * 9 + "\n"
        await settle(pilot)
        verdict = str(screen.query_one("#merge-verdict").render())
        assert "✔" in verdict and "adds 1 warning" in verdict and "secret" in verdict, verdict
        assert "GitHub token" in verdict


def test_long_choices_under_one_folder_stay_apart() -> None:
    base = "machine-local: /home/dev/.claude/projects/-home-dev-riftzen-bit-claude-backup-projects-memory"
    one, two = f"{base}/alpha/memory", f"{base}/beta/memory"
    width = 60
    shown = {elide_middle(one, width), elide_middle(two, width)}
    assert len(shown) == 2 and all(len(s) == width for s in shown)
    assert all(s.startswith("machine-local") for s in shown)


async def test_the_root_picker_marks_the_open_root_and_counts_errors(make_root: Any) -> None:
    index = "# M\n- [A](a.md) — a\n"
    good = make_root({"MEMORY.md": index, "a.md": "---\nname: A\ndescription: a\ntype: project\n---\nA\n"},
                     name="good")
    bad = make_root({"MEMORY.md": index, "a.md": "---\nname: A\ndescription: a\ntype: project\n---\nA\n",
                     "orphan.md": "---\nname: O\ndescription: o\ntype: project\n---\nO\n"}, name="bad")
    app = make_app(good, bad)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "down", "enter")  # open the second root, "bad"
        assert app.root == bad
        await press(pilot, "o")
        assert isinstance(app.screen, RootPickerScreen)
        rows = app.screen.query_one(RootList)
        lines = ["".join(seg.text for seg in rows.render_line(y)) for y in range(2)]
        opened = [line for line in lines if "●" in line]
        assert len(opened) == 1 and "bad" in opened[0], lines
        good_line = next(line for line in lines if "good" in line)
        assert opened[0][2] == "!" and "1 error" in opened[0], lines  # marked, and why in words
        assert good_line[2] == " " and "error" not in good_line, lines
        assert rows.highlighted.root == bad  # the cursor starts on the open root


TOPIC = "---\nname: {0}\ndescription: {0}\ntype: project\n---\n{0}\n"


def fleet_roots(make_root: Any, over_name: str = "over") -> tuple[Path, Path, Path]:
    """Three roots: one small and clean, one with two orphans (errors), one whose index the
    loader cuts (250 entries against the 200-line cap)."""
    small = make_root({"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": TOPIC.format("A")},
                      name="small")
    orphan = make_root({"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": TOPIC.format("A"),
                        "b.md": TOPIC.format("B"), "c.md": TOPIC.format("C")}, name="orphan")
    over = {"MEMORY.md": "# M\n" + "".join(f"- [N{i}](n{i}.md) — note {i}\n" for i in range(250))}
    over |= {f"n{i}.md": TOPIC.format(f"N{i}") for i in range(250)}
    return small, orphan, make_root(over, name=over_name)


def picker_lines(app: Any) -> list[str]:
    rows = app.screen.query_one(RootList)
    return ["".join(seg.text for seg in rows.render_line(y)) for y in range(len(rows.items))]


async def test_the_root_picker_fills_its_columns_from_the_fleet_row(
        make_root: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every figure of a row is the core's fleet row for that root (the same ``memtui list
    --all`` prints): measured without the dream's count first, then with it."""
    import memtui.screens.root_picker as picker
    from memtui.core.dream.fleet import fleet_row

    asked: list[tuple[Path, bool]] = []

    def spy(root: Path, *args: Any, **kwargs: Any) -> Any:
        asked.append((Path(root), kwargs["dream"]))
        return fleet_row(root, *args, **kwargs)

    monkeypatch.setattr(picker, "fleet_row", spy)
    roots = fleet_roots(make_root)
    app = make_app(*roots)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert sorted(asked) == sorted([(r, False) for r in roots] + [(r, True) for r in roots])
        assert [r for r, dream in asked[:3]] == list(roots) and not any(d for _, d in asked[:3])
        screen = app.screen
        assert isinstance(screen, RootPickerScreen)
        lines = picker_lines(app)
        for root, item, line in zip(roots, screen.rows, lines):
            expected = fleet_row(root, now=NOW)
            assert item.fleet is not None and item.counted
            got, want = item.fleet.to_json(), expected.to_json()
            got["dream"].pop("kept"), want["dream"].pop("kept")  # type: ignore[attr-defined]
            assert got == want, root
            budget = expected.budget
            assert budget is not None and expected.dream_checked is not None
            assert f"{budget.lines}/{budget.max_lines}" in line, line
            assert f"{budget.bytes / 1000:.1f}k/{budget.max_bytes / 1000:.0f}k" in line, line
            figures = line.split()
            assert str(expected.errors) in figures and str(expected.dream_checked) in " ".join(
                figures), line
        assert "201" in lines[2].split(), lines[2]  # the first line the loader does not load


def hold_fleet_rows(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, list[Path]]:
    """The picker's fleet rows held until the event is set; the roots asked for, in order."""
    import memtui.screens.root_picker as picker
    from memtui.core.dream.fleet import fleet_row

    go = threading.Event()
    asked: list[Path] = []

    def held(root: Path, *args: Any, **kwargs: Any) -> Any:
        asked.append(Path(root))
        go.wait(30)
        return fleet_row(root, *args, **kwargs)

    monkeypatch.setattr(picker, "fleet_row", held)
    return go, asked


async def test_root_picker_rows_show_at_once_and_fill_when_measured(
        make_root: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The list is up with every root's path and layer before any is measured (the worker is
    held here); the figures come in when it is let go."""
    go, _ = hold_fleet_rows(monkeypatch)
    roots = fleet_roots(make_root)
    app = make_app(*roots)
    async with app.run_test(size=(200, 50)) as pilot:
        for _ in range(5):
            await pilot.pause(0)
        screen = app.screen
        assert isinstance(screen, RootPickerScreen)
        lines = picker_lines(app)
        assert len(lines) == 3 and all(r.name in line for r, line in zip(roots, lines)), lines
        assert all("other" in line and "…" in line and "/200" not in line for line in lines)
        go.set()
        await settle(pilot)
        assert all("/200" in line for line in picker_lines(app))


async def test_root_picker_stops_measuring_once_a_root_is_opened(
        make_root: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Enter opens a root before the others are measured; the measuring stops there (it does
    not go on planning dreams while the chosen root loads)."""
    go, asked = hold_fleet_rows(monkeypatch)
    roots = fleet_roots(make_root)
    app = make_app(*roots)
    async with app.run_test(size=(200, 50)) as pilot:
        for _ in range(5):
            await pilot.pause(0)
        assert isinstance(app.screen, RootPickerScreen)
        await pilot.press("enter")
        for _ in range(5):
            await pilot.pause(0)
        assert not isinstance(app.screen, RootPickerScreen) and app.root == roots[0]
        go.set()
        await settle(pilot)
        assert asked == [roots[0]], asked


async def test_root_picker_sort_key_cycles_the_column_and_another_reverses(
        make_root: Any) -> None:
    small, orphan, over = fleet_roots(make_root)
    app = make_app(over, small, orphan)  # found in this order
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RootPickerScreen)

        def order() -> list[str]:
            return [row.root.name for row in screen.query_one(RootList).items]  # type: ignore[union-attr]

        assert order() == ["over", "small", "orphan"] and screen.sort_column == "found"
        await press(pilot, "greater_than_sign")
        assert screen.sort_column == "root" and order() == ["orphan", "over", "small"]
        await press(pilot, "I")
        assert screen.descending and order() == ["small", "over", "orphan"]
        header = str(screen.query_one("#root-columns").render())
        assert "root▼" in header, header
        while screen.sort_column != "errors":
            await press(pilot, "greater_than_sign")
        assert order()[0] == "orphan"  # reversed: the most errors first
        header = str(screen.query_one("#root-columns").render())
        assert "err▼" in header and "root▼" not in header, header
        await press(pilot, "I")
        assert order()[-1] == "orphan" and "err▲" in str(screen.query_one("#root-columns").render())
        for _ in range(len(SORT_ORDER)):
            if screen.sort_column == "found":
                break
            await press(pilot, "greater_than_sign")
        assert screen.sort_column == "found"  # after the last column: the order found again
        assert order() == ["over", "small", "orphan"]
        await press(pilot, "I")
        assert order() == ["orphan", "small", "over"]
        assert screen.query_one(RootList).highlighted.root == orphan  # a new order: its top
        await press(pilot, "down", "enter")
        assert app.root == small  # enter still opens the root under the cursor


async def test_root_picker_opens_again_in_the_order_it_was_left_in(make_root: Any) -> None:
    small, orphan, over = fleet_roots(make_root)
    app = make_app(over, small, orphan)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "greater_than_sign", "I")  # by root, reversed
        await press(pilot, "enter")
        await settle(pilot)
        assert app.root == small
        await press(pilot, "o")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RootPickerScreen)
        assert (screen.sort_column, screen.descending) == ("root", True)
        assert [row.root.name for row in screen.query_one(RootList).items] == ["small", "over", "orphan"]
        assert "sorted by root (reversed)" in str(screen.query_one("#root-legend").render())


def test_the_line_under_the_picker_cuts_the_path_before_what_needs_attention() -> None:
    from types import SimpleNamespace

    from memtui.screens.root_picker import RootRow, describe

    root = Path("/home/someone/.claude/projects/-home-someone-src-a-rather-long-project-name/memory")
    fleet = SimpleNamespace(problem="", attention=("1 error",))  # what the line reads of a fleet row
    item = RootRow(root, layer="project", fleet=fleet)  # type: ignore[arg-type]
    whole = describe(item)
    assert whole.endswith(" · ! needs attention: 1 error") and str(root) in whole
    cut = describe(item, 60)
    assert len(cut) == 60 and cut.endswith(" · ! needs attention: 1 error") and "…" in cut
    assert describe(item, 400) == whole


async def test_root_picker_sort_keys_are_rebindable_and_on_the_palette(make_root: Any) -> None:
    from memtui.commands import MemtuiCommands

    roots = fleet_roots(make_root)
    app = make_app(*roots, keymap={"sort_roots": "t", "reverse_roots": "T"})
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RootPickerScreen)
        await press(pilot, "t")
        assert screen.sort_column == "root"
        await press(pilot, "T")
        assert screen.descending
        provider = MemtuiCommands(screen)
        hits = [hit async for hit in provider.search("sort by next")]
        assert any("Sort by next column  (t)" in str(hit.text) for hit in hits)
        assert all(reason is None for command, reason in provider.applicability()
                   if command.name in ("sort_roots", "reverse_roots"))
        await press(pilot, "enter")  # on the main screen the keys say where they apply
        assert not isinstance(app.screen, RootPickerScreen)
        reasons = dict(MemtuiCommands(app.screen).applicability())
        assert reasons[next(c for c in reasons if c.name == "sort_roots")] == (
            "only in the root picker (o), Files (3) and Staleness (4)")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_root_picker_marks_a_root_over_budget_at_any_width(
        make_root: Any, size: tuple[int, int]) -> None:
    """The root whose index the loader cuts is marked ``!`` and says why in words (the why
    column when there is room, the line under the list always); at 80 columns the columns
    that do not fit go and the path is cut in its middle, not its end."""
    roots = fleet_roots(make_root, "over-budget-project-with-a-long-folder-name/memory")
    app = make_app(*roots)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RootPickerScreen)
        lines = picker_lines(app)
        marked = [line for line in lines if line[2] == "!"]
        assert len(marked) == 2 and all(line[2] == " " for line in lines if line not in marked)
        over = next(line for line in lines if "/memory" in line)
        assert over[2] == "!" and "251/200" in over, over
        await press(pilot, "end")
        detail = str(screen.query_one("#root-detail").render())
        assert "! needs attention:" in detail and "index cut" in detail, detail
        path, shown = display_path(roots[2]), detail.split(" · ")[0]
        assert len(detail) <= size[0] - 2, detail  # one line: a long path gives up its middle
        assert shown == path or (shown[:10] == path[:10] and "…" in shown and shown.endswith(path[-12:])), detail
        if size[0] == 200:
            assert shown == path  # room enough: the whole path
        text = "\n".join(screen_lines(app))
        header = str(screen.query_one("#root-columns").render())
        for title in ("lines", "chars", "cut", "err", "peak", "agent", "dream"):
            assert title in header, (title, header)
        if size[0] == 80:
            assert "why" not in header and "layer" not in header, header
            assert all(len(line) <= 80 for line in text.splitlines())
            name = over.split()[1]  # cut in the middle: its start and its end
            assert name.startswith("over-") and "…" in name and name.endswith("name/memory"), over
        else:
            assert "why" in header and "layer" in header, header
            assert "index cut" in over and "2 errors" in next(line for line in lines if "orphan" in line)


def test_the_root_picker_writes_what_every_root_starts_with_once() -> None:
    from memtui.screens.root_picker import shared_start

    projects = "claude/projects/-home-dev-"
    assert shared_start([projects + "alpha/memory", projects + "beta/memory"]) == projects
    assert shared_start(["notes/a", "notes/ab"]) == "notes/"  # never a whole path
    assert shared_start(["work/alpha", "work/alps"]) == "work/"  # at a separator
    assert shared_start(["only/one"]) == ""


def test_the_root_picker_has_no_second_implementation() -> None:
    """The picker's figures are the fleet's: the quick summary it once made apart is gone."""
    import importlib.util
    import inspect

    import memtui.screens.root_picker as picker

    assert importlib.util.find_spec("memtui.services.roots") is None
    assert "memtui.services" not in inspect.getsource(picker)


async def test_the_demo_scope_is_the_copy_and_a_checks_the_path(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.core.judge.layers import project_of
    from memtui.core.read.demo import copy_demo

    monkeypatch.chdir(tmp_path)
    root = copy_demo(tmp_path / "harbor", with_git=False)
    project = root.parent
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert f"Scope: `{project.absolute()}/web`" in index and "/home/dev/harbor" not in index
    base = project_of(root) or tmp_path  # where a relative answer starts
    app = make_app(root)
    notices: list[str] = []
    async with app.run_test(size=(140, 40), message_hook=notice_hook(notices)) as pilot:
        await settle(pilot)

        async def answer(text: str) -> None:
            await press(pilot, "A")
            field = app.screen.query_one("#scope-input")
            field.value = text
            await press(pilot, "enter")

        await answer("no/such/folder")  # said so, and filtered as if one worked there
        assert app.main.scope_path == str(base / "no/such/folder")
        assert any(f"there is no {base / 'no/such/folder'} here" in m for m in notices)
        await answer(str(project / "web"))
        scope = app.main.scope
        assert scope is not None
        assert any(a.path == "path/web/ui_build.md" and a.scope == "web" for a in scope.applies)
        app.clear_notifications()
        await settle(pilot)
        status = str(app.main.query_one("#status").render())
        assert "scope " in status and "web" in status, status  # shown after the notice is gone
        await answer("")
        assert app.main.scope_path is None and "scope " not in str(app.main.query_one("#status").render())


async def test_a_symlinked_memtui_folder_says_one_thing_in_the_inbox(demo_root: Path,
                                                                     tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (demo_root / ".memtui").symlink_to(elsewhere)
    app = make_app(demo_root)
    notices: list[str] = []
    async with app.run_test(size=(140, 40), message_hook=notice_hook(notices)) as pilot:
        await settle(pilot)
        await press(pilot, "6")
        assert not any("interrupted change" in m for m in notices), notices
        assert any(m.startswith("changes are not possible here") for m in notices), notices
        # a look writes nothing in the folder: the Inbox keeps what was seen in memtui's cache,
        # so a .memtui it cannot use stops changes, not the Inbox
        header = str(app.main.query_one("#inbox-header").render())
        assert header.startswith("first look:"), header
        assert "the inbox is unavailable" not in "\n".join(screen_lines(app))


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
async def test_the_footer_shows_the_verbs_that_work(demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)

        def footer() -> str:
            """The footer's keys as shown (key and label), those that fit on the line."""
            keys = app.screen.query(FooterKey)
            shown = [k for k in keys if not k.has_class("-command-palette")
                     and k.region.right <= size[0] - 12]  # left of ^p palette
            return " ".join(f"{k.key_display} {k.description}" for k in shown)

        assert "? Help" in footer() and "q Quit" in footer()  # never the keys cut off
        if size[0] >= 200:
            for key in ("p Pin / unpin", "a Archive", "s Supersede", "e Edit in $EDITOR",
                        "R Rebuild index", "D Dream"):
                assert key in footer(), (key, footer())
        await press(pilot, "3")
        files = app.main.view("files")
        archived = next(p for p, f in app.workspace.snapshot.files.items() if f.archived)
        assert files.select_path(archived)
        await settle(pilot)
        assert "r Restore" in footer(), footer()
        assert "a Archive" not in footer()  # it does not apply to an archived file


async def test_tab_passes_over_an_empty_pane(make_root: Any) -> None:
    topic_text = "---\nname: A\ndescription: a\ntype: project\n---\nA\n"
    root = make_root({"MEMORY.md": "# M\n\n## Recent\n- [A](a.md) — a\n", "a.md": topic_text})
    app = make_app(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.screen.focused.id == "pane-recent"
        await press(pilot, "tab")  # Regions is empty: the preview is next
        assert app.screen.focused.id == "ws-preview"
        await press(pilot, "tab")  # and Pinned (empty) is passed over on the way round
        assert app.screen.focused.id == "pane-recent"


async def test_dream_under_read_only_shows_the_plan_and_applies_nothing(demo_root: Path) -> None:
    before = digest(demo_root)
    app = make_app(demo_root, read_only=True)
    notices: list[str] = []
    async with app.run_test(size=(140, 40), message_hook=notice_hook(notices)) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        assert isinstance(app.screen, DreamScreen) and app.screen.plan is not None
        await settle(pilot)
        assert "Apply checked" not in screen_lines(app)[-1]  # nothing to apply: not offered
        text = "\n".join(screen_lines(app))
        assert "a applies" not in text and "read-only" in text, text
        await press(pilot, "a")  # the key still says why
        assert isinstance(app.screen, DreamScreen)
        assert any("read-only" in m for m in notices)
    assert digest(demo_root) == before
