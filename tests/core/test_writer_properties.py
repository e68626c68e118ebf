"""Properties of the writer, by hypothesis.

- Incremental validation after a random changeset gives exactly what a full validation gives.
- Any sequence of verbs, undos and redos keeps every original file's bytes somewhere under the
  root (or in the journal), never adds an error finding, and undoing everything restores every
  file byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from memtui.core import write
from memtui.core.model.changeset import (
    Changeset,
    ChangesetError,
    Create,
    Move,
    Operation,
    VerbError,
    Write,
    apply_to_snapshot,
)
from memtui.core.model.journal import decode_value, journal_dir
from memtui.core.model.snapshot import Snapshot
from memtui.core.read.store import load_root
from memtui.core.rules.incremental import findings_cache, incremental_validate
from memtui.core.rules.validate import archive_part, reach_of, validate
from memtui.core.verbs import lifecycle as verbs
from tests.support.random_roots import POOL, content, index_text, roots, write_root
from tests.support.writer import VALID_ROOT, tree

# ---------------------------------------------------------------- incremental == full

def _draw_op(data: Any, snapshot: Snapshot) -> Operation | None:
    paths = sorted(snapshot.files)
    free = [p for p in POOL if p not in snapshot.files]
    kind = data.draw(st.sampled_from(["write", "index", "archive-index", "create", "move", "move"]))
    if kind == "write" and paths:
        path = data.draw(st.sampled_from(paths))
        new = content(path, data.draw(st.integers(0, 9))).encode()
        return Write(path, new, snapshot.files[path].data)
    if kind == "index":
        old = snapshot.index.render() if snapshot.index.exists else None
        new = data.draw(index_text).encode()
        return Write("MEMORY.md", new, old) if old is not None else Create("MEMORY.md", new)
    if kind == "archive-index":
        index = snapshot.archive_index
        new = data.draw(index_text).encode()
        return Write(index.path, new, index.render()) if index.exists else Create(index.path, new)
    if kind == "create" and free:
        path = data.draw(st.sampled_from(free))
        return Create(path, content(path, data.draw(st.integers(0, 9))).encode())
    if kind == "move" and paths and free:
        return Move(data.draw(st.sampled_from(paths)), data.draw(st.sampled_from(free)))
    return None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=roots(), data=st.data())
def test_incremental_validation_equals_full_validation(files: dict[str, str], data: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = load_root(write_root(Path(tmp), files))
        cache = findings_cache(snapshot)
        assert list(cache.findings) == validate(snapshot)
        for _ in range(data.draw(st.integers(1, 3))):  # chained changesets reuse the cache
            ops: list[Operation] = []
            current = snapshot
            for _ in range(data.draw(st.integers(1, 3))):
                op = _draw_op(data, current)
                if op is None:
                    continue
                try:
                    current = apply_to_snapshot(snapshot, ops + [op]).snapshot
                except ChangesetError:
                    continue
                ops.append(op)
            after, cache = incremental_validate(snapshot, cache, Changeset("random", "", tuple(ops)))
            assert list(cache.findings) == validate(after)
            assert cache.reach == reach_of(after)  # the coverage the Files view shows, too
            # the archive's part of the findings, reused or worked out again, is the archive's
            part = cache.reach.archive
            assert (part is not None) == after.archive_index.exists
            assert part is None or (part.index is after.archive_index
                                    and part == archive_part(after))
            snapshot = after


# ---------------------------------------------------------------- nothing is ever lost


def _all_bytes(root: Path) -> set[bytes]:
    """Every file's bytes under the root, and every image the journal holds."""
    found = {data for data in tree(root, include_memtui=True).values() if data is not None}
    folder = journal_dir(root)
    if folder.is_dir():
        for path in folder.glob("*.json"):
            record = json.loads(path.read_text())
            for value in record.get("before", {}).values():
                if value is not None:
                    found.add(decode_value(value) or b"")
            for op in record.get("ops", []):
                for key in ("data", "expected"):
                    if key in op:
                        found.add(decode_value(op[key]) or b"")
    return found


NAMES = ["deploy.md", "alpha.md", "beta.md", "gamma.md", "lesson_one.md", "lesson_two.md"]


