"""Claude Code hooks fed real-shaped hook JSON on stdin: exit code and stdout, exactly."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.cli.main import main
from memtui.core.model.claude_settings import encode_project_path, memory_root_of
from tests.support.hooks import call, pre
from tests.support.roots import topic


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A Claude Code environment of its own: config folder under tmp_path, nothing inherited."""
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}


def deny(reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                              "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}},
                      ensure_ascii=False) + "\n"


def decision(stdout: str) -> dict[str, Any]:
    value = json.loads(stdout)
    assert set(value) == {"hookSpecificOutput"}
    return value["hookSpecificOutput"]


INDEX = "# Memory\n\n- [Alpha](alpha.md) — how alpha works\n"


@pytest.fixture
def root(make_root) -> Path:
    return make_root({"MEMORY.md": INDEX, "alpha.md": topic("Alpha", body="Alpha is the first.\n")})


# ---------------------------------------------------------------- outside every root


def test_write_outside_every_root_is_silent(tmp_path: Path, root: Path, env) -> None:
    (tmp_path / "proj").mkdir()
    for path in (tmp_path / "proj" / "main.py", tmp_path / "proj" / "README.md"):
        assert call("pre", pre("Write", path, tmp_path / "proj", content="x"), env) == (0, "", "")


def test_other_tools_and_bad_input_never_block(tmp_path: Path, env) -> None:
    assert call("pre", b"{not json", env)[:2] == (0, "")
    code, out, err = call("pre", b"", env)
    assert (code, out) == (0, "") and err == (
        "memtui hook pre: empty input (expected Claude Code's hook JSON on stdin); nothing checked\n")
    code, out, err = call("pre", b"[1, 2]", env)
    assert (code, out, err) == (0, "", "memtui hook pre: input is not a JSON object; nothing checked\n")
    code, out, err = call("pre", {"tool_name": "Write", "tool_input": {"file_path": "rel.md"}}, env)
    assert (code, out) == (0, "") and "not absolute" in err
    code, out, err = call("pre", {"tool_name": "Bash", "tool_input": {"command": "ls"}}, env)
    assert (code, out) == (0, "") and "'Bash' is not Write" in err
    assert call("stop", b"garbage", env)[:2] == (0, "")
    assert call("session-start", b"", env)[:2] == (0, "")


def test_malformed_tool_input_inside_a_root_never_blocks(root: Path, env) -> None:
    code, out, err = call("pre", pre("Write", root / "beta.md", root), env)  # no content
    assert (code, out, err) == (
        0, "", "memtui hook pre: tool_input.content is missing or not a string; nothing checked\n")
    code, out, err = call("pre", pre("MultiEdit", root / "alpha.md", root, edits="nope"), env)
    assert (code, out) == (0, "") and "'MultiEdit' is not Write or Edit" in err


def test_an_unexpected_exception_is_exit_0_and_one_line(root: Path, env, monkeypatch) -> None:
    import memtui.core.hooks.policy as hooks

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(hooks, "judge_write", boom)
    code, out, err = call("pre", pre("Write", root / "beta.md", root, content="x"), env)
    line = "memtui hook pre: internal error (RuntimeError: disk on fire second line); nothing checked"
    assert (code, err) == (0, line + "\n")
    # the person learns that the guard did nothing: stderr of an exit-0 hook is only logged
    assert out == json.dumps({"systemMessage": line}) + "\n"


# ---------------------------------------------------------------- the agent's writes


def test_two_step_write_topic_then_index_line_passes_both(root: Path, env) -> None:
    beta = topic("Beta", body="Beta replaces alpha on Fridays.\n")
    assert call("pre", pre("Write", root / "beta.md", root, content=beta), env) == (0, "", "")
    (root / "beta.md").write_text(beta)  # Claude Code performs the write
    step2 = pre("Edit", root / "MEMORY.md", root, old_string="how alpha works\n",
                new_string="how alpha works\n- [Beta](beta.md) — when beta replaces alpha\n",
                replace_all=False)
    assert call("pre", step2, env) == (0, "", "")


