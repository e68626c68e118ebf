"""The app's Inbox view and Dream screen, driven with Pilot on a copy of the demo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memtui.core.model.journal import list_records
from memtui.screens.dream import DreamScreen
from memtui.widgets.inbox_view import InboxView
from tests.support.app import digest, make_app, press, screen_lines, settle
from tests.support.dream_plans import two_closed_sprints


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "cache"))


async def test_inbox_lists_outside_changes_and_marks_them_seen(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.inbox is not None and app.inbox.seeded
        path = demo_root / "feedback_small_prs.md"
        path.write_bytes(path.read_bytes() + b"Also: one reviewer per PR.\n")
        (demo_root / "lesson_minio_etag_quirk.md").rename(demo_root / "lesson_minio_etags.md")
        await press(pilot, "ctrl+r")
        await press(pilot, "6")
        assert app.main.active_view_name == "inbox"
        assert str(app.main.query_one("#views").get_tab("inbox").label) == "Inbox 2"
        view = app.main.query_one(InboxView)
        kinds = {(c.kind, c.path) for c in view.inbox.changes}
        assert kinds == {("changed", "feedback_small_prs.md"), ("renamed", "lesson_minio_etags.md")}
        await press(pilot, "n")  # the selected (newest) change
        assert len(app.inbox.changes) == 1
        await press(pilot, "N")
        assert app.inbox.changes == ()
        assert str(app.main.query_one("#views").get_tab("inbox").label) == "Inbox"


async def test_dream_untoggle_one_apply_then_undo(demo_root: Path) -> None:
    original = digest(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.plan is not None
        plan = screen.plan
        checked = sorted(plan.default)
        assert len(checked) >= 2
        merge_at = next(i for i in checked if plan.items[i].kind == "merge")
        for _ in range(merge_at):
            await press(pilot, "down")
        await press(pilot, "space")  # untoggle the merge
        assert screen.selected == plan.default - {merge_at}
        assert screen.judged == screen.selected and screen.preview is not None and screen.preview.accepted
        await press(pilot, "a")
        assert not isinstance(app.screen, DreamScreen)
        assert len(list_records(demo_root)) == 1
        merged = plan.items[merge_at].paths
        assert all((demo_root / p).exists() for p in merged)  # the untoggled item was not applied
        assert digest(demo_root) != original
        await press(pilot, "u")
        assert digest(demo_root) == original


async def test_revert_from_the_inbox_then_undo(demo_root: Path) -> None:
    """v on an agent's edit writes back the seen bytes (one journal record); u restores the edit."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        path = demo_root / "feedback_small_prs.md"
        seen_bytes = path.read_bytes()
        agent = seen_bytes.replace(b"---\n", b"---\nmetadata:\n  originSessionId: 6931618e-aaaa\n", 1) \
            + b"Also: one reviewer per PR.\n"
        path.write_bytes(agent)
        await press(pilot, "ctrl+r", "6")
        view = app.main.query_one(InboxView)
        assert [(c.path, c.session) for c in view.inbox.changes] == \
            [("feedback_small_prs.md", "6931618e-aaaa")]
        records = len(list_records(demo_root))
        await press(pilot, "v")
        await press(pilot, "y")
        assert path.read_bytes() == seen_bytes
        assert len(list_records(demo_root)) == records + 1
        assert app.inbox.changes == ()
        await press(pilot, "u")
        assert path.read_bytes() == agent


async def test_an_unavailable_inbox_says_so_in_the_inbox(demo_root: Path, tmp_path: Path) -> None:
    (demo_root / ".memtui").mkdir(exist_ok=True)
    (tmp_path / "elsewhere").mkdir()
    (demo_root / ".memtui" / "seen").symlink_to(tmp_path / "elsewhere")  # refused: a symlink
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "6")
        view = app.main.query_one(InboxView)
        assert view.inbox is not None and view.inbox.changes == ()  # before: no inbox at all,
        assert "the inbox is unavailable" in view.inbox.note  # the header "looking for changes…"
    assert list((tmp_path / "elsewhere").iterdir()) == []


async def test_a_name_that_is_not_utf8_is_one_change_in_the_inbox(demo_root: Path) -> None:
    import os

    bad = os.fsdecode(b"project_\xff\xfebad.md")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        (demo_root / bad).write_bytes(b"---\nname: bad\ndescription: bad\ntype: project\n---\n\nx\n")
        await press(pilot, "ctrl+r")
        await press(pilot, "6")
        view = app.main.query_one(InboxView)
        assert view.inbox is not None and not view.inbox.note
        assert [(c.kind, c.path) for c in view.inbox.changes] == [("added", bad)]
        await press(pilot, "N")  # before: the store could not be saved ("surrogates not allowed")
        assert app.inbox is not None and app.inbox.changes == ()


