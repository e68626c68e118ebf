"""Logs of work by what they are, not by one prefix: hand-offs, status reports, checkpoints."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.judge.consolidate import root_logs, scan
from memtui.core.judge.logs import log_paths, name_family
from memtui.core.read.store import load_root
from tests.support.roots import MakeRoot, topic

PARTS = ("morning", "afternoon", "evening")


@pytest.mark.parametrize("a, b", [
    ("project_status_2026-05-03_morning.md", "project_status_2026-05-04_evening.md"),
    ("handoff-2026-05-03.md", "handoff-2026-05-11.md"),
    ("checkpoint_1.md", "checkpoint_12.md"),
    ("2026-05-03-standup.md", "2026-05-04-standup.md"),
    ("oturum_2026-06-13_1430.md", "oturum_2026-06-14_0915.md"),
    ("notes/status-20260503.md", "notes/status-20260504.md"),
])
def test_names_of_one_series_are_one_family(a: str, b: str) -> None:
    assert name_family(a) is not None and name_family(a) == name_family(b)


@pytest.mark.parametrize("a, b", [
    ("project_status_2026-05-03.md", "project_plan_2026-05-03.md"),
    ("a/status-20260503.md", "b/status-20260503.md"),  # another folder, another series
])
def test_other_stems_are_other_families(a: str, b: str) -> None:
    assert name_family(a) != name_family(b)


def test_an_undated_name_has_no_family() -> None:
    assert name_family("feedback_small_prs.md") is None


def _file(make_root: MakeRoot, files: dict[str, str]) -> Path:
    return make_root({"MEMORY.md": "".join(f"- [{p}]({p}) — x\n" for p in files) , **files})


def test_logs_are_known_by_name_family_and_opening_not_only_by_prefix(make_root: MakeRoot) -> None:
    root = _file(make_root, {
        "project_status_2026-05-03_morning.md": topic("Status", type_="project", body="Deploy waits on review.\n"),
        "project_status_2026-05-03_evening.md": topic("Status", type_="project", body="Deploy is out.\n"),
        "handoff-auth.md": topic("Auth hand-off", type_="project", body="Token refresh is half done.\n"),
        "oturum-durumu.md": topic("Fiziksel test", type_="project", body="Adım 6 bekliyor.\n"),
        "release_notes.md": topic("Session log 2026-05-03", type_="project", body="Shipped 2.5.\n"),
        # a rule about hand-offs is a rule, not a log
        "feedback_handoff_protocol.md": topic("Write a hand-off", type_="feedback", body="Always list next steps.\n"),
        "project_gc_design.md": topic("GC design", type_="project", body="Mark and sweep.\n"),
    })
    logs = log_paths(load_root(root).files.values())
    assert logs == {"project_status_2026-05-03_morning.md", "project_status_2026-05-03_evening.md",
                    "handoff-auth.md", "oturum-durumu.md", "release_notes.md"}


STATE = ["Registry v2.5 is on staging.", "The webhook retry queue drains in 4 minutes.",
         "Quota enforcement is behind the flag quota_v2.", "The MinIO ETag workaround stays until 2.6.",
         "Postgres replica lag alarm is at 30 seconds.", "OCI referrers API passes conformance.",
         "The GC grace window is 2 hours.", "LDAP group mapping waits on the security review."]


def _reports(days: int) -> dict[str, str]:
    """Hand-off reports three times a day: each restates the state so far and adds one fact."""
    out = {}
    facts: list[str] = []
    n = 0
    for day in range(days):
        for part in PARTS:
            facts.append(f"Item {n}: {STATE[n % len(STATE)]} (seen at report {n}, tracked as ticket HB-{400 + n}).")
            body = "## Where things stand\n" + "\n".join(f"- {fact}" for fact in facts) + "\n\n## Next steps\n- keep going\n"
            out[f"project_status_2026-05-{3 + day:02d}_{part}.md"] = topic(
                f"Status {3 + day} May {part}", type_="project", body=body)
            n += 1
    return out


TOPICS = ["garbage collection", "webhook delivery", "quota limits", "storage drivers", "replication",
          "conformance", "LDAP login", "release process", "metrics export", "rate limiting",
          "image signing", "audit log", "backup restore", "helm chart", "proxy cache",
          "tag retention", "robot accounts", "vulnerability scan", "OIDC login", "CLI secrets"]


def _notes() -> dict[str, str]:
    """The other notes of a folder that keeps reports: one subject each."""
    return {f"project_{t.replace(' ', '_').lower()}.md": topic(t.title(), type_="project",
                                                               body=f"How {t} works here: {t} notes {k}.\n")
            for k, t in enumerate(TOPICS)}


def test_a_chain_of_status_hand_offs_is_proposed_in_order_each_into_the_next(make_root: MakeRoot) -> None:
    reports = _reports(days=4)  # 12 reports among 20 notes, the shape of a folder keeping several a day
    root = _file(make_root, {**reports, **_notes()})
    result = scan(load_root(root), include_sessions=True)
    names = sorted(reports, key=lambda p: (p[15:25], PARTS.index(p[26:-3])))
    links = [(s.old, s.new) for s in result.supersessions]
    assert sorted(links) == sorted(zip(names, names[1:]))  # morning → afternoon → evening → next morning
    s = result.supersessions[0]
    assert not s.strong and "one series of reports" in s.evidence[0]
    assert any("holds" in e and "weighted words" in e for e in s.evidence)
    assert not result.pairs  # a report restated by the next is a fold into it, not a merge of equals


def test_a_report_that_drops_what_the_earlier_held_is_not_its_successor(make_root: MakeRoot) -> None:
    reports = _reports(days=1)
    names = sorted(reports, key=lambda p: PARTS.index(p[26:-3]))
    reports[names[2]] = topic("Status 3 May evening", type_="project",
                              body="## Where things stand\n- All green, see the dashboard.\n")
    result = scan(load_root(_file(make_root, reports)), include_sessions=True)
    assert [(s.old, s.new) for s in result.supersessions] == [(names[0], names[1])]


def test_the_default_scan_leaves_the_logs_out_and_counts_them(make_root: MakeRoot) -> None:
    reports = _reports(days=1)
    root = _file(make_root, {**reports, "project_gc_design.md": topic("GC design", type_="project",
                                                                      body="Mark and sweep.\n")})
    snapshot = load_root(root)
    result = scan(snapshot)
    assert result.considered == 1 and result.session_files == len(reports)
    assert root_logs(snapshot.files.values()) == frozenset(reports)


def test_notes_numbered_only_are_no_series_of_logs(make_root: MakeRoot) -> None:
    files = {f"project_{k:04d}.md": topic(f"Note {k}", type_="project", body=f"Fact number {k}.\n")
             for k in range(1, 5)}
    files["checkpoint_1.md"] = topic("Checkpoint", type_="project", body="Where we are.\n")
    logs = log_paths(load_root(_file(make_root, files)).files.values())
    assert logs == {"checkpoint_1.md"}  # its name says log; project_0001 … project_0004 are notes
