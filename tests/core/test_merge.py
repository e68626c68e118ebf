"""The merge verb: provenance, sources archived intact, the index, the gate, undo, pinned files."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memtui.core import write
from memtui.core.model.changeset import Create, VerbError
from memtui.core.model.frontmatter import clear_key
from memtui.core.model.snapshot import decode_bytes
from memtui.core.read.store import load_root
from memtui.core.rules.validate import errors, validate
from memtui.core.verbs.merge import merge
from tests.support.roots import MakeRoot, corpus, topic
from tests.support.writer import writable_copy

TODAY = date(2026, 11, 29)
INDEX = (
    "# Memory\n\n## Pinned\n- [Keep](keep.md) — always loaded\n\n## Recent\n"
    "- [Old GC](gc_old.md) — the older runbook\n- [Other](other.md) — unrelated\n"
    "- [New GC](gc_new.md) — the newer runbook\n"
)
FENCE = "```sh\nharborctl gc run --dry-run\n```\n"


@pytest.fixture
def root(make_root: MakeRoot) -> Path:
    return make_root({
        "MEMORY.md": INDEX,
        "keep.md": topic("Keep", pinned="true", updated="2026-01-01"),
        "other.md": topic("Other"),
        "gc_old.md": topic("Old GC runbook", type_="reference", updated="2026-09-01",
                           body="Run a dry run first.\nCheck the lock.\n\n" + FENCE),
        "gc_new.md": topic("GC runbook", description="How to run GC", type_="reference",
                           updated="2026-11-01", body="Run a dry run first.\nWatch the metrics.\n"),
    })


def tree(root: Path) -> dict[str, bytes]:
    """Every file under the root except memtui's own bookkeeping."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".memtui" not in p.relative_to(root).parts
    }


def apply(root: Path, paths: list[str], **kwargs: object) -> write.Applied:
    snapshot = write.open_root(root)
    return write.run(snapshot, merge(snapshot, paths, today=TODAY, **kwargs))  # type: ignore[arg-type]


def test_gist_carries_provenance_and_the_newer_frontmatter(root: Path) -> None:
    apply(root, ["gc_old.md", "gc_new.md"])
    gist = load_root(root).files["gc_runbook.md"]
    fm = gist.frontmatter
    assert fm.get("consolidated_from") == "gc_old.md, gc_new.md"
    assert (fm.get("name"), fm.get("description"), fm.get("updated")) == (
        "GC runbook", "How to run GC", "2026-11-01")
    body = gist.body
    assert body.count("Run a dry run first.") == 1  # a line both sides hold, kept once
    assert "Watch the metrics." in body and "Check the lock." in body
    assert "## From gc_old.md" in body and FENCE in body  # the fenced block stays whole


def test_sources_archived_intact_with_folded_into(root: Path) -> None:
    before = tree(root)
    apply(root, ["gc_old.md", "gc_new.md"])
    after = tree(root)
    assert "gc_old.md" not in after and "gc_new.md" not in after
    for name in ("gc_old.md", "gc_new.md"):
        archived = decode_bytes(after[f"archive/{name}"])
        assert "folded_into: gc_runbook.md" in archived
        assert clear_key(archived, "folded_into").encode() == before[name]  # only that line added


def test_index_gives_the_gist_the_first_source_place(root: Path) -> None:
    apply(root, ["gc_new.md", "gc_old.md"])
    index = (root / "MEMORY.md").read_text()
    assert index == INDEX.replace(
        "- [Old GC](gc_old.md) — the older runbook\n",
        "- [GC runbook](gc_runbook.md) — the newer runbook\n",
    ).replace("- [New GC](gc_new.md) — the newer runbook\n", "")
    archive = (root / "MEMORY-archive.md").read_text()
    assert "](archive/gc_new.md) — the newer runbook" in archive
    assert "](archive/gc_old.md) — the older runbook" in archive


def test_gate_accepts_and_adds_no_error(root: Path) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, merge(snapshot, ["gc_old.md", "gc_new.md"], today=TODAY))
    assert preview.accepted, preview.refusal_message()
    assert errors(validate(preview.after)) == [] == errors(validate(snapshot))


def test_undo_restores_every_byte(root: Path) -> None:
    before = tree(root)
    apply(root, ["gc_old.md", "gc_new.md"])
    assert tree(root) != before
    write.undo(write.open_root(root))
    assert tree(root) == before


def test_user_body_replaces_the_merged_one(root: Path) -> None:
    apply(root, ["gc_old.md", "gc_new.md"], body="One line to rule them.")
    gist = load_root(root).files["gc_runbook.md"]
    assert gist.body == "One line to rule them.\n"
    assert gist.frontmatter.get("consolidated_from") == "gc_old.md, gc_new.md"


