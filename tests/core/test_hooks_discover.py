"""Discovery that matches Claude Code: git root shared by worktrees, settings, env, agent layouts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.model.claude_settings import auto_memory_dir, encode_project_path
from memtui.core.roots.discover import claude_roots, discover, git_roots


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd,
                   check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    main_tree = tmp_path / "src" / "my.app"
    (main_tree / "pkg").mkdir(parents=True)
    git(main_tree, "init", "-q")
    git(main_tree, "commit", "-q", "--allow-empty", "-m", "start")
    return main_tree


def test_all_worktrees_and_subfolders_share_the_main_roots_folder(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "wt" / "feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(other))
    (other / "deep").mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    expected = tmp_path / "cfg" / "projects" / encode_project_path(str(repo)) / "memory"
    assert str(expected).endswith("-src-my-app/memory")
    for cwd in (repo, repo / "pkg", other, other / "deep"):
        auto = claude_roots(cwd, env=env)[0]
        assert (auto.kind, auto.path) == ("auto", expected)
    assert git_roots(other / "deep") is not None and git_roots(other / "deep").worktree == other


def test_outside_git_the_folder_itself_names_the_project(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    assert claude_roots(plain, env=env)[0].path == \
        tmp_path / "cfg" / "projects" / encode_project_path(str(plain)) / "memory"


def test_project_dir_name_and_config_dir_from_the_environment(repo: Path, tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "elsewhere"), "CLAUDE_CODE_PROJECT_DIR_NAME": "shared"}
    assert claude_roots(repo, env=env)[0].path == tmp_path / "elsewhere" / "projects" / "shared" / "memory"
    home = tmp_path / "home"
    assert claude_roots(repo, env={}, home=home)[0].path == \
        home / ".claude" / "projects" / encode_project_path(str(repo)) / "memory"


def test_auto_memory_directory_precedence(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    settings = {"user": home / ".claude" / "settings.json",
                "project": repo / ".claude" / "settings.json",
                "local": repo / ".claude" / "settings.local.json"}
    for path in settings.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    settings["user"].write_text(json.dumps({"autoMemoryDirectory": "~/notes/mem"}))
    assert auto_memory_dir(str(repo), env, str(home)) == str(home / "notes" / "mem")
    settings["project"].write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "proj-mem")}))
    assert auto_memory_dir(str(repo), env, str(home)) == str(tmp_path / "proj-mem")
    settings["local"].write_text(json.dumps({"autoMemoryDirectory": "relative/invalid"}))
    # the winning scope's invalid value means the default folder, not the next scope's value
    assert auto_memory_dir(str(repo), env, str(home)) == \
        str(home / ".claude" / "projects" / encode_project_path(str(repo)) / "memory")
    settings["local"].write_text('{"autoMemoryDirectory": "/abs/local", ')  # invalid JSON: skipped
    assert auto_memory_dir(str(repo), env, str(home)) == str(tmp_path / "proj-mem")
    settings["local"].write_text(json.dumps({"autoMemoryDirectory": "/abs/local"}))
    assert claude_roots(repo / "pkg", env=env, home=home)[0].path == Path("/abs/local")


def test_auto_memory_turned_off(repo: Path, tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    assert claude_roots(repo, env=env)[0].enabled
    assert not claude_roots(repo, env={**env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"})[0].enabled
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text('{"autoMemoryEnabled": false}')
    auto = claude_roots(repo, env=env)[0]
    assert not auto.enabled and auto.label == "auto memory (turned off)"


def test_three_agent_memory_layouts(repo: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    env = {"CLAUDE_CONFIG_DIR": str(cfg)}
    for folder in (cfg / "agent-memory" / "planner", repo / ".claude" / "agent-memory" / "reviewer",
                   repo / ".claude" / "agent-memory-local" / "tester"):
        folder.mkdir(parents=True)
        (folder / "MEMORY.md").write_text("- [A](a.md) — a\n")
        (folder / "a.md").write_text("---\nname: A\ndescription: a\ntype: project\n---\n")
    roots = claude_roots(repo / "pkg", env=env)
    assert [(r.kind, r.scope, r.path.name) for r in roots] == [
        ("auto", "project", "memory"), ("agent", "project", "reviewer"),
        ("agent", "local", "tester"), ("agent", "user", "planner")]
    assert [r.label for r in roots[1:]] == [
        "agent reviewer (project)", "agent tester (local)", "agent planner (user)"]
    assert [p.name for p in discover(cwd=repo / "pkg", env=env)] == ["reviewer", "tester", "planner"]
    assert [r.scope for r in claude_roots(repo, env=env, include_user=False)] == [
        "project", "project", "local"]


def test_list_without_a_path_shows_claude_codes_folders(repo: Path, tmp_path: Path, monkeypatch,
                                                        capsys) -> None:
    cfg = tmp_path / "cfg"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(cfg))
    monkeypatch.delenv("CLAUDE_CODE_PROJECT_DIR_NAME", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", raising=False)
    agent = cfg / "agent-memory" / "planner"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("- [A](a.md) — a\n")
    (agent / "a.md").write_text("---\nname: A\ndescription: a\ntype: project\n---\n")
    monkeypatch.chdir(repo / "pkg")
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    auto = cfg / "projects" / encode_project_path(str(repo)) / "memory"
    assert [(r["root"], r["layer"], r["exists"]) for r in rows] == [
        (str(agent), "agents", True), (str(auto), "machine-local", False)]
    assert rows[1]["budget"] is None and rows[0]["budget"]["lines"] == 1
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("# Memory\n")
    monkeypatch.setenv("COLUMNS", "300")
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "machine-local" in out and str(auto) in out and "agents" in out and "1/200" in out
