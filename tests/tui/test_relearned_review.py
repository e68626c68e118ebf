"""The same note in many projects, in the app (``M``): every root on a scratch ``CLAUDE_CONFIG_DIR``
scanned in a worker, each re-learned group listed unchecked with the copy kept, the user layer
and the copies to retire, the texts side by side; the checked groups applied as one change across
the roots that ``u`` takes back; read-only and a failing scan said in words."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList, CommandPalette
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import SelectionList, Static

from memtui.commands import BY_NAME, help_groups, keymap_conflicts
from memtui.core.model.journal import list_records
from memtui.screens import relearned as screen_module
from memtui.screens.relearned import RelearnedScreen
from tests.support.app import make_app, press, screen_lines, settle
from tests.support.roots import topic
from tests.support.writer import tree

LESSON = ("Always run the database migrations in a transaction before deploying, and roll the "
          "migration back by hand when the deploy fails halfway through.\n")
OTHER = ("Never force-push to a shared branch: open a revert commit instead, so that nobody's "
         "history is rewritten under them.\n")


def project(config: Path, name: str, notes: dict[str, tuple[str, str]], mtime: float) -> Path:
    """``<config>/projects/<name>/memory`` with a project note and these feedback notes
    (file → (title, body)), each indexed, the feedback notes' times set (the newest is kept)."""
    root = config / "projects" / name / "memory"
    root.mkdir(parents=True)
    index = "# Memory\n\n## Recent\n- [Deploy notes](project_deploy.md) — how this one ships\n"
    (root / "project_deploy.md").write_text(topic("Deploy notes", "how this one ships", "project",
                                                  "Ships by hand.\n"))
    for path, (title, body) in notes.items():
        (root / path).write_text(topic(title, title.lower(), "feedback", body))
        os.utime(root / path, (mtime, mtime))
        index += f"- [{title}]({path}) — {title.lower()}\n"
    (root / "MEMORY.md").write_text(index)
    return root


