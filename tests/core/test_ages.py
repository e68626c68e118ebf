"""Where a file's age comes from (DESIGN §5): frontmatter ``modified`` / ``updated`` / ``date`` /
``created``, then a date in the file name, then git, then a date the body states, then the
session's transcript, then the modification time — unless the root's times are a copy's: then
the age is unknown, with its reason."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtui.core.judge.ages import COPY_WINDOW, UNKNOWN, copy_burst, file_age
from memtui.core.judge.dates import (
    BODY_AS_OF,
    BODY_FIELD,
    BODY_FIRST_LINES,
    BODY_HEADING,
    BODY_LEADING,
    DESCRIPTION_SOURCE,
    body_dates,
    name_date,
    pick_body_date,
)
from memtui.core.judge.staleness import Action, score_root
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.snapshot import MemoryFile
from memtui.core.read.store import load_root
from tests.support.roots import MakeRoot, corpus, topic

NOW = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
MTIME = datetime(2026, 11, 28, 12, tzinfo=timezone.utc).timestamp()


def memory_file(path: str, text: str) -> MemoryFile:
    return MemoryFile(path, len(text), MTIME, text, parse_frontmatter(text))


@pytest.mark.parametrize(
    ("fields", "source", "days"),
    [
        # Claude Code's ISO 8601 timestamp wins over every other key
        ({"modified": "2026-11-19T12:00:00.000Z", "updated": "2026-01-01", "created": "2025-01-01"},
         "modified", 10),
        ({"modified": "2026-11-24T14:00:00+02:00"}, "modified", 5),
        ({"modified": "not a date", "updated": "2026-11-09"}, "updated", 20.5),
        ({"updated": "2026-11-09", "date": "2026-10-30"}, "updated", 20.5),
        ({"date": "2026-10-30", "created": "2026-01-01"}, "date", 30.5),
        ({"created": "2026-10-30"}, "created", 30.5),
    ],
)
def test_frontmatter_keys_in_order(fields: dict[str, str], source: str, days: float) -> None:
    age = file_age(memory_file("session_2020-01-01_x.md", topic("a", **fields)), NOW, {})
    assert (age.source, age.days) == (source, days)


def test_a_date_in_the_file_name_comes_before_git_and_mtime() -> None:
    f = memory_file("log/session_2026-04-14_standup.md", topic("a"))
    git = {f.path: datetime(2026, 11, 1, tzinfo=timezone.utc)}
    age = file_age(f, NOW, git)
    assert age.source == "file name" and age.when == datetime(2026, 4, 14, tzinfo=timezone.utc)


def test_git_then_mtime_when_nothing_is_dated() -> None:
    f = memory_file("notes.md", topic("a"))
    assert file_age(f, NOW, {"notes.md": datetime(2026, 11, 19, 12, tzinfo=timezone.utc)}).source == "git"
    assert file_age(f, NOW, lambda: {}).source == "mtime"
    assert file_age(f, NOW, None).days == 1


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("session_2026-04-14_x.md", date(2026, 4, 14)),
        ("notes_20260524.md", date(2026, 5, 24)),
        ("session_2026_05_23_task4.md", date(2026, 5, 23)),
        ("a_2026-02-30_then_2026-03-01.md", date(2026, 3, 1)),  # the first valid one
        ("v2026-1-5.md", None),
        ("build_12345678901.md", None),
        ("plain.md", None),
    ],
)
def test_name_date(name: str, expected: date | None) -> None:
    found = name_date("sub/" + name)
    assert (found.date() if found else None) == expected


def test_the_breakdown_names_the_source(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "", "session_2026-01-10_x.md": topic("a", type_="project")})
    os.utime(root / "session_2026-01-10_x.md", (MTIME, MTIME))
    [result] = score_root(load_root(root), NOW).results
    assert result.age.source == "file name" and result.action is Action.PRUNE
    assert result.to_json()["age_source"] == "file name"


def test_improv_sessions_copied_out_of_git_get_their_names_dates() -> None:
    report = score_root(load_root(corpus("jonahscohen__improv__claude-memory")), NOW)
    sources = {r.age.source for r in report.results if r.path.startswith("session_20")}
    assert "mtime" not in sources
    actions = {a: sum(1 for r in report.results if r.action is a) for a in Action}
    assert actions[Action.PRUNE] > 100  # was 0 prune / 0 review / 866 keep on mtime alone


# ------------------------------------------------------------------ copies: times with no age

COPIED = datetime(2026, 12, 2, 9, tzinfo=timezone.utc).timestamp()  # the moment of the copy
TODAY = datetime(2026, 12, 2, 12, tzinfo=timezone.utc)


def copied_root(make_root: MakeRoot, files: dict[str, str], spread: float = 0.0,
                name: str = "root") -> Path:
    """A root as a copy leaves it: every file (and MEMORY.md) written at ``COPIED``, each next
    one ``spread`` seconds later."""
    root = make_root({"MEMORY.md": "# Memory\n", **files}, name=name)
    for i, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        os.utime(path, (COPIED + i * spread, COPIED + i * spread))
    return root


UNDATED = {f"note_{c}.md": topic(f"Note {c}", body=f"The {c} service runs on port 80{i}.\n")
           for i, c in enumerate("abcdef")}


@pytest.mark.parametrize(
    ("times", "copy"),
    [
        ({f"f{i}.md": COPIED + i for i in range(6)}, True),  # six files in six seconds
        ({f"f{i}.md": COPIED + i * 100 for i in range(6)}, True),  # slow: 500 s, under 10 min
        ({f"f{i}.md": COPIED + i * 86400 for i in range(6)}, False),  # a folder in use: a day apart
        # a copy, then two files changed later: the burst still holds most of the root
        ({**{f"f{i}.md": COPIED for i in range(6)}, "g.md": COPIED + 9e5, "h.md": COPIED + 2e6},
         True),
        # the first session's five files are a small part of a folder written over months
        ({**{f"f{i}.md": COPIED for i in range(5)}, **{f"g{i}.md": COPIED + i * 86400 for i in range(1, 9)}},
         False),
        ({"a.md": COPIED, "b.md": COPIED + 0.2}, True),  # a small root written at one moment
        ({"a.md": COPIED, "b.md": COPIED + 40}, False),  # two notes of one session, 40 s apart
    ],
)
def test_a_copy_is_a_burst_of_times(times: dict[str, float], copy: bool) -> None:
    found = copy_burst(times)
    assert (found is not None) == copy
    if found is not None:  # the files changed after the copy keep their own times
        assert found.paths == {p for p, t in times.items() if t - min(times.values()) <= COPY_WINDOW}


def test_a_single_file_is_a_copy_only_beside_an_index_written_with_it() -> None:
    assert copy_burst({"a.md": COPIED}) is None  # nothing to compare it with: its time is kept
    assert copy_burst({"a.md": COPIED}, COPIED + 0.3) is not None
    assert copy_burst({"a.md": COPIED}, COPIED + 30) is None
    assert "the file and MEMORY.md were written within a second" in \
        copy_burst({"a.md": COPIED}, COPIED).reason  # type: ignore[union-attr]


def test_on_a_copied_root_an_undated_age_is_unknown_with_its_reason(make_root: MakeRoot) -> None:
    root = copied_root(make_root, UNDATED, spread=20)
    report = score_root(load_root(root), TODAY)
    assert {r.age.source for r in report.results} == {UNKNOWN}
    for result in report.results:
        assert result.age.reason == ("all 6 files were written within 2 minutes on 2026-12-02: a "
                                     "copy, clone or restore; no date in the file")
        # one half-life of its type: a review, never fresh, never kept as recent, never pruned
        assert (result.score, result.action, result.bucket.value) == (50.0, Action.REVIEW, "review")
        assert not any(g.kind == "recent" for g in result.guards)
        data = result.to_json()
        assert (data["age_days"], data["dated"], data["age_source"]) == (None, None, "unknown")
        assert data["age_unknown"] == result.age.reason
    later = score_root(load_root(root), TODAY + timedelta(days=400))  # it stays a review
    assert {r.action for r in later.results} == {Action.REVIEW}


def test_a_root_written_over_days_keeps_its_modification_times(make_root: MakeRoot) -> None:
    root = copied_root(make_root, UNDATED, spread=86400)
    report = score_root(load_root(root), datetime(2026, 12, 9, 12, tzinfo=timezone.utc))
    assert {r.age.source for r in report.results} == {"mtime"}


def test_a_file_changed_after_the_copy_is_dated_by_that_change(make_root: MakeRoot) -> None:
    root = copied_root(make_root, UNDATED)
    edited = COPIED + 3 * 86400
    os.utime(root / "note_a.md", (edited, edited))
    report = score_root(load_root(root), datetime(2026, 12, 6, tzinfo=timezone.utc))
    assert report.get("note_a.md").age.source == "mtime"  # type: ignore[union-attr]
    assert report.get("note_b.md").age.reason.startswith("5 of the 6 files were written within a "  # type: ignore[union-attr]
                                                         "second on 2026-12-02")


# ------------------------------------------------------------------ each source on a copy


@pytest.mark.parametrize(
    ("text", "source", "day"),
    [
        (topic("a", modified="2026-03-04T10:00:00.000Z"), "modified", "2026-03-04"),
        (topic("a", created="2026-03-04"), "created", "2026-03-04"),
        (topic("a", body="**Date**: 2026-02-28\n\nThe deploy runs on Fridays.\n"), BODY_FIELD, "2026-02-28"),
        (topic("a", body="Deploy notes, as of 2026-03-04: the queue is drained first.\n\n"
                         + "Step.\n" * 12 + "Still true as of 2026-05-06.\n"), BODY_AS_OF, "2026-05-06"),
        # a note that gets dated sections appended is as new as its newest, not its first
        (topic("a", body="## 2026-03-01 — first pass\nx\n\n## 2026-03-09 — second\ny\n\n"
                         "## 2026-04-20 — third\nz\n"), BODY_LEADING, "2026-04-20"),
        (topic("a", body="Notes.\n" * 12 + "## Status (2026-03-01)\nx\n## Status (2026-04-20)\ny\n"),
         BODY_HEADING, "2026-04-20"),
        (topic("a", body="# 決定事項\n\n## 2026年5月12日の決定\n料金は月額制。\n"), BODY_LEADING, "2026-05-12"),
        (topic("a", body="## 회의 (2026년 5월 12일)\n구독은 월 단위.\n"), BODY_HEADING, "2026-05-12"),
        (topic("a", body="Sunucu 2026-06-13 tarihinde taşındı.\n"), BODY_FIRST_LINES, "2026-06-13"),
        (topic("a", "moved on 2026-05-23 after the audit"), DESCRIPTION_SOURCE, "2026-05-23"),
        (topic("a", body="Deadline: the launch on 2027-06-01.\n"), UNKNOWN, None),  # not its own date
    ],
)
def test_each_age_source_dates_a_copied_file(make_root: MakeRoot, text: str, source: str,
                                             day: str | None) -> None:
    files = dict(UNDATED, **{"dated.md": text})
    result = score_root(load_root(copied_root(make_root, files)), TODAY).get("dated.md")
    assert result is not None
    assert result.age.source == source
    if day is not None:
        assert result.age.when.date().isoformat() == day


def test_a_name_date_range_is_its_last_day_and_gives_way_to_a_later_update() -> None:
    assert name_date("project_session_2026-03-18-20.md") == datetime(2026, 3, 20, tzinfo=timezone.utc)
    text = topic("rules", body="## ORIGINAL RULES (2026-03-20)\nx\n\n## AMENDMENTS (2026-03-28)\ny\n")
    age = file_age(memory_file("rules_2026-03-26.md", text), NOW, {})
    assert (age.source, age.when.date().isoformat()) == (BODY_HEADING, "2026-03-28")
    plain = topic("rules", body="Made on 2026-03-20, from the review.\n")  # prose: the name stays
    assert file_age(memory_file("rules_2026-03-26.md", plain), NOW, {}).source == "file name"


def test_the_body_dates_are_the_newest_of_their_tier() -> None:
    found = body_dates("Intro 2026-01-05.\n\n## Log\n\n### 2026-02-01\nx\n### 2026-03-15\ny\n",
                       "summary of 2026-04-01")
    assert pick_body_date(found) == (datetime(2026, 3, 15, tzinfo=timezone.utc), BODY_LEADING)
    assert pick_body_date(found, datetime(2026, 3, 1, tzinfo=timezone.utc)) == \
        (datetime(2026, 2, 1, tzinfo=timezone.utc), BODY_LEADING)  # a date after the clock is passed over
    # with no dated section, the description's date before the first lines' prose
    assert pick_body_date(body_dates("Intro 2026-01-05.\n", "summary of 2026-04-01")) == \
        (datetime(2026, 4, 1, tzinfo=timezone.utc), DESCRIPTION_SOURCE)


def _git(top: Path, *args: str, when: str = "2026-04-01T10:00:00+00:00") -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull,
               GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    subprocess.run(["git", "-C", str(top), *args], check=True, capture_output=True, env=env)


def test_a_clone_is_dated_by_its_history_not_its_checkout(make_root: MakeRoot) -> None:
    root = copied_root(make_root, UNDATED)
    _git(root, "init", "-q")
    for i, path in enumerate(sorted(UNDATED)):  # one commit a week, then a clone's checkout
        _git(root, "add", path)
        _git(root, "commit", "-q", "-m", path, when=f"2026-04-{1 + 7 * (i % 4):02d}T10:00:00+00:00")
    report = score_root(load_root(root), TODAY)
    assert {r.age.source for r in report.results} == {"git"}
    assert report.get("note_a.md").age.when.date().isoformat() == "2026-04-01"  # type: ignore[union-attr]


def test_one_commit_that_added_every_file_is_an_import_not_their_age(make_root: MakeRoot) -> None:
    files = dict(UNDATED, **{"dated.md": topic("d", body="**Date**: 2026-02-28\n")})
    root = copied_root(make_root, files)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "import")
    report = score_root(load_root(root), TODAY)
    assert report.get("dated.md").age.source == BODY_FIELD  # type: ignore[union-attr]
    reason = report.get("note_a.md").age.reason  # type: ignore[union-attr]
    assert "all 7 files were last committed within a second on 2026-04-01: an import" in reason
    assert reason.startswith("all 7 files were written within a second on 2026-12-02")


# ------------------------------------------------------------------ the session's transcript


def test_the_session_transcript_dates_a_file_and_a_copy_elsewhere_has_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    project = config / "projects" / "-work-shop"
    memory = project / "memory"
    memory.mkdir(parents=True)
    session = "3f2a9c1e-0b4d-4e8f-9a51-7c6d2e1f0a9b"
    lines = [{"type": "user", "sessionId": session, "timestamp": "2026-05-10T08:00:00.000Z"},
             {"type": "assistant", "sessionId": session, "timestamp": "2026-05-10T09:30:00.000Z"}]
    (project / f"{session}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    files = {"MEMORY.md": "# Memory\n", **UNDATED,
             "from_session.md": "---\nname: s\ndescription: d\nmetadata:\n  type: project\n"
                                f"  originSessionId: {session}\n---\n\nThe queue drains first.\n"}
    for name, text in files.items():
        (memory / name).write_text(text)
        os.utime(memory / name, (COPIED, COPIED))
    result = score_root(load_root(memory), TODAY).get("from_session.md")
    assert result is not None and result.age.source == "session"
    assert result.age.when == datetime(2026, 5, 10, 9, 30, tzinfo=timezone.utc)
    elsewhere = tmp_path / "backup" / "memory"
    shutil.copytree(memory, elsewhere)  # copied away from its transcripts
    moved = score_root(load_root(elsewhere), TODAY).get("from_session.md")
    assert moved is not None and moved.age.source == UNKNOWN
    assert moved.age.reason.endswith("no date in the file; session 3f2a9c1e has no transcript here")


def test_a_kept_answer_follows_a_transcript_that_appears(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept stale facts record which transcripts were asked for: one appearing later (the
    memory folder unchanged) changes the warm answer to what a cold run gives."""
    from memtui.core.judge.stalecache import stale_facts_root
    from memtui.core.judge.staleness import rows_at
    from memtui.core.model.snapshot import BudgetConfig
    from memtui.core.stores import statcache

    monkeypatch.setattr(statcache, "RACY_NS", -10**12)
    config = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    project = config / "projects" / "-work-shop"
    memory = project / "memory"
    memory.mkdir(parents=True)
    session = "aa11bb22-cc33-dd44-ee55-ff6677889900"
    files = {"MEMORY.md": "# Memory\n", **UNDATED,
             "s.md": f"---\nname: s\ndescription: d\ntype: project\noriginSessionId: {session}\n---\n\nx\n"}
    for name, text in files.items():
        (memory / name).write_text(text)
        os.utime(memory / name, (COPIED, COPIED))

    def source() -> str:
        facts = stale_facts_root(memory, BudgetConfig())
        return next(r[9][4] for r in rows_at(facts.files, TODAY) if r[1] == "s.md")

    assert source() == UNKNOWN and source() == UNKNOWN  # cold, then kept
    (project / f"{session}.jsonl").write_text(json.dumps(
        {"sessionId": session, "timestamp": "2026-05-10T09:30:00.000Z"}) + "\n")
    assert source() == "session"


