"""``memtui changes`` and the output of every command: one line for every error, never a
traceback; a look creates nothing in the root; a file name that is not UTF-8 is handled; an
output error after a committed change never reads as a refusal."""

from __future__ import annotations

import errno
import io
import json
import os
import time
from pathlib import Path
from typing import Callable

import pytest

from memtui.cli.main import main
from memtui.core.stores import seen_store
from memtui.core.stores.seen_store import location
from tests.support.roots import MakeRoot, topic

BAD = os.fsdecode(b"project_\xff\xfebad.md")  # a name that is not UTF-8, as Python holds it
ROOT = {
    "MEMORY.md": "# Memory\n\n- [alpha](alpha.md) — alpha fact\n- [beta](beta.md) — beta fact\n",
    "alpha.md": topic("alpha"),
    "beta.md": topic("beta"),
}


def tree(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def one_line(text: str) -> bool:
    return len(text.strip().splitlines()) == 1 and "Traceback" not in text


# ---------------------------------------------------------------- errors are one line


def _pending_damaged(root: Path) -> None:
    (root / ".memtui" / "journal").mkdir(parents=True)
    (root / ".memtui" / "journal" / "00000001-do.pending.json").write_bytes(b"{not json")


def _pending_read_only(root: Path) -> None:
    _pending_damaged(root)
    for folder in (root / ".memtui" / "journal", root / ".memtui", root):
        folder.chmod(0o555)


def _memtui_symlink(root: Path) -> None:
    elsewhere = root.parent / "elsewhere"
    (elsewhere / "seen").mkdir(parents=True)
    (root / ".memtui").symlink_to(elsewhere)


def _journal_file(root: Path) -> None:
    (root / ".memtui").mkdir()
    (root / ".memtui" / "journal").write_bytes(b"a plain file\n")


def _lock_folder(root: Path) -> None:
    (root / ".memtui" / "lock").mkdir(parents=True)  # opening it fails (EISDIR)
    (root / ".memtui" / "journal").mkdir()
    (root / ".memtui" / "journal" / "00000001-do.pending.json").write_bytes(b"{}")


@pytest.mark.parametrize("damage", [_pending_damaged, _pending_read_only, _memtui_symlink,
                                    _journal_file, _lock_folder])
@pytest.mark.parametrize("mark", [False, True])
def test_changes_answers_every_damaged_state_without_a_traceback(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str], damage: Callable[[Path], None],
        mark: bool) -> None:
    root = make_root(ROOT)
    damage(root)
    try:
        code = main(["changes", str(root)] + (["--mark-seen"] if mark else []))  # before: raised
        out, err = capsys.readouterr()
    finally:
        for folder in (root / ".memtui" / "journal", root / ".memtui", root):
            if folder.is_dir() and not folder.is_symlink():
                folder.chmod(0o755)
    assert code in (0, 1, 2)
    assert "Traceback" not in out + err
    if code == 2:
        assert one_line(err)


