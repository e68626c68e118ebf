"""The settings files a session launched in a subfolder reads, as Claude Code 2.1.332 reads them
(CLAUDE-CODE.md "Which project settings are read"): project settings of the launch folder only,
local settings of the launch folder and of the repository root (the main checkout's in a linked
worktree), the root's winning; memtui's discovery, ``memtui list`` and the hooks' lookup agree."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.hooks.install import guarding_files
from memtui.core.model.claude_settings import encode_project_path, memory_root_of, settings_files
from memtui.core.roots.discover import claude_roots

#: label -> (folder below the repository, file name)
FILES = {
    "root-json": ("", "settings.json"), "root-local": ("", "settings.local.json"),
    "mid-json": ("sub", "settings.json"), "mid-local": ("sub", "settings.local.json"),
    "launch-json": ("sub/deep", "settings.json"), "launch-local": ("sub/deep", "settings.local.json"),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "proj"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub" / "deep").mkdir(parents=True)
    return repo


def write(repo: Path, label: str, value: object = None, tmp: Path | None = None) -> Path:
    folder, name = FILES[label]
    path = repo / folder / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    memory = value if value is not None else str((tmp or repo.parent) / f"mem-{label}")
    path.write_text(json.dumps({"autoMemoryDirectory": memory}))
    return path


def auto(launch: Path, env: dict[str, str]) -> Path:
    return claude_roots(launch, env=env)[0].path


# measured: files present -> the memory folder used, launched in sub/deep (samples: settings/)
CASES = [
    (["root-json"], "default"),
    (["mid-json"], "default"),
    (["launch-json"], "launch-json"),
    (["root-local"], "root-local"),
    (["mid-local"], "default"),
    (["launch-local"], "launch-local"),
    (["root-json", "launch-json"], "launch-json"),
    (["root-local", "launch-local"], "root-local"),
    (["launch-json", "launch-local"], "launch-local"),
    (["launch-json", "root-local"], "root-local"),
    (list(FILES), "root-local"),
]


@pytest.mark.parametrize(("present", "used"), CASES, ids=["+".join(p) for p, _ in CASES])
def test_the_memory_folder_a_subfolder_session_uses(repo: Path, tmp_path: Path,
                                                    present: list[str], used: str) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    for label in present:
        write(repo, label)
    default = tmp_path / "cfg" / "projects" / encode_project_path(str(repo)) / "memory"
    want = default if used == "default" else tmp_path / f"mem-{used}"
    assert auto(repo / "sub" / "deep", env) == want


def test_at_the_root_the_roots_project_settings_count(repo: Path, tmp_path: Path) -> None:
    write(repo, "root-json")
    assert auto(repo, {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}) == tmp_path / "mem-root-json"


def test_an_invalid_winning_value_in_the_roots_local_file_means_the_default(repo: Path,
                                                                             tmp_path: Path) -> None:
    write(repo, "root-local", "relative/mem")
    write(repo, "launch-local")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    assert auto(repo / "sub" / "deep", env) == \
        tmp_path / "cfg" / "projects" / encode_project_path(str(repo)) / "memory"


def test_the_files_read_and_whose_hooks_run(repo: Path, tmp_path: Path) -> None:
    launch = repo / "sub" / "deep"
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    assert settings_files(str(launch), env) == [
        ("local", str(repo / ".claude" / "settings.local.json")),
        ("local", str(launch / ".claude" / "settings.local.json")),
        ("project", str(launch / ".claude" / "settings.json")),
        ("user", str(tmp_path / "cfg" / "settings.json"))]
    # launched at the root, its local file is read once
    assert [s for s, _ in settings_files(str(repo), env)] == ["local", "project", "user"]
    # outside git only the launch folder's
    plain = tmp_path / "plain" / "x"
    plain.mkdir(parents=True)
    assert settings_files(str(plain), env)[0] == ("local", str(plain / ".claude" / "settings.local.json"))
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Write|Edit", "hooks": [
        {"type": "command", "command": "memtui hook pre", "timeout": 30}]}]}}
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(hooks))
    found = guarding_files(str(launch), env, repo_root=str(repo))
    assert not any(has for _scope, _path, has in found)  # the root's settings.json never runs here
    (repo / ".claude" / "settings.local.json").write_text(json.dumps(hooks))
    found = guarding_files(str(launch), env, repo_root=str(repo))
    assert [(scope, has) for scope, _path, has in found] == [
        ("local", True), ("local", False), ("project", False), ("user", False)]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd,
                   check=True, capture_output=True)


def test_in_a_worktree_the_root_is_the_main_checkouts(tmp_path: Path) -> None:
    main_tree = tmp_path / "proj"
    main_tree.mkdir()
    git(main_tree, "init", "-q")
    git(main_tree, "commit", "-q", "--allow-empty", "-m", "start")
    wt = tmp_path / "wt"
    git(main_tree, "worktree", "add", "-q", "-b", "feature", str(wt))
    (wt / "sub").mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    for folder, label in ((main_tree, "main"), (wt, "wt")):
        for name in ("settings.json", "settings.local.json"):
            path = folder / ".claude" / name
            path.parent.mkdir(exist_ok=True)
            path.write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / f"mem-{label}-{name}")}))
    # launched in <wt>/sub: the main checkout's local file is "the root's"; the worktree's is not read
    assert auto(wt / "sub", env) == tmp_path / "mem-main-settings.local.json"
    (main_tree / ".claude" / "settings.local.json").unlink()
    assert auto(wt / "sub", env) == \
        tmp_path / "cfg" / "projects" / encode_project_path(str(main_tree)) / "memory"
    assert auto(wt, env) == tmp_path / "mem-wt-settings.local.json"  # at <wt>: its own files


def test_the_pre_hook_and_memtui_list_follow_the_launch_folder(repo: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys) -> None:
    launch = repo / "sub" / "deep"
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    write(repo, "root-json")
    write(repo, "launch-json")
    chosen = tmp_path / "mem-launch-json"
    assert memory_root_of(str(chosen / "a.md"), str(launch), env) == str(chosen)
    assert memory_root_of(str(tmp_path / "mem-root-json" / "a.md"), str(launch), env) is None
    assert memory_root_of(str(tmp_path / "mem-root-json" / "a.md"), str(repo), env) == \
        str(tmp_path / "mem-root-json")
    chosen.mkdir()
    (chosen / "MEMORY.md").write_text("# Memory\n")
    (tmp_path / "mem-root-json").mkdir()
    (tmp_path / "mem-root-json" / "MEMORY.md").write_text("# Memory\n")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", env["CLAUDE_CONFIG_DIR"])
    monkeypatch.chdir(launch)
    assert main(["list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    paths = [r["root"] for r in (listed if isinstance(listed, list) else [listed])]
    assert str(chosen) in paths and str(tmp_path / "mem-root-json") not in paths
