"""Status before age (DESIGN §5): the author's declared supersession and archive decide the action;
rules and successors are not pruned for their age alone; a date the body states is an age.

Each kind is checked on a small root and, where the corpora are present, on the real file the
misjudgment was found on (verdict before: the cause; after: the verdict the status asks for).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memtui.core.judge.ages import file_age
from memtui.core.judge.dates import (
    BODY_CAPTURED,
    BODY_FIELD,
    BODY_FIRST_LINES,
    BODY_HEADING,
    BODY_LEADING,
    TITLE_SOURCE,
    body_date,
)
from memtui.core.judge.staleness import (
    Action,
    StalenessClass,
    action_for,
    decay_score,
    facts_of,
    row_json,
    rows_at,
    score_root,
)
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.snapshot import MemoryFile
from memtui.core.read.store import load_root
from tests.support.roots import CORPORA, MakeRoot, topic

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
MTIME = datetime(2026, 11, 30, tzinfo=timezone.utc).timestamp()


def _report(make_root: MakeRoot, files: dict[str, str]):  # type: ignore[no-untyped-def]
    root = make_root(files)
    for path in root.rglob("*.md"):
        import os

        os.utime(path, (MTIME, MTIME))
    return score_root(load_root(root), NOW, include_archived=True)


def _same_in_rows(report) -> None:  # type: ignore[no-untyped-def]
    """The clock-free facts scored again give the report's JSON, row for row."""
    rows = rows_at([facts_of(r) for r in report.results], NOW)
    assert [row_json(row) for row in rows] == [r.to_json() for r in report.results]


# ------------------------------------------------------------------------- superseded kept

def test_a_superseded_file_is_pruned_whatever_its_age(make_root: MakeRoot) -> None:
    report = _report(make_root, {
        "decision_old.md": topic("Old name", type_="decision", updated="2026-11-29",
                                 superseded_by="decision_new.md"),
        "decision_new.md": topic("New name", type_="decision", updated="2026-11-29"),
        "note_retired.md": topic("Retired", updated="2026-11-29", status="superseded"),
        "note_shelved.md": topic("Shelved", updated="2026-11-29", status="archived"),
        "note_dangling.md": topic("Dangling", updated="2026-11-29", superseded_by="nowhere.md"),
    })
    old = report.get("decision_old.md")
    assert old is not None and old.score < 50 and action_for(old.score) is Action.KEEP
    assert (old.action, old.cls) == (Action.PRUNE, StalenessClass.SUPERSEDED)
    assert old.status is not None and "decision_new.md" in old.status.reason
    assert report.get("note_retired.md").cls is StalenessClass.SUPERSEDED  # type: ignore[union-attr]
    shelved = report.get("note_shelved.md")
    assert shelved is not None and (shelved.action, shelved.cls) == (Action.PRUNE, StalenessClass.ARCHIVED)
    # superseded_by naming no file of the root is no declaration
    dangling = report.get("note_dangling.md")
    assert dangling is not None and dangling.status is None and dangling.action is Action.KEEP
    _same_in_rows(report)


def test_a_file_its_index_entry_marks_superseded_is_pruned_and_its_successor_held(make_root: MakeRoot) -> None:
    """The mark in MEMORY.md is the author's word as superseded_by is; a "partly" one is not."""
    report = _report(make_root, {
        "MEMORY.md": "# Memory\n\n- [Old rules](feedback_old.md) — SUPERSEDED by unified rules below\n"
                     "- [Unified rules](feedback_unified.md) — every rule\n"
                     "- [Fix](note_fix.md) — PARTIAL - superseded by the root fix below\n"
                     "- [Root fix](note_root_fix.md) — the class\n"
                     "- [Decision v1](decision_v1.md) — [SUPERSEDED: v1 collapsed]\n",
        "feedback_old.md": topic("Old rules", type_="feedback", updated="2026-11-29"),
        "feedback_unified.md": topic("Unified rules", type_="feedback", updated="2026-01-02"),
        "note_fix.md": topic("Fix", updated="2026-11-29"),
        "note_root_fix.md": topic("Root fix", updated="2026-11-29"),
        "decision_v1.md": topic("Decision v1", type_="decision", updated="2026-11-29"),
    })
    old = report.get("feedback_old.md")
    assert old is not None and (old.action, old.cls) == (Action.PRUNE, StalenessClass.SUPERSEDED)
    assert old.status is not None and old.status.reason.startswith("MEMORY.md line 3 marks it superseded")
    new = report.get("feedback_unified.md")
    assert new is not None and new.guards[-1].kind == "successor" and new.action is Action.REVIEW
    v1 = report.get("decision_v1.md")
    assert v1 is not None and (v1.action, v1.cls) == (Action.PRUNE, StalenessClass.SUPERSEDED)
    fix = report.get("note_fix.md")
    assert fix is not None and fix.status is None and fix.action is Action.KEEP
    _same_in_rows(report)


