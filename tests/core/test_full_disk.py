"""A full disk never leaves a folder between the two states of a change (issue 33, item 1).

The journal record fits, the apply fails part way for want of space, and the disk stays full:
the rollback (and, after a crash, recovery) must need no new space — it puts back the old files
memtui kept a second name of — and must remove its own temp files.  While a change is still
pending, ``interrupted-change`` says plainly whether the index Claude Code loads is half changed.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from memtui.core import write
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs import merge
from memtui.core.write import fs as write_fs
from memtui.core.write.fs import disk
from tests.support.roots import MakeRoot, topic
from tests.support.writer import VALID_ROOT, Crash, Faults, tree

OLD = 1_700_000_000 * 10**9
DAY = 86_400 * 10**9

MERGE_ROOT = {
    "MEMORY.md": ("# Memory\n\n## Recent\n- [Cache one](cache_one.md) — cache notes\n"
                  "- [Cache two](cache_two.md) — cache notes again\n- [Other](other.md) — other\n"),
    "cache_one.md": topic("Cache one", "cache notes", "project", body="Clear the cache weekly.\n"),
    "cache_two.md": topic("Cache two", "cache notes again", "project", body="Clear the cache often.\n"),
    "other.md": topic("Other", "other", "project"),
}


def _aged(make_root: MakeRoot, files: dict[str, str | bytes], name: str) -> tuple[Path, dict[str, Any]]:
    """A fresh root with distinct old times; its tree and every file's mtime."""
    root = make_root(dict(files), name=name)
    for i, rel in enumerate(sorted(r for r, data in tree(root).items() if data is not None)):
        os.utime(root / rel, ns=(OLD + i * DAY, OLD + i * DAY))
    return root, _state(root)


def _state(root: Path) -> dict[str, Any]:
    files = tree(root)
    return {"tree": files, "mtimes": {rel: os.stat(root / rel).st_mtime_ns
                                      for rel, data in files.items() if data is not None}}


def _temps(root: Path) -> list[str]:
    """Temp files left anywhere under the root, ``.memtui/`` included."""
    return sorted(rel for rel in tree(root, include_memtui=True) if rel.endswith(".tmp"))


class FullDisk:
    """From the ``at``-th data write on (the journal record is the first), every write of new
    bytes fails part way with ENOSPC, as a full disk does — after writing what fit — and so does
    every new folder (a full ext4 has no block for one).  Renames, links and unlinks still work:
    they need no new space."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, at: int) -> None:
        self.writes = 0
        self.at = at
        real_write_all, real_mkdir = write_fs.write_all, disk.mkdir

        def write_all(fd: int, data: bytes) -> None:
            self.writes += 1
            if self.full:
                real_write_all(fd, data[: len(data) // 2])
                raise OSError(errno.ENOSPC, "No space left on device")
            real_write_all(fd, data)

        def mkdir(path: str) -> None:
            if self.full:
                raise OSError(errno.ENOSPC, "No space left on device", path)
            real_mkdir(path)

        monkeypatch.setattr(write_fs, "write_all", write_all)
        monkeypatch.setattr(disk, "mkdir", mkdir)

    @property
    def full(self) -> bool:
        return self.writes >= self.at


def _data_writes(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many data writes a merge makes when the disk has room (the record's among them)."""
    root, _ = _aged(make_root, MERGE_ROOT, "probe")
    with monkeypatch.context() as patch:
        counter = FullDisk(patch, at=10**9)
        snapshot = load_root(root)
        write.run(snapshot, merge.merge(snapshot, ["cache_one.md", "cache_two.md"]))
    return counter.writes


def test_a_disk_that_fills_during_the_apply_is_rolled_back_without_new_space(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    writes = _data_writes(make_root, monkeypatch)
    assert writes >= 5  # .memtui/.gitignore, the record, the gist, MEMORY.md, MEMORY-archive.md
    for at in range(3, writes + 1):  # the .gitignore and the record fit; the disk is full from this write on
        root, before = _aged(make_root, MERGE_ROOT, f"full-{at}")
        snapshot = load_root(root)
        preview = write.plan(snapshot, merge.merge(snapshot, ["cache_one.md", "cache_two.md"]))
        with monkeypatch.context() as patch:
            FullDisk(patch, at)
            with pytest.raises(write.WriteFailed) as info:
                write.commit(preview)
            assert str(info.value).endswith("the disk is full; nothing was changed"), at
            assert _state(root) == before, f"between the two states after a full disk at write {at}"
            assert _temps(root) == [], at
            assert [r.state for r in list_records(root)] == ["rolled-back"], at


def test_recovery_after_a_crash_on_a_full_disk_needs_no_new_space(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    probe, _ = _aged(make_root, MERGE_ROOT, "probe-crash")
    counter = Faults(monkeypatch)
    snapshot = load_root(probe)
    write.run(snapshot, merge.merge(snapshot, ["cache_one.md", "cache_two.md"]))
    steps = counter.count
    monkeypatch.undo()
    for k in range(2, steps):
        root, before = _aged(make_root, MERGE_ROOT, f"crash-{k}")
        snapshot = load_root(root)
        preview = write.plan(snapshot, merge.merge(snapshot, ["cache_one.md", "cache_two.md"]))
        with monkeypatch.context() as patch:
            Faults(patch, fail_at=k, error=Crash)
            with pytest.raises(Crash):
                write.commit(preview)
        if any(r.state == "committed" for r in list_records(root)):
            write.recover(root)
            assert _temps(root) == [], k  # the change stands; what it kept is gone
            continue
        with monkeypatch.context() as patch:
            FullDisk(patch, at=0)  # nothing new fits any more
            write.recover(root)
        assert _state(root) == before, f"between the two states after a crash at step {k}"
        assert _temps(root) == [], k
        assert {r.state for r in list_records(root)} <= {"rolled-back"}, k


def test_the_pin_of_a_full_disk_says_so_and_changes_nothing(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    root, before = _aged(make_root, VALID_ROOT, "pin")
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))  # alpha.md, then MEMORY.md
    FullDisk(monkeypatch, at=3)  # the record and alpha.md fit; MEMORY.md does not
    with pytest.raises(write.WriteFailed, match="the disk is full; nothing was changed"):
        write.commit(preview)
    assert _state(root) == before
    assert _temps(root) == []


def _interrupted(root: Path) -> str:
    found = [f for f in validate(load_root(root)) if f.rule == "interrupted-change"]
    assert len(found) == 1
    return found[0].message


def test_interrupted_change_says_when_the_index_is_half_changed(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(dict(VALID_ROOT))
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))
    original = disk.replace

    def crash_after_the_index(src: str, dst: str) -> None:
        original(src, dst)
        if dst.endswith("MEMORY.md") and src.endswith(".tmp"):
            raise Crash()

    monkeypatch.setattr(disk, "replace", crash_after_the_index)
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    message = _interrupted(root)
    assert "2 of 2 paths it touches are changed now, MEMORY.md among them" in message
    assert "Claude Code loads this half-changed index in every session" in message


def test_interrupted_change_says_when_the_index_is_not_changed_yet(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(dict(VALID_ROOT))
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))  # alpha.md, then MEMORY.md
    original = disk.replace

    def crash_before_the_index(src: str, dst: str) -> None:
        if dst.endswith("MEMORY.md") and src.endswith(".tmp"):
            raise Crash()
        original(src, dst)

    monkeypatch.setattr(disk, "replace", crash_before_the_index)
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    message = _interrupted(root)
    assert "1 of 2 paths it touches are changed now (MEMORY.md is as it was" in message
