"""Moving around: the views, filters, jumps, dialogs and the states of odd folders."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify

from memtui.screens.confirm import ConfirmChange
from memtui.screens.help import HelpScreen
from memtui.screens.merge_review import MergeReviewScreen, SideBySide
from memtui.screens.pick_file import PickFileScreen
from memtui.screens.root_picker import RootPickerScreen
from memtui.widgets.row_list import Rule
from tests.support.app import digest, make_app, press, screen_lines, settle


async def test_number_keys_switch_views_and_focus_their_list(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for key, name, focused in (("2", "problems", "problems-list"), ("3", "files", "files-list"),
                                   ("4", "staleness", "stale-list"),
                                   ("5", "consolidate", "candidate-list"),
                                   ("1", "working", "pane-pinned")):
            await press(pilot, key)
            assert app.main.active_view_name == name
            assert app.focused is not None and app.focused.id == focused


async def test_tab_cycles_the_panes_of_the_working_set(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        seen = []
        for _ in range(4):
            seen.append(app.focused.id)
            await press(pilot, "tab")
        assert seen == ["pane-pinned", "pane-recent", "pane-regions", "ws-preview"]
        assert app.focused.id == "pane-pinned"


async def test_help_lists_registry_keys_and_closes(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)
        await press(pilot, "f1")
        assert isinstance(app.screen, HelpScreen)


async def test_palette_offers_registry_actions(demo_root: Path) -> None:
    from memtui.commands import MemtuiCommands

    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        provider = MemtuiCommands(app.screen)
        labels = [command.label for command, reason in provider.applicability() if reason is None]
        assert "Pin / unpin" in labels and "Staleness" in labels
        assert "Restore" not in labels  # nothing archived is selected


async def test_files_filter_narrows_fuzzily(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "slash", *"postgrs")
        rows = app.main.view("files").shown
        assert rows and all("postgres" in row.search_key.lower() for row in rows)
        assert len(rows) < len(app.workspace.files)
        await press(pilot, "escape")
        assert len(app.main.view("files").shown) == len(app.workspace.files)


async def test_staleness_facets_filter_by_action(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "4", "slash", *"action:prune")
        items = list(app.main.view("staleness").stale_list.items)
        rows = [row for row in items if not isinstance(row, Rule)]
        assert rows and all(row.action.value == "prune" for row in rows)
        cut = next((i for i, item in enumerate(items) if isinstance(item, Rule)), len(items))
        for group in (items[:cut], items[cut + 1:]):  # the live files, then the archived apart
            scores = [row.score for row in group]
            assert scores == sorted(scores, reverse=True)


async def test_enter_on_a_problem_jumps_to_its_file(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        finding = app.main.view("problems").selected_finding()
        assert finding.rule == "orphan"
        await press(pilot, "enter")
        assert app.main.active_view_name == "files"
        assert app.selected_path() == finding.path


async def test_enter_on_a_broken_link_jumps_to_its_index_line(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "2", "down", "down", "enter")  # past the broken-link rule's heading
        assert app.main.active_view_name == "working"
        row = app.main.view("working").current_row()
        assert row is not None and row.missing


async def test_supersede_picks_the_successor_then_confirms(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        assert app.main.view("files").select_path("project_replication_design.md")
        await press(pilot, "s")
        assert isinstance(app.screen, PickFileScreen)
        await press(pilot, *"webhook_retries", "enter")
        assert isinstance(app.screen, ConfirmChange)
        await press(pilot, "y")
        text = (demo_root / "project_replication_design.md").read_text(encoding="utf-8")
        assert "superseded_by: project_webhook_retries.md" in text
        successor = (demo_root / "project_webhook_retries.md").read_text(encoding="utf-8")
        assert "supersedes: project_replication_design.md" in successor


async def test_supersede_of_a_file_already_superseded_says_so_before_any_pick(demo_root: Path) -> None:
    """The demo's LDAP note names its successor: `s` says by what, and the Dream's part, instead of
    an alphabetical list whose every pick the verb would refuse."""
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        assert app.main.view("files").select_path("project_auth_ldap_group_mapping.md")
        before = digest(demo_root)
        await press(pilot, "s")
        assert not isinstance(app.screen, PickFileScreen)
        said = [str(m.notification.message) for m in posted if isinstance(m, Notify)]
        assert any("already superseded by project_oidc_group_sync.md; the Dream (D) archives it" in t
                   for t in said), said
        await press(pilot, "space")  # marked with another: that one alone is asked for
        assert app.main.view("files").select_path("project_replication_design.md")
        await press(pilot, "space", "s")
        assert isinstance(app.screen, PickFileScreen)
        assert app.screen.title_text == "Supersede project_replication_design.md by…"
        said = [str(m.notification.message) for m in posted if isinstance(m, Notify)]
        assert "1 of the marked files is already superseded (their superseded_by says by what) and left out" in said
        await press(pilot, "escape")
        assert digest(demo_root) == before


async def test_rebuild_shows_the_diff_first(demo_root: Path) -> None:
    before = digest(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "R")
        assert isinstance(app.screen, ConfirmChange)
        assert "MEMORY.md" in app.screen.plan.diff
        await press(pilot, "n")
        assert digest(demo_root) == before


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
async def test_the_confirm_dialog_buttons_are_whole_at_any_size(demo_root: Path,
                                                                size: tuple[int, int]) -> None:
    """Both buttons lie wholly inside the dialog and show their labels (at 80×24: one row each)."""
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "tab", "space", "j", "space", "j", "space", "a")
        assert isinstance(app.screen, ConfirmChange)
        inside = app.screen.query_one("#confirm-dialog").content_region
        lines = screen_lines(app)
        for selector, label in (("#confirm-yes", "Apply  y"), ("#confirm-no", "Cancel  n")):
            button = app.screen.query_one(selector)
            assert button.region.height >= 1 and inside.contains_region(button.region)
            assert any(label in line for line in lines)
        await press(pilot, "n")
        assert not isinstance(app.screen, ConfirmChange)


@pytest.mark.parametrize("size", [(80, 24), (160, 40)], ids=["80x24", "160x40"])
async def test_merge_review_stacks_its_sides_below_120_columns(demo_root: Path,
                                                               size: tuple[int, int]) -> None:
    """Below 120 columns the two files share one column, each line the full width: a changed
    line as its left (−) then its right (+) version."""
    a, b = "reference_gc_operations.md", "reference_gc_runbook.md"
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "5", "m")
        assert isinstance(app.screen, MergeReviewScreen)
        lines = screen_lines(app)
        with_a = [line for line in lines if f"− {a}" in line]
        assert len(with_a) == 1
        if size[0] < 120:
            assert f"+ {b}" not in with_a[0]  # the right side's heading is not beside the left
            shown = "\n".join(lines)
            assert "− # GC operations runbook: running and recovering garbage collection" in shown
            assert "+ # GC runbook: running and recovering garbage collection" in shown
            sides = app.screen.query_one("#merge-table", SideBySide)
            whole = [sides.render_line(y).text for y in range(sides.size.height)]
            left_at = next(i for i, line in enumerate(whole) if f"− {a}" in line)
            right_at = next(i for i, line in enumerate(whole) if f"+ {b}" in line)
            assert left_at < right_at and f"− {a}" not in whole[right_at]  # the right follows
        else:
            assert f"+ {b}" in with_a[0]  # side by side: both headings on one line


async def test_merge_a_pair_from_the_review_screen(demo_root: Path) -> None:
    a, b = "reference_gc_operations.md", "reference_gc_runbook.md"
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "5", "m")
        assert isinstance(app.screen, MergeReviewScreen)
        assert app.screen.plan is not None and app.screen.plan.accepted
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, MergeReviewScreen)
        assert not (demo_root / a).exists() and not (demo_root / b).exists()
        assert (demo_root / "archive" / a).exists() and (demo_root / "archive" / b).exists()
        gists = [p for p in demo_root.glob("*.md")
                 if "consolidated_from:" in p.read_text(encoding="utf-8")]
        assert len(gists) == 1
        assert f"folded_into: {gists[0].name}" in (demo_root / "archive" / a).read_text(encoding="utf-8")


async def test_rejecting_a_pair_is_remembered(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        pairs = len(app.workspace.candidates.pairs)
        await press(pilot, "x")
        assert (demo_root / ".memtui" / "rejected.json").exists()
        assert len(app.workspace.candidates.pairs) == pairs - 1


async def test_external_change_is_noticed_and_reloaded(demo_root: Path) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)  # no timer: the test looks at the folder when the timer would
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        app.poll_folder()
        await settle(pilot)
        assert not [m for m in posted if isinstance(m, app.FolderChanged)]  # nothing changed yet
        (demo_root / "project_written_by_the_agent.md").write_text(
            "---\nname: fresh\ndescription: d\ntype: project\n---\nnew\n", encoding="utf-8")
        app.poll_folder()
        await settle(pilot)
        assert [m for m in posted if isinstance(m, app.FolderChanged)]
        assert "project_written_by_the_agent.md" in app.workspace.snapshot.files
        assert any(f.rule == "orphan" and f.path == "project_written_by_the_agent.md"
                   for f in app.workspace.findings)


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as $EDITOR")
async def test_edit_runs_editor_then_revalidates(demo_root: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    editor = tmp_path / "fake-editor.sh"
    editor.write_text("#!/bin/sh\nprintf '\\nEdited by hand.\\n' >> \"$1\"\n", encoding="utf-8")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        path = app.selected_path()
        await press(pilot, "e")
        await settle(pilot)
        assert (demo_root / path).read_text(encoding="utf-8").endswith("Edited by hand.\n")
        assert "Edited by hand." in app.workspace.snapshot.files[path].text
        # the edit went through the writer: journaled, and undo restores the file
        assert list((demo_root / ".memtui" / "journal").glob("*.json"))
        # the $EDITOR copy is removed once its bytes are in the folder
        assert app.edit_copies == {}
        assert not list(Path(tempfile.gettempdir()).glob("memtui-edit-*"))
        await press(pilot, "u")
        await settle(pilot)
        assert not (demo_root / path).read_text(encoding="utf-8").endswith("Edited by hand.\n")


async def test_empty_folder_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "memory"
    root.mkdir()
    app = make_app(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.workspace.is_empty
        text = str(app.main.query_one("#no-index").render())
        assert "no memory yet" in text
        for key in "12345":
            await press(pilot, key)


async def test_no_index_offers_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text("---\nname: a\ndescription: the a fact\ntype: project\n---\nA\n",
                               encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert not app.workspace.has_index
        assert "No MEMORY.md" in str(app.main.query_one("#no-index").render())
        await press(pilot, "R")
        assert isinstance(app.screen, ConfirmChange) and app.screen.plan.accepted
        await press(pilot, "y")
        assert (root / "MEMORY.md").exists()
        assert app.workspace.has_index


async def test_root_picker_opens_the_chosen_root(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    roots = []
    for name in ("one", "two"):
        root = tmp_path / name
        root.mkdir()
        (root / "MEMORY.md").write_text(f"# {name}\n\n- [{name}]({name}.md) — the {name} fact\n",
                                        encoding="utf-8")
        (root / f"{name}.md").write_text(f"---\nname: {name}\ndescription: d\ntype: user\n---\n",
                                         encoding="utf-8")
        roots.append(root)
    app = make_app(*roots)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RootPickerScreen)
        await press(pilot, "down", "enter")
        assert app.workspace is not None and app.workspace.root == roots[1].absolute()
        await press(pilot, "o")
        assert isinstance(app.screen, RootPickerScreen)
        await press(pilot, "escape")
        assert not isinstance(app.screen, RootPickerScreen)


def test_run_opens_a_folder_without_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``memtui PATH`` on a folder with no MEMORY.md opens the app (its empty state), not an error."""
    import argparse

    import memtui.app as app_module
    from memtui.cli import open_app

    seen = {}

    def fake_run(self: app_module.MemtuiApp) -> int:
        seen["roots"] = self.roots
        return 0

    monkeypatch.setattr(app_module.MemtuiApp, "run", fake_run)
    code = open_app.run(argparse.Namespace(path=str(tmp_path), demo=False, read_only=False))
    assert code == 0 and seen["roots"] == [tmp_path.absolute()]


