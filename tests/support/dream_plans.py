"""What the dream tests share: the dream's and rebuild's plans as comparable data, and the pieces
of a root whose files each decide one item (stale, guarded, duplicated)."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from memtui.core import write
from memtui.core.dream import plan as dream
from memtui.core.model.snapshot import Snapshot
from memtui.core.tidy.rebuild import NothingToRebuild, rebuild
from tests.support.roots import topic

STALE_BODY = "Lives in `internal/gone/sweeper.go` next to `internal/gone/marker.go`.\n"
DUP_BODY = ("Postgres connection pooling: pgbouncer in transaction mode, pool size 40 per replica, "
            "server idle timeout 600 seconds, prepared statements disabled for the pooler.\n")
OLD = {"updated": "2025-01-10"}


def plans(snapshot: Snapshot, now: datetime | date, repo: Path | None = None) -> tuple[object, object]:
    """The dream's plan (every item, and the verdict on the checked ones) and rebuild's gated
    change, as comparable data."""
    found = dream.plan_dream(snapshot, now, repo=repo, consulted={})
    items = [(i.kind, i.paths, i.reason, i.evidence, i.checked, i.note) for i in found.items]
    verdict = None
    if found.default:
        gated = dream.preview(found, found.default)
        verdict = (gated.accepted, gated.changeset.ops, gated.new_findings)
    try:
        rebuilt = write.plan(snapshot, rebuild(snapshot))
    except NothingToRebuild:
        return (items, verdict), None
    return (items, verdict), (rebuilt.accepted, rebuilt.changeset.ops, rebuilt.new_findings)


def sweeper_project(tmp_path: Path) -> Path:
    """A project holding ``internal/present/here.go`` (``internal/gone/`` is gone)."""
    project = tmp_path / "project"
    (project / "internal" / "present").mkdir(parents=True)
    (project / "internal" / "present" / "here.go").write_text("package present\n")
    return project


def sweeper_files() -> dict[str, str | bytes]:
    """Topic files for :func:`sweeper_project`: a stale project note and a stale rule (the guard
    holds it), a stale note with a directive, one whose code is present, and a pinned duplicate."""
    return {
        "project_gone.md": topic("Sweeper layout", type_="project", body=STALE_BODY, **OLD),
        "feedback_gone.md": topic("Sweeper lesson", type_="feedback", body=STALE_BODY, **OLD),
        "project_directive_gone.md": topic("Directive sweeper", body="Never edit " + STALE_BODY, **OLD),
        "project_present.md": topic("Present code", body="See `internal/present/here.go`.\n", **OLD),
        "pool_pinned.md": topic("Postgres connection pooling settings", body=DUP_BODY, pinned="true",
                                updated="2026-10-01"),
        "pool_copy.md": topic("Postgres connection pooling settings (copy)", body=DUP_BODY,
                              updated="2026-10-02"),
    }


def two_closed_sprints() -> dict[str, str]:
    """Two work items whose plans are closed by a later note: two strong folds in one item."""
    files = {"MEMORY.md": "# Memory\n\n## Sessions\n"}
    for n, what in ((2, "landing composition data and the copywriting handler"),
                    (3, "flow registry wiring and the review queue")):
        body = (f"Sprint {n} builds the {what}, with tests for each handler, a review of the "
                f"registry and notes on sprint {n}'s risks.\n")
        plan, closed = f"session_2026-05-2{n}_sprint{n}_plan.md", f"session_2026-05-2{n}_sprint{n}_closed.md"
        files["MEMORY.md"] += f"- [Sprint {n} plan]({plan}) — sprint {n} plan\n"
        files[plan] = topic(f"Sprint {n} plan", body=body, type_="project")
        files[closed] = topic(f"Sprint {n} closed", type_="project", body=f"Closed. {body}Follows {plan}.\n")
    return files
