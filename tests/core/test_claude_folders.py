"""Which folder Claude Code uses, case by case (CLAUDE-CODE.md "which folder", each case checked
against the v2.1.332 build): the project folder's name, CLAUDE_CODE_PROJECT_DIR_NAME, an invalid
winning autoMemoryDirectory, agent memory under the launch folder and with auto memory off,
team memory, and a repository-chosen folder under blockReadsOutsideWorkingDirectories."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memtui.core.model.claude_settings import encode_project_path, project_dir_name
from memtui.core.read.store import load_root
from memtui.core.roots.discover import claude_roots, discover
from memtui.core.rules.validate import validate

LONG = "/work/" + "deep_folder/" * 20 + "proj😀"


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/home/ana/my.app", "-home-ana-my-app"),
        ("/home/ana/my_app", "-home-ana-my-app"),  # underscore
        ("/home/ana/my app", "-home-ana-my-app"),  # space
        ("/home/ana/café", "-home-ana-caf-"),  # a non-ASCII letter
        ("/home/ana/x😀", "-home-ana-x--"),  # outside the BMP: two UTF-16 units, two dashes
        ("/srv/A-b/C9", "-srv-A-b-C9"),
        # over 200 characters: the first 200 and Claude Code's hash (value from the JavaScript)
        (LONG, "-work-" + "deep-folder-" * 16 + "deep-folder-de"[:200 - 6 - 12 * 16] + "-an4oft"),
    ],
)
def test_project_folder_name(path: str, name: str) -> None:
    assert encode_project_path(path) == name
    assert len(name) <= 200 or name[200] == "-"


@pytest.mark.parametrize(
    ("env", "used"),
    [
        ({"CLAUDE_CODE_PROJECT_DIR_NAME": "named"}, False),  # no CLAUDE_CONFIG_DIR: ignored
        ({"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "named"}, True),
        ({"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "a_b-C9"}, True),
        ({"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "x" * 64}, True),
        ({"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "x" * 65}, False),
        ({"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "a.b"}, False),
        ({"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "my proj"}, False),
        ({"CLAUDE_CONFIG_DIR": "/c", "CLAUDE_CODE_PROJECT_DIR_NAME": "con"}, False),
        ({"CLAUDE_CONFIG_DIR": "", "CLAUDE_CODE_PROJECT_DIR_NAME": "named"}, False),
    ],
)
def test_project_dir_name_only_under_its_conditions(env: dict[str, str], used: bool) -> None:
    expected = env["CLAUDE_CODE_PROJECT_DIR_NAME"] if used else "-srv-app"
    assert project_dir_name("/srv/app", env) == expected


def git_init(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True, capture_output=True)
    return folder


def write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def auto_of(cwd: Path, env: dict[str, str], home: Path) -> Path:
    return next(r.path for r in claude_roots(cwd, env=env, home=home) if r.kind == "auto" and r.enabled)


def test_a_long_project_name_falls_back_to_a_matching_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = git_init(tmp_path / ("p" * 210))
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    name = encode_project_path(str(repo))
    assert auto_of(repo, env, home) == home / ".claude" / "projects" / name / "memory"
    other = home / ".claude" / "projects" / (name[:200] + "-zz9") / "memory"  # another build's hash
    other.mkdir(parents=True)
    assert auto_of(repo, env, home) == other


@pytest.mark.parametrize(
    ("scopes", "expected"),
    [
        ({"user": "~/um"}, "home/um"),
        ({"user": "~/um", "project": "/ABS/pm"}, "/ABS/pm"),
        ({"user": "~/um", "project": "/ABS/pm", "local": "/ABS/lm"}, "/ABS/lm"),
        ({"user": "~/um", "project": "relative/pm"}, "default"),  # invalid wins: default folder
        ({"user": "relative"}, "default"),
        ({"user": "~/um", "local": ""}, "default"),  # set but empty: invalid
        ({"user": "~/../escape"}, "default"),
        ({"project": "/"}, "default"),  # too short once the separator goes
        ({"user": "~/um", "project": None}, "home/um"),  # null does not set it
    ],
)
def test_auto_memory_directory_first_scope_wins(tmp_path: Path, scopes: dict[str, object],
                                                 expected: str) -> None:
    home = tmp_path / "home"
    repo = git_init(tmp_path / "repo")
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    files = {"user": home / ".claude" / "settings.json", "project": repo / ".claude" / "settings.json",
             "local": repo / ".claude" / "settings.local.json"}
    for scope, value in scopes.items():
        write_json(files[scope], {"autoMemoryDirectory": value})
    if expected == "default":
        want = home / ".claude" / "projects" / encode_project_path(str(repo)) / "memory"
    elif expected.startswith("/ABS"):
        want = tmp_path / expected[5:]
        for scope, value in scopes.items():
            if isinstance(value, str) and value.startswith("/ABS"):
                write_json(files[scope], {"autoMemoryDirectory": str(tmp_path / value[5:])})
    else:
        want = tmp_path / expected
    assert auto_of(repo, env, home) == want


def test_a_repository_chosen_folder_is_inactive_under_block_reads(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = git_init(tmp_path / "repo")
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    chosen = tmp_path / "team-notes"
    write_json(repo / ".claude" / "settings.json", {"autoMemoryDirectory": str(chosen)})
    assert auto_of(repo, env, home) == chosen
    block = {"permissions": {"blockReadsOutsideWorkingDirectories": True}}
    write_json(home / ".claude" / "settings.json", block)
    # v2.1.332 then names no memory folder and loads nothing: the chosen folder, inactive
    roots = claude_roots(repo, env=env, home=home)
    assert roots[0].path == chosen and not roots[0].enabled
    assert "blockReadsOutsideWorkingDirectories" in roots[0].label
    assert not any(r.enabled for r in roots if r.kind in ("auto", "agent"))
    write_json(home / ".claude" / "settings.json", {**block, "autoMemoryDirectory": "~/mine"})
    assert not claude_roots(repo, env=env, home=home)[0].enabled  # the user's folder too
    (repo / ".claude" / "settings.json").unlink()  # a user-chosen folder alone is used
    assert auto_of(repo, env, home) == home / "mine"
    write_json(home / ".claude" / "settings.json", block)  # and the default folder
    assert auto_of(repo, env, home) == home / ".claude" / "projects" / encode_project_path(
        str(repo)) / "memory"


def test_agent_memory_of_a_session_launched_in_a_subfolder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = git_init(tmp_path / "repo")
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    sub = repo / "services" / "api"
    (sub / ".claude" / "agent-memory" / "reviewer").mkdir(parents=True)
    (sub / ".claude" / "agent-memory" / "reviewer" / "MEMORY.md").write_text("- note\n")
    (repo / ".claude" / "agent-memory" / "planner").mkdir(parents=True)
    agents = {r.path for r in claude_roots(sub, env=env, home=home) if r.kind == "agent"}
    assert agents == {sub / ".claude" / "agent-memory" / "reviewer",
                      repo / ".claude" / "agent-memory" / "planner"}
    assert sub / ".claude" / "agent-memory" / "reviewer" in discover(cwd=sub, env=env, home=home)


def test_agent_memory_is_inactive_while_auto_memory_is_off(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = git_init(tmp_path / "repo")
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    agent = repo / ".claude" / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("- note\n")
    assert all(r.enabled for r in claude_roots(repo, env=env, home=home))
    off = {**env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
    roots = claude_roots(repo, env=off, home=home)
    assert [r.enabled for r in roots if r.kind in ("auto", "agent")] == [False, False]
    write_json(repo / ".claude" / "settings.json", {"autoMemoryEnabled": False})
    assert not any(r.enabled for r in claude_roots(repo, env=env, home=home) if r.kind == "agent")


def test_team_memory_is_its_own_layer_and_never_an_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = git_init(tmp_path / "repo")
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    auto = home / ".claude" / "projects" / encode_project_path(str(repo)) / "memory"
    (auto / "team").mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [Mine](mine.md) — mine\n")
    (auto / "mine.md").write_text("---\nname: mine\ndescription: d\ntype: user\n---\nx\n")
    (auto / "team" / "deploy.md").write_text("---\nname: deploy\ndescription: d\ntype: project\n---\nx\n")
    roots = claude_roots(repo, env=env, home=home)
    assert [r.kind for r in roots].count("team") == 1
    assert next(r for r in roots if r.kind == "team").path == auto / "team"
    assert discover(cwd=repo, env=env, home=home) == [auto]  # part of the auto root, not a root
    findings = validate(load_root(auto))
    assert [(f.rule, f.severity) for f in findings if f.path == "team/deploy.md"] == [
        ("team-unreachable", "warning")]


def test_an_auto_memory_directory_naming_the_repositorys_memory_is_listed_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = git_init(tmp_path / "repo")
    env = {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    (repo / "memory").mkdir()
    (repo / "memory" / "MEMORY.md").write_text("- note\n")
    write_json(repo / ".claude" / "settings.json", {"autoMemoryDirectory": str(repo / "memory")})
    roots = claude_roots(repo, env=env, home=home)
    assert [r.path for r in roots].count(repo / "memory") == 1 and roots[0].kind == "auto"
