"""The app's scope filter, promotion to another layer (and its undo) and the Handoff pane."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from textual.widgets import Input

from memtui.screens.confirm import ConfirmChange
from memtui.screens.pick_file import PickFileScreen
from memtui.screens.root_picker import RootPickerScreen
from memtui.screens.scope_prompt import ScopePromptScreen
from memtui.widgets.files_view import FileList
from memtui.widgets.handoff_pane import HandoffPane
from memtui.widgets.working_set import WorkingSetPane
from tests.support.app import digest, make_app, press, settle
from tests.support.roots import topic

SCOPED = {
    "MEMORY.md": (
        "# Memory\n## GLOBAL\n- [Style](global/style.md) — house style\n"
        "- [Old](global/old.md) — superseded style\n"
        "## PATH_SCOPE: app\nScope: `/w/app`\nMemory base: `path/app/`\n- `a.md` — app fact\n"
        "## PATH_SCOPE: other\nScope: `/w/other`\nMemory base: `path/other/`\n- `o.md` — other fact\n"
    ),
    "global/style.md": topic("Style"),
    "global/old.md": topic("Old", superseded_by="global/style.md"),
    "path/app/SCOPE.md": "# app\n",
    "path/app/a.md": topic("A"),
    "path/other/SCOPE.md": "# other\n",
    "path/other/o.md": topic("O"),
}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def pane_rows(app, pane: str) -> dict[str, WorkingSetPane]:  # type: ignore[no-untyped-def]
    widget = app.main.query_one(f"#pane-{pane}", WorkingSetPane)
    return {row.path: widget for row in widget.rows if row.path}


async def test_scope_filter_dims_what_does_not_apply_with_the_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = write(tmp_path / "memory", SCOPED)
    app = make_app(root)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "A")
        assert isinstance(app.screen, ScopePromptScreen)
        app.screen.query_one("#scope-input").value = "/w/app/src"
        await press(pilot, "enter")
        recent = app.main.query_one("#pane-recent", WorkingSetPane)
        rows = {row.path: row for row in recent.rows}
        dim = {path for path, row in rows.items() if recent.is_dim(row)}
        assert dim == {"global/old.md", "path/other/o.md"}
        text = recent.render_item(rows["path/other/o.md"], 150).plain
        assert "does not apply: scope /w/other is elsewhere" in text
        assert "does not apply" not in recent.render_item(rows["path/app/a.md"], 150).plain
        assert "superseded by global/style.md" in recent.render_item(rows["global/old.md"], 150).plain
        assert "2 not in scope" in str(recent.border_subtitle)
        await press(pilot, "3")  # the Files view dims the same files
        files = app.main.query_one(FileList)
        assert {row.path for row in app.workspace.files if files.is_dim(row)} == {
            "global/old.md", "path/other/o.md"}
        await press(pilot, "A")
        app.screen.query_one("#scope-input").value = ""
        await press(pilot, "enter")  # an empty path clears the filter
        assert not any(files.is_dim(row) for row in app.workspace.files)


@pytest.fixture
def two_layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    local = write(tmp_path / "local", {
        "MEMORY.md": "# Memory\n\n## Recent\n- [Deploy](deploy.md) — deploy from release only\n"
                     "- [Keep](keep.md) — stays local\n",
        "deploy.md": topic("Deploy", "deploy from release only", "feedback"),
        "keep.md": topic("Keep", "stays local"),
    })
    shared = write(tmp_path / "shared", {
        "MEMORY.md": "# Team\n\n## Recent\n- [Build](build.md) — how the build runs\n",
        "build.md": topic("Build", "how the build runs"),
    })
    return local, shared


async def promote_key_on(pilot, path: str) -> None:  # type: ignore[no-untyped-def]
    """From the root picker: open the first root, put the cursor on ``path``, press L."""
    await settle(pilot)
    assert isinstance(pilot.app.screen, RootPickerScreen)
    await press(pilot, "enter")
    assert pilot.app.main.view("working").select_path(path)
    await settle(pilot)
    await press(pilot, "L")


async def test_promote_from_the_app_then_undo_restores_both_roots(two_layers: tuple[Path, Path]) -> None:
    local, shared = two_layers
    before = (digest(local), digest(shared))
    app = make_app(local, shared)
    async with app.run_test(size=(160, 40)) as pilot:
        await promote_key_on(pilot, "deploy.md")  # one other root: straight to the confirmation
        assert app.root == local
        assert isinstance(app.screen, ConfirmChange) and app.screen.plan.accepted
        assert any(str(shared) in line for line in app.screen.plan.operations)
        await press(pilot, "y")
        assert (shared / "deploy.md").exists() and (local / "archive" / "deploy.md").exists()
        assert "promoted_from:" in (shared / "deploy.md").read_text(encoding="utf-8")
        assert "deploy.md" in app.workspace.snapshot.archive_index.render().decode()
        await press(pilot, "u")
        assert (digest(local), digest(shared)) == before


async def test_promote_asks_which_root_when_there_are_several(two_layers: tuple[Path, Path],
                                                              tmp_path: Path) -> None:
    local, shared = two_layers
    third = write(tmp_path / "third", {"MEMORY.md": "# Third\n"})
    app = make_app(local, shared, third)
    async with app.run_test(size=(160, 40)) as pilot:
        await promote_key_on(pilot, "keep.md")
        assert isinstance(app.screen, PickFileScreen)
        assert sorted(app.screen.choices) == [f"other: {shared}", f"other: {third}"]
        assert app.screen.query_one("#pick-input", Input).placeholder == "type part of a layer or folder name…"
        await press(pilot, "escape")
        assert not (shared / "keep.md").exists() and not (third / "keep.md").exists()


async def test_promote_refused_by_the_target_changes_neither_root(two_layers: tuple[Path, Path]) -> None:
    local, shared = two_layers
    (shared / "MEMORY.md").write_text("# Team\n" + "note\n" * 199, encoding="utf-8")
    (shared / "build.md").unlink()
    before = (digest(local), digest(shared))
    app = make_app(local, shared)
    async with app.run_test(size=(160, 40)) as pilot:
        await promote_key_on(pilot, "deploy.md")
        assert isinstance(app.screen, ConfirmChange) and not app.screen.plan.accepted
        assert str(shared) in app.screen.plan.verdict and "budget-lines" in app.screen.plan.verdict
        await press(pilot, "escape")
        assert (digest(local), digest(shared)) == before


async def test_handoff_pane_beside_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    project = tmp_path / "proj"
    root = write(project / "memory", {"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": topic("A")})
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(project, {".claude/session-state.md":
                    "## Handoff: 2020-01-01\n## Working On\n- x\n" + "- line\n" * 90})
    app = make_app(root)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        pane = app.main.query_one(HandoffPane)
        assert pane.display and pane.has_class("-warn")
        text = str(pane.render())
        assert "STALE" in text and "TOO LONG" in text and "93/80 lines" in text
        assert "missing Modified Files" in text
        rules = {f.rule for f in app.workspace.findings}
        assert {"state-stale", "state-too-long"} <= rules


async def test_no_state_file_no_handoff_pane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = write(tmp_path / "memory", {"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": topic("A")})
    app = make_app(root)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert not app.main.query_one(HandoffPane).display
        assert not [f for f in app.workspace.findings if f.rule.startswith("state-")]
