"""Staleness: the decay formula, ages, modifiers, classes, guards, and every corpus root."""

from __future__ import annotations

import math
import os
import subprocess
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtui.core.judge import ages as ages_module
from memtui.core.judge.ages import parse_git_log
from memtui.core.judge.dates import parse_date
from memtui.core.judge.staleness import (
    HALF_LIVES,
    Action,
    Bucket,
    StalenessClass,
    action_for,
    bucket_for,
    decay_score,
    directive_word,
    score_file,
    score_root,
)
from memtui.core.model.folder_docs import folder_document
from memtui.core.read.project import ProjectCache
from memtui.core.read.store import load_root
from tests.support.roots import MakeRoot, corpus_roots, topic

NOW = date(2026, 11, 29)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def git(top: Path, *args: str, when: str | None = None) -> None:
    env = {**os.environ, **GIT_ENV}
    if when:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
    subprocess.run(["git", "-C", str(top), *args], check=True, capture_output=True, env=env)


def days_before(days: int) -> str:
    return (NOW - timedelta(days=days)).isoformat()


def one(make_root: MakeRoot, text: str, name: str = "a.md", **kwargs: object):  # type: ignore[no-untyped-def]
    root = make_root({"MEMORY.md": f"- [a]({name}) — a\n", name: text})
    report = score_root(load_root(root), NOW, **kwargs)  # type: ignore[arg-type]
    result = report.get(name)
    assert result is not None
    return result


# ---------------------------------------------------------------------------------------- formula


@pytest.mark.parametrize("type_", sorted(HALF_LIVES))
def test_fifty_at_one_half_life(type_: str) -> None:
    assert decay_score(HALF_LIVES[type_], HALF_LIVES[type_]) == pytest.approx(50.0)


@pytest.mark.parametrize("type_", sorted(HALF_LIVES))
def test_ninety_at_3_32_half_lives(type_: str) -> None:
    assert decay_score(3.32 * HALF_LIVES[type_], HALF_LIVES[type_]) == pytest.approx(90.0, abs=0.05)


@pytest.mark.parametrize("type_", sorted(HALF_LIVES))
def test_zero_when_new(type_: str) -> None:
    assert decay_score(0, HALF_LIVES[type_]) == 0.0


def test_half_lives_are_the_contract() -> None:
    assert dict(HALF_LIVES) == {"value": 365, "user": 180, "feedback": 90, "decision": 90, "reference": 60,
                                "project": 14, "unknown": 30}


@pytest.mark.parametrize(
    ("score", "action", "bucket"),
    [(0, Action.KEEP, Bucket.FRESH), (24.99, Action.KEEP, Bucket.FRESH),
     (25, Action.KEEP, Bucket.AGING), (49.99, Action.KEEP, Bucket.AGING),
     (50, Action.REVIEW, Bucket.REVIEW), (74.99, Action.REVIEW, Bucket.REVIEW),
     (75, Action.PRUNE, Bucket.STALE), (100, Action.PRUNE, Bucket.STALE)],
)
def test_actions_and_buckets(score: float, action: Action, bucket: Bucket) -> None:
    assert action_for(score) is action
    assert bucket_for(score) is bucket


def test_sixty_day_old_project_file_is_pruned(make_root: MakeRoot) -> None:
    result = one(make_root, topic("a", type_="project", updated=days_before(60)))
    assert result.age_days == 60
    assert round(result.score, 1) == 94.9
    assert result.action is Action.PRUNE
    assert result.half_life == 14


def test_undated_file_without_frontmatter_is_unknown_30_days(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "- [a](a.md) — a\n", "a.md": "# just text\n"})
    stamp = datetime(2026, 10, 30, tzinfo=timezone.utc).timestamp()  # 30 days before NOW
    os.utime(root / "a.md", (stamp, stamp))
    result = score_root(load_root(root), NOW).results[0]
    assert (result.type, result.half_life, result.age.source) == ("unknown", 30, "mtime")
    assert result.score == pytest.approx(50.0)


