"""A subagent's reads and writes, and reads through the shell, as Claude Code 2.1.332 records them:
``<session>.jsonl`` beside ``<session>/subagents/agent-<id>.jsonl`` (+ ``.meta.json``; every line
``isSidechain``, the main ``sessionId``, no ``toolUseResult``); one ``assistant`` line per
``tool_use``; Bash commands verbatim, results joined on ``tool_use_id`` in completion order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.model.claude_settings import encode_project_path
from memtui.core.read.store import load_root
from memtui.core.stores import seen
from memtui.core.stores.transcripts import read_transcript_file
from tests.support.hooks import call

SESSION = "1e036a99-8d42-4a9f-9377-8afffa5fd21d"
AGENT = "a0a9a781849fdd67e"
TOPIC = "---\nname: {0}\ndescription: {0}\ntype: project\n---\n{0}\n"


def line(kind: str, content: list[dict[str, object]], when: str, cwd: Path, **extra: object) -> str:
    role = "assistant" if kind == "assistant" else "user"
    return json.dumps({"parentUuid": None, "isSidechain": bool(extra.pop("side", False)),
                       "type": kind, "message": {"role": role, "content": content},
                       "sessionId": SESSION, "timestamp": when, "cwd": str(cwd), **extra})


def use(tid: str, name: str, **tool_input: object) -> list[dict[str, object]]:
    return [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}]


def result(tid: str, text: str, error: bool = False) -> list[dict[str, object]]:
    return [{"tool_use_id": tid, "type": "tool_result", "content": text, "is_error": error}]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """A project with auto memory, an agent memory, one session with a subagent."""
    config = tmp_path / "cfg"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    folder = config / "projects" / encode_project_path(str(proj))
    memory = folder / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("# Memory\n\n- [Deploys](project_deploys.md) \u2014 how we ship\n"
                                      "- [Style](project_style.md) \u2014 code style\n"
                                      "- [Oncall](project_oncall.md) \u2014 who is on call\n")
    for name in ("deploys", "style", "oncall"):
        (memory / f"project_{name}.md").write_text(TOPIC.format(name))
    agent = proj / ".claude" / "agent-memory" / "researcher"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("# Memory\n\n- [Findings](project_findings.md) \u2014 findings\n")
    (agent / "project_findings.md").write_text(TOPIC.format("findings"))
    main_lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "go"}, "sessionId": SESSION,
                    "timestamp": "2026-12-02T03:00:00.000Z", "cwd": str(proj)}),
        line("assistant", use("toolu_1", "Agent", description="Research deploys", prompt="SUBAGENT-TASK",
                              subagent_type="researcher"), "2026-12-02T03:00:01.000Z", proj),
        # five Bash reads in one turn, answered in completion order
        line("assistant", use("toolu_b0", "Bash", command=f"head -n 3 {memory}/MEMORY.md",
                              description="x"), "2026-12-02T03:00:05.000Z", proj),
        line("assistant", use("toolu_b1", "Bash", command=f"cd {memory} && cat project_oncall.md",
                              description="x"), "2026-12-02T03:00:05.000Z", proj),
        line("assistant", use("toolu_b2", "Bash", command=f"printf x >> {memory}/project_style.md",
                              description="x"), "2026-12-02T03:00:05.000Z", proj),
        line("user", result("toolu_b1", "oncall"), "2026-12-02T03:00:06.000Z", proj,
             toolUseResult={"stdout": "oncall", "stderr": "", "interrupted": False}),
        line("user", result("toolu_b0", "# Memory"), "2026-12-02T03:00:06.000Z", proj),
        line("user", result("toolu_b2", ""), "2026-12-02T03:00:06.000Z", proj),
        line("assistant", use("toolu_e", "Edit", file_path=str(memory / "project_style.md"),
                              old_string="style", new_string="style!"), "2026-12-02T03:00:07.000Z", proj),
        line("user", result("toolu_e", "The file has been updated."), "2026-12-02T03:00:08.000Z", proj),
    ]
    (folder / f"{SESSION}.jsonl").write_text("\n".join(main_lines) + "\n")
    subagents = folder / SESSION / "subagents"
    subagents.mkdir(parents=True)
    side = {"side": True, "agentId": AGENT, "attributionAgent": "researcher"}
    sub_lines = [
        line("assistant", use("toolu_2_0", "Read", file_path=str(memory / "project_deploys.md")),
             "2026-12-02T03:00:02.000Z", proj, **side),
        line("user", result("toolu_2_0", "1\t---\n2\tname: deploys"), "2026-12-02T03:00:02.500Z", proj,
             side=True, agentId=AGENT),
        line("assistant", use("toolu_3_0", "Write", file_path=str(agent / "project_findings.md"),
                              content=TOPIC.format("findings")), "2026-12-02T03:00:03.000Z", proj, **side),
        line("user", result("toolu_3_0", "File created successfully"), "2026-12-02T03:00:03.500Z", proj,
             side=True, agentId=AGENT),
    ]
    (subagents / f"agent-{AGENT}.jsonl").write_text("\n".join(sub_lines) + "\n")
    (subagents / f"agent-{AGENT}.meta.json").write_text(json.dumps(
        {"agentType": "researcher", "isBuiltIn": False, "description": "Research deploys",
         "toolUseId": "toolu_1", "spawnDepth": 1, "finished": True}))
    monkeypatch.chdir(proj)
    return proj, memory, agent


def test_a_subagents_reads_and_shell_reads_count(project: tuple[Path, Path, Path], capsys) -> None:
    proj, memory, _agent = project
    session = read_transcript_file(memory.parent / f"{SESSION}.jsonl")
    kinds = sorted((Path(t.path).name, t.kind, t.agent) for t in session.touches)
    assert kinds == [("MEMORY.md", "shell", ""), ("project_deploys.md", "read", "researcher"),
                     ("project_findings.md", "write", "researcher"), ("project_oncall.md", "shell", ""),
                     ("project_style.md", "write", "")]
    assert main(["used", "--json"]) == 0  # no PATH: the project's auto memory, not the agent's
    data = json.loads(capsys.readouterr().out)
    assert data["root"] == str(memory)
    files = {f["path"]: f for f in data["files"]}
    assert data["dead"] == ["project_style.md"]  # read by nobody; deploys only by the subagent
    assert (files["project_deploys.md"]["status"], files["project_deploys.md"]["agents"]) == \
        ("active", ["researcher"])
    assert (files["project_oncall.md"]["shell"], files["project_oncall.md"]["read_in"]) == (1, 1)
    assert files["project_style.md"]["writers"] == [SESSION]  # Edited and appended through Bash
    assert main(["used"]) == 0
    out = capsys.readouterr().out
    assert "Bash commands that read a memory file (cat, head, sed -n, grep: 1 file, marked shell)" in out
    assert "and subagents' reads (researcher)" in out
    agent_root = proj / ".claude" / "agent-memory" / "researcher"
    assert main(["used", str(agent_root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    found = {f["path"]: f for f in data["files"]}["project_findings.md"]
    assert (found["writers"], found["written_by_agents"]) == ([SESSION], ["researcher"])


def test_a_subagents_first_write_into_a_new_agent_memory_folder_is_held(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg"), "MEMTUI_CACHE_DIR": str(tmp_path / "cache")}
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    folder = proj / ".claude" / "agent-memory" / "researcher"
    folder.mkdir(parents=True)  # Claude Code creates it, empty, when the subagent starts
    payload = {"session_id": SESSION, "transcript_path": str(tmp_path / f"{SESSION}.jsonl"),
               "cwd": str(proj), "prompt_id": "p1", "permission_mode": "default",
               "agent_id": AGENT, "agent_type": "researcher", "effort": {"level": "medium"},
               "hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "toolu_3_0",
               "tool_input": {"file_path": str(folder / "project_findings.md"),
                              "content": TOPIC.format("findings")}}
    code, out, err = call("pre", payload, {**env, "CLAUDE_PROJECT_DIR": str(proj)})
    assert (code, err) == (0, "")
    assert json.loads(out) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason":
            f"memtui (memory guard) refuses this Write of project_findings.md in the memory folder "
            f"{folder}:\n- index-missing at MEMORY.md: this folder has no MEMORY.md, so the agent "
            "loads nothing from it; create one (memtui rebuild) or point memtui at the right "
            "folder\nWhat to do: create MEMORY.md first (a heading will do), then write the topic "
            "file and add its line."}}
    (folder / "project_findings.md").write_text(TOPIC.format("findings"))  # written through Bash
    stop = {"session_id": SESSION, "transcript_path": payload["transcript_path"], "cwd": str(proj),
            "hook_event_name": "SubagentStop", "agent_id": AGENT, "agent_type": "researcher",
            "stop_hook_active": False,
            "agent_transcript_path": str(tmp_path / SESSION / "subagents" / f"agent-{AGENT}.jsonl"),
            "last_assistant_message": "done", "background_tasks": [], "session_crons": []}
    code, out, _ = call("subagent-stop", stop, {**env, "CLAUDE_PROJECT_DIR": str(proj)})
    answer = json.loads(out)
    assert code == 0 and answer["decision"] == "block" and "index-missing" in answer["reason"]
    assert call("subagent-stop", stop, {**env, "CLAUDE_PROJECT_DIR": str(proj)})[1] == ""  # once


def test_the_inbox_names_the_session_of_a_file_edited_and_appended_through_bash(
        project: tuple[Path, Path, Path], capsys) -> None:
    """A later session appended to project_style.md with ``cat >> … <<'EOF'`` and then Edited
    it, an Edit Claude Code refused (the file changed since it was read): the Inbox names that
    session, the one whose write is on disk, not the earlier one (the file names none)."""
    proj, memory, _agent = project
    style = memory / "project_style.md"
    seen.mark_seen(load_root(memory))  # the first look: the baseline, before the later session
    later = "5b1c0f52-0d7e-4d55-9e0b-3f2a6f1d7c10"
    append = f"cat >> {style} <<'EOF'\n- also: 100 columns (see MEMORY.md)\nEOF"
    lines = [line("assistant", use("toolu_a", "Bash", command=append, description="append"),
                  "2026-12-02T04:00:01.000Z", proj),
             line("user", result("toolu_a", ""), "2026-12-02T04:00:02.000Z", proj),
             line("assistant", use("toolu_e2", "Edit", file_path=str(style), old_string="style",
                                   new_string="Style"), "2026-12-02T04:00:03.000Z", proj),
             line("user", result("toolu_e2", "File has been modified since read, either by the user "
                                 "or by a linter. Read it again before attempting to write it.",
                                 error=True), "2026-12-02T04:00:04.000Z", proj)]
    (memory.parent / f"{later}.jsonl").write_text(
        "\n".join(raw.replace(SESSION, later) for raw in lines) + "\n")
    with style.open("a") as f:
        f.write("- also: 100 columns (see MEMORY.md)\n")
    code = main(["changes", str(memory), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(c["kind"], c["path"], c["session"]) for c in data["changes"]] == [
        ("changed", "project_style.md", later)]
    session = read_transcript_file(memory.parent / f"{later}.jsonl")
    assert [(Path(t.path).name, t.kind, t.tool) for t in session.touches] == [
        ("project_style.md", "write", "Bash")]  # the here-document's words are no reads


def test_the_inbox_names_the_session_that_edited_memory_md(project: tuple[Path, Path, Path], capsys) -> None:
    """MEMORY.md is no memory file for the evidence of use, but the session that Edited it is
    still its change's writer in the Inbox (as measured: Write a topic file, Edit the index)."""
    proj, memory, _agent = project
    seen.mark_seen(load_root(memory))
    later = "5b1c0f52-0d7e-4d55-9e0b-3f2a6f1d7c10"
    index = memory / "MEMORY.md"
    lines = [line("assistant", use("toolu_w", "Write", file_path=str(memory / "project_release.md"),
                                   content=TOPIC.format("release")), "2026-12-02T04:00:01.000Z", proj),
             line("user", result("toolu_w", "File created successfully"), "2026-12-02T04:00:02.000Z", proj),
             line("assistant", use("toolu_i", "Edit", file_path=str(index), old_string="# Memory\n",
                                   new_string="# Memory\n- [Release](project_release.md) \u2014 x\n"),
                  "2026-12-02T04:00:03.000Z", proj),
             line("user", result("toolu_i", "The file has been updated successfully."),
                  "2026-12-02T04:00:04.000Z", proj)]
    (memory.parent / f"{later}.jsonl").write_text(
        "\n".join(raw.replace(SESSION, later) for raw in lines) + "\n")
    (memory / "project_release.md").write_text(TOPIC.format("release"))
    index.write_text(index.read_text().replace("# Memory\n", "# Memory\n- [Release](project_release.md) \u2014 x\n"))
    assert main(["changes", str(memory), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted((c["kind"], c["path"], c["session"]) for c in data["changes"]) == [
        ("added", "project_release.md", later), ("changed", "MEMORY.md", later)]
    assert main(["used", str(memory), "--json"]) == 0
    assert "MEMORY.md" not in {f["path"] for f in json.loads(capsys.readouterr().out)["files"]}
