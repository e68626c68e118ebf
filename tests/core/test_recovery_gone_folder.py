"""A pending change naming a file in a folder that is gone never blocks every write (issue 33, item 2).

A person deletes a subfolder after a crash: the pending record still holds a before-image inside
it.  Recovery makes the folder again (inside the root, never through a symlink), puts the file
back and says so, with the way out (remove it again); the record is finished and the next change
goes through.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.core.write.fs import disk
from tests.support.roots import MakeRoot, topic
from tests.support.writer import VALID_ROOT, Crash, tree

SECRET = topic("Secret", "a note in a subfolder", "project", body="The subfolder's fact.\n")
FILES: dict[str, str | bytes] = {
    **VALID_ROOT,
    "MEMORY.md": str(VALID_ROOT["MEMORY.md"]).replace(
        "## Recent\n", "## Recent\n- [Secret](notes/secret.md) — a note in a subfolder\n"),
    "notes/secret.md": SECRET,
}


def _crash_before_the_index(root: Path, monkeypatch: pytest.MonkeyPatch, build) -> None:  # type: ignore[no-untyped-def]
    """Run ``build``'s change and cut it off just before MEMORY.md is replaced."""
    snapshot = load_root(root)
    preview = write.plan(snapshot, build(snapshot))
    original = disk.replace

    def crash(src: str, dst: str) -> None:
        if dst.endswith("MEMORY.md") and src.endswith(".tmp"):
            raise Crash()
        original(src, dst)

    with monkeypatch.context() as patch:
        patch.setattr(disk, "replace", crash)
        with pytest.raises(Crash):
            write.commit(preview)
    assert [r.state for r in list_records(root)] == ["pending"]


def test_a_pending_write_into_a_removed_folder_puts_the_folder_back_and_says_so(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root(dict(FILES))
    before = tree(root)
    _crash_before_the_index(root, monkeypatch, lambda s: verbs.pin(s, "notes/secret.md"))
    shutil.rmtree(root / "notes")  # a person tidies up after the crash

    code = main(["pin", str(root / "alpha.md")])  # before: exit 2, "cannot recover … No such file"
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0, err
    assert (root / "notes" / "secret.md").read_text() == SECRET  # as it was before the cut-off pin
    assert "made the folder notes/ again" in err and "notes/secret.md" in err
    assert "remove it again" in err
    assert [r.state for r in list_records(root)] == ["rolled-back", "committed"]
    after = tree(root)
    assert {p for p in after if after[p] != before.get(p)} == {"MEMORY.md", "alpha.md"}  # the new pin


def test_a_pending_move_out_of_a_removed_folder_puts_the_file_back(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(dict(FILES))
    before = tree(root)
    _crash_before_the_index(root, monkeypatch, lambda s: verbs.archive(s, "notes/secret.md"))
    assert not (root / "notes" / "secret.md").exists()
    shutil.rmtree(root / "notes")  # empty now: the file is in archive/

    recovered = write.recover(root)

    assert tree(root) == before
    assert "made the folder notes/ again" in recovered.message
    assert [r.state for r in list_records(root)] == ["rolled-back"]


def test_a_restore_that_keeps_failing_names_the_way_out(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    root = make_root(dict(FILES))
    _crash_before_the_index(root, monkeypatch, lambda s: verbs.pin(s, "notes/secret.md"))

    def broken(path: str, data: bytes, mode: int | None) -> None:
        raise OSError(errno.EIO, "Input/output error", path)

    with monkeypatch.context() as patch:
        patch.setattr(disk, "write_tmp", broken)
        patch.setattr(disk, "replace", lambda src, dst: broken(dst, b"", None))
        with pytest.raises(write.WriteFailed) as info:
            write.recover(root)
    message = str(info.value)
    assert "while putting back the interrupted change 00000001-do" in message
    assert ("move .memtui/journal/00000001-do.pending.json out of the journal folder (or rename it "
            "to 00000001-do.rolled-back.json)") in message
    assert "memtui log" in message
    # the way out works: set aside by hand, the next change goes through
    (root / ".memtui/journal/00000001-do.pending.json").rename(root / ".memtui/journal/00000001-do.rolled-back.json")
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
