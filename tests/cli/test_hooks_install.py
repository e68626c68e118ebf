"""``memtui hook install|uninstall|status``: merge into Claude Code settings files, keep the rest."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from memtui.cli.main import main
from memtui.core.hooks import install as hi

PREFIX = "/opt/bin/memtui"


@pytest.fixture
def user_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``--scope user`` writes ``$CLAUDE_CONFIG_DIR/settings.json``; cwd is a project folder."""
    config = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    return config / "settings.json"


def install(*flags: str) -> int:
    return main(["hook", "install", "--command", PREFIX, *flags])


def ours(prefix: str = PREFIX, ask: bool = False, fail_closed: bool = False) -> dict[str, Any]:
    pre = {"type": "command", "command": f"{prefix} hook pre" + (" --ask" if ask else ""),
           "timeout": 30}
    if fail_closed:
        pre["onFailure"] = "block"
    return {
        "PreToolUse": [{"matcher": "Write|Edit", "hooks": [pre]}],
        "Stop": [{"hooks": [{"type": "command", "command": f"{prefix} hook stop", "timeout": 30}]}],
        "SubagentStop": [{"hooks": [{"type": "command", "command": f"{prefix} hook subagent-stop",
                                     "timeout": 30}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": f"{prefix} hook session-start",
                                     "timeout": 30}]}],
    }


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".memtui-*.bak"))


def test_missing_file_is_created_and_second_install_is_a_no_op(user_settings: Path, capsys) -> None:
    assert install() == 0
    assert json.loads(user_settings.read_text()) == {"hooks": ours()}
    assert backups(user_settings) == []  # nothing to back up
    first = user_settings.read_bytes()
    capsys.readouterr()
    assert install() == 0
    assert user_settings.read_bytes() == first and backups(user_settings) == []
    assert "already in this file; nothing to change" in capsys.readouterr().out


OTHER = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"], "deny": []},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}],
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt"}]}],
    },
    "env": {"FOO": "ünïcode"},
}


def test_other_keys_and_hooks_survive_install_and_uninstall(user_settings: Path) -> None:
    user_settings.parent.mkdir(parents=True)
    odd = json.dumps(OTHER, indent=4, ensure_ascii=False)  # 4 spaces, no final newline
    user_settings.write_text(odd, encoding="utf-8")
    assert install("--ask") == 0
    after = json.loads(user_settings.read_text(encoding="utf-8"))
    assert after["model"] == "opus" and after["permissions"] == OTHER["permissions"]
    assert after["env"] == {"FOO": "ünïcode"}
    assert after["hooks"]["PostToolUse"] == OTHER["hooks"]["PostToolUse"]
    assert after["hooks"]["PreToolUse"] == OTHER["hooks"]["PreToolUse"] + ours(ask=True)["PreToolUse"]
    assert list(after) == list(OTHER)  # key order kept
    text = user_settings.read_text(encoding="utf-8")
    assert text.startswith('{\n    "model"') and not text.endswith("\n")  # indentation kept
    assert [b.read_text(encoding="utf-8") for b in backups(user_settings)] == [odd]
    assert main(["hook", "uninstall"]) == 0
    assert json.loads(user_settings.read_text(encoding="utf-8")) == OTHER


def test_reinstall_updates_our_command_in_place(user_settings: Path) -> None:
    assert install() == 0
    assert install("--ask") == 0
    value = json.loads(user_settings.read_text())
    assert value["hooks"] == ours(ask=True)  # not a second PreToolUse group
    assert hi.installed(value) == {"pre": f"{PREFIX} hook pre --ask", "stop": f"{PREFIX} hook stop",
                                   "subagent-stop": f"{PREFIX} hook subagent-stop",
                                   "session-start": f"{PREFIX} hook session-start"}


def test_our_hook_sharing_a_group_with_another(user_settings: Path) -> None:
    shared = {"hooks": {"PreToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [
        {"type": "command", "command": "lint-md"},
        {"type": "command", "command": "python3 -m memtui hook pre"}]}]}}
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text(json.dumps(shared))
    assert install() == 0
    value = json.loads(user_settings.read_text())
    # there is no MultiEdit tool: the matcher of the group holding memtui's hook is put right
    assert value["hooks"]["PreToolUse"] == [{"matcher": "Write|Edit", "hooks": [
        {"type": "command", "command": "lint-md"},
        {"type": "command", "command": f"{PREFIX} hook pre"}]}]
    assert main(["hook", "uninstall"]) == 0
    assert json.loads(user_settings.read_text()) == {"hooks": {"PreToolUse": [
        {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "lint-md"}]}]}}


