"""The one folder walk: what it enters, what it flags, and how a caller prunes it."""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.model.walk import memory_entries, walk, walk_root


def tree(tmp_path: Path, paths: list[str]) -> Path:
    root = tmp_path / "tree"
    root.mkdir(exist_ok=True)
    for rel in paths:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n", encoding="utf-8")
    return root


def test_walk_lists_every_folder_once_with_its_prefix_and_depth(tmp_path: Path) -> None:
    root = tree(tmp_path, ["a.md", "sub/b.md", "sub/deep/c.md"])
    seen = {f.prefix: f.depth for f in walk(root)}
    assert seen == {"": 0, "sub/": 1, "sub/deep/": 2}


def test_clearing_subfolders_prunes(tmp_path: Path) -> None:
    root = tree(tmp_path, ["sub/deep/c.md"])
    prefixes = []
    for folder in walk(root):
        prefixes.append(folder.prefix)
        folder.subfolders.clear()
    assert prefixes == [""]


def test_symlinked_folders_are_never_entered(tmp_path: Path) -> None:
    root = tree(tmp_path, ["real/a.md"])
    os.symlink(root / "real", root / "link")
    assert [f.prefix for f in walk(root)] == ["", "real/"]


def test_walk_root_skips_dot_folders_and_flags_nested_roots(tmp_path: Path) -> None:
    root = tree(tmp_path, ["MEMORY.md", "a.md", ".memtui/x.md", "other/MEMORY.md", "other/b.md",
                           "topic/c.md", "topic/dir.md/d.md"])
    folders = {f.prefix: f for f in walk_root(root)}
    assert set(folders) == {"", "other/", "topic/", "topic/dir.md/"}
    assert folders["other/"].nested and not folders["topic/"].nested
    assert sorted(rel for rel, _ in memory_entries(root)) == [
        "MEMORY.md", "a.md", "topic/c.md", "topic/dir.md/d.md"]


def test_a_folder_that_cannot_be_listed_comes_with_its_error(tmp_path: Path) -> None:
    folders = list(walk(tmp_path / "missing"))
    assert len(folders) == 1 and isinstance(folders[0].error, OSError)


def test_an_unordered_walk_lists_the_same_folders_and_entries(tmp_path: Path) -> None:
    root = tree(tmp_path, [f"f{i:03d}.md" for i in range(50)] + ["b/x.md", "a/y.md", "a/c/z.md"])
    os.symlink(root / "a", root / "link")

    def seen(ordered: bool) -> dict[str, tuple[set[str], set[str]]]:
        return {f.prefix: ({e.name for e in f.entries}, {e.name for e in f.subfolders})
                for f in walk(root, ordered=ordered)}

    assert seen(False) == seen(True)
    assert [e.name for e in next(iter(walk(root))).entries] == sorted(os.listdir(root))


class _Unaskable:
    """A folder entry whose type cannot be asked (``is_dir`` raises, as an lstat can)."""

    name = "gone"

    def is_dir(self, follow_symlinks: bool = True) -> bool:
        raise PermissionError("cannot stat")


def test_an_entry_whose_type_cannot_be_asked_is_no_folder(tmp_path: Path) -> None:
    from memtui.core.model import walk as walk_module

    root = tree(tmp_path, ["sub/a.md"])
    entries = [*os.scandir(root), _Unaskable()]
    assert [e.name for e in walk_module._real_dirs(entries)] == ["sub"]  # type: ignore[arg-type]
