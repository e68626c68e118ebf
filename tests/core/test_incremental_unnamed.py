"""Incremental validation keeps the index-level findings when the change cannot have changed
them (the indexes as they were, and no file that comes or goes is one an index line names or a
region glob covers) and works them out again otherwise — equal to a full validation either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memtui.core.model.changeset import (
    ATTIC_DIR,
    Changeset,
        Create,
    Move,
    Operation,
    Write,
)
from memtui.core.model.snapshot import Snapshot
from memtui.core.read.store import load_root
from memtui.core.rules import incremental
from memtui.core.rules.incremental import (
    EntryLines,
    FindingsCache,
    findings_cache,
    incremental_validate,
    index_facts,
    index_level_of,
    kept_findings_cache,
)
from memtui.core.rules.validate import reach_of, sort_findings, validate
from tests.support.roots import MakeRoot, topic

#: an index over the cut (230 lines): an entry, a second link, a mention, a bare mention, a
#: region pointer, a path scope without its memory base, and a mention and a link past the cut,
#: each of a file not there
INDEX = "\n".join(
    ["# Memory", "", "- [Kept](kept.md) — a fact", "- [Linked](linked.md) — not there yet",
     "- [Kept](kept.md) — also see [the other](other_link.md)",
     "- Charts — see `mentioned.md` for the palette", "- Deploys: read deploynotes.md first",
     "- region `decision-*.md` → old decisions (search before deciding)",
     "## PATH_SCOPE: web", "Scope: `web/`", "- [Web](web/page.md) — pages"]
    + [f"- line {n}" for n in range(12, 215)]
    + ["- see `pastcut.md` for the palette", "- [past](pastlink.md) — far down"]
    + [f"- line {n}" for n in range(217, 231)]
) + "\n"

ARCHIVE = "# Archive\n\n- [Gone](archived_one.md) — retired\n"


def rotted(make_root: MakeRoot) -> Path:
    return make_root({"MEMORY.md": INDEX, "MEMORY-archive.md": ARCHIVE, "kept.md": topic("kept"),
                      "decision-old.md": topic("decision old"), "web/page.md": topic("page"),
                      "sub/deploynotes.md": topic("deploy notes"), "loose.md": topic("loose")})


def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the times the index-level findings are worked out again."""
    calls: list[int] = []
    real = incremental.index_findings

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(incremental, "index_findings", counting)
    return calls


def played(snapshot: Snapshot, cache: FindingsCache, *ops: Operation) -> FindingsCache:
    after, found = incremental_validate(snapshot, cache, Changeset("t", "", ops))
    assert list(found.findings) == validate(after)
    assert found.reach == reach_of(after)
    return found


NEW = topic("new").encode()


@pytest.mark.parametrize("ops, recomputed", [
    ((Create("bench_new_fact.md", NEW),), False),  # named by no index line
    ((Create("sub/other/new.md", NEW),), False),
    ((Write("kept.md", topic("kept", body="Changed.\n").encode(), None),), False),  # rewritten
    ((Move("loose.md", f"{ATTIC_DIR}/loose.md"),), False),  # an orphan goes
    ((Create("linked.md", NEW),), True),  # an entry's link names it
    ((Create("other_link.md", NEW),), True),  # a second link on a line
    ((Create("decision-new.md", NEW),), True),  # a region glob covers it
    ((Move("decision-old.md", f"{ATTIC_DIR}/decision-old.md"),), True),  # the glob's one file goes
    ((Create("mentioned.md", NEW),), True),  # a mention in the loaded part
    ((Create("deeper/deploynotes.md", NEW),), True),  # a bare mention's name, now two files
    ((Create("pastcut.md", NEW),), True),  # a mention past the cut
    ((Create("pastlink.md", NEW),), True),  # a link past the cut
    ((Create("archived_one.md", NEW),), True),  # an archive entry
    ((Move("loose.md", "linked.md"),), True),  # moved to a name a link names
])
def test_incremental_equals_full_and_keeps_the_index_findings_only_when_unnamed(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, ops: tuple[Operation, ...],
        recomputed: bool) -> None:
    snapshot = load_root(rotted(make_root))
    fixed = tuple(replace_expected(snapshot, op) for op in ops)
    # the level held apart, or not; the index's maps worked out, or taken from its kept facts
    for cache in (findings_cache(snapshot), kept(snapshot), kept(snapshot, facts=True)):
        calls = counted(monkeypatch)
        played(snapshot, cache, *fixed)
        assert bool(calls) is recomputed
        monkeypatch.undo()


@pytest.mark.parametrize("path", ["web/SCOPE.md", "bench_new_fact.md"])
def test_under_a_memory_base_a_new_file_parses_the_index_again(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    root = rotted(make_root)
    text = (root / "MEMORY.md").read_text().replace("Scope: `web/`\n", "Scope: `web/`\nMemory base: `web/`\n")
    (root / "MEMORY.md").write_text(text)
    snapshot = load_root(root)
    for cache in (findings_cache(snapshot), kept(snapshot), kept(snapshot, facts=True)):
        calls = counted(monkeypatch)
        played(snapshot, cache, Create(path, NEW))
        assert calls  # which files exist is read by the parse itself (entries under the base)
        monkeypatch.undo()


def test_the_index_level_kept_apart_is_the_one_sorted_out_of_the_findings(make_root: MakeRoot) -> None:
    snapshot = load_root(rotted(make_root))
    cache = findings_cache(snapshot)
    assert cache.index_level is not None and kept(snapshot).index_level is None
    assert list(index_level_of(kept(snapshot))) == sort_findings(cache.index_level)
    assert {f.rule for f in cache.index_level} >= {"budget-lines", "broken-link", "scope-missing"}
    # the cross-file findings an index line carries are not the index level's
    assert "archived-in-index" not in {f.rule for f in cache.index_level}


def test_chained_unnamed_changes_keep_equal_to_full(make_root: MakeRoot) -> None:
    snapshot = load_root(rotted(make_root))
    cache = kept(snapshot, facts=True)
    for op in (Create("a_new.md", NEW), Create("linked.md", NEW), Create("b_new.md", NEW),
               Write("kept.md", topic("kept", superseded_by="b_new.md").encode(), None)):
        op = replace_expected(snapshot, op)
        snapshot, cache = incremental_validate(snapshot, cache, Changeset("t", "", (op,)))
        assert list(cache.findings) == validate(snapshot)


def kept(snapshot: Snapshot, facts: bool = False) -> FindingsCache:
    """The cache a kept answer gives back: the per-file parts and the whole findings, the
    index level not held apart (``facts``: and the index's maps as the kept answer has them)."""
    full = findings_cache(snapshot)
    cache = kept_findings_cache(snapshot, full.file_only, full.file_cross, full.glob_counts,
                                full.provenance, full.superseding, full.findings,
                                facts=index_facts(full) if facts else None)
    if facts:
        assert isinstance(cache.reach.direct, EntryLines) and cache.reach == full.reach
    return cache


def replace_expected(snapshot: Snapshot, op: Operation) -> Operation:
    """The operation with the bytes it expects to replace as they are in ``snapshot``."""
    if isinstance(op, Write):
        return Write(op.path, op.data, snapshot.files[op.path].data)
    return op