@pytest.mark.parametrize("text", ['{"hooks": {', "[1, 2]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'])
def test_invalid_file_is_refused_and_never_overwritten(user_settings: Path, text: str, capsys) -> None:
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text(text)
    assert install() == 2
    assert main(["hook", "uninstall"]) == 2
    assert user_settings.read_text() == text and backups(user_settings) == []
    err = capsys.readouterr().err
    assert str(user_settings) in err.replace("\n", "") and "Traceback" not in err


def test_dry_run_prints_the_diff_and_touches_nothing(user_settings: Path, capsys) -> None:
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text('{"model": "opus"}\n')
    assert install("--dry-run") == 0
    out = capsys.readouterr().out
    assert user_settings.read_text() == '{"model": "opus"}\n'
    assert f"--- {user_settings}\n+++ {user_settings}\n" in out
    assert '-{"model": "opus"}\n' in out and f'+            "command": "{PREFIX} hook pre",\n' in out


def test_project_scope_writes_a_portable_command_and_says_what_it_wrote(user_settings: Path,
                                                                       capsys) -> None:
    assert main(["hook", "install", "--scope", "project"]) == 0
    path = Path.cwd() / ".claude" / "settings.json"
    text = path.read_text()
    assert json.loads(text) == {"hooks": ours(prefix="memtui")}
    assert ".venv" not in text and "python" not in text and '"/' not in text  # no absolute path
    out = capsys.readouterr().out
    assert f"memtui's hooks installed in {path}\n" in out
    assert "  PreToolUse (Write|Edit): memtui hook pre; if it cannot run, the write goes on " \
           "unchecked (fail open)\n" in out
    assert "  Stop: memtui hook stop\n  SubagentStop: memtui hook subagent-stop\n" in out
    assert "The command is `memtui` from PATH" in out


def test_fail_closed_is_on_pre_only_and_a_stated_choice(user_settings: Path, capsys) -> None:
    assert install("--fail-closed") == 0
    value = json.loads(user_settings.read_text())
    assert value["hooks"] == ours(fail_closed=True)
    assert "the write is blocked (onFailure: block)" in capsys.readouterr().out
    assert install() == 0  # installing again without it: fail open again
    assert json.loads(user_settings.read_text())["hooks"] == ours()


def test_an_old_multiedit_matcher_is_put_right(user_settings: Path) -> None:
    old = {"hooks": {"PreToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [
        {"type": "command", "command": f"{PREFIX} hook pre", "timeout": 30}]}]}}
    user_settings.parent.mkdir(parents=True)
    user_settings.write_text(json.dumps(old))
    assert install() == 0
    assert json.loads(user_settings.read_text())["hooks"] == ours()


def test_project_and_local_scopes_and_status(user_settings: Path, capsys) -> None:
    project = Path.cwd()
    assert install("--scope", "project") == 0
    assert install("--scope", "local", "--ask") == 0
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {"hooks": ours()}
    assert json.loads((project / ".claude" / "settings.local.json").read_text()) == {
        "hooks": ours(ask=True)}
    capsys.readouterr()
    assert main(["hook", "status", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["scope"], r["exists"], r["hooks"]["pre"]) for r in rows] == [
        ("user", False, None), ("project", True, f"{PREFIX} hook pre"),
        ("local", True, f"{PREFIX} hook pre --ask")]


def test_a_symlinked_settings_file_is_written_through(user_settings: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text("{}\n")
    user_settings.parent.mkdir(parents=True)
    user_settings.symlink_to(dotfiles)
    assert install() == 0
    assert user_settings.is_symlink()
    assert json.loads(dotfiles.read_text()) == {"hooks": ours()}
    assert not any(p.suffix == ".tmp" for p in dotfiles.parent.iterdir())


def test_default_command_runs_this_memtui() -> None:
    prefix = hi.command_for(__import__("memtui.cli.hook", fromlist=["x"]).default_prefix(), "pre")
    assert hi.memtui_hook_of({"command": prefix}) == "pre"
    assert hi.memtui_hook_of({"command": "other-tool hook pre"}) is None
    assert hi.memtui_hook_of({"command": "'/a b/memtui' hook stop"}) == "stop"
    assert os.path.basename(prefix.split()[0].strip("'")) in ("memtui", os.path.basename(
        __import__("sys").executable))


def test_a_project_install_says_whom_it_guards_and_status_says_where(user_settings: Path, capsys) -> None:
    """Claude Code reads .claude/settings.json from the launch folder only (v2.1.332): a
    project-scope install at the work tree's top does not guard a session launched below it;
    the repository root's settings.local.json is read from every launch folder in it."""
    top = Path.cwd()
    (top / ".git").mkdir()
    sub = top / "services" / "api"
    sub.mkdir(parents=True)
    os.chdir(sub)
    capsys.readouterr()
    assert install("--scope", "project") == 0
    out = capsys.readouterr().out
    assert json.loads((top / ".claude" / "settings.json").read_text()) == {"hooks": ours()}
    assert (f"These hooks guard sessions launched in {top}; they do not guard sessions launched "
            "in any other folder, its subfolders included: Claude Code reads .claude/settings.json "
            "from the launch folder only (to guard every session in the repository, install with "
            "--scope local, read from the repository root by every session in it, or --scope "
            "user).") in " ".join(out.split())
    assert main(["hook", "status"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert (f"A session launched here ({sub}) is NOT guarded: none of the settings files it reads "
            f"({top}/.claude/settings.local.json, {sub}/.claude/settings.local.json, "
            f"{sub}/.claude/settings.json, {user_settings}) has memtui's hooks.") in text
    assert main(["hook", "status", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["scope"], r["path"], r["target"], r["read_here"], r["hooks"]["pre"]) for r in rows] == [
        ("user", str(user_settings), True, True, None),
        ("project", str(top / ".claude" / "settings.json"), True, False, f"{PREFIX} hook pre"),
        ("local", str(top / ".claude" / "settings.local.json"), True, True, None),
        ("local", str(sub / ".claude" / "settings.local.json"), False, True, None),
        ("project", str(sub / ".claude" / "settings.json"), False, True, None)]
    assert rows[2]["guards"] == (f"every session launched in {top} or any folder below it (and in "
                                 "the repository's linked worktrees)")
    assert rows[2]["not_guarded"] is None
    assert install("--scope", "local") == 0
    capsys.readouterr()
    assert main(["hook", "status"]) == 0
    assert (f"A session launched here ({sub}) is guarded: memtui's hooks are in "
            f"{top}/.claude/settings.local.json.") in " ".join(capsys.readouterr().out.split())
