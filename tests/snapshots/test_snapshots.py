"""Snapshot tests: one per visible state, at a fixed size and clock, with no blinking cursor.

Each docstring says what a reviewer should see in the SVG.  Update the baselines with
``pytest tests/snapshots --snapshot-update`` only after reading the report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.support.app import make_app, settle
from tests.support.roots import freeze_mtimes

SIZE = (130, 40)


def ready(*keys: str, then: Callable[[Any], Any] | None = None) -> Callable[[Any], Any]:
    """A ``run_before`` that waits for every worker, presses keys, and lets the preview draw."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        if then is not None:
            result = then(pilot)
            if hasattr(result, "__await__"):
                await result
            await settle(pilot)
        await settle(pilot)  # the preview follows the cursor at once (no debounce in tests)

    return run_before


def over_budget_root(tmp_path: Path) -> Path:
    """230 entries: the loader cuts at line 201, and a pressure history to draw."""
    root = tmp_path / "memory"
    root.mkdir()
    lines = ["# Memory", "", "## Pinned",
             "- [Deploy checklist](deploy_checklist.md) — the six steps, in order, every release",
             "", "## Recent"]
    (root / "deploy_checklist.md").write_text(
        "---\nname: Deploy checklist\ndescription: six steps\ntype: reference\npinned: true\n"
        "updated: 2026-11-20\n---\n\n1. Freeze.\n2. Tag.\n", encoding="utf-8")
    for i in range(230):
        name = f"note_{i:03d}.md"
        (root / name).write_text(
            f"---\nname: Note {i}\ndescription: fact {i}\ntype: project\n"
            f"updated: 2026-{(i % 11) + 1:02d}-{(i % 27) + 1:02d}\n---\n\nFact number {i}.\n",
            encoding="utf-8")
        lines.append(f"- [Note {i}]({name}) — fact {i} about the build")
    lines += ["", "## Regions", "- region `lesson_*.md` → older lessons; grep the memory dir"]
    (root / "lesson_flaky_ci.md").write_text(
        "---\nname: Flaky CI\ndescription: retry once\ntype: feedback\nupdated: 2026-10-01\n---\n"
        "\nRetry once, then look.\n", encoding="utf-8")
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    samples = [("2026-11-20", 0.91), ("2026-11-22", 0.97), ("2026-11-24", 1.04),
               ("2026-11-26", 1.1), ("2026-11-28", 1.17)]
    with open(root / ".memory-pressure.jsonl", "w", encoding="utf-8") as handle:
        for day, utilization in samples:
            handle.write(json.dumps({"date": day, "utilization": utilization}) + "\n")
    freeze_mtimes(root)
    return root


def test_demo_main_screen(snap_compare: Any, demo_root: Path) -> None:
    """The demo's working set: Pinned (3, starred), Recent (with the broken Helm entry marked ✗
    "missing file"), Regions with file counts; the budget gauge at 27% of the lines and 87% of
    the bytes ("full", green), tokens; the first pinned file previewed with its staleness
    breakdown and frontmatter; the status line says 2 errors and 1 warning."""
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=ready())


def test_over_budget_folder_shows_the_cut(snap_compare: Any, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """An index of 240 lines: the gauge's lines bar is red with "OVER BUDGET", the cut at line
    201 and how many entries are not loaded, and a rising pressure sparkline; in the Recent pane
    the cursor sits on the first entry the loader never reads, just under the "✂ loader cut"
    rule: the rows above are loaded, those below greyed and marked ⊘ "not loaded"; the Recent
    border subtitle counts them."""
    monkeypatch.chdir(tmp_path)
    root = over_budget_root(tmp_path)

    def to_the_cut(pilot: Any) -> None:
        working = pilot.app.main.view("working")
        assert working.select_line(pilot.app.workspace.budget.cut_line)

    assert snap_compare(make_app(root), terminal_size=SIZE, run_before=ready(then=to_the_cut))


def test_staleness_view(snap_compare: Any, demo_root: Path) -> None:
    """The Staleness tab: every file by score, highest first (session and project files score
    prune in red), with action, class, type, age and guards; the header counts prune / review /
    keep; the preview shows the first file's breakdown (age from `updated`, half-life 14 days)."""
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=ready("4"))


def test_merge_review(snap_compare: Any, demo_root: Path) -> None:
    """The merge review of the two GC runbooks: side by side with − / + / ~ markers and the
    changed characters highlighted; the gist (editable) pre-filled by the merge verb; the
    provenance (consolidated_from, folded_into, the moves to archive/) and the validator's
    verdict with the operations; the footer offers Accept, Skip, Reject, Edit gist, Back."""
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=ready("5", "m"))


def test_confirm_dialog(snap_compare: Any, demo_root: Path) -> None:
    """Archiving the first Recent entry asks first: the dialog names the change, says the
    validator accepts it, lists the move and the two index writes, and shows the diff of
    MEMORY.md (the entry removed in red) and MEMORY-archive.md; Apply (y) and Cancel (n)."""
    assert snap_compare(make_app(demo_root), terminal_size=SIZE, run_before=ready("tab", "a"))


