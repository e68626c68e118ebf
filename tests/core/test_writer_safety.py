"""The writer never overwrites, displaces or leaks what it did not write itself.

Regression tests for a review of :mod:`memtui.core.write`: restoring (recovery after a crash,
rollback after a failure) leaves alone whatever another program — the agent, which takes no
lock — wrote meanwhile; no write goes through a symlinked folder; modes survive a move followed
by a write; a file that appears between the check and the write is never replaced; the journal
is private; and the CLI and recovery fail with clear words instead of losing work or crashing.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.core.write.fs import disk
from tests.support.roots import MakeRoot
from tests.support.writer import VALID_ROOT, Crash, tree

AGENT = b"- AGENT WROTE THIS MEANWHILE\n"


@pytest.fixture
def root(make_root: MakeRoot) -> Path:
    return make_root(dict(VALID_ROOT))


def _holding(root: Path, needle: bytes) -> list[str]:
    """Every file under the root (journal excluded) whose bytes contain ``needle``."""
    return sorted(rel for rel, data in tree(root, include_memtui=True).items()
                  if data is not None and needle in data and "/journal/" not in "/" + rel)


def _crash_on(monkeypatch: pytest.MonkeyPatch, name: str, when: Any) -> None:
    """Make ``disk.<name>`` raise :class:`Crash` on the first call for which ``when(*args)``."""
    original = getattr(disk, name)

    def call(*args: Any) -> None:
        if when(*args):
            raise Crash()
        original(*args)

    monkeypatch.setattr(disk, name, call)


# ---------------------------------------------------------------- 1. restore leaves others' bytes


def test_recovery_keeps_what_the_agent_wrote_after_a_crash(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))  # writes alpha.md, then MEMORY.md
    _crash_on(monkeypatch, "replace", lambda src, dst: src.endswith(".tmp") and dst.endswith("MEMORY.md"))
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    assert b"pinned: true" in (root / "alpha.md").read_bytes()  # half-applied
    for name in ("alpha.md", "MEMORY.md"):  # the agent keeps working before memtui reopens
        (root / name).write_bytes((root / name).read_bytes() + AGENT)
    agent_alpha = (root / "alpha.md").read_bytes()
    agent_index = (root / "MEMORY.md").read_bytes()

    recovered = write.recover(root)

    assert list(recovered) == [list_records(root)[0].id]
    assert (root / "alpha.md").read_bytes() == agent_alpha
    assert (root / "MEMORY.md").read_bytes() == agent_index
    assert sorted(recovered.left_alone[recovered[0]]) == ["MEMORY.md", "alpha.md"]
    assert "alpha.md" in recovered.message and "another program" in recovered.message
    assert [r.state for r in list_records(root)] == ["rolled-back"]


def test_recovery_still_restores_what_only_memtui_wrote(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = tree(root)
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))
    _crash_on(monkeypatch, "replace", lambda src, dst: src.endswith(".tmp") and dst.endswith("MEMORY.md"))
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    recovered = write.recover(root)
    assert tree(root) == before
    assert recovered.left_alone == {} and recovered.message == ""


def test_rollback_does_not_overwrite_a_file_it_had_not_written_yet(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))  # writes alpha.md, then MEMORY.md
    original = disk.write_tmp
    failed: list[str] = []

    def disk_fills(path: str, data: bytes, mode: int | None) -> None:
        if os.path.basename(path).startswith(".MEMORY.md.") and not failed:
            # the agent adds an entry while memtui is between its two writes; then the disk is
            # full (once: the rollback's own writes go through)
            failed.append(path)
            (root / "MEMORY.md").write_bytes((root / "MEMORY.md").read_bytes() + AGENT)
            raise OSError(errno.ENOSPC, "No space left on device", path)
        original(path, data, mode)

    monkeypatch.setattr(disk, "write_tmp", disk_fills)
    with pytest.raises(write.WriteFailed, match="disk is full") as info:
        write.commit(preview)
    assert "left MEMORY.md as another program wrote it" in str(info.value)
    assert AGENT in (root / "MEMORY.md").read_bytes()
    assert (root / "alpha.md").read_bytes() == VALID_ROOT["alpha.md"].encode()  # memtui's write undone


def test_rollback_leaves_a_file_the_agent_created_under_the_same_name(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.remember(snapshot, "Delta note", "delta body"))
    new = next(op.path for op in preview.changeset.ops if isinstance(op, write.Create))
    original = disk.write_tmp

    def racing(path: str, data: bytes, mode: int | None) -> None:
        original(path, data, mode)
        if os.path.basename(path).startswith("." + new):
            (root / new).write_bytes(b"the agent's own delta note\n")

    monkeypatch.setattr(disk, "write_tmp", racing)
    with pytest.raises(write.ChangedOnDisk, match="appeared on disk"):
        write.commit(preview)
    assert (root / new).read_bytes() == b"the agent's own delta note\n"
    assert _holding(root, b"the agent's own") == [new]  # not in the attic


# ---------------------------------------------------------------- 2. symlinked folders


def test_no_write_through_a_symlinked_folder(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, root / "archive")
    before = tree(root)
    snapshot = load_root(root)
    with pytest.raises(write.ChangedOnDisk, match="'archive' is a symlinked folder"):
        write.run(snapshot, verbs.archive(snapshot, "alpha.md"))
    assert os.listdir(elsewhere) == []
    assert tree(root) == before

    os.symlink(elsewhere, root / "notes")
    snapshot = load_root(root)
    with pytest.raises(write.ChangedOnDisk, match="'notes' is a symlinked folder"):
        write.run(snapshot, verbs.remember(snapshot, "hello", "x", folder="notes"))
    assert os.listdir(elsewhere) == []


def test_no_write_through_a_symlinked_folder_inside_the_root(root: Path) -> None:
    (root / "real").mkdir()
    os.symlink("real", root / "notes")
    snapshot = load_root(root)
    with pytest.raises(write.ChangedOnDisk, match="symlinked folder"):
        write.run(snapshot, verbs.remember(snapshot, "hello", "x", folder="notes"))
    assert os.listdir(root / "real") == []


# ---------------------------------------------------------------- 3. modes across moves


def test_undo_of_archiving_a_pinned_private_file_keeps_its_mode(root: Path) -> None:
    os.chmod(root / "deploy.md", 0o600)
    snapshot = load_root(root)
    write.run(snapshot, verbs.archive(snapshot, "deploy.md", confirm=True))
    assert stat.S_IMODE(os.stat(root / "archive" / "deploy.md").st_mode) == 0o600
    preview = write.undo_plan(load_root(root))
    assert any(isinstance(op, write.Write) for op in preview.changeset.ops)  # a write after the move
    write.commit(preview)
    assert (root / "deploy.md").read_text() == VALID_ROOT["deploy.md"]
    assert stat.S_IMODE(os.stat(root / "deploy.md").st_mode) == 0o600


# ---------------------------------------------------------------- 4. between the check and the write


def test_a_move_never_replaces_a_file_that_appeared_after_the_check(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.archive(snapshot, "alpha.md"))
    agent = b"the agent's archive/alpha.md, written just now\n"

    def racing(name: str) -> Any:
        original = getattr(disk, name, None)

        def call(src: str, dst: str) -> None:
            if dst.endswith(os.path.join("archive", "alpha.md")) and not os.path.lexists(dst):
                Path(dst).write_bytes(agent)  # lands after every check memtui made
            assert original is not None
            original(src, dst)

        return call

    for name in ("replace", "link"):
        monkeypatch.setattr(disk, name, racing(name), raising=False)
    with pytest.raises(write.ChangedOnDisk, match="appeared on disk"):
        write.commit(preview)
    assert (root / "archive" / "alpha.md").read_bytes() == agent
    assert (root / "alpha.md").read_bytes() == VALID_ROOT["alpha.md"].encode()


def test_a_write_never_replaces_bytes_written_after_the_check(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))
    original = disk.write_tmp

    def racing(path: str, data: bytes, mode: int | None) -> None:
        original(path, data, mode)
        if os.path.basename(path).startswith(".MEMORY.md."):
            (root / "MEMORY.md").write_bytes((root / "MEMORY.md").read_bytes() + AGENT)

    monkeypatch.setattr(disk, "write_tmp", racing)
    with pytest.raises(write.ChangedOnDisk, match="changed while memtui was writing"):
        write.commit(preview)
    assert (root / "MEMORY.md").read_bytes() == VALID_ROOT["MEMORY.md"].encode() + AGENT
    assert (root / "alpha.md").read_bytes() == VALID_ROOT["alpha.md"].encode()


# ---------------------------------------------------------------- 5. a private journal


def test_journal_and_temp_files_are_private(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.chmod(root / "alpha.md", 0o600)
    modes: dict[str, int] = {}
    original = disk.replace

    def seeing(src: str, dst: str) -> None:
        modes[os.path.basename(src)] = stat.S_IMODE(os.lstat(src).st_mode)
        original(src, dst)

    monkeypatch.setattr(disk, "replace", seeing)
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    assert stat.S_IMODE((root / ".memtui").stat().st_mode) == 0o700
    [record] = list_records(root)
    assert stat.S_IMODE((root / ".memtui/journal" / record.file).stat().st_mode) == 0o600
    [journal_tmp] = [m for name, m in modes.items() if re.fullmatch(rf"\.{record.id}\.[0-9a-f]{{16}}\.tmp", name)]
    [alpha_tmp] = [m for name, m in modes.items()
                   if re.fullmatch(rf"\.alpha\.md\.{record.id}\.[0-9a-f]{{16}}\.tmp", name)]
    assert journal_tmp == alpha_tmp == 0o600
    assert stat.S_IMODE((root / "alpha.md").stat().st_mode) == 0o600


def test_temp_names_are_unpredictable(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names: list[str] = []
    original = disk.write_tmp

    def seeing(path: str, data: bytes, mode: int | None) -> None:
        names.append(os.path.basename(path))
        original(path, data, mode)

    monkeypatch.setattr(disk, "write_tmp", seeing)
    for _ in range(2):
        snapshot = load_root(root)
        write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
        snapshot = load_root(root)
        write.undo(snapshot)
    assert len(names) == len(set(names)) >= 8
    assert not [n for n in names if n.endswith("-do.tmp") or n.endswith("-undo.tmp")]


def test_created_files_get_the_usual_mode(root: Path) -> None:
    old = os.umask(0o022)
    try:
        snapshot = load_root(root)
        write.run(snapshot, verbs.remember(snapshot, "Delta note", "delta body"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "delta_note.md").stat().st_mode) == 0o644


# ---------------------------------------------------------------- 6. clear failures, nothing lost


def test_cli_edit_keeps_the_edited_copy_when_it_is_not_written(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "editor.py"
    # the user's edit, while the agent rewrites the same file underneath
    script.write_text(
        "import sys\n"
        "open(sys.argv[1], 'a').write('My careful edit.\\n')\n"
        f"open({str(root / 'beta.md')!r}, 'a').write('agent line\\n')\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    code = main(["edit", str(root / "beta.md")])
    err = capsys.readouterr().err
    assert code == 1
    assert "changed while it was open in the editor" in err
    assert "edited copy is kept at" in err
    kept = Path(" ".join(err.split("edited copy is kept at", 1)[1].split()))
    assert kept.read_text().endswith("My careful edit.\n")
    assert (root / "beta.md").read_text() == VALID_ROOT["beta.md"] + "agent line\n"


def test_attic_name_collisions_get_a_unique_suffix(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.remember(snapshot, "Delta note", "delta body"))
    _crash_on(monkeypatch, "replace", lambda src, dst: src.endswith(".tmp") and dst.endswith("MEMORY.md"))
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    [record] = list_records(root)
    taken = root / ".memtui/attic" / record.id / "delta_note.md"
    taken.parent.mkdir(parents=True)
    taken.write_bytes(b"already in the attic\n")
    created = (root / "delta_note.md").read_bytes()
    write.recover(root)
    assert not (root / "delta_note.md").exists()
    assert taken.read_bytes() == b"already in the attic\n"
    assert (taken.parent / "delta_note.2.md").read_bytes() == created


@pytest.mark.parametrize("damage", [
    lambda rec: rec["ops"][0].pop("data"),
    lambda rec: rec["ops"][0].pop("path"),
    lambda rec: rec["before"].update({"alpha.md": {"b64": "%%%"}}),
    lambda rec: rec.update({"ops": [42]}),
])
def test_a_damaged_pending_record_gives_a_clear_message(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                        damage: Any) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))
    _crash_on(monkeypatch, "replace", lambda src, dst: src.endswith(".tmp") and dst.endswith("MEMORY.md"))
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    [record] = list_records(root)
    path = root / ".memtui/journal" / record.file
    value = json.loads(path.read_text())
    damage(value)
    path.write_text(json.dumps(value))
    with pytest.raises(write.WriteFailed) as info:
        write.recover(root)
    message = str(info.value)
    assert record.file in message and "damaged" in message and "move" in message


def test_undo_of_a_damaged_record_says_so(root: Path) -> None:
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    [record] = list_records(root)
    path = root / ".memtui/journal" / record.file
    value = json.loads(path.read_text())
    del value["ops"][0]["expected"]
    path.write_text(json.dumps(value))
    with pytest.raises(write.NothingToUndo, match="damaged"):
        write.undo_plan(load_root(root))