def test_index_line_before_its_topic_file_is_denied(root: Path, env) -> None:
    payload = pre("Write", root / "MEMORY.md", root,
                  content=INDEX + "- [Beta](beta.md) — when beta replaces alpha\n")
    code, out, err = call("pre", payload, env)
    assert (code, err) == (0, "")
    assert out == deny(
        f"memtui (memory guard) refuses this Write of MEMORY.md in the memory folder {root}:\n"
        "- broken-link at MEMORY.md:4: 'beta.md' does not exist; fix the path or remove the entry\n"
        "What to do: write the topic file first and its index line after, or fix the link.")


def test_index_pushed_past_200_lines_is_denied_with_the_count(make_root, env) -> None:
    notes = "".join(f"- note {n}: keep it short\n" for n in range(197))
    root = make_root({"MEMORY.md": INDEX + notes, "alpha.md": topic("Alpha"),
                      "beta.md": topic("Beta")})
    assert len((root / "MEMORY.md").read_text().splitlines()) == 200  # at the cap, all loaded
    (root / "beta.md").unlink()
    assert call("pre", pre("Write", root / "beta.md", root, content=topic("Beta")), env) == (0, "", "")
    (root / "beta.md").write_text(topic("Beta"))
    payload = pre("Edit", root / "MEMORY.md", root, old_string="- note 196: keep it short\n",
                  new_string="- note 196: keep it short\n- [Beta](beta.md) — beta facts\n")
    code, out, err = call("pre", payload, env)
    assert (code, err) == (0, "")
    assert out == deny(
        f"memtui (memory guard) refuses this Edit of MEMORY.md in the memory folder {root}:\n"
        "- budget-lines at MEMORY.md:201: 201 lines, over the loader's 200; the loader stops at "
        "line 201 and 1 entry falls past the cut — decay or archive entries, or run rebuild\n"
        "What to do: keep MEMORY.md under 200 lines and 25,000 characters (aim for about 140 lines): "
        "make this change shorter, or first merge related entries into one line, or replace a "
        "family of entries with one region pointer line such as \"- region `lesson_*.md` → "
        "older lessons; grep the memory dir\" (the files stay reachable), then write again.")


def test_growing_an_overflow_is_denied_and_shrinking_it_allowed(make_root, env) -> None:
    notes = "".join(f"- note {n}\n" for n in range(210))
    root = make_root({"MEMORY.md": INDEX + notes, "alpha.md": topic("Alpha")})
    grow = pre("Edit", root / "MEMORY.md", root, old_string="- note 209\n",
               new_string="- note 209\n- note 210\n")
    code, out, _ = call("pre", grow, env)
    reason = decision(out)["permissionDecisionReason"]
    assert code == 0 and decision(out)["permissionDecision"] == "deny"
    assert "MEMORY.md would grow from 213 to 214 lines while over its 200-line cap: the loader " \
           "stops at line 201 and 0 entries would fall past the cut" in reason
    shrink = pre("Edit", root / "MEMORY.md", root, old_string="- note 209\n", new_string="")
    assert call("pre", shrink, env) == (0, "", "")


def test_a_secret_is_denied_and_ask_summarises(root: Path, env) -> None:
    text = topic("Alpha", body="Token: ghp_" + "a1B2" * 8 + "\n")
    code, out, _ = call("pre", pre("Write", root / "alpha.md", root, content=text), env)
    assert code == 0
    assert out == deny(
        f"memtui (memory guard) refuses this Write of alpha.md in the memory folder {root}:\n"
        "- secret at alpha.md:7: looks like a GitHub token; memory is loaded into model context "
        "and often committed — remove it and rotate the credential\n"
        "What to do: leave the credential out of memory (say where it lives instead, e.g. 'in the "
        "team vault as X'), and rotate it if it was real.")
    clean = topic("Alpha", body="Alpha is the first, and the last.\n")
    code, out, _ = call("pre", pre("Write", root / "alpha.md", root, content=clean), env, "--ask")
    assert json.loads(out) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "ask",
        "permissionDecisionReason": f"Claude wants to change alpha.md from 7 to 7 lines (75 → 89 "
        f"bytes) in the memory folder {root} (Write). memtui's verdict: allowed — the validator "
        "finds no new error."}}