class WriterMachine(RuleBasedStateMachine):
    """Random verbs, undos and redos on a valid root, through the real writer."""

    def __init__(self) -> None:
        super().__init__()
        # durability is the crash tests' business; skipping fsync keeps hundreds of commits fast
        self.no_fsync = mock.patch.object(os, "fsync", lambda fd: None)
        self.no_fsync.start()
        self.tmp = Path(tempfile.mkdtemp(prefix="memtui-prop-"))
        self.root = self.tmp / "root"
        for rel, text in VALID_ROOT.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode() if isinstance(text, str) else text)
        self.original = tree(self.root)
        self.snapshot = load_root(self.root)
        self.cache = findings_cache(self.snapshot)
        assert [f for f in self.cache.findings if f.severity == "error"] == []
        self.applied = 0

    def _path(self, index: int) -> str:
        names = sorted(p for p in self.snapshot.files)
        return names[index % len(names)]

    def _do(self, build: Callable[[Snapshot], Changeset]) -> None:
        try:
            changeset = build(self.snapshot)
        except VerbError:
            return
        preview = write.plan(self.snapshot, changeset, self.cache)
        if preview.accepted:
            applied = write.commit(preview)
            self.snapshot, self.cache = applied.snapshot, applied.cache
            self.applied += 1
        else:
            with_errors = [f for f in preview.gate.refusing]
            assert with_errors or preview.gate.reason

    @rule(i=st.integers(0, 20))
    def pin(self, i: int) -> None:
        self._do(lambda s: verbs.pin(s, self._path(i)))

    @rule(i=st.integers(0, 20))
    def unpin(self, i: int) -> None:
        self._do(lambda s: verbs.unpin(s, self._path(i)))

    @rule(i=st.integers(0, 20))
    def decay(self, i: int) -> None:
        self._do(lambda s: verbs.decay(s, self._path(i)))

    @rule(i=st.integers(0, 20))
    def promote(self, i: int) -> None:
        self._do(lambda s: verbs.promote(s, self._path(i)))

    @rule(i=st.integers(0, 20), confirm=st.booleans())
    def archive(self, i: int, confirm: bool) -> None:
        self._do(lambda s: verbs.archive(s, self._path(i), confirm=confirm))

    @rule(i=st.integers(0, 20))
    def restore(self, i: int) -> None:
        self._do(lambda s: verbs.restore(s, self._path(i)))

    @rule(i=st.integers(0, 20), j=st.integers(0, 20))
    def supersede(self, i: int, j: int) -> None:
        self._do(lambda s: verbs.supersede(s, self._path(i), self._path(j)))

    @rule(i=st.integers(0, 20), hook=st.sampled_from(["short hook", "a longer — hook: with marks"]))
    def edit_hook(self, i: int, hook: str) -> None:
        self._do(lambda s: verbs.edit_hook(s, self._path(i), hook))

    @rule(title=st.sampled_from(["Alpha", "New fact!", "lesson three", "Über café"]))
    def remember(self, title: str) -> None:
        self._do(lambda s: verbs.remember(s, title, "Some body."))

    @rule()
    def rebuild(self) -> None:
        self._do(verbs.rebuild)

    def _replay(self, kind: str) -> None:
        fresh = load_root(self.root)
        try:
            applied = write.undo(fresh) if kind == "undo" else write.redo(fresh)
        except write.NothingToUndo:
            return
        self.snapshot, self.cache = applied.snapshot, applied.cache

    @rule()
    def undo(self) -> None:
        self._replay("undo")

    @precondition(lambda self: self.applied > 0)
    @rule()
    def redo(self) -> None:
        self._replay("redo")

    @invariant()
    def no_errors_and_snapshot_matches_disk(self) -> None:
        on_disk = load_root(self.root)
        findings = validate(on_disk)
        assert [f for f in findings if f.severity == "error"] == []
        assert list(self.cache.findings) == findings
        assert {p: f.data for p, f in on_disk.files.items()} == {p: f.data for p, f in self.snapshot.files.items()}

    @invariant()
    def every_original_byte_is_kept(self) -> None:
        kept = _all_bytes(self.root)
        for rel, data in self.original.items():
            if data is not None:
                assert data in kept, f"{rel} lost"

    def teardown(self) -> None:
        try:
            while True:
                try:
                    write.undo(load_root(self.root))
                except write.NothingToUndo:
                    break
            restored = {k: v for k, v in tree(self.root).items() if v is not None}
            assert restored == {k: v for k, v in self.original.items() if v is not None}
        finally:
            self.no_fsync.stop()
            shutil.rmtree(self.tmp, ignore_errors=True)


TestWriterMachine = WriterMachine.TestCase
TestWriterMachine.settings = settings(
    max_examples=30, stateful_step_count=12, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
