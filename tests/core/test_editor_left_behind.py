"""Edited copies a memtui left behind when it ended while its editor ran (core.verbs.editor)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from memtui.core.verbs.editor import NOTE_NAME, edit_copy, left_behind


def typed(launch_text: bytes | None):  # type: ignore[no-untyped-def]
    """An editor that writes ``launch_text`` into the copy (None: leaves it as it was)."""
    def launch(command: list[str]) -> int:
        if launch_text is not None:
            Path(command[-1]).write_bytes(launch_text)
        return 0
    return launch


def as_if_dead(copy: Path) -> None:
    """The note's memtui is another process (the test's own is always running)."""
    note = json.loads((copy.parent / NOTE_NAME).read_text())
    (copy.parent / NOTE_NAME).write_text(json.dumps({**note, "pid": 999_999_999}))


def test_an_untouched_copy_of_a_memtui_gone_is_removed() -> None:
    edited = edit_copy("a.md", b"fact\n", typed(None), origin="/root/memory/a.md")
    as_if_dead(edited.copy)
    assert left_behind(alive=lambda pid: False) == []
    assert not edited.copy.parent.exists()


def test_a_copy_holding_typing_is_kept_and_named_with_its_file() -> None:
    edited = edit_copy("a.md", b"fact\n", typed(b"fact, and what I typed\n"), origin="/root/memory/a.md")
    as_if_dead(edited.copy)
    found = left_behind(alive=lambda pid: False)
    assert [(f.copy, f.origin) for f in found] == [(edited.copy, "/root/memory/a.md")]
    assert edited.copy.read_bytes() == b"fact, and what I typed\n"  # kept: nothing typed is lost
    edited.discard()


def test_the_copies_of_a_running_memtui_and_foreign_folders_are_left_alone() -> None:
    mine = edit_copy("a.md", b"fact\n", typed(b"typing\n"))  # this process: running
    other = edit_copy("b.md", b"fact\n", typed(None))
    as_if_dead(other.copy)
    stray = Path(tempfile.mkdtemp(prefix="memtui-edit-"))  # no note: not known to be a copy
    (stray / "c.md").write_text("x")
    assert left_behind(alive=lambda pid: pid != 999_999_999) == []
    assert mine.copy.exists() and not other.copy.parent.exists() and (stray / "c.md").exists()
    assert left_behind(alive=lambda pid: True) == []
    mine.discard()
    (stray / "c.md").unlink()
    stray.rmdir()