def test_an_edit_above_an_old_secret_is_not_a_new_secret(make_root, env) -> None:
    token = "Token: ghp_" + "a1B2" * 8 + "\n"
    root = make_root({"MEMORY.md": INDEX, "alpha.md": topic("Alpha", body=token)})
    above = pre("Edit", root / "alpha.md", root, old_string="Token:", new_string="Note.\nToken:")
    assert call("pre", above, env) == (0, "", "")
    second = pre("Edit", root / "alpha.md", root, old_string=token, new_string=token + token[:-1] + "x\n")
    assert decision(call("pre", second, env)[1])["permissionDecision"] == "deny"


def test_edit_replace_all_and_edits_claude_code_refuses(root: Path, env) -> None:
    (root / "MEMORY.md").write_text(INDEX + "- see [Alpha](alpha.md) again\n")
    rename_all = pre("Edit", root / "MEMORY.md", root, old_string="alpha.md", new_string="a.md",
                     replace_all=True)
    code, out, _ = call("pre", rename_all, env)
    got = decision(out)
    assert got["permissionDecision"] == "deny"
    assert "broken-link at MEMORY.md:3: 'a.md' does not exist" in got["permissionDecisionReason"]
    # the same edit without replace_all matches twice: Claude Code refuses it itself → allow
    once = pre("Edit", root / "MEMORY.md", root, old_string="alpha.md", new_string="a.md")
    assert call("pre", once, env) == (0, "", "")
    missing = pre("Edit", root / "MEMORY.md", root, old_string="not there", new_string="x")
    assert call("pre", missing, env) == (0, "", "")


def test_multiedit_is_no_claude_code_tool(root: Path, env) -> None:
    edits = [{"old_string": "(alpha.md)", "new_string": "(alfa.md)"}]
    code, out, err = call("pre", pre("MultiEdit", root / "MEMORY.md", root, edits=edits), env)
    assert (code, out) == (0, "")
    assert err == "memtui hook pre: tool_name 'MultiEdit' is not Write or Edit; nothing checked\n"


def test_a_root_nested_in_another_owns_its_files(make_root, env) -> None:
    outer = make_root({"MEMORY.md": INDEX, "alpha.md": topic("Alpha"),
                       "team/MEMORY.md": "- [Rule](rule.md) — the team rule\n",
                       "team/rule.md": topic("Rule")})
    team = outer / "team"
    assert memory_root_of(str(team / "new.md"), str(outer), env) == str(team)
    assert call("pre", pre("Write", team / "new.md", outer, content=topic("New")), env) == (0, "", "")
    bad = pre("Write", team / "MEMORY.md", outer, content="- [Rule](rule.md) — r\n- [X](x.md) — x\n")
    code, out, _ = call("pre", bad, env)
    assert f"in the memory folder {team}:\n- broken-link at MEMORY.md:2" in \
        decision(out)["permissionDecisionReason"]


def test_a_symlink_out_of_the_root_is_denied(root: Path, tmp_path: Path, env) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.md").write_text("outside\n")
    (root / "link.md").symlink_to(outside / "x.md")
    code, out, _ = call("pre", pre("Write", root / "link.md", root, content=topic("L")), env)
    assert code == 0
    assert out == deny(
        "memtui (memory guard) refuses this Write: link.md is inside the memory folder but is a "
        f"symlink (or lies below one) leading out of it, to {outside / 'x.md'}, so the bytes would "
        "land outside the memory folder (link-escapes-root). What to do: write a regular file "
        "inside the memory folder instead.")
    (root / "sub").symlink_to(outside)
    code, out, _ = call("pre", pre("Write", root / "sub" / "y.md", root, content="y"), env)
    assert decision(out)["permissionDecision"] == "deny"