# ------------------------------------------------------------------------------------------ dates


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-01-02", datetime(2026, 1, 2, tzinfo=timezone.utc)),
        ("'2026-01-02'", datetime(2026, 1, 2, tzinfo=timezone.utc)),
        ("2026-01-02T10:30:00Z", datetime(2026, 1, 2, 10, 30, tzinfo=timezone.utc)),
        ("2026-01-02 10:30", datetime(2026, 1, 2, 10, 30, tzinfo=timezone.utc)),
        ("2026-01-02T10:30:00+02:00", datetime(2026, 1, 2, 8, 30, tzinfo=timezone.utc)),
        ("2026-01-02 (after the release)", datetime(2026, 1, 2, tzinfo=timezone.utc)),
        ("yesterday", None),
        ("2026-13-45", None),
        ("", None),
    ],
)
def test_parse_date(value: str, expected: datetime | None) -> None:
    assert parse_date(value) == expected


@pytest.mark.parametrize(
    ("fields", "source", "days"),
    [
        ({"updated": days_before(3), "date": days_before(10), "created": days_before(20)}, "updated", 3),
        ({"date": days_before(10), "created": days_before(20)}, "date", 10),
        ({"created": days_before(20)}, "created", 20),
        ({"updated": "soon", "created": days_before(20)}, "created", 20),
    ],
)
def test_frontmatter_date_order(make_root: MakeRoot, fields: dict[str, str], source: str,
                                days: int) -> None:
    result = one(make_root, topic("a", **fields))
    assert (result.age.source, result.age_days) == (source, days)


@pytest.mark.parametrize(
    "now",
    [NOW, datetime(2026, 11, 29), datetime(2026, 11, 29, tzinfo=timezone.utc),
     datetime(2026, 11, 29, 1, 0, tzinfo=timezone(timedelta(hours=1)))],
)
def test_clock_is_a_parameter(make_root: MakeRoot, now: date | datetime) -> None:
    root = make_root({"MEMORY.md": "", "a.md": topic("a", updated=days_before(14))})
    assert score_root(load_root(root), now).results[0].age_days == 14


def test_future_date_is_age_zero(make_root: MakeRoot) -> None:
    assert one(make_root, topic("a", updated="2030-01-01")).age_days == 0


