"""The read column, the ``read:`` facet and the preview's line, on real Claude Code transcripts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.app import make_app, press, screen_lines, settle
from tests.support.usage import install_fixtures


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return install_fixtures(tmp_path)


async def test_staleness_view_shows_reads_and_filters_dead(recorded: Path) -> None:
    app = make_app(recorded)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.workspace.usage is not None and app.workspace.usage.total_sessions == 3
        await press(pilot, "4")
        lines = screen_lines(app)
        # the header is one line, cut at the list's width: its legend is read from the line's text
        header = str(app.main.view("staleness").query_one("#stale-header").text)
        assert "◇ guards · read: of the last 3 sessions" in header
        assert "? 3 ages unknown (a copy's times)" in header  # the fixture writes its files at once
        assert "action  read refs" in next(line for line in lines if "score" in line and "action" in line)
        # an unknown age scores as one half-life (review) and shows '?'; known ones keep
        rows = {name: next(line.split("│")[0] for line in lines if line.startswith(name))
                for name in ("build_steps.md", "deploy_notes.md", "scratch_idea.md", "code_style.md")}
        assert " review   2/3 no refs" in rows["build_steps.md"] and rows["build_steps.md"].split()[-1] == "?"
        assert " review  dead no refs" in rows["deploy_notes.md"] and rows["deploy_notes.md"].split()[-1] == "?"
        assert " review  miss no refs" in rows["scratch_idea.md"] and rows["scratch_idea.md"].split()[-1] == "?"
        assert " keep     1/3 no refs" in rows["code_style.md"]
        await press(pilot, "slash", *"read:dead")
        assert [r.path for r in app.main.view("staleness").stale_list.items] == ["deploy_notes.md"]


async def test_files_view_read_facet_and_preview_line(recorded: Path) -> None:
    app = make_app(recorded)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "slash", *"read:missing")
        assert [r.path for r in app.main.view("files").shown] == ["scratch_idea.md"]
        await press(pilot, "escape", "slash", *"read:active style")
        assert [r.path for r in app.main.view("files").shown] == ["code_style.md"]
        await press(pilot, "enter")
        text = "\n".join(screen_lines(app))
        assert "read in 1 of the last 3 sessions, last 2026-12-01" in text
        assert "last written by session fd15f464 on 2026-12-01" in text


async def test_no_transcripts_no_read_column(make_root) -> None:  # type: ignore[no-untyped-def]
    root = make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": "---\nname: a\ndescription: a\ntype: user\n---\na\n"})
    app = make_app(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "4")
        header = next(line for line in screen_lines(app) if "score" in line and "file" in line)
        assert "read" not in header
