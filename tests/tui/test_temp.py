"""Temp folders: what memtui makes in the temp folder lands in pytest's folders, not in /tmp.

The run as a whole is checked too: ``tests/conftest.py`` points the temp folder at a private
one when the session starts and fails the run if anything is left in it at the end.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from memtui.core.read.demo import copy_demo, remove_demo_copy
from memtui.core.verbs.editor import edit_copy


def test_the_temp_folder_is_pytests(tmp_path_factory: pytest.TempPathFactory) -> None:
    temp = Path(tempfile.gettempdir())
    assert temp.is_relative_to(tmp_path_factory.getbasetemp()) and list(temp.iterdir()) == []


def test_a_demo_copy_and_an_edit_copy_land_in_pytests_folder(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.getbasetemp()
    root = copy_demo(with_git=False)
    assert root.is_relative_to(base)
    remove_demo_copy(root)
    assert not root.exists()
    edited = edit_copy("a.md", b"text\n", launch=lambda command: 0)
    assert edited.copy.is_relative_to(base) and not edited.changed
    edited.discard()
    assert list(Path(tempfile.gettempdir()).iterdir()) == []


async def test_the_app_names_an_edit_a_memtui_left_behind_and_removes_an_untouched_one(
        demo_root: Path) -> None:
    import json

    from memtui.core.verbs.editor import NOTE_NAME
    from tests.support.app import make_app, notice_hook, settle

    def left(text: bytes) -> Path:
        def launch(command: list[str]) -> int:
            Path(command[-1]).write_bytes(text)
            return 0
        edited = edit_copy("a.md", b"fact\n", launch, origin=str(demo_root / "a.md"))
        note = json.loads((edited.copy.parent / NOTE_NAME).read_text())
        (edited.copy.parent / NOTE_NAME).write_text(json.dumps({**note, "pid": 999_999_999}))  # gone
        return edited.copy

    typed, untouched = left(b"fact, and typing\n"), left(b"fact\n")
    app = make_app(demo_root)
    notices: list[str] = []
    async with app.run_test(size=(140, 40), message_hook=notice_hook(notices)) as pilot:
        await settle(pilot)
        assert any(f"an edit of {demo_root / 'a.md'} that never reached the folder is kept at {typed}" in m
                   for m in notices), notices
    assert typed.read_bytes() == b"fact, and typing\n" and not untouched.parent.exists()
    typed.unlink()
    (typed.parent / NOTE_NAME).unlink()
    typed.parent.rmdir()
