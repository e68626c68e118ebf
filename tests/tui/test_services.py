"""The app's adapter over the core (plain pytest, no Textual): what the views are drawn from."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.merge import merge
from memtui.services import writer
from memtui.services.diff import side_by_side
from memtui.services.search import fuzzy_filter, split_facets
from memtui.services.workspace import (
    PINNED,
    RECENT,
    REGIONS,
    full_workspace,
    quick_workspace,
    workspace_after,
    workspace_of,
)

F = "project_gc_concurrent_mark.md"
VERBS: list[tuple[str, writer.Build]] = [
    ("pin", partial(verbs.pin, path=F)),
    ("unpin", partial(verbs.unpin, path="value_never_lose_referenced_blobs.md")),
    ("decay", partial(verbs.decay, path="project_rate_limiting.md")),
    ("promote", partial(verbs.promote, path="reference_harborctl_cheatsheet.md")),
    ("archive", partial(verbs.archive, path="project_webhook_retries.md")),
    ("restore", partial(verbs.restore, path="archive/project_blob_dedup_spike.md")),
    ("supersede", partial(verbs.supersede, old="project_replication_design.md",
                          new="project_webhook_retries.md")),
    ("merge", partial(merge, paths=("reference_gc_operations.md", "reference_gc_runbook.md"))),
    ("rebuild", verbs.rebuild),
    ("drop-line", partial(verbs.drop_line, index_path="MEMORY.md", number=20)),
]


@pytest.mark.parametrize("verb,build", VERBS, ids=[v[0] for v in VERBS])
def test_workspace_after_a_change_equals_a_fresh_one(demo_root: Path, verb: str,
                                                     build: writer.Build) -> None:
    """The incremental update after a change draws exactly what a full reload would."""
    before = full_workspace(demo_root)
    plan = writer.plan(before.snapshot, writer.Request(build), before.cache)
    assert plan.accepted, plan.verdict
    outcome = writer.apply(plan)
    assert outcome.ok, outcome.message
    after = workspace_after(before, outcome.snapshot, outcome.cache, plan.touched)
    fresh = workspace_of(outcome.snapshot)
    assert after.files == fresh.files
    assert after.working_set == fresh.working_set
    assert after.findings == fresh.findings
    assert after.coverage == fresh.coverage
    reloaded = full_workspace(demo_root)
    assert [row.path for row in reloaded.files] == [row.path for row in after.files]


def test_quick_pass_shows_the_working_set_of_the_full_one(demo_root: Path) -> None:
    quick = quick_workspace(demo_root)
    full = full_workspace(demo_root)
    assert not quick.complete and full.complete
    for pane in (PINNED, RECENT, REGIONS):
        assert [r.number for r in quick.working_set.pane(pane)] == \
            [r.number for r in full.working_set.pane(pane)]
    assert quick.budget == full.budget


def test_working_set_panes_follow_the_index(demo_root: Path) -> None:
    ws = full_workspace(demo_root).working_set
    assert [r.number for r in ws.recent] == sorted(r.number for r in ws.recent)
    assert all(r.pinned or r.pane == PINNED for r in ws.pinned)
    assert {r.glob for r in ws.regions} == {"session_*.md", "lesson_*.md"}
    assert all(r.covers and r.covers > 0 for r in ws.regions)
    assert any(r.missing for r in ws.recent)  # the demo's broken Helm chart entry


def test_reachability_says_how_a_file_is_reached(demo_root: Path) -> None:
    ws = full_workspace(demo_root)
    assert "loaded every session" in ws.reachability("project_rate_limiting.md")[0]
    assert "region `lesson_*.md`" in ws.reachability("lesson_minio_etag_quirk.md")[0]
    assert "orphan" in ws.reachability("reference_harborctl_cheatsheet.md")[0]


@pytest.mark.parametrize(
    "query,expected",
    [("", 4), ("pg", 0), ("gc", 2), ("postgrs", 1), ("rate limit", 1)],
)
def test_fuzzy_filter(query: str, expected: int) -> None:
    items = ["gc_runbook.md GC runbook", "gc_ops.md GC operations", "postgres_schema.md Postgres",
             "rate_limiting.md Rate limiting"]
    assert len(fuzzy_filter(query, items, str)) == expected


def test_facets_are_pulled_out_of_the_query() -> None:
    facets, rest = split_facets("action:prune gc type:project runbook", ("action", "class", "type"))
    assert facets == {"action": "prune", "type": "project"} and rest == "gc runbook"


def test_side_by_side_marks_each_kind_of_line() -> None:
    rows = side_by_side("a\nhello world\nonly left\nz\n", "a\nhello there world\nz\nonly right\n")
    assert [r.kind for r in rows] == ["same", "changed", "left", "same", "right"]
    assert rows[1].right_spans  # the inserted word is highlighted
