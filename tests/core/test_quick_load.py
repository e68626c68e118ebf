"""The loader's quick mode: the indexes and the files they list, nothing else, nothing outside."""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.read.store import load_indexed, load_root
from tests.support.roots import topic


def test_quick_mode_reads_only_what_the_index_lists(make_root) -> None:
    root = make_root({
        "MEMORY.md": "# Memory\n\n- [A](a.md) — a\n- [Gone](gone.md) — broken\n",
        "a.md": topic("A"),
        "unlisted.md": topic("U"),
        "sub/b.md": topic("B"),
    })
    quick = load_indexed(root)
    full = load_root(root)
    assert list(quick.files) == ["a.md"]
    assert quick.files["a.md"] == full.files["a.md"]
    assert quick.index.lines == full.index.lines


def test_quick_mode_does_not_follow_a_link_out_of_the_root(make_root, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text(topic("secret"), encoding="utf-8")
    root = make_root({"MEMORY.md": "# Memory\n\n- [S](s.md) — s\n"})
    os.symlink(secret, root / "s.md")
    assert load_indexed(root).files == {}


def test_quick_mode_of_a_folder_without_index_is_empty(make_root) -> None:
    snapshot = load_indexed(make_root({"a.md": topic("A")}))
    assert not snapshot.index.exists and snapshot.files == {}