# ------------------------------------------------------------------ standing rules


@pytest.mark.parametrize(
    ("path", "body", "held"),
    [
        ("project_tarifas.md", "Las tarifas se fijaron el 2026-01-15.\n\nNo cambiar sin revisar esto "
                               "con finanzas.\n", True),
        ("project_pricing.md", "Prices were set on 2026-01-15.\n\nDo not change without asking "
                               "finance.\n", True),
        ("project_faz1.md", "2026-01-15 kararı: socket YOK, geri ekleme.\n", True),
        ("project_deploy.md", "Deployed 2026-01-15: the queue was drained, the job moved.\n", False),
        ("project_session_2026-01-15.md", "Do not change without asking finance.\n", False),  # a log
        ("decisions_session1_2026-01-15.md", "Use the yearly plan for every new customer.\n", True),
    ],
)
def test_a_dated_standing_rule_is_not_pruned_for_its_date_alone(
        make_root: MakeRoot, path: str, body: str, held: bool) -> None:
    root = make_root({"MEMORY.md": "# Memory\n", path: topic("Pricing", "the price rule", body=body)})
    [result] = score_root(load_root(root), datetime(2026, 11, 1, tzinfo=timezone.utc)).results
    assert result.age.when.date().isoformat() == "2026-01-15" and result.base_score > 75
    assert (result.action is Action.REVIEW) == held and (result.action is Action.PRUNE) == (not held)
    assert any(g.kind in ("standing", "rule") for g in result.guards) == held


