"""What the writer leaves behind and what it puts back: a redo gives back modification times as an
undo does; a crash between an undo's commit and its cleanup leaves no empty ``archive/`` once the
next change (or recovery) has run; a folder memtui may not write (mode bits, whoever runs it) gets
nothing, not even ``.memtui/lock``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.merge import merge
from memtui.core.write import rootcommit
from tests.support.writer import VALID_ROOT, Crash, tree

OLD = 1_700_000_000 * 10**9
DAY = 86_400 * 10**9


def make(folder: Path, files: dict[str, str | bytes]) -> Path:
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(text.encode() if isinstance(text, str) else text)
    return folder


def mtimes(root: Path) -> dict[str, int]:
    return {rel: os.stat(root / rel).st_mtime_ns for rel, data in tree(root).items() if data is not None}


def age(root: Path) -> None:
    for i, rel in enumerate(sorted(r for r, data in tree(root).items() if data is not None)):
        os.utime(root / rel, ns=(OLD + i * DAY, OLD + i * DAY))


@pytest.mark.parametrize("change", ["pin", "merge"])
def test_redo_gives_back_the_modification_times_the_change_left(tmp_path: Path, change: str) -> None:
    root = make(tmp_path / "root", VALID_ROOT | {
        "cache_one.md": "---\nname: Cache one\ndescription: cache\ntype: project\n---\n\nClear weekly.\n",
        "cache_two.md": "---\nname: Cache two\ndescription: cache\ntype: project\n---\n\nClear often.\n"})
    snapshot = load_root(root)
    build = (verbs.pin(snapshot, "alpha.md") if change == "pin"
             else merge(snapshot, ["cache_one.md", "cache_two.md"]))
    write.run(snapshot, build)
    age(root)  # the state after the change, with times of its own (as days pass)
    after = mtimes(root)
    write.undo(load_root(root))
    assert mtimes(root) != after
    applied = write.redo(load_root(root))
    assert mtimes(root) == after  # before: the rewritten files got the time of the redo
    some = next(p for p, f in applied.snapshot.files.items() if p in after and f.mtime)
    assert applied.snapshot.files[some].mtime == pytest.approx(after[some] / 1e9)


def test_a_crash_after_an_undos_commit_leaves_no_empty_archive_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder the undone change made goes within the undo (before its commit mark), not in
    the tidying after it, which a crash can cut off."""
    root = make(tmp_path / "root", VALID_ROOT)
    original = tree(root)
    write.run(load_root(root), verbs.archive(load_root(root), "alpha.md"))
    assert (root / "archive").is_dir()

    def crash(self: rootcommit.Prepared, names: list[str] | None = None) -> None:
        raise Crash()

    monkeypatch.setattr(rootcommit.Prepared, "tidy", crash)  # killed after the undo's commit
    with pytest.raises(Crash):
        write.undo(load_root(root))
    monkeypatch.undo()
    assert tree(root) == original  # before: an empty archive/ until the next change
    write.run(load_root(root), verbs.pin(load_root(root), "beta.md"))  # the next change
    assert "archive/" not in tree(root)
    write.undo(load_root(root))
    assert tree(root) == original


def test_stale_side_file_temps_go_with_the_next_change(tmp_path: Path) -> None:
    root = make(tmp_path / "root", VALID_ROOT)
    (root / ".memtui" / "seen").mkdir(parents=True)
    stale = [root / ".memtui" / ".rejected.json.side.0123456789abcdef.tmp",  # cut-off side writes
             root / ".memtui" / "seen" / ".copies-0123456789abcdef.pack.side.0123456789abcdef.tmp"]
    for path in stale:
        path.write_bytes(b"x" * 100)
    keep = root / ".memtui" / "seen" / "notes.tmp"  # not one of memtui's temp names: never touched
    keep.write_bytes(b"mine\n")
    write.run(load_root(root), verbs.pin(load_root(root), "beta.md"))
    assert not any(p.exists() for p in stale)  # before: kept for ever (a pack's up to 32 MiB)
    assert keep.read_bytes() == b"mine\n"


@pytest.mark.parametrize("verb", [["pin", "alpha.md"], ["archive", "alpha.md"]])
def test_a_folder_without_write_bits_gets_nothing_even_as_root(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], verb: list[str]) -> None:
    root = make(tmp_path / "root", VALID_ROOT)
    before = tree(root, include_memtui=True)
    root.chmod(0o555)
    try:
        code = main([verb[0], str(root / verb[1])])
    finally:
        root.chmod(0o755)
    err = capsys.readouterr().err
    assert code == 2 and "read-only" in err and "Traceback" not in err
    assert tree(root, include_memtui=True) == before  # before: (as root) applied, .memtui/ made