def test_refused_change(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Promoting a file into an index that is already over its line cap is refused: a red
    dialog titled "Refused:" says nothing was written and gives the gate's reason (MEMORY.md
    would grow while over its 200-line cap); only Close is offered."""
    monkeypatch.chdir(tmp_path)
    root = over_budget_root(tmp_path)

    def select_lesson(pilot: Any) -> None:
        pilot.app.main.show_view("files")

    async def pick(pilot: Any) -> None:
        await settle(pilot)
        assert pilot.app.main.view("files").select_path("lesson_flaky_ci.md")

    async def run_before(pilot: Any) -> None:
        await ready(then=select_lesson)(pilot)
        await pick(pilot)
        await pilot.press("P")
        await settle(pilot)

    assert snap_compare(make_app(root), terminal_size=SIZE, run_before=run_before)


def test_help_screen(snap_compare: Any, demo_root: Path) -> None:
    """The help screen lists every key from the action registry by group (changes, moving
    around, views, app), each with one sentence, and the list keys (j/k, g/G, enter, esc)."""
    assert snap_compare(make_app(demo_root), terminal_size=(130, 60), run_before=ready("question_mark"))


def test_command_palette(snap_compare: Any, demo_root: Path) -> None:
    """The command palette (ctrl+p) over the Working set, the first pinned file selected, "mark"
    typed: Mark / unmark (space) and Mark all shown (*) apply, each with its help; Clear marks
    says "not here: nothing is marked …", Mark seen and Mark all seen "not here: marking seen
    applies to the Inbox view (6)" — the registry's reasons for this screen, never "not on
    this screen"."""

    def steady_cursor(pilot: Any) -> None:
        from textual.widgets import Input

        pilot.app.screen.query_one(Input).cursor_blink = False

    assert snap_compare(make_app(demo_root), terminal_size=SIZE,
                        run_before=ready("ctrl+p", *"mark", then=steady_cursor))


def test_empty_folder(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty folder: the working-set tab explains that the folder holds no memory yet, how
    memory gets there, and that R writes a first MEMORY.md; the status line says 1 error
    (index-missing)."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "memory"
    root.mkdir()
    assert snap_compare(make_app(root), terminal_size=SIZE, run_before=ready())


def test_no_memory_md(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three topic files and no MEMORY.md: the tab says the agent loads nothing from this
    folder, that 3 files were found and none is reachable, and offers R (rebuild, shown as a
    diff first) or 3 (the Files view); the status line counts the errors (index missing)."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "memory"
    root.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (root / f"project_{name}.md").write_text(
            f"---\nname: {name}\ndescription: the {name} fact\ntype: project\n---\n\n{name}\n",
            encoding="utf-8")
    freeze_mtimes(root)
    assert snap_compare(make_app(root), terminal_size=SIZE, run_before=ready())


def test_root_picker(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three roots found: the picker lists each as the fleet view does — files, MEMORY.md lines
    and characters against the caps, how full it is, the cut, errors, warnings, the pressure
    log's peak, the agent's last change and the dream's count — with the over-full one marked
    ``!`` and its reasons ("1 error, index cut") in the why column (the layer column does not
    fit at 130); the cursor is on the first, the line under the list says nothing needs
    attention there; enter opens it."""
    monkeypatch.chdir(tmp_path)
    over = over_budget_root(tmp_path)
    small = tmp_path / "agents" / "reviewer"
    small.mkdir(parents=True)
    (small / "MEMORY.md").write_text("# Reviewer\n\n- [Style](style.md) — tabs, not spaces\n",
                                     encoding="utf-8")
    (small / "style.md").write_text("---\nname: Style\ndescription: d\ntype: feedback\n---\nTabs.\n",
                                    encoding="utf-8")
    half = tmp_path / "agents" / "writer"
    half.mkdir(parents=True)
    body = "".join(f"- [n{i}](n{i}.md) — hook {i}\n" for i in range(110))
    (half / "MEMORY.md").write_text("# Writer\n\n" + body, encoding="utf-8")
    for i in range(110):
        (half / f"n{i}.md").write_text(f"---\nname: n{i}\ndescription: d\ntype: project\n---\nx\n",
                                       encoding="utf-8")
    roots = sorted([over, small, half])
    assert snap_compare(make_app(*roots), terminal_size=SIZE, run_before=ready())


def index_text_root(tmp_path: Path) -> Path:
    """The over-budget root with frontmatter and a history comment on top of its index."""
    root = over_budget_root(tmp_path)
    index = root / "MEMORY.md"
    index.write_text("---\nname: Memory\ndescription: the build's memory\n---\n"
                     "<!-- history:\n2026-11-20 rebuilt by memtui\n-->\n"
                     + index.read_text(encoding="utf-8"), encoding="utf-8")
    freeze_mtimes(root)
    return root


@pytest.mark.parametrize("size", [(80, 24), SIZE], ids=["80x24", "wide"])
def test_index_text(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    size: tuple[int, int]) -> None:
    """``i`` then ``c``: MEMORY.md numbered as on disk, scrolled to the loader's cut — the rule
    "✂ loader cut · line 208 · 39 lines below not loaded (claude-code: …)" between line 207 (the
    gutter's │) and line 208 (greyed, ✂ in the gutter); the title says "memory/MEMORY.md · as on
    disk", the bottom border "loader claude-code · 246 lines in the file · 7 stripped · cut at line
    208"; the footer offers Close and Jump to the cut."""
    monkeypatch.chdir(tmp_path)
    root = index_text_root(tmp_path)
    assert snap_compare(make_app(root), terminal_size=size, run_before=ready("i", "c"))


def test_index_text_top(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``i`` at 80×24: the top of the index — lines 1–4 (frontmatter) and 5–7 (the comment)
    greyed with · in the gutter, each block labelled "← stripped, not loaded (claude-code: …)"."""
    monkeypatch.chdir(tmp_path)
    root = index_text_root(tmp_path)
    assert snap_compare(make_app(root), terminal_size=(80, 24), run_before=ready("i"))