def test_claude_code_folders_without_an_index_yet_are_roots(tmp_path: Path, env) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    auto = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / encode_project_path(str(project)) / "memory"
    first = pre("Write", auto / "user_role.md", project, content=topic("Role", type_="user"))
    assert memory_root_of(str(auto / "user_role.md"), str(project), env) == str(auto)
    assert call("pre", first, env) == (0, "", "")
    leak = pre("Write", auto / "user_role.md", project, content=topic("Role", body="sk-ant-" + "x" * 30))
    assert decision(call("pre", leak, env)[1])["permissionDecision"] == "deny"
    agent = project / ".claude" / "agent-memory-local" / "reviewer" / "notes.md"
    assert memory_root_of(str(agent), str(project), env) == str(agent.parent)


def test_auto_memory_directory_from_project_settings(tmp_path: Path, env) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    custom = tmp_path / "custom-memory"
    (project / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(custom)}))
    target = custom / "deep" / "fact.md"
    assert memory_root_of(str(target), str(project), env) == str(custom)
    assert memory_root_of(str(tmp_path / "other" / "fact.md"), str(project), env) is None
    write = pre("Write", target, project, content=topic("F", body="sk-ant-" + "k" * 30))
    assert decision(call("pre", write, env)[1])["permissionDecision"] == "deny"
    (project / "src" / "deep").mkdir(parents=True)  # launched below: that folder's settings
    assert memory_root_of(str(target), str(project / "src" / "deep"), env) is None


# ---------------------------------------------------------------- stop and session-start


@pytest.fixture
def project_memory(tmp_path: Path, env) -> tuple[Path, Path]:
    """A project (not under git) and its Claude Code auto-memory folder."""
    project = tmp_path / "proj"
    project.mkdir()
    auto = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / encode_project_path(str(project)) / "memory"
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text(INDEX)
    (auto / "alpha.md").write_text(topic("Alpha"))
    return project, auto


def stop(project: Path, active: bool, session: str = "3f0c") -> dict[str, Any]:
    return {"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
            "hook_event_name": "Stop", "permission_mode": "default", "stop_hook_active": active,
            "last_assistant_message": "Done."}


def start(project: Path, session: str = "3f0c") -> dict[str, Any]:
    return {"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
            "hook_event_name": "SessionStart", "source": "startup"}


ORPHAN_BLOCK = (
    "memtui (memory guard): memory writes in this session left 1 error that was not there when "
    "it began; fix it before you stop (each error is raised once; errors that were there before "
    "are left to the person).\n"
    "{auto}: 1 new error\n"
    "- orphan at {name}: no entry in MEMORY.md or MEMORY-archive.md and no region pointer "
    "reaches this file; promote it, decay it under a region, or archive it. Fix: add its line "
    "to MEMORY.md (`- [Title](file.md) — one-line hook`).")


def test_stop_is_silent_on_an_error_that_was_there_before(project_memory, env) -> None:
    project, auto = project_memory
    (auto / "old.md").write_text(topic("Old"))  # an orphan from an earlier session
    assert call("session-start", start(project), env)[:2] == (0, json.dumps({
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": (
            f"memtui (memory check at session start): {auto}: 1 error already there (orphan). "
            "Details: `memtui validate <folder>` lists the findings, `memtui loaded <folder>` "
            "shows what loads (both print and exit).")}}) + "\n")
    assert call("stop", stop(project, False), env) == (0, "", "")
    assert call("stop", stop(project, False), env) == (0, "", "")  # every turn: still nothing


def test_stop_blocks_once_on_an_error_this_session_introduced(project_memory, env) -> None:
    project, auto = project_memory
    (auto / "old.md").write_text(topic("Old"))
    assert call("session-start", start(project), env)[0] == 0
    (auto / "beta.md").write_text(topic("Beta"))  # written by the session, never indexed
    code, out, err = call("stop", stop(project, False), env)
    assert (code, err) == (0, "")
    assert json.loads(out) == {"decision": "block",
                               "reason": ORPHAN_BLOCK.format(auto=auto, name="beta.md")}
    assert call("stop", stop(project, True), env) == (0, "", "")  # the stop after a block
    assert call("stop", stop(project, False), env) == (0, "", "")  # next turn: raised once


