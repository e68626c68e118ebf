"""memtui's bookkeeping files (pressure log, rejected pairs, anything under ``.memtui/``) go through
the writer's lock and safe file layer: never through a symlink or a hard link, never outside."""

from __future__ import annotations

import json
import os
import stat
from datetime import date
from pathlib import Path

import pytest

from memtui.core import write
from memtui.core.model.safepath import UnsafePath, check_side_file, check_stored_path, clamp_mode
from memtui.core.read.store import load_root
from memtui.core.stores.pressure import read_pressure, record_pressure
from memtui.core.stores.rejections import read_rejected, remember_rejected
from tests.support.roots import MakeRoot
from tests.support.writer import snap


@pytest.fixture
def full_root(make_root: MakeRoot) -> Path:
    return make_root({"MEMORY.md": "x\n" * 185})  # 93% of the line cap: a pressure sample is due


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "bashrc").write_bytes(b"alias ls='ls -F'\n")
    return folder


def test_a_symlinked_pressure_log_is_not_appended_through(full_root: Path, outside: Path) -> None:
    (full_root / ".memory-pressure.jsonl").symlink_to(outside / "bashrc")
    before = snap(outside)
    assert not record_pressure(load_root(full_root), date(2026, 11, 29))
    assert snap(outside) == before
    assert read_pressure(full_root) == []  # not read through the link either


def test_a_hard_linked_pressure_log_is_not_appended_through(full_root: Path, outside: Path) -> None:
    os.link(outside / "bashrc", full_root / ".memory-pressure.jsonl")
    before = snap(outside)
    assert not record_pressure(load_root(full_root), date(2026, 11, 29))
    assert snap(outside) == before


def test_the_pressure_log_is_appended_under_the_lock(full_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    held: list[bool] = []
    original = write.append_side_file

    def seeing(root: Path, rel: str, line: bytes, timeout: float = 5.0) -> None:
        with write.root_lock(root):  # re-entrant: the call below holds the same lock
            held.append(True)
            original(root, rel, line, timeout)

    monkeypatch.setattr(write, "append_side_file", seeing)
    assert record_pressure(load_root(full_root), date(2026, 11, 29))
    assert held == [True]
    assert [s["date"] for s in read_pressure(full_root)] == ["2026-11-29"]


def test_rejected_pairs_refuse_a_symlinked_file_and_outside_names(make_root: MakeRoot, outside: Path) -> None:
    root = make_root({"MEMORY.md": "# m\n"})
    (root / ".memtui").mkdir()
    (root / ".memtui" / "rejected.json").symlink_to(outside / "bashrc")
    before = snap(outside)
    with pytest.raises(ValueError, match="symlink"):
        remember_rejected(root, "a.md", "b.md")
    assert read_rejected(root) == frozenset()
    assert snap(outside) == before
    (root / ".memtui" / "rejected.json").unlink()
    (root / ".memtui" / "rejected.json").write_text(json.dumps({"pairs": [["a.md", "../../x.md"]]}))
    assert read_rejected(root) == frozenset()  # a file naming a path outside is not used
    with pytest.raises(ValueError, match="not a plain path"):
        remember_rejected(root, "a.md", "b.md")


def test_side_files_are_confined_to_bookkeeping(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "# m\n", "a.md": "a\n"})
    for rel in ("a.md", "MEMORY.md", "../x", ".memtui/../a.md", ".memtui", "/etc/x", ".memtui/a\\b"):
        with pytest.raises(write.UnsafeFolder):
            write.write_side_file(root, rel, b"x")
    write.write_side_file(root, ".memtui/seen/store.json", b"{}")
    assert (root / ".memtui/seen/store.json").read_bytes() == b"{}"
    assert stat.S_IMODE((root / ".memtui/seen/store.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((root / ".memtui/seen").stat().st_mode) == 0o700
    write.append_side_file(root, ".memtui/seen/log", b"one\n")
    write.append_side_file(root, ".memtui/seen/log", b"two\n")
    assert (root / ".memtui/seen/log").read_bytes() == b"one\ntwo\n"
    assert sorted(os.listdir(root / ".memtui/seen")) == ["log", "store.json"]  # no temp left


def test_a_symlinked_side_folder_is_refused(make_root: MakeRoot, outside: Path) -> None:
    root = make_root({"MEMORY.md": "# m\n"})
    (root / ".memtui").mkdir()
    (root / ".memtui" / "seen").symlink_to(outside, target_is_directory=True)
    before = snap(outside)
    with pytest.raises(write.UnsafeFolder, match="symlink"):
        write.write_side_file(root, ".memtui/seen/store.json", b"{}")
    assert snap(outside) == before


@pytest.mark.parametrize("path", ["", "/abs.md", "../x.md", "a/../../x.md", "a//b.md", "./a.md",
                                  "a\\..\\x.md", ".hidden.md", "a/.git/x", "a\0b.md", None, 3])
def test_check_stored_path_refuses(path: object) -> None:
    with pytest.raises(UnsafePath):
        check_stored_path(path)


def test_check_stored_path_accepts_plain_paths_and_the_attic_only_when_asked() -> None:
    for path in ("a.md", "archive/a.md", "weird name\nwith newline.md", "ü/ß.md", "~x.md"):
        assert check_stored_path(path) == path
    with pytest.raises(UnsafePath):
        check_stored_path(".memtui/attic/1/a.md")
    assert check_stored_path(".memtui/attic/1/a.md", attic=True)
    with pytest.raises(UnsafePath):
        check_stored_path(".memtui/attic/../../x.md", attic=True)
    with pytest.raises(UnsafePath):
        check_stored_path(".memtui/journal/x", attic=True)
    assert check_stored_path(".memtui", attic=True, folder=True) == ".memtui"
    with pytest.raises(UnsafePath):
        check_side_file("a.md")


def test_clamp_mode() -> None:
    assert clamp_mode(0o100644) == 0o644
    assert clamp_mode(0o6777) == 0o644
    assert clamp_mode(0o600) == 0o600
    assert clamp_mode(0o1777, folder=True) == 0o755
    for bad in (-1, "0644", True, None):
        with pytest.raises(UnsafePath):
            clamp_mode(bad)