def test_run_demo_uses_a_fresh_copy_and_removes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import memtui.app as app_module
    from memtui.cli.main import main
    from memtui.core.read.demo import demo_source

    seen = {}

    def fake_run(self: app_module.MemtuiApp) -> int:
        (root,) = self.roots
        seen["root"] = root
        seen["digest"] = digest(root)
        seen["writable"] = os.access(root, os.W_OK)
        seen["scope_named"] = f"Scope: `{root.parent.absolute()}/web`" in (
            root / "MEMORY.md").read_text(encoding="utf-8")
        return 0

    monkeypatch.setattr(app_module.MemtuiApp, "run", fake_run)
    assert main(["--demo", "--read-only"]) == 0
    root = seen["root"]
    assert root != demo_source() and seen["writable"]
    # the bundled demo, but naming the copy's own location (the web scope's Scope:)
    bundled = digest(demo_source())
    assert {p: h for p, h in seen["digest"].items() if h != bundled.get(p)}.keys() == {
        "MEMORY.md", "path/web/SCOPE.md"}
    assert seen["scope_named"]
    assert not root.exists()  # the copy is removed on quitting


async def test_an_edited_gist_is_checked_then_written(demo_root: Path) -> None:
    from textual.widgets import TextArea

    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "5", "m")
        gist = app.screen.query_one("#merge-gist", TextArea)
        gist.text = "# GC runbook\n\nEdited in the review: run GC with a dry run first.\n"
        await press(pilot, "ctrl+s")  # at once, before the verdict caught up with the edit
        assert not isinstance(app.screen, MergeReviewScreen)
        gists = [p for p in demo_root.glob("*.md")
                 if "consolidated_from:" in p.read_text(encoding="utf-8")]
        assert len(gists) == 1
        assert "Edited in the review" in gists[0].read_text(encoding="utf-8")