def test_stop_sees_a_shell_append_made_after_session_start(project_memory, env) -> None:
    project, auto = project_memory
    assert call("session-start", start(project), env) == (0, "", "")
    with open(auto / "MEMORY.md", "a") as handle:  # `echo … >> MEMORY.md`: no PreToolUse
        handle.write("- [Gamma](gamma.md) — gamma\n")
    code, out, _ = call("stop", stop(project, False), env)
    reason = json.loads(out)["reason"]
    assert code == 0 and "- broken-link at MEMORY.md:4: 'gamma.md' does not exist" in reason
    assert "1 error that was not there when it began" in reason


def test_without_session_start_the_first_hook_call_takes_the_baseline(project_memory, env) -> None:
    project, auto = project_memory
    (auto / "old.md").write_text(topic("Old"))
    beta = topic("Beta")
    # the first hook call of session "s2" is a write: the root's state before it is the baseline
    assert call("pre", pre("Write", auto / "beta.md", project, content=beta) | {"session_id": "s2"},
                env) == (0, "", "")
    (auto / "beta.md").write_text(beta)
    code, out, _ = call("stop", stop(project, False, "s2"), env)
    assert json.loads(out) == {"decision": "block",
                               "reason": ORPHAN_BLOCK.format(auto=auto, name="beta.md")}
    # a session whose first hook call is Stop takes its baseline there and blocks on nothing
    assert call("stop", stop(project, False, "s3"), env) == (0, "", "")


def test_a_session_creating_its_memory_folder_owns_its_errors(tmp_path: Path, env) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert call("session-start", start(project), env) == (0, "", "")
    auto = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / encode_project_path(str(project)) / "memory"
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text(INDEX)  # alpha.md never written
    reason = json.loads(call("stop", stop(project, False), env)[1])["reason"]
    assert "- broken-link at MEMORY.md:3: 'alpha.md' does not exist" in reason


def test_subagent_stop_for_the_agents_own_memory(tmp_path: Path, env) -> None:
    project = tmp_path / "proj"
    agent = project / ".claude" / "agent-memory" / "reviewer"
    other = project / ".claude" / "agent-memory" / "planner"
    for folder in (agent, other):
        folder.mkdir(parents=True)
        (folder / "MEMORY.md").write_text(INDEX)
        (folder / "alpha.md").write_text(topic("Alpha"))
    (other / "old.md").write_text(topic("Old"))  # planner's pre-existing orphan
    assert call("session-start", start(project), env) == (0, json.dumps({
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": (
            f"memtui (memory check at session start): {other}: 1 error already there (orphan). "
            "Details: `memtui validate <folder>` lists the findings, `memtui loaded <folder>` "
            "shows what loads (both print and exit).")}}) + "\n", "")
    (agent / "beta.md").write_text(topic("Beta"))
    (other / "new.md").write_text(topic("New"))
    sub = {"session_id": "3f0c", "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
           "hook_event_name": "SubagentStop", "stop_hook_active": False, "agent_id": "a1",
           "agent_type": "reviewer", "agent_transcript_path": "/tmp/a1.jsonl"}
    code, out, _ = call("subagent-stop", sub, env)
    assert json.loads(out) == {"decision": "block",
                               "reason": ORPHAN_BLOCK.format(auto=agent, name="beta.md")}
    assert call("subagent-stop", sub, env) == (0, "", "")  # once
    assert call("stop", stop(project, False), env) == (0, "", "")  # the main agent owns neither
    planner = json.loads(call("subagent-stop", sub | {"agent_type": "planner"}, env)[1])
    assert planner["reason"] == ORPHAN_BLOCK.format(auto=other, name="new.md")
    assert call("subagent-stop", sub | {"stop_hook_active": True, "agent_type": "x"}, env) == (0, "", "")


