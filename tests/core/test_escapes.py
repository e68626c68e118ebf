"""A folder from someone else can never make memtui write outside it (issue 16's four escapes).

Each test plants something hostile in a root that sits next to a sibling folder ``outside/``,
runs what a user would run (recovery, a verb, undo), and compares a snapshot of ``outside/``
(bytes, modes, what exists) before and after: nothing outside the root may appear or change.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from tests.support.roots import MakeRoot
from tests.support.writer import VALID_ROOT, snap, tree


@pytest.fixture
def root(make_root: MakeRoot) -> Path:
    return make_root(dict(VALID_ROOT))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A sibling folder a hostile root aims at: a shared, sticky, world-writable folder."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.sh").write_bytes(b"#!/bin/sh\necho innocent\n")
    (folder / "empty").mkdir()
    os.chmod(folder, 0o1777)
    return folder


def _record(root: Path, value: dict[str, Any], name: str = "00000001-do.pending.json") -> Path:
    folder = root / ".memtui" / "journal"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(value))
    return path


def _text(data: str) -> dict[str, str]:
    return {"text": data}


EVIL = "#!/bin/sh\necho pwned\n"
INNOCENT = "#!/bin/sh\necho innocent\n"  # what outside/victim.sh holds


def _overwrite(rel: str) -> dict[str, Any]:
    """A record saying memtui wrote ``INNOCENT`` over ``EVIL`` at ``rel`` (so restoring it puts
    ``EVIL`` back: the record claims the bytes now there as its own)."""
    return {"ops": [{"op": "write", "path": rel, "data": _text(INNOCENT), "expected": _text(EVIL)}],
            "before": {rel: _text(EVIL)}, "modes": {rel: 0o4755}}


def _hostile_records(outside: Path) -> dict[str, dict[str, Any]]:
    """Crafted journal records, each naming something outside the root in one field."""
    alpha = VALID_ROOT["alpha.md"]
    return {
        "before": _overwrite("../outside/victim.sh"),
        "before-new-file": {"ops": [], "before": {"../outside/new.sh": _text(EVIL)},
                            "modes": {"../outside/new.sh": 0o755}},
        "create-op": {"ops": [{"op": "create", "path": "../outside/created.md", "data": _text("x")}],
                      "before": {"../outside/created.md": None}},
        "move-op": {"ops": [{"op": "move", "src": "../outside/stolen.md", "dst": "alpha.md"}],
                    "before": {"../outside/stolen.md": _text(str(alpha)), "alpha.md": None}},
        "created-dirs": {"ops": [], "before": {}, "created_dirs": ["../outside/empty"]},
        "absolute": {"ops": [], "before": {str(outside / "abs.sh"): _text(EVIL)}},
        "dot-dot-inside": _overwrite("sub/../../outside/victim.sh"),
        "symlinked-parent": _overwrite("link/victim.sh"),
        "backslash": {"ops": [], "before": {"..\\outside\\victim.sh": _text(EVIL)}},
    }


KINDS = list(_hostile_records(Path("/x")))


@pytest.mark.parametrize("kind", KINDS)
def test_a_crafted_pending_record_is_quarantined_never_applied(
        root: Path, outside: Path, kind: str) -> None:
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "sub").mkdir()
    value = {"id": "00000001-do", "kind": "do", "verb": "pin", "description": "crafted"}
    value.update(_hostile_records(outside)[kind])
    record = _record(root, value)
    before_outside, before_root = snap(outside), tree(root)

    recovered = write.recover(root)

    assert snap(outside) == before_outside
    assert tree(root) == before_root  # the memory files too: nothing of the record was applied
    assert not record.exists()
    assert list(recovered) == []
    assert (root / ".memtui" / "quarantine" / record.name).exists()
    assert "quarantine" in recovered.message and "not applied" in recovered.message


def test_the_app_path_and_a_verb_also_refuse_to_apply_a_crafted_record(
        root: Path, outside: Path, capsys: pytest.CaptureFixture[str]) -> None:
    value = {"id": "00000001-do", "kind": "do", "verb": "pin", "description": "crafted"}
    value.update(_hostile_records(outside)["before"])
    _record(root, value)
    before_outside = snap(outside)
    write.open_root(root)  # what opening the folder in the app runs
    assert snap(outside) == before_outside
    _record(root, value, "00000002-do.pending.json")
    assert main(["pin", str(root / "alpha.md")]) == 0
    assert "quarantine" in capsys.readouterr().err
    assert snap(outside) == before_outside


@pytest.mark.parametrize("kind", ["before", "create-op", "move-op"])
def test_undo_and_redo_of_a_crafted_committed_record_are_refused(
        root: Path, outside: Path, kind: str) -> None:
    value = {"id": "00000001-do", "kind": "do", "verb": "pin", "description": "crafted"}
    value.update(_hostile_records(outside)[kind])
    _record(root, value, "00000001-do.json")
    before_outside = snap(outside)
    with pytest.raises(write.TxnError, match="not a plain path inside the root"):
        write.undo(load_root(root))
    _record(root, dict(value, id="00000002-undo-00000001"), "00000002-undo-00000001.json")
    with pytest.raises(write.TxnError, match="not a plain path inside the root"):
        write.redo(load_root(root))
    assert snap(outside) == before_outside


def test_stored_modes_are_clamped(root: Path) -> None:
    """A record's mode never makes a file setuid, executable or writable by others."""
    value = {"id": "00000001-do", "kind": "do", "verb": "pin", "description": "crafted",
             "ops": [], "before": {"alpha.md": _text("restored\n")}, "modes": {"alpha.md": 0o6777}}
    (root / "alpha.md").unlink()
    _record(root, value)
    write.recover(root)
    assert (root / "alpha.md").read_bytes() == b"restored\n"
    assert stat.S_IMODE((root / "alpha.md").stat().st_mode) == 0o644


