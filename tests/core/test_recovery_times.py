"""Recovery, rollback and undo put back modification times with the bytes (issue 16, item 6).

A dateless topic's age is its mtime (staleness, and which source a merge names its gist after),
so a restore that gave it "now" would change what memtui proposes next.  And on a full disk,
recovery first frees the space the failed change's own temp files hold.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from memtui.core import write
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs import merge
from memtui.core.write import fs as write_fs
from memtui.core.write.fs import disk
from tests.support.roots import MakeRoot, topic
from tests.support.writer import VALID_ROOT, Crash, Faults, tree

DAY = 86_400 * 10**9
OLD = 1_700_000_000 * 10**9  # November 2023

MERGE_ROOT = {
    "MEMORY.md": ("# Memory\n\n## Recent\n- [Cache one](cache_one.md) — cache notes\n"
                  "- [Cache two](cache_two.md) — cache notes again\n- [Other](other.md) — other\n"),
    "cache_one.md": topic("Cache one", "cache notes", "project", body="Clear the cache weekly.\n"),
    "cache_two.md": topic("Cache two", "cache notes again", "project", body="Clear the cache often.\n"),
    "other.md": topic("Other", "other", "project"),
}


def _age(root: Path) -> dict[str, int]:
    """Give every file under the root a distinct old mtime (and atime); return the mtimes."""
    out = {}
    for i, rel in enumerate(sorted(r for r, data in tree(root).items() if data is not None)):
        stamp = OLD + i * DAY
        os.utime(root / rel, ns=(stamp, stamp))
        out[rel] = stamp
    return out


def _mtimes(root: Path) -> dict[str, int]:
    return {rel: os.stat(root / rel).st_mtime_ns for rel, data in tree(root).items() if data is not None}


def _merge(s):  # type: ignore[no-untyped-def]
    return merge.merge(s, ["cache_one.md", "cache_two.md"])


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(write_fs.os, "fsync", lambda fd: None)


def _steps(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    probe = make_root(dict(MERGE_ROOT), name="probe")
    _age(probe)
    counter = Faults(monkeypatch)
    snapshot = load_root(probe)
    applied = write.run(snapshot, _merge(snapshot))
    return counter.count, _gist(applied)


def _aged_merge(make_root: MakeRoot, name: str) -> tuple[Path, dict[str, int], write.Preview]:
    """A fresh merge root with old mtimes, those mtimes, and the planned merge."""
    root = make_root(dict(MERGE_ROOT), name=name)
    before = _age(root)
    snapshot = load_root(root)
    return root, before, write.plan(snapshot, _merge(snapshot))


def _gist(applied: write.Applied) -> str:
    first = applied.preview.changeset.ops[0]  # a merge creates its gist first
    assert isinstance(first, write.Create)
    return first.path


def test_a_crash_at_every_step_of_a_merge_restores_mtimes_and_the_rerun_names_the_same_gist(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, no_fsync: None) -> None:
    steps, clean_gist = _steps(make_root, monkeypatch)
    for k in range(1, steps):
        root, before, preview = _aged_merge(make_root, f"merge-{k}")
        faults = Faults(monkeypatch, fail_at=k, error=Crash)
        with pytest.raises(Crash):
            write.commit(preview)
        write.recover(root)
        if any(r.state == "committed" for r in list_records(root)):
            continue  # the crash came after the commit mark: the change stands
        assert _mtimes(root) == before, f"crash after step {k} ({faults.calls[-1]})"
        snapshot = load_root(root)
        assert _gist(write.run(snapshot, _merge(snapshot))) == clean_gist, f"crash after step {k}"


def test_an_io_error_rollback_restores_mtimes(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch,
                                              no_fsync: None) -> None:
    steps, _ = _steps(make_root, monkeypatch)
    for k in range(1, steps):
        root, before, preview = _aged_merge(make_root, f"io-{k}")
        Faults(monkeypatch, fail_at=k, error=lambda: OSError(errno.EIO, "I/O error"))
        try:
            write.commit(preview)
        except write.WriteFailed:
            assert _mtimes(root) == before, f"I/O error at step {k}"


def test_undo_gives_back_the_modification_time(make_root: MakeRoot) -> None:
    root = make_root(dict(VALID_ROOT))
    before = _age(root)
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    assert _mtimes(root)["alpha.md"] != before["alpha.md"]
    applied = write.undo(load_root(root))
    assert _mtimes(root) == before
    # the snapshot undo returns already carries the old time (the app shows the right age)
    assert applied.snapshot.files["alpha.md"].mtime == pytest.approx(before["alpha.md"] / 1e9)


def test_recovery_on_a_full_disk_first_frees_its_own_temp_files(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(dict(VALID_ROOT))
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))  # writes alpha.md, then MEMORY.md
    original = disk.replace

    def crash_at_index(src: str, dst: str) -> None:
        if dst.endswith("MEMORY.md"):
            raise Crash()  # the index's temp file is written and left behind
        original(src, dst)

    monkeypatch.setattr(disk, "replace", crash_at_index)
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    assert [n for n in os.listdir(root) if n.endswith(".tmp")]
    write_tmp = disk.write_tmp

    def full_while_temps_remain(path: str, data: bytes, mode: int | None) -> None:
        if any(n.endswith(".tmp") for n in os.listdir(root)):
            raise OSError(errno.ENOSPC, "No space left on device")
        write_tmp(path, data, mode)

    monkeypatch.setattr(disk, "write_tmp", full_while_temps_remain)
    assert list(write.recover(root)) == [list_records(root)[0].id]
    assert tree(root) == {k: v.encode() if isinstance(v, str) else v for k, v in VALID_ROOT.items()}
