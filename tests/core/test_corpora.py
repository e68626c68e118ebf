"""The real-world folders under ../shared/corpora load, round-trip and report true things.

Skipped when the corpora are absent (a fresh clone without shared/)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from memtui.core.model.frontmatter import clear_key, parse_frontmatter, set_key
from memtui.core.model.index import parse_index
from memtui.core.model.snapshot import BudgetConfig, encode_text
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from tests.support.roots import corpus, corpus_roots

ROOTS = corpus_roots()


def rules_of(root: Path) -> Counter[str]:
    return Counter(f.rule for f in validate(load_root(root)))


def test_all_fifteen_corpora_are_found(corpora: Path) -> None:
    folders = {p.name for p in corpora.iterdir() if p.is_dir()}
    assert len(folders) == 15
    covered = {r.relative_to(corpora).parts[0] for r in ROOTS}
    assert covered == folders


@pytest.mark.parametrize("root", ROOTS, ids=[str(r) for r in ROOTS])
def test_corpus_root_loads_and_round_trips(root: Path) -> None:
    snapshot = load_root(root)
    validate(snapshot)
    assert snapshot.index.render() == (root / "MEMORY.md").read_bytes()
    for rel, f in snapshot.files.items():
        assert f.data == (root / rel).read_bytes()


@pytest.mark.parametrize("root", ROOTS, ids=[str(r) for r in ROOTS])
def test_pin_then_unpin_touches_only_the_pinned_line(root: Path) -> None:
    snapshot = load_root(root)
    for f in snapshot.files.values():
        if "pinned" in f.frontmatter.fields:
            continue
        pinned = set_key(f.text, "pinned", "true")
        assert parse_frontmatter(pinned).get("pinned") == "true"
        assert pinned.startswith("\ufeff") == f.text.startswith("\ufeff")
        before = f.text.lstrip("\ufeff").splitlines(keepends=True)
        after = pinned.lstrip("\ufeff").splitlines(keepends=True)
        added = [ln for ln in after if ln not in before]
        assert len(after) == len(before) + (1 if f.frontmatter.closed else 3)
        assert added and all("pinned: true" in ln or ln.strip() == "---" for ln in added)
        assert clear_key(pinned, "pinned") == f.text or not f.frontmatter.closed
        assert encode_text(pinned).count(b"\r\n") in (0, f.data.count(b"\r\n") + len(added))


def test_improv_2026_06_01_reports_budget_broken_links_and_duplicates() -> None:
    rules = rules_of(corpus("jonahscohen__improv__claude-memory-2026-06-01"))
    assert rules["budget-lines"] == 1
    assert rules["budget-bytes"] == 1
    assert rules["broken-link"] == 8  # 7 entries, and line 7's trailing [[feedback_clone_1to1]]
    assert rules["duplicate-entry"] == 2
    assert rules["orphan"] == 161  # line 11 mentions session_2026-05-29_tilt-lab-recon-team.md


def test_improv_reports_orphans_and_broken_archive_links() -> None:
    root = corpus("jonahscohen__improv__claude-memory")
    findings = validate(load_root(root))
    assert sum(f.rule == "orphan" for f in findings) == 285
    broken = [f for f in findings if f.rule == "broken-link"]
    assert len(broken) == 7 and {f.path for f in broken} == {"MEMORY-archive.md"}
    assert sum(f.rule == "frontmatter" and "decision" in f.message for f in findings) == 82


def test_aleslammer_links_leaving_the_root() -> None:
    findings = validate(load_root(corpus("Aleslammer__deathwatch_foundryvtt__claude-memory")))
    escapes = [f for f in findings if f.rule == "link-escapes-root"]
    assert sorted(f.subject for f in escapes) == ["../../CLAUDE.md", "../../docs/", "../docs/README.md"]
    assert not [f for f in findings if f.rule in ("orphan", "broken-link")]


def test_austinweitao_wikilinked_topic_is_reachable_and_token_is_flagged() -> None:
    root = corpus("austinweitao__claude-backup__projects-memory") / "projects" / \
        "-home-cwtrocks-OpenCoreAnalysisKit" / "memory"
    findings = validate(load_root(root))
    assert not [f for f in findings if f.rule == "orphan"]
    secrets = [f for f in findings if f.rule == "secret"]
    assert secrets and {f.path for f in secrets} == {"MEMORY.md"}
    assert {f.line for f in secrets} <= {14, 15}


def test_tidy_baseline_has_one_duplicate_and_nothing_else() -> None:
    rules = rules_of(corpus("4444J99__application-pipeline__claude-memory"))
    assert rules == Counter({"duplicate-entry": 1})


def test_1000ssam_dialects_empty_names_and_secret() -> None:
    root = corpus("1000ssam__claude-config__memory")
    snapshot = load_root(root)
    nested = [f for f in snapshot.files.values() if any(ln.nested for ln in f.frontmatter.lines)]
    assert len(nested) >= 60 and all(f.type != "unknown" for f in nested if f.frontmatter.get("type"))
    findings = validate(snapshot)
    empty_names = {f.path for f in findings if f.rule == "frontmatter" and "name" in f.message}
    assert {"feedback_branch-policy-strict.md", "feedback_vibe-learning-log.md"} <= empty_names
    assert [f.path for f in findings if f.rule == "orphan"] == ["notiontalk-landing-strategy.md"]
    assert [f.path for f in findings if f.rule == "secret"] == ["project_book-writer.md"]
    # 27,756 bytes of mostly Korean text are 19,232 characters: over the line cap only
    rules = {f.rule for f in findings}
    assert "budget-lines" in rules and "budget-bytes" not in rules
    assert "budget-bytes" in {f.rule for f in validate(load_root(root, BudgetConfig(loader="raw")))}


def test_nested_roots_are_separate_and_report_their_own_defects() -> None:
    base = corpus("jonahscohen__improv__nested-roots")
    per_root = {str(r.relative_to(base)): rules_of(r) for r in ROOTS if base in r.parents}
    claude = per_root["claude/memory"]
    assert claude["broken-link"] + claude["link-escapes-root"] == 6
    assert per_root["justify/.claude/memory"]["orphan"] == 13
    assert per_root["sidecoach/.claude/memory"]["orphan"] == 24
    assert per_root["sidecoach/.claude/memory"]["broken-link"] == 1
    assert per_root["marketing-site/.claude/memory"]["broken-link"] == 1


def test_markus41_root_links_files_that_live_in_the_nested_root() -> None:
    base = corpus("markus41__claude__agent-memory")
    snapshot = load_root(base)
    assert set(snapshot.nested_roots) == {"code-reviewer", "researcher"}
    assert rules_of(base)["broken-link"] == 4
    assert rules_of(base / "researcher")["budget-lines"] == 1


def test_inpacchi_big_log_duplicate_and_false_positive_key() -> None:
    base = corpus("Inpacchi__mission-control__agent-memory")
    assert rules_of(base / "code-reviewer")["topic-too-large"] == 1
    assert rules_of(base / "sdlc-compliance-auditor")["duplicate-entry"] == 1
    assert all(rules_of(r)["secret"] == 0 for r in ROOTS if base in r.parents)


def test_small_corpora_orphans_and_escapes() -> None:
    assert rules_of(corpus("1246691721__claude-memory__root"))["orphan"] == 3
    export = rules_of(corpus("0SxD__memory-export__root"))  # README, NOTES, LICENSE-PENDING:
    assert export["orphan"] == 0 and export["folder-document"] == 3  # the folder's, not orphans
    assert export["link-escapes-root"] == 1
    riftzen = corpus("riftzen-bit__claude-backup__projects-memory") / "projects"
    assert rules_of(riftzen / "-home-paul-Projects-idea" / "memory")["orphan"] == 5
    assert rules_of(riftzen / "-home-paul-Projects-muxmux" / "memory")["orphan"] == 1
    assert rules_of(riftzen / "-home-paul" / "memory")["orphan"] == 1
    camunda = validate(load_root(corpus("camunda__camunda__agent-memory")))
    assert [f.path for f in camunda if f.rule == "frontmatter"] == [
        "orchestrator/project_notebook_detail_widget.md"]


def test_index_only_memory_is_clean() -> None:
    root = corpus("ActorForth__ActorForth__claude-memory")
    snapshot = load_root(root)
    assert snapshot.files == {} and validate(snapshot) == []


def test_archive_index_round_trips() -> None:
    root = corpus("jonahscohen__improv__claude-memory")
    data = (root / "MEMORY-archive.md").read_bytes()
    assert parse_index(data, "MEMORY-archive.md").render() == data
