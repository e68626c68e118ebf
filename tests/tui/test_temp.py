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
