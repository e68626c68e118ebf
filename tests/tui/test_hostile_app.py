"""The app opens a folder from someone else without a traceback and without writing outside it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify

from tests.support.app import make_app, screen_lines, settle
from tests.support.roots import topic
from tests.support.writer import snap

INDEX = "# Memory\n\n## Recent\n- [Alpha](a.md) — the alpha fact\n"


def _root(tmp_path: Path, kind: str, outside: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.md").write_text(topic("Alpha", "alpha fact"))
    (root / "title\x1b]0;pwned\x07.md").write_text(topic("Evil", "evil \x1b[2J"))
    if kind == "index-loop":
        (root / "MEMORY.md").symlink_to("MEMORY.md")
        return root
    (root / "MEMORY.md").write_text(INDEX)
    if kind == "symlinked-memtui":
        (root / ".memtui").symlink_to(outside, target_is_directory=True)
    elif kind == "crafted-record":
        journal = root / ".memtui" / "journal"
        journal.mkdir(parents=True)
        (journal / "00000001-do.pending.json").write_text(json.dumps(
            {"id": "00000001-do", "ops": [], "before": {"../outside/x.sh": {"text": "evil"}},
             "modes": {"../outside/x.sh": 0o4755}}))
    return root


@pytest.mark.parametrize("kind", ["index-loop", "symlinked-memtui", "crafted-record"])
async def test_the_app_opens_a_hostile_folder(tmp_path: Path, kind: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.chmod(outside, 0o1777)
    root = _root(tmp_path, kind, outside)
    before = snap(outside)
    app = make_app(root)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.workspace is not None
    assert snap(outside) == before
    assert not (outside / "x.sh").exists()


def _notes(posted: list[Message]) -> list[tuple[str, str]]:
    return [(str(m.notification.message), m.notification.severity)
            for m in posted if isinstance(m, Notify)]


async def test_opening_says_which_record_recovery_set_aside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("untouched")
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.md").write_text(topic("Alpha", "alpha fact"))
    (root / "MEMORY.md").write_text(INDEX)
    journal = root / ".memtui" / "journal"
    journal.mkdir(parents=True)
    (journal / "00000001-do.pending.json").write_text(json.dumps(
        {"id": "00000001-do", "kind": "do", "verb": "pin", "description": "crafted",
         "ops": [{"op": "write", "path": "../outside/x", "data": {"text": "new"},
                  "expected": {"text": "evil"}}],
         "before": {"../outside/x": {"text": "evil"}}, "modes": {"../outside/x": 0o4755}}))
    before = snap(outside)
    posted: list[Message] = []
    app = make_app(root)
    async with app.run_test(size=(120, 36), message_hook=posted.append) as pilot:
        await settle(pilot)
        assert app.workspace is not None
    [(text, severity)] = [n for n in _notes(posted) if "journal record" in n[0]]
    assert severity == "warning"
    assert "set aside the journal record .memtui/journal/00000001-do.pending.json" in text
    assert "'../outside/x' is not a plain path inside the root" in text
    assert "rolled back" not in text  # nothing was applied, so nothing was rolled back
    assert (root / ".memtui" / "quarantine" / "00000001-do.pending.json").is_file()
    assert snap(outside) == before
    assert not (outside / "x").exists()


async def test_opening_says_an_interrupted_change_was_rolled_back(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    old, new = topic("Alpha", "alpha fact"), topic("Alpha", "half-written")
    (root / "a.md").write_text(new)
    (root / "MEMORY.md").write_text(INDEX)
    journal = root / ".memtui" / "journal"
    journal.mkdir(parents=True)
    (journal / "00000001-do.pending.json").write_text(json.dumps(
        {"id": "00000001-do", "kind": "do", "verb": "pin", "description": "interrupted",
         "ops": [{"op": "write", "path": "a.md", "data": {"text": new}, "expected": {"text": old}}],
         "before": {"a.md": {"text": old}}}))
    posted: list[Message] = []
    app = make_app(root)
    async with app.run_test(size=(120, 36), message_hook=posted.append) as pilot:
        await settle(pilot)
    [(text, severity)] = [n for n in _notes(posted) if "rolled back" in n[0]]
    assert severity == "warning"
    assert "(00000001-do)" in text and "journal record" not in text
    assert "alpha fact" in (root / "a.md").read_text()


async def test_no_control_character_of_a_file_reaches_the_terminal(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- [Evil \x1b[2J](evil.md) — evil \x1b]0;PWNED\x07 note\n")
    (root / "evil.md").write_text(topic("Evil \x1b[2J title", "evil \x1b]0;PWNED\x07 desc \u202e",
                                        body="Body \x1b[2J clear \x1b]8;;http://x\x1b\\ link \x9b31m\n"))
    app = make_app(root)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "PWNED" in text and "Body" in text  # the file is on the screen ...
        for control in ("\x1b", "\x07", "\x9b", "\u202e"):
            assert control not in text, control  # ... without what would drive the terminal