# ---------------------------------------------------------------- 2. symlinks under .memtui


@pytest.mark.parametrize("which", [".memtui", ".memtui/journal", ".memtui/lock", ".memtui/attic"])
def test_a_symlink_under_memtui_is_refused(root: Path, outside: Path, which: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    if which == ".memtui/attic":  # something to undo whose undo moves a file into the attic
        snapshot = load_root(root)
        write.run(snapshot, verbs.remember(snapshot, "Delta note", "delta body"))
    target = outside / "lockfile" if which == ".memtui/lock" else outside
    link = root / which
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target, target_is_directory=which != ".memtui/lock")
    before_outside, before_root = snap(outside), tree(root)
    verb = ["undo", str(root)] if which == ".memtui/attic" else ["pin", str(root / "alpha.md")]

    code = main(verb)

    err = capsys.readouterr().err
    assert snap(outside) == before_outside
    assert tree(root) == before_root
    assert code == 1, err
    assert "symlink" in err and which.split("/")[-1] in err


def test_memtui_never_chmods_a_folder_it_did_not_create(root: Path) -> None:
    (root / ".memtui").mkdir()
    os.chmod(root / ".memtui", 0o755)
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    assert stat.S_IMODE((root / ".memtui").stat().st_mode) == 0o755
    journal = root / ".memtui" / "journal"  # created by memtui: private
    assert stat.S_IMODE(journal.stat().st_mode) == 0o700
    [record] = list_records(root)
    assert stat.S_IMODE((journal / record.file).stat().st_mode) == 0o600


# ---------------------------------------------------------------- 3. hard link at a temp name


def test_a_hard_link_at_the_old_temp_name_is_never_written_through(root: Path, outside: Path) -> None:
    victim = outside / "victim.sh"
    for name in (".alpha.md.00000001-do.tmp", ".MEMORY.md.00000001-do.tmp"):
        os.link(victim, root / name)
    before_outside = snap(outside)
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    assert snap(outside) == before_outside
    assert b"pinned: true" in (root / "alpha.md").read_bytes()
    assert os.stat(root / "alpha.md").st_ino != os.stat(victim).st_ino
    assert os.stat(victim).st_nlink == 3  # the planted names are left as they were


# ---------------------------------------------------------------- 4. read-only memory files


@pytest.mark.parametrize("name", ["alpha.md", "MEMORY.md"])
def test_a_read_only_memory_file_is_refused(root: Path, name: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    os.chmod(root / name, 0o444)
    before = tree(root)
    code = main(["pin", str(root / "alpha.md")])
    err = capsys.readouterr().err
    assert tree(root) == before
    assert code == 1, err
    assert "read-only file" in err and name in err
    assert stat.S_IMODE((root / name).stat().st_mode) == 0o444