def test_supersedes_on_the_successor_makes_it_a_successor_not_the_older_one_superseded(
        make_root: MakeRoot) -> None:
    report = _report(make_root, {
        "session_2026-03-01_plan-v1.md": topic("Plan v1"),
        "session_2026-03-02_plan-v2.md": topic("Plan v2", supersedes="session_2026-03-01_plan-v1.md"),
    })
    old, new = report.get("session_2026-03-01_plan-v1.md"), report.get("session_2026-03-02_plan-v2.md")
    assert old is not None and old.status is None and old.action is Action.PRUNE  # its age prunes it
    assert new is not None and new.action is Action.REVIEW and new.guards[-1].kind == "successor"


# ------------------------------------------------------------------------- successor pruned

def test_the_successor_is_not_pruned_for_its_age_alone(make_root: MakeRoot) -> None:
    report = _report(make_root, {
        "session_2026-05-26_rename.md": topic("Rename", superseded_by="session_2026-05-29_rename_again.md"),
        "session_2026-05-29_rename_again.md": topic("Rename again"),
        "session_2026-05-29_unrelated.md": topic("Unrelated"),
    })
    new = report.get("session_2026-05-29_rename_again.md")
    assert new is not None and action_for(new.score) is Action.PRUNE
    assert new.action is Action.REVIEW and new.guards[-1].kind == "successor"
    assert new.score == pytest.approx(decay_score(new.age_days, 14))  # the score is the formula's
    unrelated = report.get("session_2026-05-29_unrelated.md")
    assert unrelated is not None and unrelated.action is Action.PRUNE  # an old log stays pruned
    _same_in_rows(report)


# ------------------------------------------------------------------------- dated rule

@pytest.mark.parametrize("type_", ["feedback", "user", "decision", "value"])
def test_a_rule_pruned_for_its_age_alone_is_reviewed(make_root: MakeRoot, type_: str) -> None:
    report = _report(make_root, {f"{type_}_rules_2024-03-26.md": topic("Rules", type_=type_)})
    [result] = report.results
    assert action_for(result.score) is Action.PRUNE and result.action is Action.REVIEW
    assert result.guards[-1].kind == "rule" and type_ in result.guards[-1].reason
    _same_in_rows(report)


def test_decision_scores_like_feedback_and_a_missing_reference_still_prunes(
        make_root: MakeRoot) -> None:
    report = _report(make_root, {
        "decision_a.md": topic("A", type_="decision", updated="2026-09-01"),
        "feedback_a.md": topic("A", type_="feedback", updated="2026-09-01"),
    })
    a, b = report.get("decision_a.md"), report.get("feedback_a.md")
    assert a is not None and b is not None and a.half_life == b.half_life == 90
    assert a.score == b.score
    assert a.guards[0].kind == "type-decision"


def test_a_project_file_named_as_lessons_is_a_rule_but_an_old_log_is_not(
        make_root: MakeRoot) -> None:
    report = _report(make_root, {
        "project_funder_lessons_2026-03-30.md": topic("Funder-fit gate lessons"),
        "project_sprint_2026-03-30.md": topic("Sprint"),
        "session_2026-03-30_rules-split.md": topic("Rules split"),
    })
    assert report.get("project_funder_lessons_2026-03-30.md").action is Action.REVIEW  # type: ignore[union-attr]
    assert report.get("project_sprint_2026-03-30.md").action is Action.PRUNE  # type: ignore[union-attr]
    assert report.get("session_2026-03-30_rules-split.md").action is Action.PRUNE  # type: ignore[union-attr]


# ------------------------------------------------------------------------- body date

