"""The app opens a folder from someone else without a traceback and without writing outside it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tui_support import make_app, settle

from tests.conftest import topic
from tests.core.test_escapes import snap

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
