"""``memtui hook install|uninstall|status --mcp``: ``memtui mcp`` registered where Claude Code
reads a stdio server, with the permission rule its tools need, every other key kept."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memtui.cli.main import main

SERVER = {"type": "stdio", "command": "/opt/bin/memtui", "args": ["mcp"]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository, the current folder one of its subfolders; Claude Code's config folder
    in ``$CLAUDE_CONFIG_DIR``."""
    repo = tmp_path / "proj"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(repo / "sub")
    return repo


def load(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text())
    return value


def test_user_scope_is_the_config_dirs_claude_json_and_its_settings(project: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "config" / ".claude.json"
    state.parent.mkdir()
    state.write_text(json.dumps({"numStartups": 7, "projects": {"/x": {"allowedTools": []}}}, indent=2) + "\n")
    assert main(["hook", "install", "--mcp", "--command", "/opt/bin/memtui"]) == 0
    said = capsys.readouterr().out
    assert "memtui's MCP server registered (user scope):" in said
    assert f"{state}: the server added" in said
    assert "the permission rule mcp__memtui added" in said
    assert load(state) == {"numStartups": 7, "projects": {"/x": {"allowedTools": []}},
                           "mcpServers": {"memtui": SERVER}}
    assert load(tmp_path / "config" / "settings.json") == {"permissions": {"allow": ["mcp__memtui"]}}
    assert main(["hook", "install", "--mcp", "--command", "/opt/bin/memtui"]) == 0  # idempotent
    assert said.count("added") == 2 and "already there; unchanged" in capsys.readouterr().out
    assert main(["hook", "uninstall", "--mcp"]) == 0
    assert load(state) == {"numStartups": 7, "projects": {"/x": {"allowedTools": []}}}
    assert load(tmp_path / "config" / "settings.json") == {}


def test_local_scope_is_keyed_by_the_repository_root(project: Path, tmp_path: Path) -> None:
    assert main(["hook", "install", "--mcp", "--scope", "local", "--command", "/opt/bin/memtui"]) == 0
    state = load(tmp_path / "config" / ".claude.json")
    assert state == {"projects": {str(project): {"mcpServers": {"memtui": SERVER}}}}
    assert load(project / ".claude" / "settings.local.json") == {"permissions": {"allow": ["mcp__memtui"]}}
    assert main(["hook", "uninstall", "--mcp", "--scope", "local"]) == 0
    assert load(tmp_path / "config" / ".claude.json") == {"projects": {}}


def test_project_scope_is_a_portable_mcp_json_at_the_repository_root(project: Path) -> None:
    """The rule goes to the machine's settings.local.json: Claude Code does not take it from the
    committed settings.json for a .mcp.json server (measured, 2.1.332)."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}, "model": "x"}))
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
    assert main(["hook", "install", "--mcp", "--scope", "project"]) == 0
    assert load(project / ".mcp.json") == {"mcpServers": {"memtui": {"type": "stdio", "command": "memtui",
                                                                     "args": ["mcp"]}}}
    assert not (project / "sub" / ".mcp.json").exists()
    assert load(settings) == {"permissions": {"allow": ["Bash(ls)"]}, "model": "x"}
    assert load(local) == {"permissions": {"allow": ["Bash(ls)", "mcp__memtui"]}}


def test_a_server_entry_a_person_extended_keeps_its_other_keys(project: Path) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "memtui": {"type": "stdio", "command": "old", "args": [], "env": {"MEMTUI_LOADER": "raw"}},
        "other": {"type": "stdio", "command": "other"}}}))
    assert main(["hook", "install", "--mcp", "--scope", "project"]) == 0
    assert load(project / ".mcp.json") == {"mcpServers": {
        "memtui": {"type": "stdio", "command": "memtui", "args": ["mcp"], "env": {"MEMTUI_LOADER": "raw"}},
        "other": {"type": "stdio", "command": "other"}}}
    assert main(["hook", "uninstall", "--mcp", "--scope", "project"]) == 0
    assert load(project / ".mcp.json") == {"mcpServers": {"other": {"type": "stdio", "command": "other"}}}


def test_status_says_where_the_server_is_and_whether_its_tools_are_allowed(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"memtui": SERVER}}))
    assert main(["hook", "status", "--json"]) == 0
    rows = {row["scope"]: row["mcp"] for row in json.loads(capsys.readouterr().out) if row["target"]}
    assert rows["project"] == {"path": str(project / ".mcp.json"), "command": "/opt/bin/memtui mcp",
                               "allowed": None, "error": None}
    assert rows["user"]["command"] is None
    assert main(["hook", "status"]) == 0
    assert (f"mcp      project  {project / '.mcp.json'}: /opt/bin/memtui mcp; tools NOT allowed"
            in capsys.readouterr().out)


def test_a_file_memtui_will_not_touch_is_left_alone(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": ["not", "an", "object"]}))
    assert main(["hook", "install", "--mcp", "--scope", "project"]) == 2
    assert "\"mcpServers\" is not an object; memtui leaves it alone; nothing was changed" in capsys.readouterr().err
    assert load(project / ".mcp.json") == {"mcpServers": ["not", "an", "object"]}
    assert not (project / ".claude").exists()


def test_in_a_linked_worktree_the_rule_goes_where_every_session_of_the_repository_reads_it(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Claude Code reads a worktree's settings.local.json only for a session launched at its top,
    the main checkout's for every session in the repository (2.1.332): the rule goes there, the
    server to the worktree's own .mcp.json."""
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "start"], check=True)
    tree = tmp_path / "wt"
    subprocess.run([*git, "worktree", "add", "-q", str(tree)], check=True)
    (tree / "sub").mkdir()
    monkeypatch.chdir(tree / "sub")
    assert main(["hook", "install", "--mcp", "--scope", "project"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert load(tree / ".mcp.json") == {"mcpServers": {"memtui": {"type": "stdio", "command": "memtui",
                                                                  "args": ["mcp"]}}}
    assert load(project / ".claude" / "settings.local.json") == {"permissions": {"allow": ["mcp__memtui"]}}
    assert not (tree / ".claude").exists()
    assert f"The permission rule is read by every session launched in {project} or any folder below it" in said
    assert main(["hook", "status", "--json"]) == 0
    rows = {row["scope"]: row["mcp"] for row in json.loads(capsys.readouterr().out) if row["target"]}
    assert rows["project"]["allowed"] and rows["project"]["command"] == "memtui mcp"
