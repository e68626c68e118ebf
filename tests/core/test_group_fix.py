"""Group fixes: a family of orphans covered by one region line, broken links dropped, each one change."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core import write
from memtui.core.model.changeset import VerbError
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from memtui.core.verbs.group_fix import (
    OrphanFamily,
    cover_orphans,
    drop_broken_links,
    orphan_families,
)
from tests.support.roots import MakeRoot, topic
from tests.support.writer import tree

INDEX = (
    "# Memory\n\n## Recent\n"
    "- [Alpha](alpha.md) — the alpha fact\n"
    "- [Day one](session_2026-05-22_a.md) — the first day\n"
    "\n## Regions\n"
    "- region `lesson_*.md` → older lessons; grep the memory dir\n"
)


def session(day: str, part: str) -> tuple[str, str]:
    return f"session_2026-05-{day}_{part}.md", topic(f"Session {day} {part}", f"work on {day} {part}")


def root_with_orphans(make_root: MakeRoot, extra: dict[str, str] | None = None) -> Path:
    files = {"MEMORY.md": INDEX, "alpha.md": topic("Alpha", "the alpha fact"),
             "lesson_one.md": topic("Lesson", "a lesson", "feedback")}
    files.update(dict([session("22", "a")]))
    files.update(dict(session("23", p) for p in ("a", "b", "c", "d")))  # orphans, one day
    files.update({"draft_x.md": topic("Draft x", "x"), "draft_y.md": topic("Draft y", "y")})  # orphans
    files["loose.md"] = topic("Loose", "a lonely orphan")
    files.update(extra or {})
    return make_root(files)


def orphans(snapshot) -> list[str]:
    return sorted(f.path for f in validate(snapshot) if f.rule == "orphan")


def test_families_take_the_broadest_glob_that_matches_only_orphans(make_root: MakeRoot) -> None:
    snapshot = load_root(root_with_orphans(make_root))
    families = orphan_families(snapshot, orphans(snapshot))
    assert [(f.glob, f.region, len(f.paths)) for f in families] == [
        ("session_2026-05-23_*.md", True, 4),  # session_* would also reach the listed day 22
        ("draft_*.md", True, 2),
        ("", False, 1),
    ]
    assert families[-1].paths == ("loose.md",)


def test_covering_a_family_writes_one_region_line_and_undo_is_exact(make_root: MakeRoot) -> None:
    root = root_with_orphans(make_root)
    before = tree(root)
    snapshot = load_root(root)
    family = orphan_families(snapshot, orphans(snapshot))[0]
    changeset = cover_orphans(snapshot, [family])
    assert changeset.paths == ("MEMORY.md",)
    write.run(snapshot, changeset)
    text = (root / "MEMORY.md").read_text()
    assert text.count("session_2026-05-23_*.md") == 1
    assert text.endswith("- region `session_2026-05-23_*.md` → 4 session_2026-05-23 notes; grep the memory dir\n")
    after = load_root(root)
    assert not set(family.paths) & set(orphans(after))
    assert len(list_records(root)) == 1
    write.undo(load_root(root))
    assert tree(root) == before


def test_every_family_at_once_is_one_change_and_leaves_no_orphan(make_root: MakeRoot) -> None:
    root = root_with_orphans(make_root)
    snapshot = load_root(root)
    write.run(snapshot, cover_orphans(snapshot, orphan_families(snapshot, orphans(snapshot))))
    after = load_root(root)
    assert orphans(after) == []
    assert "[Loose](loose.md)" in (root / "MEMORY-archive.md").read_text()
    assert len(list_records(root)) == 1


def test_a_regions_block_is_added_before_path_scope_sections(make_root: MakeRoot) -> None:
    index = ("# M\n- [Alpha](alpha.md) — the alpha fact\n\n## PATH_SCOPE: web\n"
             "Scope: `/x/web`\nMemory base: `path/web/`\n")
    root = make_root({"MEMORY.md": index, "alpha.md": topic("Alpha", "a"),
                      "tip_a.md": topic("Tip a", "a"), "tip_b.md": topic("Tip b", "b")})
    snapshot = load_root(root)
    changeset = cover_orphans(snapshot, orphan_families(snapshot, orphans(snapshot)))
    write.run(snapshot, changeset)
    text = (root / "MEMORY.md").read_text()
    assert "the alpha fact\n\n## Regions\n- region `tip_*.md` → 2 tip notes; grep the memory dir\n\n## PATH_SCOPE" in text


def test_no_orphans_is_refused(make_root: MakeRoot) -> None:
    snapshot = load_root(make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": topic("A", "a")}))
    with pytest.raises(VerbError):
        cover_orphans(snapshot, [OrphanFamily("", (), False)])


def test_broken_links_in_both_indexes_drop_as_one_change(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "# M\n- [A](a.md) — a\n- [Gone](gone.md) — gone\n- [B](b.md) — b\n- [Lost](lost.md) — lost\n",
        "MEMORY-archive.md": "# Archive\n- [Old](archive/old.md) — old\n",
        "a.md": topic("A", "a"), "b.md": topic("B", "b"),
    })
    before = tree(root)
    snapshot = load_root(root)
    changeset = drop_broken_links(snapshot)
    assert set(changeset.paths) == {"MEMORY.md", "MEMORY-archive.md", "MEMORY-history.md"}
    write.run(snapshot, changeset)
    assert (root / "MEMORY.md").read_text() == "# M\n- [A](a.md) — a\n- [B](b.md) — b\n"
    assert (root / "MEMORY-archive.md").read_text().startswith("# Archive\n- [MEMORY.md history](MEMORY-history.md)")
    history = (root / "MEMORY-history.md").read_text()  # the dropped lines are kept, not erased
    assert all(line in history for line in ("- [Gone](gone.md) — gone", "- [Lost](lost.md) — lost",
                                            "- [Old](archive/old.md) — old"))
    assert not [f for f in validate(load_root(root)) if f.rule == "broken-link"]
    assert len(list_records(root)) == 1
    write.undo(load_root(root))
    assert tree(root) == before


def test_a_line_that_is_not_broken_is_refused(make_root: MakeRoot) -> None:
    snapshot = load_root(make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": topic("A", "a")}))
    with pytest.raises(VerbError, match="not a broken link"):
        drop_broken_links(snapshot, [("MEMORY.md", 1)])
    with pytest.raises(VerbError, match="no broken links"):
        drop_broken_links(snapshot)


def test_pointers_that_would_push_the_index_over_its_budget_are_archive_entries(make_root: MakeRoot) -> None:
    """An index a few characters under its cap has no room for the Regions block: the fix the
    gate would refuse becomes one it accepts — every orphan listed in the archive index (which
    costs nothing at session start), and the change says why."""
    filler = "".join(f"A plain line of notes that fills the index, number {n:03d}, " + "x" * 120 + "\n"
                     for n in range(130))
    root = root_with_orphans(make_root)
    index = INDEX + filler
    index += "y" * (24_990 - len(index)) + "\n"
    (root / "MEMORY.md").write_text(index)
    snapshot = load_root(root)
    changeset = cover_orphans(snapshot, orphan_families(snapshot, orphans(snapshot)))
    assert changeset.paths == ("MEMORY-archive.md",)
    assert "no room within its budget for 2 more region pointers" in changeset.description
    applied = write.run(snapshot, changeset)
    assert applied is not None
    after = load_root(root)
    assert orphans(after) == [] and (root / "MEMORY.md").read_text() == index
    archived = (root / "MEMORY-archive.md").read_text()
    assert all(f"({path})" in archived for path in ("session_2026-05-23_a.md", "draft_x.md", "loose.md"))


def test_no_pointer_goes_past_the_pressure_line(make_root: MakeRoot) -> None:
    """At 91% of its characters the index has room under the cap, but a curator keeps that room
    for the author's own entries: the orphans go to the archive index, MEMORY.md stays as it is."""
    root = root_with_orphans(make_root)
    index = INDEX + "".join(f"A plain line of notes, number {n:03d}, " + "x" * 140 + "\n" for n in range(120))
    index += "y" * (22_750 - len(index)) + "\n"
    (root / "MEMORY.md").write_text(index)
    snapshot = load_root(root)
    changeset = cover_orphans(snapshot, orphan_families(snapshot, orphans(snapshot)))
    assert changeset.paths == ("MEMORY-archive.md",)
    write.run(snapshot, changeset)
    assert orphans(load_root(root)) == [] and (root / "MEMORY.md").read_text() == index
