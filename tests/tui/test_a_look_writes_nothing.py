"""Opening the app is a look (DESIGN §1.6): nothing is created in the folder — no ``.memtui/``,
no lock, no seen store, no pressure log — until the first change; the inbox's baseline goes to
the user's cache, and memtui's own changes still stay out of the Inbox after that change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.app import make_app, press, settle

TOPIC = "---\nname: {0}\ndescription: about {0}\ntype: project\n---\n{0} body\n"


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


async def look_everywhere(root: Path, size: tuple[int, int] = (80, 24)) -> None:
    """Open the app on ``root``, visit every view and the inbox, quit."""
    app = make_app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key in "234561":
            await press(pilot, key)


def near_budget(make_root: Any) -> Path:
    """A root whose index is at 93% of its 200 lines."""
    lines = ["# Memory", ""] + [f"- [T{i}](t{i}.md) — fact {i}" for i in range(184)]
    files = {"MEMORY.md": "\n".join(lines) + "\n"}
    files.update({f"t{i}.md": TOPIC.format(f"t{i}") for i in range(184)})
    return make_root(files, name="near")


@pytest.mark.parametrize("kind", ["demo", "empty", "code", "near-budget"])
async def test_opening_the_app_creates_nothing_in_the_folder(
        kind: str, demo_root: Path, make_root: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMTUI_NO_PRESSURE")  # the app itself must not sample
    if kind == "demo":
        root = demo_root
    elif kind == "empty":
        root = tmp_path / "empty"
        root.mkdir()
    elif kind == "code":
        root = make_root({"main.py": "print(1)\n", "notes.md": "# notes\n"}, name="code")
    else:
        root = near_budget(make_root)
    before = files_under(root)
    await look_everywhere(root)
    assert files_under(root) == before


async def test_after_the_first_change_the_inbox_still_skips_memtuis_own(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "6")
        assert app.inbox is not None and not app.inbox.changes
        assert not (demo_root / ".memtui").exists()
        await press(pilot, "1", "p")  # the first change: the journal goes into the root
        assert (demo_root / ".memtui" / "journal").is_dir()
        await press(pilot, "6")
        assert app.inbox is not None and not app.inbox.changes  # the pin is memtui's own
        (demo_root / "feedback_small_prs.md").write_text(TOPIC.format("changed"), encoding="utf-8")
        app.reload()
        await settle(pilot)
        await press(pilot, "6")
        assert app.inbox is not None
        assert [c.path for c in app.inbox.changes] == ["feedback_small_prs.md"]
    assert not (demo_root / ".memtui" / "seen").exists()  # the baseline stayed in the cache


async def test_the_inbox_does_not_call_a_writable_folder_unwritable(demo_root: Path) -> None:
    """The baseline is in the cache by choice now: the Inbox said "the folder cannot be written"."""
    app = make_app(demo_root)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "6")
        assert app.inbox is not None and app.inbox.in_cache
        header = str(app.main.view("inbox").query_one(".list-header").render())
        assert header and "cannot be written" not in header
