"""The inbox: changes made outside memtui since the last look (DESIGN §10)."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Callable

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.read.store import load_root
from memtui.core.stores import seen, seen_store
from memtui.core.stores.seen_store import COPY_LIMIT, SeenError, location, store_size
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.merge import merge
from tests.support.roots import MakeRoot, topic

DEMO = Path(__file__).resolve().parents[2] / "memtui" / "demo"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache folder is under tmp_path in every test."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def root(tmp_path: Path) -> Path:
    dest = tmp_path / "demo"
    shutil.copytree(DEMO, dest)
    return dest


def look(root: Path) -> seen.Inbox:
    return seen.inbox(load_root(root))


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).write_text(text, encoding="utf-8")


def _edit(root: Path) -> str:
    path = root / "feedback_small_prs.md"
    path.write_bytes(path.read_bytes() + b"Also: one reviewer per PR.\n")
    return "feedback_small_prs.md"


def _add(root: Path) -> str:
    _write(root, "lesson_new_outside.md", topic("New lesson", body="Written by the agent.\n"))
    return "lesson_new_outside.md"


def _delete(root: Path) -> str:
    (root / "project_rate_limiting.md").unlink()
    return "project_rate_limiting.md"


def _rename(root: Path) -> str:
    os.rename(root / "lesson_minio_etag_quirk.md", root / "lesson_minio_etags.md")
    return "lesson_minio_etags.md"


CASES: list[tuple[str, Callable[[Path], str], str, str]] = [
    ("an outside edit", _edit, "changed", "+Also: one reviewer per PR."),
    ("an outside write of a new file", _add, "added", "+Written by the agent."),
    ("an outside delete", _delete, "removed", "-# Rate limiting for robot accounts"),
    ("an outside rename", _rename, "renamed", "rename from lesson_minio_etag_quirk.md"),
]


def test_first_look_seeds_the_baseline_and_says_so(root: Path) -> None:
    first = look(root)
    assert first.seeded and first.changes == () and first.tracked == len(load_root(root).files) + 2
    assert (location(root).folder / "state.json").is_file()
    assert not (root / ".memtui").exists()  # a look creates nothing in the root
    second = look(root)
    assert not second.seeded and second.changes == ()


@pytest.mark.parametrize("what, act, kind, diff_line", CASES, ids=[c[0] for c in CASES])
def test_each_outside_change_appears_once_with_its_kind_and_diff(
        root: Path, what: str, act: Callable[[Path], str], kind: str, diff_line: str) -> None:
    look(root)
    path = act(root)
    changes = look(root).changes
    assert [(c.kind, c.path) for c in changes] == [(kind, path)]
    assert diff_line in changes[0].diff.splitlines()


def test_all_four_together_newest_first(root: Path) -> None:
    look(root)
    for offset, act in enumerate((_edit, _add, _rename)):
        path = act(root)
        os.utime(root / path, (1_900_000_000 + offset, 1_900_000_000 + offset))
    _delete(root)
    changes = look(root).changes
    assert sorted(c.kind for c in changes) == ["added", "changed", "removed", "renamed"]
    # the rename, then the write, then the edit (their times), the delete by its folder's time
    moved = [c.kind for c in changes if c.kind != "removed"]
    assert moved == ["renamed", "added", "changed"]


def test_a_change_lists_the_findings_it_introduced(root: Path) -> None:
    look(root)
    _write(root, "orphan_fact.md", topic("Orphan fact"))
    _delete(root)
    changes = {c.path: c for c in look(root).changes}
    assert [f.rule for f in changes["orphan_fact.md"].findings] == ["orphan"]
    assert [f.rule for f in changes["project_rate_limiting.md"].findings] == ["broken-link"]


@pytest.mark.parametrize("build", [
    lambda s: verbs.pin(s, "feedback_small_prs.md"),
    lambda s: verbs.archive(s, "project_rate_limiting.md"),
    lambda s: verbs.decay(s, "feedback_small_prs.md"),
    lambda s: merge(s, ["reference_gc_runbook.md", "reference_gc_operations.md"]),
], ids=["pin", "archive", "decay", "merge"])
def test_memtuis_own_changes_are_not_news(root: Path, build: Callable[..., verbs.Changeset]) -> None:
    look(root)
    snapshot = load_root(root)
    write.run(snapshot, build(snapshot))
    assert look(root).changes == ()
    write.undo(load_root(root))
    assert look(root).changes == ()


def test_an_outside_edit_after_a_memtui_change_is_still_news(root: Path) -> None:
    look(root)
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "feedback_table_driven_tests.md"))
    path = _edit(root)
    assert [(c.kind, c.path) for c in look(root).changes] == [("changed", path)]


def test_mark_seen_clears_all(root: Path) -> None:
    look(root)
    _edit(root), _add(root), _delete(root), _rename(root)
    assert len(look(root).changes) == 4
    assert seen.mark_seen(load_root(root)) == 4
    assert look(root).changes == ()


def test_mark_seen_one_file_keeps_the_others(root: Path) -> None:
    look(root)
    edited, renamed = _edit(root), _rename(root)
    assert seen.mark_seen(load_root(root), ["lesson_minio_etag_quirk.md"]) == 1  # by its old path
    assert [c.path for c in look(root).changes] == [edited]
    assert seen.mark_seen(load_root(root), [edited]) == 1
    assert look(root).changes == () and renamed


def test_a_read_only_root_keeps_its_baseline_in_the_cache(
        root: Path, _cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As root, chmod does not stop writes, so the folder is also declared unwritable."""
    monkeypatch.setattr(seen_store, "root_writable", lambda root: False)
    os.chmod(root, 0o555)
    try:
        first = look(root)
        assert first.seeded and first.in_cache and not (root / ".memtui").exists()
        assert (location(root).folder / "state.json").is_file()
        assert location(root).folder.is_relative_to(_cache)
        os.chmod(root, 0o755)
        path = _edit(root)
        os.chmod(root, 0o555)
        assert [(c.kind, c.path) for c in look(root).changes] == [("changed", path)]
        seen.mark_seen(load_root(root))
        assert look(root).changes == () and not (root / ".memtui").exists()
    finally:
        os.chmod(root, 0o755)