def test_git_dates_from_one_log_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top = tmp_path / "repo"
    root = top / "memory"
    root.mkdir(parents=True)
    (root / "MEMORY.md").write_text("- [a](a.md) — a\n")
    (root / "a.md").write_text(topic("a"))
    (root / "b.md").write_text(topic("b"))
    git(top, "init", "-q")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "one", when="2026-09-30T12:00:00Z")
    (root / "b.md").write_text(topic("b", body="changed\n"))
    git(top, "commit", "-q", "-am", "two", when="2026-11-19T12:00:00Z")
    (root / "c.md").write_text(topic("c"))  # untracked: falls back to mtime
    stamp = datetime(2026, 11, 28, 12, tzinfo=timezone.utc).timestamp()
    os.utime(root / "c.md", (stamp, stamp))

    calls: list[list[str]] = []
    real_run = subprocess.run

    def spy(cmd: list[str], *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(cmd)
        return real_run(cmd, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(ages_module.subprocess, "run", spy)
    report = score_root(load_root(root), datetime(2026, 11, 29, 12, tzinfo=timezone.utc))
    ages = {r.path: (r.age.source, r.age_days) for r in report.results}
    assert ages == {"a.md": ("git", 60), "b.md": ("git", 10), "c.md": ("mtime", 1)}
    assert sum(1 for cmd in calls if "log" in cmd) == 1


def test_no_git_log_when_every_file_is_dated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top = tmp_path / "repo"
    (top / "memory").mkdir(parents=True)
    (top / "memory" / "a.md").write_text(topic("a", updated=days_before(1)))
    (top / "memory" / "MEMORY.md").write_text("")
    git(top, "init", "-q")
    monkeypatch.setattr(ages_module, "git_commit_dates",
                        lambda root: pytest.fail("git log is not needed"))
    score_root(load_root(top / "memory"), NOW)


def test_parse_git_log_newest_commit_wins() -> None:
    out = b"\x1e200\x00\na.md\x00sub/b c.md\x00\x1e100\x00\na.md\x00old.md\x00"
    dates = parse_git_log(out)
    assert {k: int(v.timestamp()) for k, v in dates.items()} == {
        "a.md": 200, "sub/b c.md": 200, "old.md": 100}


# ---------------------------------------------------------------------- references and modifiers


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A committed git project whose memory root is ``.claude/memory`` (created by the tests)."""
    top = tmp_path / "proj"
    (top / "src").mkdir(parents=True)
    (top / "src" / "app.py").write_text("def load_config():\n    return ServerConfig()\n")
    git(top, "init", "-q", "-b", "main")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "init")
    return top


def in_project(project: Path, text: str) -> object:
    root = project / ".claude" / "memory"
    root.mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text("- [a](a.md) — a\n")
    (root / "a.md").write_text(text)
    report = score_root(load_root(root), NOW, cache=ProjectCache())
    return report.get("a.md")


OLD = days_before(400)


@pytest.mark.parametrize(
    ("body", "modifiers", "cls"),
    [
        ("Nothing to check here.\n", [], StalenessClass.EVERGREEN),
        ("See `~/.claude/x.md`, `/etc/hosts` and lib/x.py.\n", [], StalenessClass.EVERGREEN),
        ("See src/app.py and `load_config()`.\n", [], StalenessClass.FRESH),
        ("See src/app.py and src/gone.py.\n", [("missing-file", 20)], StalenessClass.PARTIALLY_STALE),
        ("See src/gone.py and src/old.py.\n", [("missing-file", 20)], StalenessClass.FULLY_STALE),
        ("`fetchGone()` `oldThing_x` src/gone.py on branch `feat/gone`\n",
         [("missing-file", 20), ("missing-symbol", 30), ("missing-branch", 15)],
         StalenessClass.FULLY_STALE),
    ],
)
def test_modifiers_once_each_and_classes(project: Path, body: str,
                                         modifiers: list[tuple[str, int]],
                                         cls: StalenessClass) -> None:
    result = in_project(project, topic("a", type_="value", updated=days_before(20), body=body))
    assert [(m.kind, m.points) for m in result.modifiers] == modifiers  # type: ignore[attr-defined]
    assert result.cls is cls  # type: ignore[attr-defined]
    base = decay_score(20, 365)
    assert result.score == pytest.approx(min(100.0, base + sum(p for _, p in modifiers)))  # type: ignore[attr-defined]


def test_score_capped_at_100(project: Path) -> None:
    body = "`fetchGone()` src/gone.py on branch `feat/gone`\n"
    result = in_project(project, topic("a", type_="project", updated=OLD, body=body))
    assert result.base_score > 99 and result.score == 100.0  # type: ignore[attr-defined]


def test_dead_url_adds_ten_online(make_root: MakeRoot) -> None:
    text = topic("a", type_="value", updated=days_before(20), body="https://docs.python.org/gone\n")
    offline = one(make_root, text)
    online = one(make_root, text, online=True, fetcher=lambda url, timeout: 404)
    assert offline.modifiers == () and offline.cls is StalenessClass.EVERGREEN
    assert [(m.kind, m.points) for m in online.modifiers] == [("dead-url", 10)]
    assert online.score == pytest.approx(offline.score + 10)


# ----------------------------------------------------------------------------------------- guards

STALE_BODY = "Moved src/gone.py long ago.\n"


@pytest.mark.parametrize(
    ("fields", "body", "guard", "reason"),
    [
        ({"pinned": "true"}, STALE_BODY, "pinned", "pinned"),
        ({"type_": "user"}, STALE_BODY, "type-user", "preferences do not decay"),
        ({"type_": "feedback"}, STALE_BODY, "type-feedback", "lesson outlives"),
        ({"type_": "reference"}, STALE_BODY, "type-reference", "lesson outlives"),
        ({"updated": days_before(14)}, STALE_BODY, "recent", "within 14 days"),
        ({}, "Never use src/gone.py again.\n", "directive", "'never'"),
        ({}, "Do NOT touch src/gone.py.\n", "directive", "'do not'"),
        ({}, "Don’t import src/gone.py.\n", "directive", "'don't'"),
        ({}, "Avoid src/gone.py.\n", "directive", "'avoid'"),
    ],
)
def test_each_guard_downgrades_fully_stale(project: Path, fields: dict[str, str], body: str,
                                           guard: str, reason: str) -> None:
    fields = {"type_": "project", "updated": OLD, **fields}
    result = in_project(project, topic("a", body=body, **fields))
    assert result.cls is StalenessClass.PARTIALLY_STALE  # type: ignore[attr-defined]
    assert result.downgraded  # type: ignore[attr-defined]
    assert [g.kind for g in result.guards] == [guard]  # type: ignore[attr-defined]
    assert reason in result.guards[0].reason  # type: ignore[attr-defined]


def test_without_guard_fully_stale_stays(project: Path) -> None:
    result = in_project(project, topic("a", type_="project", updated=OLD, body=STALE_BODY))
    assert result.cls is StalenessClass.FULLY_STALE and result.guards == ()  # type: ignore[attr-defined]
    assert not result.downgraded  # type: ignore[attr-defined]


def test_guard_does_not_touch_other_classes_or_the_score(project: Path) -> None:
    result = in_project(project, topic("a", type_="user", updated=OLD, body="src/app.py\n"))
    assert result.cls is StalenessClass.FRESH and not result.downgraded  # type: ignore[attr-defined]
    # a rule is not pruned for its age alone: the hold is listed, the score is the formula's
    assert [g.kind for g in result.guards] == ["type-user", "rule"]  # type: ignore[attr-defined]
    assert result.action is Action.REVIEW  # type: ignore[attr-defined]
    assert result.score == pytest.approx(decay_score(400, 180))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("body", "word"),
    [("never again", "never"), ("We avoided it.", None), ("Don't.", "don't"),
     ("nevertheless fine", None), ("do note this", None), ("AVOID it", "avoid")],
)
def test_directive_words(body: str, word: str | None) -> None:
    assert directive_word(body) == word


def test_nothing_is_written(project: Path) -> None:
    root = project / ".claude" / "memory"
    root.mkdir(parents=True)
    (root / "MEMORY.md").write_text("- [a](a.md) — a\n")
    (root / "a.md").write_text(topic("a", updated=OLD, body="src/gone.py `goneFn()`\n"))
    (root / "b.md").write_text("no frontmatter\n")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*")}
    report = score_root(load_root(root), NOW, online=True, fetcher=lambda u, t: 404)
    assert report.get("a.md").action is Action.PRUNE  # type: ignore[union-attr]
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*")} == before


# ----------------------------------------------------------------------------------------- report


def test_report_sorted_and_archive_left_out(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "",
        "new.md": topic("n", updated=days_before(1)),
        "old.md": topic("o", updated=days_before(100)),
        "archive/gone.md": topic("g", updated=days_before(500)),
    })
    snapshot = load_root(root)
    assert [r.path for r in score_root(snapshot, NOW).results] == ["old.md", "new.md"]
    every = score_root(snapshot, NOW, include_archived=True)
    assert [r.path for r in every.results] == ["archive/gone.md", "old.md", "new.md"]


def test_json_shape(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "", "a.md": topic("a", updated=days_before(60))})
    data = score_root(load_root(root), NOW).to_json()
    assert data["now"] == "2026-11-29" and data["root"] == str(root)
    (entry,) = data["files"]  # type: ignore[misc]
    assert {"path", "type", "age_days", "score", "action", "class", "modifiers", "missing",
            "guards"} <= set(entry)
    assert (entry["path"], entry["score"], entry["action"], entry["class"]) == (
        "a.md", 94.9, "prune", "EVERGREEN")


def test_score_file_without_checker(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "", "a.md": topic("a", body="src/x.py `fooBar`\n")})
    result = score_file(load_root(root).files["a.md"], NOW)
    assert result.cls is StalenessClass.EVERGREEN
    assert {c.reason for c in result.references} == {"no project found"}


# ---------------------------------------------------------------------------------------- corpora

CORPUS_ROOTS = corpus_roots()


@pytest.mark.skipif(not CORPUS_ROOTS, reason="corpora not available")
@pytest.mark.parametrize("root", CORPUS_ROOTS, ids=lambda p: "/".join(p.parts[-3:]))
def test_every_corpus_root_scores(root: Path) -> None:
    snapshot = load_root(root)
    report = score_root(snapshot, NOW)
    scored = [f for f in snapshot.files.values() if not f.archived]
    # the folder's own documents are listed apart, never scored
    assert len(report.results) + len(report.documents) == len(scored)
    assert all(folder_document(path, snapshot.files[path]) for path, _ in report.documents)
    for result in report.results:
        assert 0.0 <= result.score <= 100.0
        assert not math.isnan(result.score)
        if result.status is not None:  # status before age
            assert result.action is Action.PRUNE and result.cls.value == result.status.kind.upper()
        elif result.holds and not result.modifiers and action_for(result.score) is Action.PRUNE:
            assert result.action is Action.REVIEW and result.guards[-len(result.holds):] == result.holds
        else:
            assert result.action is action_for(result.score)
    report.to_json()