@pytest.mark.parametrize(
    ("body", "source", "day"),
    [
        ("Some text.\n\n_Captured: 2026-03-29_\n", BODY_CAPTURED, "2026-03-29"),
        ("**Date**: 2026-03-29\n\nText\n", BODY_FIELD, "2026-03-29"),
        ("# Research\n\n- **Date**: 2026-03-19\n", BODY_FIELD, "2026-03-19"),
        ("Research date: 2026-02-28\n", BODY_FIELD, "2026-02-28"),
        ("## 2026-03-16 — D2 unit tests\n\n## 2026-03-18 — D3\n", BODY_LEADING, "2026-03-18"),
        ("— 2026-07-24: a hook fired\n", BODY_LEADING, "2026-07-24"),
        ("# Draw.io Full Capabilities Research (2026-03-14)\n\nText\n", BODY_HEADING, "2026-03-14"),
        ("# Title — 2026-03-29\n", BODY_HEADING, "2026-03-29"),
        ("Intro.\n\n## Iteration 1 (2026-03-24)\n\nx\n\n## Iteration 2 (2026-03-25) — deep\n",
         BODY_HEADING, "2026-03-25"),
        # the newest of several dated sections, not the first found
        ("## 2026-03-16 — D2\n\n## Later (2026-04-01)\n", BODY_HEADING, "2026-04-01"),
        ("Text.\n\n```sh\n# backup of 2026-03-01\n```\n", None, None),
        ("Text #2026-03-01 and not a heading\n", BODY_FIRST_LINES, "2026-03-01"),
        ("## Release (2026-02-30)\n", None, None),
        ("**Why:** the user said so (2026-04-30).\n", BODY_FIRST_LINES, "2026-04-30"),
        ("Date: 2026-13-45\n", None, None),
    ],
)
def test_body_dates(body: str, source: str | None, day: str | None) -> None:
    found = body_date(body)
    if source is None:
        assert found is None
    else:
        assert found is not None and (found[1], found[0].date().isoformat()) == (source, day)


def test_a_body_date_comes_after_the_name_and_git_and_before_mtime() -> None:
    """DESIGN §5's order: the last commit (when the root is in git) dates a file before the
    date its body states; without git the body's date comes before the modification time."""
    text = topic("Research", type_="reference", body="**Date**: 2026-03-29\n")
    f = MemoryFile("research.md", len(text), MTIME, text, parse_frontmatter(text))
    age = file_age(f, NOW, {"research.md": datetime(2026, 11, 1, tzinfo=timezone.utc)})
    assert (age.source, age.when.date().isoformat()) == ("git", "2026-11-01")
    age = file_age(f, NOW, {})
    assert (age.source, age.when.date().isoformat()) == (BODY_FIELD, "2026-03-29")
    titled = topic("Renamed to endow (2026-05-26)", type_="reference", body="No date here.\n")
    t = MemoryFile("renamed.md", len(titled), MTIME, titled, parse_frontmatter(titled))
    age = file_age(t, NOW, {})
    assert (age.source, age.when.date().isoformat()) == (TITLE_SOURCE, "2026-05-26")
    named = MemoryFile("research_2026-05-01.md", len(text), MTIME, text, parse_frontmatter(text))
    assert file_age(named, NOW).source == "file name"
    dated = topic("Research", body="**Date**: 2026-03-29\n", updated="2026-10-01")
    fm = MemoryFile("r.md", len(dated), MTIME, dated, parse_frontmatter(dated))
    assert file_age(fm, NOW).source == "updated"


# ------------------------------------------------------------------------- the real files

def _corpus_report(name: str):  # type: ignore[no-untyped-def]
    root = CORPORA / name
    if not root.is_dir():
        pytest.skip(f"corpus {name} not available")
    return score_root(load_root(root), NOW)


def test_on_the_improv_log_the_renamed_decision_is_pruned_and_its_successor_reviewed() -> None:
    report = _corpus_report("jonahscohen__improv__claude-memory")
    old = report.get("decision_improv_renamed_to_endow.md")
    assert old is not None and (old.action, old.cls) == (Action.PRUNE, StalenessClass.SUPERSEDED)
    new = report.get("session_2026-05-29_endow_to_justify_rename.md")
    assert new is not None and new.action is Action.REVIEW
    assert any(g.kind == "successor" for g in new.guards)
    chain = {r.path: r for r in report.results if "_lane-design-v" in r.path}
    versions = {path.split("_lane-design-v")[1].split("-")[0]: r for path, r in chain.items()}
    for k in ("2", "3", "4", "5", "6", "7"):  # each superseded by the next
        assert (versions[k].action, versions[k].cls) == (Action.PRUNE, StalenessClass.SUPERSEDED), k
    assert versions["8"].status is None
    decisions = [r for r in report.results if r.type == "decision"]
    assert decisions and all(r.half_life == 90 for r in decisions)


