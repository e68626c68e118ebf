"""Folder documents (README, LICENSE, a second index, setup notes, an unfilled template) are not
memories: one ``folder-document`` warning that says what they are instead of an ``orphan`` error,
and no pass — repair, consolidation, staleness, the dream — takes them for memories."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.core.dream.plan import plan_dream
from memtui.core.judge.consolidate import scan
from memtui.core.judge.staleness import score_root
from memtui.core.model.folder_docs import folder_document
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.snapshot import MemoryFile
from memtui.core.read.store import load_root
from memtui.core.rules.incremental import findings_cache
from memtui.core.rules.validate import DOCUMENT, ORPHAN, reach_of, sort_findings, validate
from memtui.core.tidy.repair import plan_repair
from tests.support.roots import MakeRoot, topic

NOW = datetime(2026, 12, 2, tzinfo=timezone.utc)
FACT = ("The nightly export job writes the shipment ledger to the reporting bucket before six, "
        "and the dashboard reads it from there at seven.\n")


def memory_file(path: str, text: str) -> MemoryFile:
    return MemoryFile(path, len(text.encode()), 0.0, text, parse_frontmatter(text))


@pytest.mark.parametrize(
    ("path", "text", "kind"),
    [
        ("README.md", "# Team memory\n\nWhat this folder is.\n", "document"),
        ("docs/README.md", "# Docs\n\nthe docs folder\n", "document"),
        ("README.ja.md", "# メモリ\n\nこのフォルダについて。\n", "document"),
        ("LICENSE-PENDING.md", "# LICENSE PENDING\n\nAll rights reserved.\n", "document"),
        ("NOTES.md", "# NOTES -- export\n\nExported snapshot.\n", "document"),
        ("SETUP.md", "# 別PCでのセットアップ\n\nこのフォルダをコピーする。\n", "document"),
        ("INDEX.md", topic("Index", "every research file", type_="reference"), "index"),
        ("MEMORY_INDEX.md", topic("Index", "the research files", type_="reference"), "index"),
        ("MEMORY_ARCHIVE.md", "<!-- DEPRECATED -->\n# Archive\n- [a](a.md)\n", "index"),
        ("project-stack.md", topic("project-stack", "stack details", body="<!-- fill in on first "
                                   "use -->\n\n## Stack\n<!-- record: the stack, CI branches -->\n"),
         "template"),
        ("README.md", topic("Read me", "how we deploy", type_="feedback"), None),  # a memory
        ("readme_first.md", topic("Read me first", "start here"), None),
        ("notes_2026-05-01.md", "# Notes\n\nThe deploy moved to Fridays.\n", None),
        ("stub.md", topic("stub", "a fact", body="<!-- why -->\nThe fact itself.\n"), None),
    ],
)
def test_what_counts_as_a_folder_document(path: str, text: str, kind: str | None) -> None:
    found = folder_document(path, memory_file(path, text))
    assert (found.kind if found else None) == kind
    assert found is None or found.what


@pytest.fixture
def readme_root(make_root: MakeRoot) -> Path:
    """A root whose README is addressed to the reader of the folder, beside two memories that
    share most of their words with it."""
    return make_root({
        "MEMORY.md": "# Memory\n\n## Recent\n- [Export](export.md) — the nightly export\n",
        "export.md": topic("Nightly export", "when the ledger export runs", body=FACT),
        "export_notes.md": topic("Nightly export timing", "when the export runs", body=FACT),
        "README.md": ("# Shipping team memory\n\nThis folder holds what our coding agents remember "
                      "about the shipping service. If you are reading this on GitHub: start with "
                      "MEMORY.md; please do not edit the topic files by hand.\n\n" + FACT),
    })


def test_a_readme_addressed_to_the_reader_gets_one_warning_not_an_orphan_error(readme_root: Path) -> None:
    snapshot = load_root(readme_root)
    findings = validate(snapshot)
    about = [f for f in findings if f.path == "README.md"]
    assert [(f.rule, f.severity) for f in about] == [("folder-document", "warning")]
    assert "the folder's README" in about[0].message and "not the agent" in about[0].message
    assert [f.path for f in findings if f.rule == ORPHAN] == ["export_notes.md"]  # a memory still is
    assert reach_of(snapshot).how("README.md") == DOCUMENT
    assert sort_findings(findings_cache(snapshot).findings) == findings  # the writer's validation agrees


def test_no_pass_takes_the_readme_for_a_memory(readme_root: Path) -> None:
    snapshot = load_root(readme_root)
    changeset, report = plan_repair(snapshot)  # the orphan memory gets an entry, the README none
    assert report.documents == ["README.md"]
    assert not any("README.md" in line for line in report.indexed)
    assert all("README.md" not in getattr(op, "text", "") for op in changeset.ops)
    pairs = {frozenset((p.a, p.b)) for p in scan(snapshot, 0.1).pairs}
    assert frozenset(("export.md", "export_notes.md")) in pairs
    assert not any("README.md" in pair for pair in pairs)
    stale = score_root(snapshot, NOW)
    assert "README.md" not in {r.path for r in stale.results}
    assert stale.documents == (("README.md", "the folder's README"),)
    assert stale.to_json()["documents"] == [{"path": "README.md", "what": "the folder's README"}]
    plan = plan_dream(snapshot, NOW)
    assert not any("README.md" in item.paths for item in plan.items if item.kind != "documents")
    [documents] = [item for item in plan.items if item.kind == "documents"]
    assert not documents.checked and "README.md" in documents.paths


def test_an_unfilled_template_is_one_warning_that_says_to_fill_it(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "# Memory\n",
        "project-stack.md": topic("project-stack", "stack details for this project",
                                  body="<!-- Preencher quando trabalhar neste projeto pela primeira "
                                       "vez -->\n"),
    })
    [finding] = validate(load_root(root))
    assert (finding.rule, finding.severity, finding.path) == ("folder-document", "warning",
                                                              "project-stack.md")
    assert "unfilled template" in finding.message and "fill it in" in finding.message


def test_a_listed_readme_is_not_reported(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "- [Readme](README.md) — what this folder is\n",
                      "README.md": "# Team memory\n\nWhat this folder is, for people.\n"})
    assert validate(load_root(root)) == []
