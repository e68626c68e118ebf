"""Entries whose author marks their file superseded in MEMORY.md, and the successor the words name;
the dream folds such a file into its successor (or archives it) instead of merging the two."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.core import write
from memtui.core.dream import plan as dream
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.index_marks import index_marks
from memtui.core.model.snapshot import MemoryFile
from memtui.core.read.store import load_root
from tests.support.roots import CORPORA, MakeRoot, topic
from tests.support.writer import tree

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def marks_of(make_root: MakeRoot, lines: list[str], **files: str) -> dict[str, tuple[str | None, bool]]:
    names = {m.group(1) for line in lines for m in [re.search(r"\]\(([^)]+)\)", line)] if m}
    texts = {name: topic(name[:-3]) for name in names} | files
    root = make_root(texts | {"MEMORY.md": "# Memory\n\n" + "\n".join(lines) + "\n"})
    return {m.path: (m.successor, m.partial) for m in index_marks(load_root(root))}


def test_a_mark_reads_as_a_status_and_names_its_successor(make_root: MakeRoot) -> None:
    found = marks_of(make_root, [
        "- [Cover letter](cover.md) — SUPERSEDED by unified rules below. Kept for reference only.",
        "- [Unified resume/CL rules](rules.md) — all rules consolidated",
        "- [Old installer](old.md) - SUPERSEDED by safe installer (2026-05-01)",
        "- [Arrow fix](arrow.md) - PARTIAL - superseded by the de-quote root fix below.",
        "- [ROOT de-quote fix](dequote.md) - the whole class",
        "- [Safe installer (2026-05-01)](safe.md) - additive installs",
        "- [Old plan](plan.md) — superseded by below",
        "- [Next plan](next.md) — what follows",
        "- [Named](named.md) — Superseded by `next.md` since the rework",
        "- [Dotted](dotted.md) — SUPERSEDED by next.md. Kept for the record",
        "- [Status only](status.md) — done [SUPERSEDED: v1 collapsed on frozen-90]",
    ])
    assert found == {
        "cover.md": ("rules.md", False),
        "old.md": ("safe.md", False),  # above or below: the words say which entry
        "arrow.md": ("dequote.md", True),
        "plan.md": ("next.md", False),  # "below" alone: the next entry
        "named.md": ("next.md", False),
        "dotted.md": ("next.md", False),
        "status.md": (None, False),  # a status, no successor named
    }


def test_words_about_supersession_are_no_mark(make_root: MakeRoot) -> None:
    found = marks_of(make_root, [
        "- [Memory graph](graph.md) - Relationship links (relates_to, supersedes, superseded_by), decision type",
        "- [Ruling](ruling.md) - the ruling marked the naming chain superseded_by (commit 71157133)",
        "- [Policy](policy.md) — how superseded entries are archived",
        "- [Keep](keep.md) — not superseded by the rewrite: both hold",
        "- [Newer](newer.md) — supersedes the old plan",
    ])
    assert found == {}


def test_a_file_already_declared_pinned_or_team_is_left_alone(make_root: MakeRoot) -> None:
    found = marks_of(make_root, [
        "- [Declared](declared.md) — SUPERSEDED by next below",
        "- [Pinned](pinned.md) — SUPERSEDED by next below",
        "- [Next](next.md) — the next one",
    ], **{"declared.md": topic("Declared", superseded_by="next.md"),
          "pinned.md": topic("Pinned", pinned="true")})
    assert found == {}


def test_a_mark_naming_nothing_that_exists_has_no_successor(make_root: MakeRoot) -> None:
    found = marks_of(make_root, [
        "- [Old](old.md) — SUPERSEDED by the quantum rewrite above",
        "- [Other](other.md) — unrelated",
    ])
    assert found == {"old.md": (None, False)}


def _stripped(root: Path) -> object:
    """A corpus root with every superseded_by/status line taken out of its files."""
    snapshot = load_root(root)
    files = {}
    for path, f in snapshot.files.items():
        text = re.sub(r"(?m)^(?:superseded_by|status):.*\n", "", f.text)
        files[path] = MemoryFile(path, f.size, f.mtime, text, parse_frontmatter(text))
    return replace(snapshot, files=files)


@pytest.mark.skipif(not CORPORA.is_dir(), reason="the corpora are not beside the project")
def test_the_corpora_marks_and_the_authors_own_successors() -> None:
    """Every index mark of the corpora, read by hand; where the same author also wrote
    ``superseded_by`` in the file, the successor the words name is that one."""
    found = {}
    for name in ("4444J99__application-pipeline__claude-memory", "jonahscohen__improv__claude-memory-2026-06-01",
                 "jonahscohen__improv__claude-memory"):
        for mark in index_marks(load_root(CORPORA / name)):
            found[mark.path] = (mark.successor, mark.partial)
    assert found == {
        "feedback_cover_letter_quality.md": ("feedback_resume_cover_letter_quality_2026-03-26.md", False),
        "session_2026-04-25_skills-component-split.md": ("session_2026-05-01_safe-installer.md", False),
        "session_2026-05-28_memory_nudge_commit_arrow_fix.md": ("session_2026-05-28_memory_nudge_dequote_fix.md", True),
    }
    stripped = {m.path: m.successor for m in index_marks(_stripped(CORPORA / "jonahscohen__improv__claude-memory-2026-06-01"))}  # type: ignore[arg-type]
    assert stripped["session_2026-05-28_skill-recon-team.md"] == "session_2026-05-28_skill-recon-synthesis.md"
    stripped = {m.path: m.successor for m in index_marks(_stripped(CORPORA / "jonahscohen__improv__claude-memory"))}  # type: ignore[arg-type]
    assert stripped["session_2026-06-25_sidecoach-marketing-buzzword-operating-point.md"] is None  # "SUPERSEDED: v1 …"


def test_the_dream_folds_a_marked_note_into_its_successor_and_merges_nothing(make_root: MakeRoot) -> None:
    """The author's mark wins over a merge of the two: the old note is folded into the one the
    mark names (superseded_by, archive/, its entry byte for byte in the archive index); a partly
    superseded note waits for a person; a mark naming no successor archives its file with
    ``status: superseded``.  One undo takes it all back."""
    rule = ("Cover letters fill a full page of 550-700 words, in New York City, built from markdown "
            "to a resume-styled PDF, never apologising for gaps, with current metrics.\n")
    root = make_root({
        "MEMORY.md": "# Memory\n\n## Feedback\n"
                     "- [Cover letter](cover.md) — SUPERSEDED by unified rules below. Kept for reference.\n"
                     "- [Unified rules](rules.md) — every rule, consolidated\n"
                     "- [Arrow fix](arrow.md) — PARTIAL - superseded by the root fix below\n"
                     "- [Root fix](root_fix.md) — the whole class\n"
                     "- [Decision v1](v1.md) — done [SUPERSEDED: v1 collapsed]\n",
        "cover.md": topic("Cover letter", type_="feedback", body=rule),
        "rules.md": topic("Unified rules", type_="feedback", body=rule + "Every rule stays in force.\n"),
        "arrow.md": topic("Arrow fix", body="Exempt pure git commands from the arrow check.\n"),
        "root_fix.md": topic("Root fix", body="Strip quoted spans before matching write tokens.\n"),
        "v1.md": topic("Decision v1", type_="decision", body="Use the v1 detector.\n"),
    })
    before = tree(root)
    plan = dream.plan_dream(load_root(root), NOW)
    marked = {item.paths: item for item in plan.items if item.kind == "supersede-declared"}
    assert set(marked) == {("cover.md", "rules.md"), ("arrow.md", "root_fix.md"), ("v1.md",)}
    assert marked[("cover.md", "rules.md")].checked and marked[("v1.md",)].checked
    assert not marked[("arrow.md", "root_fix.md")].checked
    assert "only partly superseded" in marked[("arrow.md", "root_fix.md")].note
    assert not [item for item in plan.items if item.kind == "merge" and "cover.md" in item.paths]
    preview = dream.preview(plan, plan.default)
    assert preview.accepted
    write.commit(preview)
    after = load_root(root)
    assert "cover.md" not in after.files and "v1.md" not in after.files and "arrow.md" in after.files
    old = after.files["archive/cover.md"].frontmatter
    assert old.get("status") == "superseded" and old.names("superseded_by") == ("rules.md",)
    assert after.files["rules.md"].frontmatter.names("supersedes") == ("cover.md",)
    assert after.files["archive/v1.md"].frontmatter.get("status") == "superseded"
    archive = (root / "MEMORY-archive.md").read_text(encoding="utf-8")
    assert "- [Cover letter](archive/cover.md) — SUPERSEDED by unified rules below. Kept for reference." in archive
    assert "[Decision v1](archive/v1.md) — done [SUPERSEDED: v1 collapsed]" in archive
    write.undo(after)
    assert tree(root) == before  # folders included: no archive/ left behind


def test_a_chain_of_marks_is_one_item_folded_in_order(make_root: MakeRoot) -> None:
    """v1 marked superseded by v2, v2 by v3: one item, each folded into the one its mark names;
    a chain ending at a file marked with no successor archives that file too."""
    root = make_root({
        "MEMORY.md": "# Memory\n\n- [Plan v1](v1.md) — SUPERSEDED by plan v2 below\n"
                     "- [Plan v2](v2.md) — SUPERSEDED by plan v3 below\n"
                     "- [Plan v3](v3.md) — the plan\n"
                     "- [Draft](draft.md) — SUPERSEDED by the final draft below\n"
                     "- [Final draft](final.md) — done [SUPERSEDED: the idea was dropped]\n",
        **{name: topic(title, body=f"{title}: ship the importer in two steps.\n")
           for name, title in (("v1.md", "Plan v1"), ("v2.md", "Plan v2"), ("v3.md", "Plan v3"),
                               ("draft.md", "Draft"), ("final.md", "Final draft"))},
    })
    plan = dream.plan_dream(load_root(root), NOW)
    marked = {item.paths: item for item in plan.items if item.kind == "supersede-declared"}
    assert set(marked) == {("v1.md", "v2.md", "v3.md"), ("draft.md", "final.md")}
    assert all(item.checked for item in marked.values())
    preview = dream.preview(plan, plan.default)
    assert preview.accepted
    write.commit(preview)
    after = load_root(root)
    assert set(after.files) >= {"v3.md", "archive/v1.md", "archive/v2.md", "archive/draft.md", "archive/final.md"}
    assert after.files["archive/v1.md"].frontmatter.names("superseded_by") == ("v2.md",)
    assert after.files["archive/v2.md"].frontmatter.names("superseded_by") == ("v3.md",)
    assert after.files["archive/draft.md"].frontmatter.names("superseded_by") == ("final.md",)
    assert after.files["archive/final.md"].frontmatter.get("status") == "superseded"
    assert after.files["v3.md"].frontmatter.names("supersedes") == ("v2.md",)