def test_a_5_mb_file_is_kept_by_hash_without_a_copy(root: Path) -> None:
    big = root / "reference_big_dump.md"
    big.write_bytes(topic("Big dump").encode() + os.urandom(5 * 1024 * 1024).hex().encode()[:5_000_000])
    look(root)
    state = seen_store.load_state(location(root))
    assert state is not None
    entry = state.files["reference_big_dump.md"]
    assert entry.size > COPY_LIMIT and not entry.copy
    assert store_size(location(root)) < 1_000_000  # the demo's copies, not the 5 MB
    big.write_bytes(big.read_bytes() + b"\nmore\n")
    (change,) = look(root).changes
    assert (change.kind, change.path, change.diff) == ("changed", "reference_big_dump.md", "")
    assert "hash" in change.note


def test_the_seen_store_stays_under_its_cap(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    files: dict[str, str | bytes] = {"MEMORY.md": "# Memory\n\n## Regions\n- region `note_*.md` → notes\n"}
    for i in range(40):  # incompressible bodies of 20 kB each: 800 kB in all
        files[f"note_{i:02d}.md"] = topic(f"Note {i}", body=rng.randbytes(10_000).hex() + "\n")
    root = make_root(files)
    monkeypatch.setattr(seen_store, "STORE_CAP", 200_000)
    look(root)
    state = seen_store.load_state(location(root))
    assert state is not None
    assert store_size(location(root)) <= 200_000
    copies = [p for p, s in state.files.items() if s.copy]
    assert 0 < len(copies) < len(state.files)
    kept_by_hash = next(p for p, s in state.files.items() if not s.copy)
    (root / kept_by_hash).write_bytes((root / kept_by_hash).read_bytes() + b"x\n")
    (change,) = look(root).changes
    assert change.path == kept_by_hash and "hash" in change.note
    seen.mark_seen(load_root(root))
    assert store_size(location(root)) <= 200_000


def test_a_stored_path_leaving_the_root_is_quarantined(root: Path) -> None:
    look(root)
    state_file = location(root).folder / "state.json"
    value = json.loads(state_file.read_bytes())
    value["files"]["../outside.md"] = {"sha256": "0" * 64, "size": 1, "copy": True}
    value["files"]["/etc/passwd"] = {"sha256": "0" * 64, "size": 1, "copy": False}
    state_file.write_text(json.dumps(value))
    result = look(root)
    assert result.changes == ()
    assert sorted(result.quarantined) == ["../outside.md", "/etc/passwd"]


def test_a_symlinked_seen_store_is_refused(root: Path, tmp_path: Path) -> None:
    (root / ".memtui").mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / ".memtui" / "seen")
    with pytest.raises(SeenError, match="symlink"):
        look(root)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_cli_changes_json_and_mark_seen(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["changes", str(root)]) == 0
    assert "first look" in capsys.readouterr().out
    path = _edit(root)
    assert main(["changes", str(root), "--json"]) == 0
    value = json.loads(capsys.readouterr().out)
    assert [(c["kind"], c["path"]) for c in value["changes"]] == [("changed", path)]
    assert set(value) >= {"root", "seeded", "changes", "findings", "store", "in_cache"}
    assert main(["changes", str(root), "--mark-seen"]) == 0
    assert "marked 1 change as seen" in capsys.readouterr().out
    assert main(["changes", str(root)]) == 0
    assert "nothing changed" in capsys.readouterr().out


def test_cli_changes_of_one_file(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["changes", str(root)])
    edited, added = _edit(root), _add(root)
    capsys.readouterr()
    assert main(["changes", str(root / added), "--mark-seen", "--json"]) == 0
    value = json.loads(capsys.readouterr().out)
    assert [c["path"] for c in value["changes"]] == [added] and value["marked_seen"] == 1
    assert [c.path for c in look(root).changes] == [edited]