def test_pinned_member_refused_without_confirmation(root: Path) -> None:
    snapshot = load_root(root)
    with pytest.raises(VerbError, match="keep.md is pinned; merging needs confirmation"):
        merge(snapshot, ["keep.md", "gc_new.md"], today=TODAY)


def test_pinned_member_with_confirmation_pins_the_gist(root: Path) -> None:
    before = tree(root)
    apply(root, ["gc_new.md", "keep.md"], confirm_pinned=True)
    snapshot = load_root(root)
    gist = snapshot.files["gc_runbook.md"]
    assert gist.pinned
    assert not snapshot.files["archive/keep.md"].pinned
    index = (root / "MEMORY.md").read_text()
    pinned_block = index.split("## Pinned\n", 1)[1].split("## Recent", 1)[0]
    assert "](gc_runbook.md)" in pinned_block and "keep.md" not in index
    assert errors(validate(snapshot)) == []
    write.undo(write.open_root(root))
    assert tree(root) == before


def test_name_collision_gets_a_dated_name(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "- [a](same.md) — a\n- [b](b.md) — b\n- [c](c.md) — c\n",
        "same.md": topic("Same", updated="2026-01-01"),
        "b.md": topic("Same", updated="2026-02-01"),
        "c.md": topic("C"),
    })
    snapshot = load_root(root)
    changeset = merge(snapshot, ["same.md", "b.md"], today=TODAY)
    assert changeset.ops[0].path == "same_2026-02-01.md"  # type: ignore[union-attr]  # the sources' date, not the merge day
    assert write.plan(snapshot, changeset).accepted


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        (["gc_old.md"], "at least two"),
        (["gc_old.md", "gc_old.md"], "named twice"),
        (["gc_old.md", "nope.md"], "no memory file 'nope.md'"),
        (["gc_old.md", "MEMORY.md"], "index file"),
        (["gc_old.md", "archive/x.md"], "archived"),
    ],
)
def test_refusals(root: Path, paths: list[str], message: str) -> None:
    (root / "archive").mkdir()
    (root / "archive" / "x.md").write_text(topic("X"))
    (root / "MEMORY-archive.md").write_text("- [X](archive/x.md) — x\n")
    with pytest.raises(VerbError, match=message):
        merge(load_root(root), paths, today=TODAY)


def test_merge_on_a_copy_of_a_real_corpus(tmp_path: Path) -> None:
    """Three orphaned near-duplicates in an over-budget root: the gate accepts the merge (the
    gist is reached through the archive index, MEMORY.md does not grow) and it fixes 3 orphans."""
    source = corpus("markus41__claude__agent-memory") / "researcher"
    root = tmp_path / "researcher"
    writable_copy(source, root)
    before = tree(root)
    sources = ["agentic_design_patterns.md", "agentic_design_patterns_research.md",
               "agentic-patterns-research.md"]
    snapshot = write.open_root(root)
    preview = write.plan(snapshot, merge(snapshot, sources, today=TODAY))
    assert preview.accepted, preview.refusal_message()
    write.commit(preview)
    after = tree(root)
    assert after["MEMORY.md"] == before["MEMORY.md"]
    for name in sources:
        assert clear_key(decode_bytes(after[f"archive/{name}"]), "folded_into").encode() == before[name]
    orphans = {f.path for f in validate(load_root(root)) if f.rule == "orphan"}
    assert not orphans & set(sources) and len(errors(validate(load_root(root)))) < len(
        errors(validate(snapshot)))


def test_a_big_cluster_parses_the_archive_index_once_not_once_per_source(
    make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folding n files appends n archive entries; the draft is parsed again only when read, so
    planning stays linear (it was one whole parse per source: 783 files took 30 s)."""
    from memtui.core.model import index_edit

    n = 60
    files = {f"n{i:03d}.md": topic(f"Note {i}", updated="2026-10-01") for i in range(n)}
    index = "# Memory\n\n## Recent\n" + "".join(f"- [Note {i}](n{i:03d}.md) — note {i}\n" for i in range(n))
    root = make_root({"MEMORY.md": index, **files})
    snapshot = load_root(root)
    calls = 0
    real = index_edit.parse_index

    def counting(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(index_edit, "parse_index", counting)
    changeset = merge(snapshot, sorted(files), today=TODAY)
    assert calls <= 6
    archive = next(op for op in changeset.ops if isinstance(op, Create) and op.path == "MEMORY-archive.md")
    entries = [line for line in decode_bytes(archive.data).splitlines() if line.startswith("- [")]
    assert len(entries) == n
