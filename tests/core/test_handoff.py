"""The handoff state: the project's .claude/session-state.md, its date, length, headings and
the commits since (DESIGN §11), and the state-stale / state-too-long warnings."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.read.handoff import HEADINGS, handoff_findings, parse_state, read_state
from memtui.core.read.store import load_root
from memtui.core.roots.discover import encode_project_path
from memtui.core.rules.validate import validate
from tests.support.roots import topic

ROOT_FILES = {"MEMORY.md": "# M\n- [A](a.md) — a fact\n", "a.md": topic("A")}


def _git(project: Path, *args: str, when: datetime | None = None) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull)
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True, env=env)


def _commit(project: Path, name: str, when: datetime) -> None:
    (project / name).write_text(name)
    _git(project, "add", name)
    _git(project, "commit", "-q", "-m", name, when=when)


def state_text(day: date, extra: str = "", headings: tuple[str, ...] = HEADINGS) -> str:
    body = "".join(f"## {h}\n- something\n" for h in headings)
    return f"# Session state\n## Handoff: {day.isoformat()}\n{body}{extra}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git work tree holding a shared memory root at ``memory/``."""
    top = tmp_path / "proj"
    (top / "memory").mkdir(parents=True)
    _git(top, "init", "-q")
    for rel, text in ROOT_FILES.items():
        (top / "memory" / rel).write_text(text)
    (top / ".claude").mkdir()
    return top


def _write_state(project: Path, text: str) -> Path:
    path = project / ".claude" / "session-state.md"
    path.write_text(text)
    return path


def _rules(project: Path) -> dict[str, str]:
    return {f.rule: f.message for f in validate(load_root(project / "memory"))
            if f.rule.startswith("state-")}


def test_fresh_state_has_no_finding(project: Path) -> None:
    _write_state(project, state_text(date.today()))
    snapshot = load_root(project / "memory")
    state = snapshot.handoff
    assert state is not None and state.date_source == "handoff-line"
    assert state.age_days == 0 and state.missing == () and not state.history
    assert state.lines == 2 + 2 * len(HEADINGS)
    assert _rules(project) == {}


def test_five_days_old_with_commits_since_is_stale_and_counts_them(project: Path) -> None:
    now = datetime.now(timezone.utc)
    _commit(project, "before.txt", now - timedelta(days=9))
    for i in (4, 3, 1):
        _commit(project, f"after{i}.txt", now - timedelta(days=i))
    _write_state(project, state_text(date.today() - timedelta(days=5)))
    state = load_root(project / "memory").handoff
    assert state is not None and state.age_days == 5 and state.commits_since == 3
    message = _rules(project)["state-stale"]
    assert "5 days old" in message and "3 commits since" in message


def test_two_days_old_is_not_yet_stale(project: Path) -> None:
    _write_state(project, state_text(date.today() - timedelta(days=2)))
    assert "state-stale" not in _rules(project)


def test_mtime_dates_a_state_without_a_handoff_line(project: Path) -> None:
    path = _write_state(project, "## Working On\n- x\n")
    old = (datetime.now() - timedelta(days=4)).timestamp()
    os.utime(path, (old, old))
    state = load_root(project / "memory").handoff
    assert state is not None and state.date_source == "mtime" and state.age_days == 4
    assert "its modification time" in _rules(project)["state-stale"]


def test_120_lines_is_too_long(project: Path) -> None:
    text = state_text(date.today(), extra="- detail\n" * 106)
    assert len(text.splitlines()) == 120
    _write_state(project, text)
    rules = _rules(project)
    assert "120 lines, over ~80" in rules["state-too-long"] and "state-stale" not in rules


def test_history_appended_instead_of_replaced_is_too_long(project: Path) -> None:
    old = state_text(date.today() - timedelta(days=1))
    _write_state(project, old + state_text(date.today()).split("\n", 1)[1])
    state = load_root(project / "memory").handoff
    assert state is not None and state.handoffs == 2 and state.history
    assert state.date == date.today()  # the newest handoff line dates it
    assert "history appended instead of replaced" in _rules(project)["state-too-long"]


def test_missing_headings_are_reported_in_the_state_not_as_a_finding(project: Path) -> None:
    _write_state(project, state_text(date.today(), headings=("Working On", "Next Steps")))
    state = load_root(project / "memory").handoff
    assert state is not None
    assert state.missing == ("Modified Files", "Decisions Made", "Gotchas Discovered", "Blocked On")
    assert state.to_json()["missing_headings"] == list(state.missing)
    assert _rules(project) == {}


def test_no_state_file_no_finding(project: Path) -> None:
    snapshot = load_root(project / "memory")
    assert snapshot.handoff is None
    assert not [f for f in validate(snapshot) if f.rule.startswith("state-")]


def test_headings_are_matched_whatever_their_level_and_case() -> None:
    parsed = parse_state("# working on:\n### NEXT STEPS\n## Blocked on\n## Other\n")
    assert parsed.present == ("Working On", "Next Steps", "Blocked On") and parsed.repeated == ()


def test_handoff_line_with_a_time_counts_commits_from_that_moment(tmp_path: Path) -> None:
    top = tmp_path / "p"
    top.mkdir()
    _git(top, "init", "-q")
    base = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc).astimezone()
    _commit(top, "morning.txt", base - timedelta(hours=2))
    _commit(top, "evening.txt", base + timedelta(hours=2))
    (top / ".claude").mkdir()
    stamp = base.strftime("%Y-%m-%d %H:%M")
    (top / ".claude" / "session-state.md").write_text(f"## Handoff: {stamp}\n")
    state = read_state(top, now=base + timedelta(days=1))
    assert state is not None and state.commits_since == 1 and state.age_days == 1
    assert handoff_findings(state) == []


def test_outside_git_the_commit_count_is_unknown(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "session-state.md").write_text("## Handoff: 2026-11-01\n")
    state = read_state(tmp_path, now=datetime(2026, 11, 30, tzinfo=timezone.utc))
    assert state is not None and state.commits_since is None
    assert "git could not count" in handoff_findings(state)[0].message


def test_claude_code_machine_local_root_reads_the_decoded_projects_state(tmp_path: Path) -> None:
    work = tmp_path / "work" / "app"
    (work / ".claude").mkdir(parents=True)
    (work / ".claude" / "session-state.md").write_text("## Handoff: 2020-01-01\n")
    root = tmp_path / "home" / ".claude" / "projects" / encode_project_path(work) / "memory"
    root.mkdir(parents=True)
    for rel, text in ROOT_FILES.items():
        (root / rel).write_text(text)
    found = [f for f in validate(load_root(root)) if f.rule == "state-stale"]
    assert len(found) == 1 and found[0].path == str(work / ".claude" / "session-state.md")


def test_validate_json_names_the_state_file_relative_to_the_root(project: Path, capsys) -> None:
    _write_state(project, state_text(date(2020, 1, 1)))
    code = main(["validate", str(project / "memory"), "--json"])
    data = json.loads(capsys.readouterr().out)
    stale = [f for f in data["findings"] if f["rule"] == "state-stale"]
    assert code == 0 and data["ok"] is True
    assert stale[0]["path"] == "../.claude/session-state.md" and stale[0]["severity"] == "warning"