def test_a_commit_that_changed_every_file_is_history_not_an_import(make_root: MakeRoot) -> None:
    root = copied_root(make_root, UNDATED)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "start", when="2026-03-01T10:00:00+00:00")
    for path in UNDATED:  # a week of work changed every note, committed at once
        (root / path).write_text((root / path).read_text() + "Checked again.\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "week", when="2026-04-01T10:00:00+00:00")
    report = score_root(load_root(root), TODAY)
    assert {(r.age.source, r.age.when.date().isoformat()) for r in report.results} == {("git", "2026-04-01")}


_PIECES = ["Never", "never", "do not", "Don't", "always", "avoid", "must not", "mandatory", "the queue",
           "- ", "* ", "**", "** ", ". ", ", ", " — ", " - ", "(", "nie", "nunca", "asla", "항상", "禁止",
           "İSTANBUL", "x", " ", "neverland", "_never", "always_on"]


@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join), min_size=1, max_size=6))
def test_a_note_s_first_lines_are_read_for_a_rule_as_each_line_alone(lines: list[str]) -> None:
    """The standing check reads a note's first lines as one text, found from the cue words; it
    says what the rule test of each line alone says."""
    from memtui.core.model.standing import _states_rule_lines, line_states_rule

    assert _states_rule_lines("\n".join(lines)) == any(line_states_rule(line) for line in lines)