MIGRATIONS = {"feedback_migrations.md": ("Migrations in a transaction", LESSON)}


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A scratch Claude Code config: the migrations lesson in a, b and c (b's newest, with a line
    more), the force-push lesson in b and d, e with neither, and an empty user layer."""
    config = tmp_path / "claude"
    roots = {
        "a": project(config, "-w-a", MIGRATIONS, 1_700_000_000),
        "b": project(config, "-w-b", {
            "feedback_migrations.md": ("Migrations in a transaction", LESSON + "Said again in March.\n"),
            "feedback_force_push.md": ("No force-push", OTHER)}, 1_700_000_900),
        "c": project(config, "-w-c", MIGRATIONS, 1_700_000_500),
        "d": project(config, "-w-d", {"feedback_force_push.md": ("No force-push", OTHER)}, 1_700_001_000),
        "e": project(config, "-w-e", {}, 0),
    }
    user = config / "memory"
    user.mkdir()
    (user / "MEMORY.md").write_text("# Memory\n\n## Recent\n")
    roots["user"] = user
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    return roots


def notes(posted: list[Message]) -> list[str]:
    return [str(m.notification.message) for m in posted if isinstance(m, Notify)]


def text_of(app: Any, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def everything(machine: dict[str, Path]) -> dict[str, dict[str, bytes]]:
    return {name: tree(root) for name, root in machine.items()}


async def open_review(pilot: Any) -> RelearnedScreen:
    await press(pilot, "M")
    screen = pilot.app.screen
    assert isinstance(screen, RelearnedScreen)
    return screen


async def test_the_review_lists_each_group_unchecked_with_its_copies_and_roots(machine) -> None:
    app = make_app(machine["a"])
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        screen = await open_review(pilot)
        groups = screen.query_one("#relearned-groups", SelectionList)
        assert groups.option_count == 2 and groups.selected == []  # nothing checked to begin with
        prompts = [str(groups.get_option_at_index(i).prompt) for i in range(2)]
        assert prompts[0].startswith("Migrations in a transaction  ×3 projects · keep -w-b/memory")
        assert prompts[1].startswith("No force-push  ×2 projects · keep -w-d/memory")
        assert "2 groups in 6 roots, 0 checked" in text_of(app, "#relearned-title")
        detail = text_of(app, "#relearned-detail")
        assert "keep    -w-b/memory/feedback_migrations.md" in detail
        assert f"to      {machine['user']} (the user layer)" in detail
        assert {line.removeprefix("retire  ") for line in detail.splitlines() if line.startswith("retire")} == {
            "-w-a/memory/feedback_migrations.md (1 line differs)",
            "-w-c/memory/feedback_migrations.md (1 line differs)"}
        shown = "\n".join(screen_lines(app))
        assert "kept · -w-b/memory" in shown and "(1 of 2, c: next)" in shown
        assert "− Said again in March." in shown  # the kept copy's line the other lacks, marked
        await press(pilot, "c")
        assert "(2 of 2, c: next)" in "\n".join(screen_lines(app))
        assert "nothing to apply" in text_of(app, "#relearned-verdict")


async def test_the_checked_groups_are_one_change_across_the_roots_and_u_undoes_it(machine) -> None:
    before = everything(machine)
    posted: list[Message] = []
    app = make_app(machine["a"])
    async with app.run_test(size=(200, 50), message_hook=posted.append) as pilot:
        await settle(pilot)
        await open_review(pilot)
        await press(pilot, "enter")  # nothing checked: nothing happens
        assert isinstance(app.screen, RelearnedScreen) and everything(machine) == before
        await press(pilot, "space", "j", "space")
        verdict = text_of(app, "#relearned-verdict")
        assert "accepts the 2 checked groups as one change in 5 roots" in verdict
        await press(pilot, "enter")
        assert not isinstance(app.screen, RelearnedScreen)
        assert {"feedback_migrations.md", "feedback_force_push.md"} <= set(os.listdir(machine["user"]))
        assert "Said again in March." in (machine["user"] / "feedback_migrations.md").read_text()
        for name in "abcd":
            assert not list(machine[name].glob("feedback_*.md")), name
            assert len(list_records(machine[name])) == 1, name  # one record in each root
        assert everything(machine)["e"] == before["e"]
        assert any("promoted 2 notes to the user layer, 3 other copies archived — one change in "
                   "5 roots · u undoes it" in note for note in notes(posted))
        assert app.root == machine["a"]  # the open root was one of them: it stays open
        await press(pilot, "u")
        assert everything(machine) == before


async def test_from_a_root_the_change_does_not_touch_the_user_layer_opens_and_u_undoes_it(machine) -> None:
    before = everything(machine)
    posted: list[Message] = []
    app = make_app(machine["e"])
    async with app.run_test(size=(200, 50), message_hook=posted.append) as pilot:
        await settle(pilot)
        await open_review(pilot)
        await press(pilot, "space", "enter")
        assert app.root == machine["user"] and machine["user"] in app.roots
        assert app.main.selected_path() == "feedback_migrations.md"
        assert any("one change in 4 roots; the user layer is shown now · u undoes it in all 4 roots"
                   in note for note in notes(posted))
        assert everything(machine)["d"] == before["d"]  # the group left unchecked is untouched
        await press(pilot, "u")
        assert everything(machine) == before


async def test_a_user_layer_that_is_no_root_yet_is_said_and_nothing_applies(machine) -> None:
    (machine["user"] / "MEMORY.md").unlink()
    before = everything(machine)
    app = make_app(machine["a"])
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await open_review(pilot)
        assert "not a memory root yet" in text_of(app, "#relearned-detail")
        await press(pilot, "space")
        assert "holds no MEMORY.md yet" in text_of(app, "#relearned-verdict")
        await press(pilot, "enter")
        assert isinstance(app.screen, RelearnedScreen) and everything(machine) == before


async def test_read_only_makes_the_review_unavailable_and_says_why(machine) -> None:
    posted: list[Message] = []
    app = make_app(machine["a"], read_only=True)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        await press(pilot, "M")
        assert not isinstance(app.screen, RelearnedScreen)
        assert "Same note, many projects: read-only: changes are disabled (--read-only)" in notes(posted)
        await press(pilot, "ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        for char in "many projects":
            await pilot.press(char)
        await settle(pilot)
        options = app.screen.query_one(CommandList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any("Same note, many projects  (M)" in text and "not here: read-only" in text
                   for text in shown), shown


async def test_the_palette_runs_it_where_changes_are_possible(machine) -> None:
    app = make_app(machine["a"])
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+p")
        for char in "same note":
            await pilot.press(char)
        await settle(pilot)
        options = app.screen.query_one(CommandList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any(BY_NAME["relearned_review"].help[:40] in text for text in shown), shown
        await press(pilot, "enter")
        assert isinstance(app.screen, RelearnedScreen)


def test_its_key_is_its_own_and_help_lists_it() -> None:
    assert keymap_conflicts({}) == {}
    rows = [(keys, label) for _, group in help_groups() for keys, label, _ in group]
    assert ("M", "Same note, many projects") in rows
    assert keymap_conflicts({"relearned_review": "m"}) == {"m": ("merge_review", "relearned_review")}


async def test_the_scan_says_how_far_it_is_while_it_reads(machine, monkeypatch) -> None:
    """The worker reports each root read; the title counts them until the groups come."""
    real = screen_module.scan_machine
    reported, go_on = threading.Event(), threading.Event()

    def slow(config: Any, threshold: Any = None, *, progress: Any = None, cancelled: Any = None) -> Any:
        progress(0, 6)
        reported.set()
        go_on.wait(10)
        return real(config, threshold, progress=progress, cancelled=cancelled)

    monkeypatch.setattr(screen_module, "scan_machine", slow)
    app = make_app(machine["a"])
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("M")
        reported.wait(10)
        for _ in range(50):  # the progress message is handled on the next rounds of the loop
            await pilot.pause(0)
            if "scanning 6 roots (0 read)" in text_of(app, "#relearned-title"):
                break
        assert "scanning 6 roots (0 read)" in text_of(app, "#relearned-title")
        assert app.screen.query_one("#relearned-groups").loading
        go_on.set()
        await settle(pilot)
        assert "2 groups in 6 roots" in text_of(app, "#relearned-title")
        await press(pilot, "j")
        assert "retire  -w-b/memory/feedback_force_push.md (identical)" in text_of(app, "#relearned-detail")


async def test_a_failing_scan_is_the_apps_notice_and_the_screen_says_so(machine, monkeypatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(screen_module, "scan_machine", boom)
    posted: list[Message] = []
    app = make_app(machine["a"])
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        await open_review(pilot)
        assert "the scan of every root failed: boom" in notes(posted)
        assert "could not scan the roots" in text_of(app, "#relearned-title")
        assert app.is_running
        await press(pilot, "escape")
        assert not isinstance(app.screen, RelearnedScreen)


async def test_nothing_relearned_says_so(tmp_path, monkeypatch) -> None:
    config = tmp_path / "claude"
    only = project(config, "-w-a", MIGRATIONS, 0)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.chdir(only)
    app = make_app(only)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await open_review(pilot)
        assert "none found: no lesson is re-learned in several projects (1 root read)" in text_of(
            app, "#relearned-title")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_it_reads_at_80x24_and_200x50(machine, size) -> None:
    app = make_app(machine["a"])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await open_review(pilot)
        lines = screen_lines(app)
        assert any("Migrations in a transaction" in line for line in lines)
        assert any("kept · -w-b/memory" in line for line in lines)
        assert any("Apply checked" in line for line in lines)


async def test_a_keymap_moves_it_to_another_key(machine) -> None:
    app = make_app(machine["a"], keymap={"relearned_review": "ctrl+y"})
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "M")
        assert not isinstance(app.screen, RelearnedScreen)  # M no longer opens it
        await press(pilot, "ctrl+y")
        assert isinstance(app.screen, RelearnedScreen)
