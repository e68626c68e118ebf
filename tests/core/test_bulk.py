"""A verb on many files as one changeset: the same result as the verb on each file in turn."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memtui.core import write
from memtui.core.model.changeset import Changeset, VerbError, apply_to_snapshot
from memtui.core.model.journal import list_records
from memtui.core.model.snapshot import Snapshot
from memtui.core.read.demo import demo_source
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.bulk import BULK_VERBS, bulk
from tests.support.writer import tree

RECENT = ["project_gc_concurrent_mark.md", "feedback_run_conformance_before_push.md",
          "project_release_2_5_status.md", "reference_gc_runbook.md", "project_oidc_group_sync.md"]
PINNED = ["value_never_lose_referenced_blobs.md", "user_maya_working_style.md", "reference_release_train.md"]
LESSONS = ["lesson_gc_grace_window_race.md", "lesson_minio_etag_quirk.md"]  # region-covered
ARCHIVED = ["archive/project_blob_dedup_spike.md", "archive/reference_jenkins_ci.md"]

CASES = {
    "pin": RECENT + LESSONS,
    "unpin": PINNED,
    "decay": RECENT,
    "promote": LESSONS + ["reference_harborctl_cheatsheet.md"],
    "archive": RECENT + LESSONS + PINNED[:1],
    "restore": ARCHIVED + ["project_ui_webpack_to_vite.md"],
}


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    shutil.copytree(demo_source(), root)
    return root


def state(snapshot: Snapshot) -> dict[str, bytes]:
    out = {path: f.data for path, f in snapshot.files.items()}
    out["MEMORY.md"] = snapshot.index.render()
    out["MEMORY-archive.md"] = snapshot.archive_index.render() if snapshot.archive_index.exists else b""
    return out


def one_by_one(snapshot: Snapshot, verb: str, paths: list[str]) -> Changeset:
    single = {
        "pin": verbs.pin, "unpin": verbs.unpin, "decay": verbs.decay, "promote": verbs.promote,
        "archive": lambda s, p: verbs.archive(s, p, confirm=True), "restore": verbs.restore,
    }[verb]
    return verbs.compose(snapshot, [lambda s, p=p: single(s, p) for p in paths])


def test_every_bulk_verb_has_a_case() -> None:
    assert set(CASES) == set(BULK_VERBS)


@pytest.mark.parametrize("verb", sorted(CASES))
def test_bulk_equals_the_verb_on_each_file_in_turn(demo: Path, verb: str) -> None:
    snapshot = load_root(demo)
    paths = CASES[verb]
    expected = state(apply_to_snapshot(snapshot, one_by_one(snapshot, verb, paths).ops).snapshot)
    change = bulk(snapshot, verb, paths, confirm=True)
    assert change.skipped == ()
    assert state(apply_to_snapshot(snapshot, change.changeset.ops).snapshot) == expected
    assert change.changeset.verb == verb


def test_bulk_archive_is_one_journal_record_and_one_undo(demo: Path) -> None:
    before = tree(demo)
    snapshot = load_root(demo)
    write.run(snapshot, bulk(snapshot, "archive", RECENT).changeset)
    assert len(list_records(demo)) == 1
    assert all((demo / "archive" / name).is_file() for name in RECENT)
    write.undo(load_root(demo))
    assert tree(demo) == before


def test_one_file_that_cannot_refuses_the_whole_change_unless_skipped(demo: Path) -> None:
    snapshot = load_root(demo)
    paths = RECENT[:2] + PINNED[:1]
    with pytest.raises(VerbError, match="decay: 'value_never_lose_referenced_blobs.md' is pinned"):
        bulk(snapshot, "decay", paths)
    change = bulk(snapshot, "decay", paths, skip=True)
    assert [p for p, _ in change.skipped] == PINNED[:1]
    assert "1 left out" in change.changeset.description
    after = apply_to_snapshot(snapshot, change.changeset.ops).snapshot.index.render().decode()
    assert all(f"]({p})" not in after for p in RECENT[:2]) and f"]({PINNED[0]})" in after
    with pytest.raises(VerbError, match="none of the 1 files"):
        bulk(snapshot, "decay", PINNED[:1], skip=True)


def test_cli_verbs_on_several_files_are_one_record(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from memtui.cli.main import main

    assert main(["archive", *[str(demo / p) for p in RECENT]]) == 0
    assert len(list_records(demo)) == 1
    assert main(["undo", str(demo)]) == 0
    assert all((demo / p).is_file() for p in RECENT)
