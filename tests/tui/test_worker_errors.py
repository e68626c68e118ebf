"""One worker error policy: a worker that raises is a notice naming what failed, never a crash;
the app goes on (and a change that failed reads the folder again)."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.notifications import Notify

from memtui.services import scoring, writer
from tests.support.app import digest, make_app, press, settle

RECENT_FILE = "project_gc_concurrent_mark.md"


def notes(posted: list[Message]) -> list[str]:
    return [str(m.notification.message) for m in posted if isinstance(m, Notify)]


def boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("boom")


async def test_a_failing_plan_is_a_notice_and_the_app_goes_on(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        app.main.view().select_path(RECENT_FILE)
        before = digest(demo_root)
        monkeypatch.setattr(writer, "plan", boom)
        await press(pilot, "p")
        assert "planning the change failed: boom" in notes(posted)
        assert app.is_running and app.return_code is None
        assert gc.isenabled()  # the collector held for the change is released
        assert digest(demo_root) == before
        monkeypatch.undo()
        await press(pilot, "p")  # the next change works
        assert digest(demo_root) != before


async def test_a_failing_scan_is_a_notice(demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        monkeypatch.setattr(scoring, "scan", boom)
        await press(pilot, "5", "S")
        assert "the duplicate scan failed: boom" in notes(posted)
        assert app.is_running and app.return_code is None
        assert app.main.query_one("#status").busy == ""


async def test_a_failing_merge_verdict_is_a_notice(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.screens.merge_review import MergeReviewScreen

    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        monkeypatch.setattr(writer, "plan", boom)
        await press(pilot, "5", "m")
        assert isinstance(app.screen, MergeReviewScreen)
        assert "checking the merge failed: boom" in notes(posted)
        assert app.is_running and app.return_code is None