def test_a_look_creates_nothing_in_the_root(make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root(ROOT)
    before = tree(root)
    assert main(["changes", str(root)]) == 0
    assert "first look" in capsys.readouterr().out
    assert tree(root) == before  # before: .memtui/lock, .memtui/seen/state.json and a pack
    (root / "alpha.md").write_bytes((root / "alpha.md").read_bytes() + b"More.\n")
    assert main(["changes", str(root)]) == 0
    assert "alpha.md" in capsys.readouterr().out
    assert main(["changes", str(root), "--mark-seen"]) == 0  # the baseline stays where it is
    assert "marked 1 change" in capsys.readouterr().out
    assert main(["changes", str(root)]) == 0
    assert "nothing changed" in capsys.readouterr().out
    assert tree(root) == before


def test_an_interrupted_change_is_reported_not_recovered_by_a_look(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root(ROOT)
    _pending_damaged(root)
    before = {p: (root / p).read_bytes() for p in tree(root) if (root / p).is_file()}
    assert main(["changes", str(root)]) == 1
    assert "interrupted-change" in capsys.readouterr().err
    assert {p: (root / p).read_bytes() for p in tree(root) if (root / p).is_file()} == before


# ---------------------------------------------------------------- names that are not UTF-8


def test_a_name_that_is_not_utf8_is_listed_escaped_stored_and_changed_around(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root(ROOT)
    assert main(["changes", str(root), "--mark-seen"]) == 0  # seeds the baseline in the root
    (root / BAD).write_bytes(topic("bad").encode())
    assert main(["changes", str(root)]) == 0
    out = capsys.readouterr().out
    assert "project_\\xff\\xfebad.md" in out
    assert main(["changes", str(root), "--json"]) == 0
    value = json.loads(capsys.readouterr().out)
    assert [c["path"] for c in value["changes"]] == ["project_\\xff\\xfebad.md"]
    assert main(["changes", str(root), "--mark-seen"]) == 0  # before: crashed in seen_store
    assert "marked 1 change" in capsys.readouterr().out
    state = seen_store.load_state(location(root))
    assert state is not None and BAD in state.files  # the name as it is on disk
    assert b"project_\xff\xfebad.md" in (root / ".memtui/seen/state.json").read_bytes()
    assert main(["changes", str(root)]) == 0
    assert "nothing changed" in capsys.readouterr().out
    assert not list((root / ".memtui" / "seen").glob("copies-*.pack"))[1:]  # one pack at most
    assert main(["pin", str(root / "alpha.md")]) == 0  # before: "surrogates not allowed"
    assert "pinned: true" in (root / "alpha.md").read_text()
    assert main(["undo", str(root)]) == 0


# ---------------------------------------------------------------- huge or damaged stores


def test_a_store_tracking_more_than_the_cap_is_refused_in_one_line(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(ROOT)
    assert main(["changes", str(root), "--mark-seen"]) == 0
    state_file = root / ".memtui/seen/state.json"
    value = json.loads(state_file.read_bytes())
    for i in range(60):
        value["files"][f"notes/f{i}.md"] = {"sha256": f"{i:064x}", "size": 10, "copy": False}
    state_file.write_text(json.dumps(value))
    capsys.readouterr()
    monkeypatch.setattr(seen_store, "MAX_TRACKED", 50, raising=False)
    assert main(["changes", str(root)]) == 2  # before: every crafted entry listed (600k: 53 s)
    err = capsys.readouterr().err
    assert one_line(err) and "63 files" in err


def test_a_long_list_is_written_in_one_pass_each_change_once(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.cli import changes

    root = make_root(ROOT | {f"notes/n{i}.md": topic(f"n{i}") for i in range(6)})
    assert main(["changes", str(root), "--mark-seen"]) == 0
    for i in range(6):
        (root / f"notes/n{i}.md").unlink()
    capsys.readouterr()
    monkeypatch.setattr(changes, "LONG_LIST", 3, raising=False)
    assert main(["changes", str(root)]) == 0
    out = capsys.readouterr().out
    assert sorted(line.split()[1] for line in out.splitlines() if line.startswith("removed")) == [
        f"notes/n{i}.md" for i in range(6)]
    assert "@@" not in out and "diffs are left out" in out  # before: a diff a change


def test_temp_files_of_cut_off_saves_are_removed(make_root: MakeRoot, tmp_path: Path) -> None:
    from memtui.core.read.store import load_root
    from memtui.core.stores import seen

    root = make_root(ROOT)
    seen.inbox(load_root(root), create_in_root=True)  # a store in the root, as --mark-seen makes
    folder = root / ".memtui/seen"
    stale = [folder / ".state.json.side.0123456789abcdef.tmp", folder / ".state.json.fedcba9876543210.tmp"]
    for path in stale:
        path.write_bytes(b"x" * 1000)
    cache = location(root, in_root=False)
    cache.folder.mkdir(parents=True)
    old, young = cache.folder / ".state.json.0000000000000000.tmp", cache.folder / ".state.json.1111111111111111.tmp"
    for path in (old, young):
        path.write_bytes(b"y")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    (root / "alpha.md").write_bytes((root / "alpha.md").read_bytes() + b"More.\n")
    seen.mark_seen(load_root(root))
    seen.mark_seen(load_root(root), in_root=False)
    assert not any(p.exists() for p in stale)  # before: kept for ever (up to 32 MiB each)
    assert not old.exists() and young.exists()  # a cache store's young temp may be another save's


# ---------------------------------------------------------------- output errors after a commit


class Broken(io.StringIO):
    """Standard output whose writes fail with ``errno``."""

    def __init__(self, code: int) -> None:
        super().__init__()
        self.code = code

    def write(self, text: str) -> int:
        raise OSError(self.code, os.strerror(self.code))


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EPIPE, errno.EIO])
@pytest.mark.parametrize("json_flag", [False, True])
def test_an_output_error_after_a_pin_exits_0_with_the_pin_applied(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        code: int, json_flag: bool) -> None:
    root = make_root(ROOT)
    monkeypatch.setattr("sys.stdout", Broken(code))
    assert main(["pin", str(root / "alpha.md")] + (["--json"] if json_flag else [])) == 0  # before: 1
    assert "pinned: true" in (root / "alpha.md").read_text()
    err = capsys.readouterr().err
    if code == errno.EPIPE:
        assert err == ""
    else:
        assert one_line(err) and "applied (00000001-do)" in err


def test_an_output_error_of_a_read_only_command_is_an_io_error(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_root(ROOT)
    monkeypatch.setattr("sys.stdout", Broken(errno.ENOSPC))
    assert main(["validate", str(root)]) == 2
    assert one_line(capsys.readouterr().err)
    monkeypatch.setattr("sys.stdout", Broken(errno.EPIPE))
    assert main(["validate", str(root)]) == 0


def test_a_fifo_index_is_called_what_it_is(make_root: MakeRoot) -> None:
    from memtui.core.model.changeset import OutsidePath, apply_to_snapshot
    from memtui.core.read.store import load_root
    from memtui.core.verbs import lifecycle as verbs

    root = make_root({"alpha.md": topic("alpha")})
    os.mkfifo(root / "MEMORY.md")
    snapshot = load_root(root)
    with pytest.raises(OutsidePath) as found:
        apply_to_snapshot(snapshot, verbs.promote(snapshot, "alpha.md").ops)
    assert "FIFO" in str(found.value) and "symlink" not in str(found.value)  # before: "a symlink"
