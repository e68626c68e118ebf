"""Temp folders: what memtui makes in the temp folder lands under the test's ``tmp_path``.

The run as a whole is checked too: ``tests/conftest.py`` points the temp folder at a private
one when the session starts and fails the run if anything is left in it at the end.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from memtui.core.demo import copy_demo, remove_demo_copy
from memtui.core.editor import edit_copy


def test_the_temp_folder_is_under_tmp_path(tmp_path: Path) -> None:
    assert Path(tempfile.gettempdir()).is_relative_to(tmp_path)


def test_a_demo_copy_and_an_edit_copy_land_under_tmp_path(tmp_path: Path) -> None:
    root = copy_demo(with_git=False)
    assert root.is_relative_to(tmp_path)
    remove_demo_copy(root)
    assert not root.exists()
    edited = edit_copy("a.md", b"text\n", launch=lambda command: 0)
    assert edited.copy.is_relative_to(tmp_path) and not edited.changed
    edited.discard()
    assert list(Path(tempfile.gettempdir()).iterdir()) == []
