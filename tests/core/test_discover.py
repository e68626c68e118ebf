"""Where memory roots are found (DESIGN §1.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.read.store import RootError
from memtui.core.roots.discover import claude_project_memory, discover, encode_project_path


def test_encoding_replaces_slashes_and_dots() -> None:
    assert encode_project_path("/home/paul/my.proj") == "-home-paul-my-proj"


def test_given_path_with_nested_roots(make_root) -> None:
    root = make_root({"MEMORY.md": "", "agents/a/MEMORY.md": "", "agents/b/MEMORY.md": "",
                      ".claude/memory/MEMORY.md": ""})
    found = discover(root)
    assert [p.relative_to(root).as_posix() for p in found] == [
        ".", ".claude/memory", "agents/a", "agents/b"]


def test_given_path_without_roots_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RootError, match="no MEMORY.md"):
        discover(tmp_path)


def test_cwd_then_claude_project_folder_then_git_tree(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "work" / "proj"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    with pytest.raises(RootError):
        discover(cwd=project / "src", home=home, env={})
    (project / "memory").mkdir()
    (project / "memory" / "MEMORY.md").write_text("")
    assert discover(cwd=project / "src", home=home, env={}) == [project / "memory"]
    claude = claude_project_memory(project, home)  # the git root names the folder, not src/
    claude.mkdir(parents=True)
    (claude / "MEMORY.md").write_text("")
    assert discover(cwd=project / "src", home=home, env={}) == [claude, project / "memory"]
    (project / "src" / "MEMORY.md").write_text("")
    assert discover(cwd=project / "src", home=home, env={}) == [project / "src"]


def test_agent_memory_roots_under_the_git_tree(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    for agent in ("reviewer", "tester"):
        (project / ".claude" / "agent-memory" / agent).mkdir(parents=True)
        (project / ".claude" / "agent-memory" / agent / "MEMORY.md").write_text("")
    (project / "docs").mkdir()
    found = discover(cwd=project / "docs", home=tmp_path / "home", env={})
    assert [p.name for p in found] == ["reviewer", "tester"]
