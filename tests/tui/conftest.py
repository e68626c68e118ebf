"""Fixtures for the Pilot tests: a demo copy in a temp folder, the current folder beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import copy_demo_to


@pytest.fixture
def demo_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the bundled demo at ``<tmp>/memory``; the current folder is ``<tmp>``."""
    monkeypatch.chdir(tmp_path)
    return copy_demo_to(tmp_path / "memory")