def test_agent_memory_is_left_alone_while_auto_memory_is_off(tmp_path: Path, env) -> None:
    project = tmp_path / "proj"
    agent = project / ".claude" / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text(INDEX)
    off = {**env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
    assert call("session-start", start(project), off) == (0, "", "")
    sub = {"session_id": "3f0c", "cwd": str(project), "hook_event_name": "SubagentStop",
           "stop_hook_active": False, "agent_type": "reviewer"}
    assert call("subagent-stop", sub, off) == (0, "", "")


def test_team_memory_never_blocks(project_memory, env) -> None:
    project, auto = project_memory
    assert call("session-start", start(project), env) == (0, "", "")
    (auto / "team").mkdir()
    (auto / "team" / "deploy.md").write_text(topic("Deploy", body="see [x](missing.md)\n"))
    assert call("stop", stop(project, False), env) == (0, "", "")


def test_session_start_speaks_only_when_needed(project_memory, env) -> None:
    project, auto = project_memory
    assert call("session-start", start(project), env) == (0, "", "")
    (auto / "MEMORY.md").write_text("---\nname: index\n---\n" + INDEX
                                    + "".join(f"- note {n}\n" for n in range(205)))
    (auto / "beta.md").write_text(topic("Beta"))
    code, out, _ = call("session-start", start(project, "s2"), env)
    context = json.loads(out)["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart" and code == 0
    assert len(context["additionalContext"]) <= 600
    assert context["additionalContext"] == (
        f"memtui (memory check at session start): {auto}: MEMORY.md is 208 lines, 2,192 "
        "characters (limits 200, 25,000): it loaded up to line 204 (line 201 as Claude Code "
        "counts, after stripping); 1 error already there (orphan). Details: `memtui validate "
        "<folder>` lists the findings, `memtui loaded <folder>` shows what loads (both print and "
        "exit).")
    assert "`memtui`" not in context["additionalContext"]  # never the full-screen app


# ---------------------------------------------------------------- as Claude Code runs it


def run_cli(args: list[str], payload: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "memtui", *args], input=payload,
                          capture_output=True, env={**os.environ, **env}, check=False)


def test_whole_process_outside_root_and_deny(root: Path, tmp_path: Path, env) -> None:
    outside = run_cli(["hook", "pre"], json.dumps(pre("Write", tmp_path / "a.py", tmp_path,
                                                      content="x")).encode(), env)
    assert (outside.returncode, outside.stdout, outside.stderr) == (0, b"", b"")
    bad = json.dumps(pre("Write", root / "MEMORY.md", root, content=INDEX + "- [B](b.md) — b\n"))
    denied = run_cli(["hook", "pre"], bad.encode(), env)
    assert denied.returncode == 0 and denied.stderr == b""
    assert json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    garbage = run_cli(["hook", "stop"], b"\xff\xfe", env)
    assert garbage.returncode == 0 and garbage.stdout == b"" and garbage.stderr.count(b"\n") == 1


def main_with_stdin(argv: list[str], payload: dict[str, Any], env: dict[str, str],
                    monkeypatch: pytest.MonkeyPatch, capsys: Any) -> tuple[int, str, str]:
    """``memtui.cli.main.main`` with the hook JSON on stdin → (exit, stdout, stderr)."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_main_with_stdin(root: Path, env, monkeypatch, capsys) -> None:
    payload = pre("Write", root / "MEMORY.md", root, content=INDEX + "- [B](b.md) — b\n")
    code, out, _ = main_with_stdin(["hook", "pre", "--ask"], payload, env, monkeypatch, capsys)
    assert code == 0 and decision(out)["permissionDecision"] == "ask"


def pre_in_a_process(payload: dict[str, Any], env: dict[str, str]) -> tuple[str, set[str]]:
    """``hook pre`` in a fresh interpreter → (its answer, the modules it imported)."""
    code = (
        "import io, sys\n"
        "from memtui.cli.main import main\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
        "assert main(['hook', 'pre']) == 0\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, json.dumps(payload)], capture_output=True,
                          text=True, env={**os.environ, **env}, check=True)
    *answer, modules = done.stdout.splitlines()
    return "\n".join(answer), set(modules.split())


def test_outside_every_root_imports_almost_nothing(tmp_path: Path, env) -> None:
    for name in ("notes.md", "main.py"):
        answer, loaded = pre_in_a_process(pre("Write", tmp_path / name, tmp_path, content="x"), env)
        assert answer == ""
        assert not loaded & {"argparse", "rich", "textual", "memtui.core.rules.validate",
                             "memtui.core.read.store", "pathlib", "typing"}, loaded
        if name == "main.py":  # no Markdown: not even the json package (nor re and enum with it)
            assert not loaded & {"json", "re", "enum", "memtui.core"}, loaded


@pytest.mark.parametrize("raw", [
    b'{"a": 1}', b' \n{"a": [1, 2.5, -0.0, 1e400, "\\u00e9", null, true]}\r\n', b'{"s": "\\ud800"}',
    b'{"x": NaN, "y": -Infinity}', "{\"é\": \"ü\"}".encode(), b'[1, 2]', b'"text"', b"\xef\xbb\xbf{}",
    '{"a": 1}'.encode("utf-16"), b'{"a": 1} x', b'{"a": }', b"", b"   ", b'{"a": "\x01"}', b"\xff\xfe",
    b'{"a": 1}{"b": 2}', b'{"a": 01}', b'{"a": "\\x"}',
])
def test_the_payload_reader_is_json_loads(raw: bytes) -> None:
    """The hooks read their payload without the json package: the same value, or the same error."""
    from memtui.cli.hook import read_json

    try:
        expected: Any = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        with pytest.raises(type(exc)) as raised:
            read_json(raw)
        assert str(raised.value) == str(exc)
        return
    got = read_json(raw)
    assert json.dumps(got) == json.dumps(expected) and type(got) is type(expected)


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                     lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=20)


@given(_JSON, st.sampled_from(["", " ", "\n", "\t\r\n "]))
@settings(max_examples=200, deadline=None)
def test_the_payload_reader_reads_what_json_writes(value: Any, space: str) -> None:
    from memtui.cli.hook import read_json

    raw = (space + json.dumps(value, ensure_ascii=False) + space).encode("utf-8", "surrogatepass")
    assert read_json(raw) == json.loads(raw)


def test_the_version_is_said_without_the_parser() -> None:
    code = "from memtui.cli.main import main\nassert main(['--version']) == 0\nimport sys\nprint(sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    version, modules = done.stdout.splitlines()
    assert version.startswith("memtui ") and "argparse" not in modules and "memtui.cli.common" not in modules


def test_judging_inside_a_root_imports_no_git_or_diff_code(root: Path, env) -> None:
    answer, loaded = pre_in_a_process(
        pre("Write", root / "MEMORY.md", root, content=INDEX + "- [B](b.md) — b\n"), env)
    assert decision(answer)["permissionDecision"] == "deny"  # it did judge
    assert not loaded & {"subprocess", "difflib", "argparse", "rich", "textual"}, loaded


def test_an_unknown_option_never_turns_into_exit_2(root: Path, env, monkeypatch, capsys) -> None:
    payload = pre("Write", root / "MEMORY.md", root, content=INDEX + "- [B](b.md) — b\n")
    code, out, err = main_with_stdin(["hook", "pre", "--strict"], payload, env, monkeypatch, capsys)
    assert code == 0 and decision(out)["permissionDecision"] == "deny"
    assert err == "memtui hook pre: ignoring unknown argument(s) --strict\n"


# ---------------------------------------------------------------- Claude Code's facts, case by case


def test_an_index_claude_code_loads_whole_is_not_denied(root: Path, env) -> None:
    euro = "".join("- [Alpha](alpha.md) " + "€" * 330 + "\n" for _ in range(30))
    assert len(euro.encode()) > 25_000  # bytes over the cap, characters far under it
    assert call("pre", pre("Write", root / "MEMORY.md", root, content=euro), env) == (0, "", "")


def test_ask_outside_an_interactive_session_is_skipped_and_said_once(root: Path, env) -> None:
    headless = {**env, "CLAUDE_CODE_ENTRYPOINT": "sdk-cli"}
    clean = topic("Alpha", body="Alpha is the first, and the last.\n")
    note = ("memtui hook pre --ask: this session cannot ask a person (CLAUDE_CODE_ENTRYPOINT "
            "sdk-cli), and Claude Code would turn every \"ask\" into a refusal, so memtui judges "
            "memory writes itself here: it denies only what adds an error, a secret or a budget "
            "overflow.")
    write = pre("Write", root / "alpha.md", root, content=clean)
    assert call("pre", write, headless, "--ask") == (0, json.dumps({"systemMessage": note}) + "\n", "")
    assert call("pre", write, headless, "--ask") == (0, "", "")  # said once a session
    bad = pre("Write", root / "MEMORY.md", root, content=INDEX + "- [B](b.md) — b\n")
    assert decision(call("pre", bad, headless, "--ask")[1])["permissionDecision"] == "deny"
    interactive = {**env, "CLAUDE_CODE_ENTRYPOINT": "cli"}
    assert decision(call("pre", write, interactive, "--ask")[1])["permissionDecision"] == "ask"


def test_a_write_through_a_symlink_into_the_root_is_judged(root: Path, tmp_path: Path, env) -> None:
    side = tmp_path / "side"
    side.mkdir()
    (root / "sub").mkdir()
    (side / "l").symlink_to(root / "sub")  # side/l/.. is the root, not side/
    via = f"{side}/l/../MEMORY.md"
    code, out, _ = call("pre", pre("Write", via, root, content=INDEX + "- [B](b.md) — b\n"), env)
    got = decision(out)
    assert code == 0 and got["permissionDecision"] == "deny"
    assert "- broken-link at MEMORY.md:4: 'b.md' does not exist" in got["permissionDecisionReason"]


def test_a_session_launched_in_a_subfolder_reads_the_roots_local_settings_only(tmp_path: Path, env) -> None:
    """Claude Code 2.1.332 launched in a subfolder: the repository root's settings.json is not
    read, its settings.local.json is (and wins over the launch folder's)."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    custom = tmp_path / "custom-memory"
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(custom)}))
    launch = repo / "services" / "api"
    launch.mkdir(parents=True)
    leak = pre("Write", custom / "fact.md", launch, content=topic("F", body="sk-ant-" + "k" * 30))
    at_launch = {**env, "CLAUDE_PROJECT_DIR": str(launch)}
    assert call("pre", leak, at_launch) == (0, "", "")  # not a memory folder of this session
    (repo / ".claude" / "settings.json").rename(repo / ".claude" / "settings.local.json")
    (launch / ".claude").mkdir()
    (launch / ".claude" / "settings.local.json").write_text(
        json.dumps({"autoMemoryDirectory": str(tmp_path / "launch-memory")}))
    answer = call("pre", leak, at_launch)[1]
    assert decision(answer)["permissionDecision"] == "deny"  # the root's local file wins


def test_a_long_deny_reason_keeps_its_advice_and_the_count_of_the_rest(make_root, env) -> None:
    root = make_root({"MEMORY.md": INDEX, "alpha.md": topic("Alpha")})
    links = "".join(f"- [Gone {n}](gone-{n:03d}-{'x' * 60}.md) — a fact that is not there\n"
                    for n in range(150))
    code, out, _ = call("pre", pre("Write", root / "MEMORY.md", root, content=INDEX + links), env)
    reason = decision(out)["permissionDecisionReason"]
    assert code == 0 and len(reason) <= 10_000 and len(out) <= 10_500
    assert reason.endswith("What to do: write the topic file first and its index line after, or "
                           "fix the link.")
    shown = reason.count("\n- broken-link at MEMORY.md:")
    assert 10 < shown < 150
    assert f"\n… and {150 - shown} more (run `memtui validate {root}` for the rest)\n" in reason
