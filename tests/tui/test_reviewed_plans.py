"""What a screen reviewed is what the app applies: the Dream's checked items and a merge are
posted up as the gated plan (``DreamScreen.Chosen``, ``MergeReviewScreen.Accepted``) and
committed without being built or gated again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from memtui.core.dream import plan as dream
from memtui.core.model.journal import list_records
from memtui.screens.dream import DreamScreen
from memtui.screens.merge_review import MergeReviewScreen
from memtui.services import writer
from tests.support.app import digest, make_app, press, settle


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


async def test_the_dream_applies_the_preview_it_showed(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    posted: list[Message] = []
    original = digest(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 36), message_hook=posted.append) as pilot:
        await settle(pilot)
        await press(pilot, "D")
        screen = app.screen
        assert isinstance(screen, DreamScreen) and screen.preview is not None
        assert screen.preview.accepted
        reviewed = screen.preview
        built = count_calls(monkeypatch, dream, "compose_items")
        planned = count_calls(monkeypatch, writer, "plan")
        await press(pilot, "a")
        chosen = {id(m): m for m in posted if isinstance(m, DreamScreen.Chosen)}
        assert [m.plan.preview for m in chosen.values()] == [reviewed]
        assert not built and not planned  # applied as reviewed: nothing built or gated again
        assert len(list_records(demo_root)) == 1
        assert digest(demo_root) != original
        await press(pilot, "u")
        assert digest(demo_root) == original


async def test_an_accepted_merge_is_posted_up_and_applied_once(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        assert app.main.selected_candidate() is not None
        await press(pilot, "m")
        screen = app.screen
        assert isinstance(screen, MergeReviewScreen) and screen.plan is not None
        reviewed = screen.plan
        applied = count_calls(monkeypatch, writer, "apply")
        await press(pilot, "ctrl+s")
        accepted = {id(m): m for m in posted if isinstance(m, MergeReviewScreen.Accepted)}
        assert [m.plan for m in accepted.values()] == [reviewed]  # one message (seen as it bubbles)
        assert len(applied) == 1
        assert len(list_records(demo_root)) == 1
