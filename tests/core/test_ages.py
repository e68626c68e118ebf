"""Where a file's age comes from (DESIGN §5): frontmatter ``modified`` / ``updated`` / ``date`` /
``created``, then a date in the file name, then git, then the modification time."""

from __future__ import annotations

import os
from datetime import date, datetime, timezone

import pytest

from memtui.core.judge.ages import file_age, name_date
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