async def test_the_folders_readme_waits_unchecked_and_is_listed_once_checked(demo_root: Path) -> None:
    """A README the folder's publisher put there is offered as the unchecked ``documents`` item; the
    header stops counting it as waiting once it is checked (the shorten of an index that loads in
    full still waits), and applying lists it."""
    (demo_root / "README.md").write_text("# Team memory\n\nWhat this folder is, for people.\n", encoding="utf-8")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.plan is not None
        at = next(i for i, item in enumerate(screen.plan.items) if item.kind == "documents")
        assert at not in screen.selected
        # the README, and the demo's shorten: its index loads in full, so trimming is headroom
        waiting = [item.kind for item in screen.plan.items if not item.checked]
        assert sorted(waiting) == ["documents", "shorten"]
        assert any("2 waiting for you" in line for line in screen_lines(app))
        for _ in range(at):
            await press(pilot, "down")
        await press(pilot, "space")
        assert at in screen.selected and any("1 waiting for you" in line for line in screen_lines(app))
        assert screen.judged == screen.selected and screen.preview is not None and screen.preview.accepted
        await press(pilot, "a")
        assert "(README.md)" in (demo_root / "MEMORY.md").read_text(encoding="utf-8")


async def test_a_dream_with_nothing_to_do_names_the_errors_no_pass_fixes(tmp_path: Path) -> None:
    """Links that leave the root are errors no pass can fix: "nothing to do" would hide them
    (the status line counts them); the Dream names them, and applies nothing."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- [Deploy](../ops/deploy.md) — how we deploy\n"
                                    "- [Keys](/etc/keys.md) — where the keys are\n", encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.plan is not None and not screen.plan.items
        shown = "\n".join(screen_lines(app))
        assert "nothing to do" not in shown
        assert "nothing a pass can do: 2 errors need a person" in shown
        assert "no pass fixes these: the Problems view lists them" in shown
        assert "link-escapes-root MEMORY.md:3 — '../ops/deploy.md' points outside" in shown
        assert "Apply" not in shown


async def test_a_dream_with_nothing_to_do_offers_nothing_to_apply(tmp_path: Path) -> None:
    """A folder that needs no pass: the Dream says so, shows no empty diff claiming files move,
    and its footer offers no Apply."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- Build with make, never by hand.\n", encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.plan is not None and not screen.plan.items
        shown = "\n".join(screen_lines(app))
        assert "nothing to do: the folder needs no maintenance" in shown
        assert "files are only moved" not in shown and "Apply" not in shown
        before = digest(root)
        await press(pilot, "a")
        assert digest(root) == before
        await press(pilot, "escape")
        assert not isinstance(app.screen, DreamScreen)


async def test_the_dream_screen_plans_on_the_cached_load_as_a_plain_load_does(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.core.dream import plan as dream
    from memtui.core.read.store import load_root
    from memtui.core.stores import statcache
    from memtui.core.stores.rejections import read_rejected
    from tests.support.app import NOW

    monkeypatch.setattr(statcache, "RACY_NS", -10**12)  # every file old enough to keep
    expected = dream.plan_dream(load_root(demo_root), NOW, rejected=read_rejected(demo_root))
    shown = []
    for _ in range(2):  # cold: the stat cache learns; warm: the plan from what it kept
        app = make_app(demo_root)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert app.workspace is not None and statcache.cache_of(app.workspace.snapshot) is not None
            await press(pilot, "D")
            screen = app.screen
            assert isinstance(screen, DreamScreen) and screen.plan is not None
            shown.append(screen.plan)
            await press(pilot, "escape")
        assert statcache.StatCache.open(demo_root).section("memo-successors")
    assert expected.items
    for plan in shown:
        assert plan.items == expected.items and plan.default == expected.default
        assert [i.diff for i in plan.items] == [i.diff for i in expected.items]


async def test_dream_splits_the_strong_successors_and_applies_all_but_the_one_left_out(make_root: Any) -> None:
    root = make_root(two_closed_sprints())
    app = make_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.plan is not None
        at = next(i for i, item in enumerate(screen.plan.items) if item.parts)
        assert not screen.check_action("split", ())  # the first item has no parts: Split is hidden
        for _ in range(at):
            await press(pilot, "down")
        assert screen.check_action("split", ())
        count, before, judged = len(screen.plan.items), screen.plan, screen.preview
        await press(pilot, "l")
        plan = screen.plan
        assert len(plan.items) == count + 1 and screen.items_list.highlighted == at
        assert screen.selected == frozenset(range(len(plan.items)))  # each part checked as the item was
        assert "sprint2_plan → sprint2_closed" in "\n".join(screen_lines(app))
        await press(pilot, "space")  # leave the first fold out
        assert screen.judged == screen.selected and screen.preview is not None and screen.preview.accepted
        # a verdict on the plan before the split, late, on positions that now mean other items
        screen.post_message(DreamScreen.Judged(before, screen.selected, judged))
        await settle(pilot)
        assert screen.preview is not judged
        await press(pilot, "a")
        assert not isinstance(app.screen, DreamScreen)
    assert (root / "session_2026-05-22_sprint2_plan.md").exists()
    assert (root / "archive/session_2026-05-23_sprint3_plan.md").exists()
    assert len(list_records(root)) == 1
