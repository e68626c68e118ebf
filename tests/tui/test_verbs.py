"""Keys that change the folder: assert on the files on disk, and that undo gives the bytes back."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.notifications import Notify

from memtui.commands import BY_NAME
from memtui.screens.confirm import ConfirmChange
from memtui.widgets.working_set_view import WorkingSetView
from tests.support.app import RECENT_FIRST, digest, focus_recent, make_app, press, settle


def memory_md(root: Path) -> str:
    return (root / "MEMORY.md").read_text(encoding="utf-8")


async def test_pin_by_keystroke_writes_frontmatter_and_pinned_entry(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        await press(pilot, "p")
        text = (demo_root / RECENT_FIRST).read_text(encoding="utf-8")
        assert "pinned: true" in text
        pinned_block = memory_md(demo_root).split("## Recent")[0]
        assert f"]({RECENT_FIRST})" in pinned_block
        pinned_pane = app.main.query_one("#pane-pinned")
        assert any(row.path == RECENT_FIRST for row in pinned_pane.rows)
        assert app.selected_path() == RECENT_FIRST  # the cursor followed the file


async def test_a_change_posts_an_undoable_outcome_and_undo_does_not(demo_root: Path) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        await press(pilot, "p", "u")
        applied = [m.outcome for m in posted if isinstance(m, app.Applied)]
        assert [(o.ok, o.undoable) for o in applied] == [(True, True), (True, False)]
        assert applied[0].message.startswith("pin ")
        notes = [m.notification.message for m in posted if isinstance(m, Notify)]
        assert notes[-2].endswith("· u undoes it") and not notes[-1].endswith("u undoes it")


async def test_pin_then_decay_then_undo_both_restores_every_byte(demo_root: Path) -> None:
    before = digest(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        await press(pilot, "p")
        assert digest(demo_root) != before
        await press(pilot, "p")  # unpin (same key)
        assert "pinned: true" not in (demo_root / RECENT_FIRST).read_text(encoding="utf-8")
        await focus_recent(pilot)
        await press(pilot, "d")
        assert f"]({RECENT_FIRST})" not in memory_md(demo_root)
        await press(pilot, "u", "u", "u")
        assert digest(demo_root) == before


async def test_decay_applies_at_once_and_keeps_the_file_reachable(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        await press(pilot, "d")
        assert (demo_root / RECENT_FIRST).exists()
        assert f"]({RECENT_FIRST})" not in memory_md(demo_root)
        archive_index = (demo_root / "MEMORY-archive.md").read_text(encoding="utf-8")
        assert RECENT_FIRST in archive_index
        assert not [f for f in app.workspace.findings if f.rule == "orphan" and f.path == RECENT_FIRST]


async def test_archive_asks_first_and_moves_the_file_on_yes(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        await press(pilot, "a")
        assert isinstance(app.screen, ConfirmChange)
        assert app.screen.plan.accepted
        assert (demo_root / RECENT_FIRST).exists()  # nothing written yet
        await press(pilot, "y")
        assert not (demo_root / RECENT_FIRST).exists()
        assert (demo_root / "archive" / RECENT_FIRST).exists()


async def test_archive_cancelled_touches_nothing(demo_root: Path) -> None:
    before = digest(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        await press(pilot, "a", "n")
        assert not isinstance(app.screen, ConfirmChange)
        assert digest(demo_root) == before


async def test_read_only_disables_every_verb(demo_root: Path) -> None:
    before = digest(demo_root)
    app = make_app(demo_root, read_only=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        for key in ("p", "d", "P", "a", "r", "s", "u", "U", "R", "e", "m"):
            await press(pilot, key)
            assert not isinstance(app.screen, ConfirmChange)
        assert app.check_action("command", ("pin_entry",)) is False  # hidden from the footer
        assert app.check_action("command", ("show_help",)) is True
        assert app.why_not(BY_NAME["pin_entry"]) == "read-only: changes are disabled (--read-only)"
        assert digest(demo_root) == before


async def test_promote_on_an_over_budget_index_is_refused_with_the_reason(make_root) -> None:
    lines = ["# Memory", "", "## Recent"]
    files: dict[str, str] = {}
    for i in range(205):
        files[f"note_{i:03d}.md"] = f"---\nname: note {i}\ndescription: d\ntype: project\n---\nbody {i}\n"
        lines.append(f"- [note {i}](note_{i:03d}.md) — hook {i}")
    files["loose.md"] = "---\nname: loose\ndescription: d\ntype: project\n---\nbody\n"
    lines.append("- region `loose*.md` → loose ends")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    root = make_root(files)
    before = digest(root)
    app = make_app(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.main.show_view("files")
        await settle(pilot)
        assert app.main.view("files").select_path("loose.md")
        await press(pilot, "P")
        assert isinstance(app.screen, ConfirmChange)
        assert not app.screen.plan.accepted
        assert "over its 200-line cap" in app.screen.plan.reason
        await press(pilot, "escape")
        assert digest(root) == before


async def test_quick_fix_adds_an_entry_for_an_orphan(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        orphans = [f for f in app.workspace.findings if f.rule == "orphan"]
        assert orphans
        await press(pilot, "2")
        assert app.main.view("problems").selected_finding().rule == "orphan"
        await press(pilot, "f")
        assert f"]({orphans[0].path})" in memory_md(demo_root)
        assert not [f for f in app.workspace.findings if f.rule == "orphan"]


async def test_working_set_survives_an_external_change(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        assert isinstance(app.main.view(), WorkingSetView)
        (demo_root / "project_brand_new.md").write_text(
            "---\nname: brand new\ndescription: d\ntype: project\n---\nnew\n", encoding="utf-8")
        app.post_message(app.FolderChanged())
        await settle(pilot)
        assert "project_brand_new.md" in app.workspace.snapshot.files
        assert app.selected_path() == RECENT_FIRST  # the user's place is kept