def test_on_the_pipeline_folder_dated_rules_are_reviewed() -> None:
    report = _corpus_report("4444J99__application-pipeline__claude-memory")
    for path in ("feedback_resume_cover_letter_quality_2026-03-26.md",
                 "project_funder_fit_lessons_2026-03-30.md"):
        result = report.get(path)
        assert result is not None and result.action is Action.REVIEW, path
        assert any(g.kind == "rule" for g in result.guards)
    # the index's own mark: "— SUPERSEDED by unified rules below"
    old = report.get("feedback_cover_letter_quality.md")
    assert old is not None and (old.action, old.cls) == (Action.PRUNE, StalenessClass.SUPERSEDED)
    assert old.status is not None and "MEMORY.md line 62 marks it superseded" in old.status.reason
    new = report.get("feedback_resume_cover_letter_quality_2026-03-26.md")
    assert new is not None and any(g.kind == "successor" and "feedback_cover_letter_quality.md" in g.reason
                                   for g in new.guards)
    for result in report.results:  # the old session logs stay pruned
        if "project_session_2026-03" in result.path:
            assert result.action is Action.PRUNE, result.path


def test_on_the_research_folder_a_stated_date_replaces_the_copy_time() -> None:
    report = _corpus_report("markus41__claude__agent-memory/researcher")
    result = report.get("syncfusion_mcp_research.md")
    assert result is not None and result.age.source == BODY_FIELD
    assert result.age.when.date().isoformat() == "2026-03-29" and result.action is Action.PRUNE
    for path in ("draw-io-capabilities-research.md", "reference_drawio.md"):  # "# … (2026-03-14)"
        result = report.get(path)
        assert result is not None and result.age.source == BODY_HEADING, path
        assert result.age.when.date().isoformat() == "2026-03-14" and result.action is Action.PRUNE


def test_on_the_improv_log_a_dated_heading_dates_an_undated_rule_which_is_reviewed() -> None:
    report = _corpus_report("jonahscohen__improv__claude-memory")
    result = report.get("feedback_codex_takeover_on_round_fail.md")  # "## GENERALIZED (2026-06-14): …"
    assert result is not None and result.age.source == BODY_HEADING
    assert result.age.when.date().isoformat() == "2026-06-14"
    assert result.action is Action.REVIEW and any(g.kind == "rule" for g in result.holds)


def test_a_mark_added_to_the_index_alone_reaches_a_warm_stale(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept stale facts depend on MEMORY.md: a SUPERSEDED mark written there, no topic file
    touched, changes the warm answer to what a run without the cache says."""
    from memtui.cli.main import main
    from memtui.core.stores import statcache

    monkeypatch.setattr(statcache, "RACY_NS", -10**12)  # every file old enough to keep
    root = make_root({
        "MEMORY.md": "# Memory\n\n- [Old rules](feedback_old.md) — the old rules\n"
                     "- [Unified rules](feedback_unified.md) — every rule\n",
        "feedback_old.md": topic("Old rules", type_="feedback", updated="2026-11-29"),
        "feedback_unified.md": topic("Unified rules", type_="feedback", updated="2026-11-29"),
    })
    argv = ["stale", str(root), "--json", "--now", "2026-12-01"]

    def run(no_cache: str) -> str:
        monkeypatch.setenv("MEMTUI_NO_CACHE", no_cache)
        assert main(argv) == 0
        return capsys.readouterr().out

    first = run("")  # cold: the facts are kept
    assert run("") == first and '"SUPERSEDED"' not in first
    index = root / "MEMORY.md"
    index.write_text(index.read_text().replace("— the old rules", "— SUPERSEDED by unified rules below"))
    warm = run("")
    assert warm == run("1") and '"class": "SUPERSEDED"' in warm
