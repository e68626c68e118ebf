"""Check memtui against a real Claude Code build: what it loads from ``MEMORY.md`` and which
folder it uses, case by case, beside what ``memtui loaded`` and ``memtui list`` say; and, with
memtui's hooks installed, what the build does with ``memtui hook pre``'s answer to a scripted
Write or Edit into the memory folder (the stand-in asks for the tool call).

Optional and never part of the test run: it needs a Claude Code build from the npm registry,
e.g. ``npm install @anthropic-ai/claude-code@2.1.332`` in a scratch folder (``/tmp/cc``).  Each
case gets a scratch HOME (and git repository), runs ``claude -p --output-format stream-json
--include-hook-events`` there with ``ANTHROPIC_BASE_URL`` pointing at a stand-in for the Messages
API on a loopback port (it logs each request and answers "ok", streaming SSE when asked) and a
dummy ``ANTHROPIC_API_KEY``.  The first request shows what the build resolved: the system
prompt names the memory folder ("You have a persistent file-based memory at `…`"), the first
user message carries the ``MEMORY.md`` text it loaded ("Contents of …/MEMORY.md (…):").  Only
loopback addresses are used; nothing leaves the machine.

    .venv/bin/python bench/claude_conformance.py [--claude /tmp/cc/node_modules/.bin/claude]
        [--only NAME] [--keep DIR]

Prints one line a case (``same`` / ``DIFFERS`` with both sides) and exits 1 when any differs.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable

DEFAULT_CLAUDE = Path("/tmp/cc/node_modules/.bin/claude")


# ---------------------------------------------------------------- the stand-in API


class StandIn(http.server.ThreadingHTTPServer):
    """A loopback Messages API: every request logged; a streamed answer is the next scripted tool
    call when one is queued (:attr:`script`), else a one-word reply."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.script: list[tuple[str, dict[str, Any]]] = []  # (tool name, input) to answer with, in turn
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def take(self) -> list[dict[str, Any]]:
        with self.lock:
            out, self.requests = self.requests, []
        return out


class _Handler(http.server.BaseHTTPRequestHandler):
    server: StandIn

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            request = json.loads(body)
        except ValueError:
            request = {}
        with self.server.lock:
            self.server.requests.append({"path": self.path, "body": request})
            # only the main loop's requests (they offer the Write tool) take a scripted call
            offers_write = any(isinstance(t, dict) and t.get("name") == "Write" for t in request.get("tools") or [])
            call = self.server.script.pop(0) if request.get("stream") and offers_write and self.server.script else None
        if "count_tokens" in self.path:
            return self._json({"input_tokens": 10})
        message = {"id": "msg_standin", "type": "message", "role": "assistant",
                   "model": request.get("model", "stand-in"), "content": [], "stop_reason": None,
                   "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
        if not request.get("stream"):
            message["content"] = [{"type": "text", "text": "ok"}]
            message["stop_reason"] = "end_turn"
            return self._json(message)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        if call is not None:
            self._tool_call(message, *call)
            return
        for kind, data in (
            ("message_start", {"type": "message_start", "message": message}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": "ok"}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                  "stop_sequence": None},
                               "usage": {"output_tokens": 1}}),
            ("message_stop", {"type": "message_stop"}),
        ):
            self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _tool_call(self, message: dict[str, Any], name: str, tool_input: dict[str, Any]) -> None:
        """Stream one ``tool_use`` block, as the model asks for a tool."""
        use = {"type": "tool_use", "id": f"toolu_standin_{len(self.server.requests)}", "name": name, "input": {}}
        for kind, data in (
            ("message_start", {"type": "message_start", "message": message}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": use}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "input_json_delta", "partial_json": json.dumps(tool_input)}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                               "usage": {"output_tokens": 1}}),
            ("message_stop", {"type": "message_stop"}),
        ):
            self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(404)
        self.end_headers()

    def _json(self, value: Any) -> None:
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


# ---------------------------------------------------------------- one case


@dataclass
class Case:
    """A scratch machine: a project folder (a git repository), files to write, an environment."""

    name: str
    project: str = "proj"  # under the scratch folder
    launch: str = ""  # a subfolder of the project to start Claude Code in
    index: str | None = "- [A](a.md) — marker {name}\n"  # MEMORY.md for memtui's auto folder
    env: dict[str, str] = field(default_factory=dict)  # {scratch} is replaced
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)  # scope -> object
    check_load: bool = True
    probe_hooks: bool = False  # a SessionStart hook records what a hook sees


def _index(lines: int, start: int = 0) -> str:
    return "".join(f"- [fact {k}](f{k}.md) — hook {k}\n" for k in range(start, start + lines))


LOADER_CASES = [
    Case("euro index (30,090 bytes)", index="".join("- [e](e.md) " + "€" * 330 + "\n"
                                                    for _ in range(30))),
    Case("50 leading blank lines + 160", index="\n" * 50 + _index(160)),
    Case("205 lines + 30 trailing blank", index=_index(205) + "\n" * 30),
    Case("comment with text + 200 lines", index="<!-- c --> visible text\n" + _index(200)),
    Case("one 26,000-character line", index="x" * 26_000 + "\n"),
    Case("a short line, then 26,000", index="short\n" + "y" * 26_000 + "\n"),
    Case("frontmatter + 201 lines", index="---\nname: index\ndescription: d\n---\n" + _index(201)),
    Case("CRLF, 180 lines near the cap", index="".join(
        f"- [f{k}](f{k}.md) — " + "z" * 120 + "\r\n" for k in range(180))),
    Case("CRLF with frontmatter", index="---\r\nname: i\r\n---\r\n" + "".join(
        f"- [f{k}](f{k}.md) — " + "z" * 120 + "\r\n" for k in range(180))),
    Case("CRLF with a comment", index="<!-- c -->\r\n" + "".join(
        f"- [f{k}](f{k}.md) — " + "z" * 120 + "\r\n" for k in range(180))),
    Case("comment block and the blank lines after it",
         index="<!-- a -->\n\n\n- x\n<!--\nmulti\n-->\n- y\n  <!-- item's own -->\n<!-- open\n"),
    Case("comment inside a fence and inline",
         index="```\n<!-- fenced -->\n```\n- x <!-- inline -->\n    <!-- code -->\n"),
]

FOLDER_CASES = [
    Case("path with _ space and é", project="my_proj x/café"),
    Case("path over 200 characters", project="/".join(["deep_folder_name"] * 14) + "/proj"),
    Case("CLAUDE_CODE_PROJECT_DIR_NAME alone", env={"CLAUDE_CODE_PROJECT_DIR_NAME": "named"}),
    Case("CLAUDE_CODE_PROJECT_DIR_NAME with CLAUDE_CONFIG_DIR",
         env={"CLAUDE_CONFIG_DIR": "{scratch}/home/cfg", "CLAUDE_CODE_PROJECT_DIR_NAME": "named"}),
    Case("CLAUDE_CODE_PROJECT_DIR_NAME invalid",
         env={"CLAUDE_CONFIG_DIR": "{scratch}/home/cfg", "CLAUDE_CODE_PROJECT_DIR_NAME": "a.b"}),
    Case("autoMemoryDirectory from project settings",
         settings={"project": {"autoMemoryDirectory": "{scratch}/chosen"}}),
    Case("invalid winning autoMemoryDirectory",
         settings={"user": {"autoMemoryDirectory": "~/usermem"},
                   "local": {"autoMemoryDirectory": "relative/mem"}}),
    Case("blockReadsOutsideWorkingDirectories",
         settings={"project": {"autoMemoryDirectory": "{scratch}/chosen"},
                   "user": {"permissions": {"blockReadsOutsideWorkingDirectories": True}}}),
    Case("blockReadsOutsideWorkingDirectories, the user's folder",
         settings={"user": {"permissions": {"blockReadsOutsideWorkingDirectories": True},
                            "autoMemoryDirectory": "~/usermem"}}),
    Case("blockReadsOutsideWorkingDirectories, user's and project's folder",
         settings={"project": {"autoMemoryDirectory": "{scratch}/chosen"},
                   "user": {"permissions": {"blockReadsOutsideWorkingDirectories": True},
                            "autoMemoryDirectory": "~/usermem"}}),
    Case("BOM and frontmatter", index="\ufeff---\nname: i\n---\n- [A](a.md) — a\n"),
    Case("lone CR line endings", index="- a\r- b\r- c\r"),
    Case("blockReadsOutsideWorkingDirectories alone",
         settings={"user": {"permissions": {"blockReadsOutsideWorkingDirectories": True}}}),
    Case("launched in a subfolder", launch="services/api", probe_hooks=True),
]


def _fill(value: Any, scratch: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{scratch}", str(scratch))
    if isinstance(value, dict):
        return {k: _fill(v, scratch) for k, v in value.items()}
    return value


def memtui(args: list[str], cwd: Path, env: dict[str, str]) -> Any:
    done = subprocess.run([sys.executable, "-m", "memtui", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    try:
        return json.loads(done.stdout)
    except ValueError:
        return {"error": done.stderr.strip() or done.stdout.strip()}


def run_case(case: Case, claude: Path, server: StandIn, base: Path) -> tuple[bool, list[str]]:
    scratch = base / re.sub(r"[^A-Za-z0-9]+", "-", case.name).strip("-")
    shutil.rmtree(scratch, ignore_errors=True)
    home = scratch / "home"
    project = scratch / case.project
    launch = project / case.launch if case.launch else project
    launch.mkdir(parents=True)
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, capture_output=True)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-dummy-standin",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
           "DISABLE_TELEMETRY": "1", "NO_PROXY": "127.0.0.1", "LANG": "C.UTF-8"}
    env.update(_fill(case.env, scratch))
    config = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    for scope, value in _fill(case.settings, scratch).items():
        path = {"user": config / "settings.json", "project": project / ".claude" / "settings.json",
                "local": project / ".claude" / "settings.local.json"}[scope]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    probe = scratch / "hook-saw.txt"
    if case.probe_hooks:
        settings_file = config / "settings.json"
        settings_file.parent.mkdir(parents=True, exist_ok=True)
        value = json.loads(settings_file.read_text()) if settings_file.exists() else {}
        command = (f"{{ echo \"ENTRYPOINT=$CLAUDE_CODE_ENTRYPOINT\"; echo \"PROJECT_DIR=$CLAUDE_PROJECT_DIR\"; "
                   f"cat; echo; }} >> '{probe}'")
        value["hooks"] = {"SessionStart": [{"hooks": [{"type": "command", "command": command}]}]}
        settings_file.write_text(json.dumps(value))
    mem_env = {**env, "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
               "MEMTUI_CACHE_DIR": str(scratch / "memtui-cache")}
    from memtui.core.roots.discover import claude_roots

    predicted = claude_roots(launch, env=env, home=home)
    auto_root = next(r for r in predicted if r.kind == "auto")
    auto = auto_root.path
    if case.index is not None:
        auto.mkdir(parents=True, exist_ok=True)
        (auto / "MEMORY.md").write_bytes(case.index.format(name=case.name).encode("utf-8")
                                         if "{name}" in case.index else case.index.encode("utf-8"))
    server.take()
    try:
        subprocess.run([str(claude), "-p", "hi", "--output-format", "stream-json", "--verbose",
                        "--include-hook-events"], cwd=launch, env=env, capture_output=True,
                       timeout=120, check=False)
    except subprocess.TimeoutExpired:
        return False, ["claude did not finish within 120 s"]
    requests = [r["body"] for r in server.take() if "/v1/messages" in r["path"]
                and "count_tokens" not in r["path"] and r["body"].get("messages")]
    if not requests:
        return False, ["the build sent no Messages request to the stand-in"]
    first = requests[0]
    (scratch / "first-request.json").write_text(json.dumps(first, ensure_ascii=False, indent=1))
    system = first.get("system")
    system_text = system if isinstance(system, str) else "\n".join(
        part.get("text", "") for part in system or [] if isinstance(part, dict))
    found = re.search(r"persistent file-based memory at `([^`]+)`", system_text)
    cc_folder = Path(found.group(1).rstrip("/")) if found else None
    notes: list[str] = []
    if case.probe_hooks:
        saw = probe.read_text().splitlines() if probe.exists() else ["(the hook did not run)"]
        notes.append("a SessionStart hook saw: " + " | ".join(line[:160] for line in saw if line))
    same = True
    listed = memtui(["list", "--json"], launch, mem_env)
    rows = listed if isinstance(listed, list) else []
    active = {Path(r["root"]) for r in rows if r.get("active", True)}
    inactive = {Path(r["root"]): r.get("inactive_because") for r in rows if not r.get("active", True)}
    if not auto_root.enabled:  # memtui says: no auto memory in this session
        loaded = _loaded_text(first, auto)
        ok = cc_folder is None and loaded is None
        notes.append(f"memtui: no auto memory ({auto_root.why}); claude: "
                     + ("no memory folder, nothing loaded" if ok else
                        f"folder {cc_folder}, loaded {_describe(loaded)}  ← DIFFERS"))
        notes.append("memtui lists as not used: " + ", ".join(
            f"{p} ({why})" for p, why in inactive.items()))
        return ok, notes
    if cc_folder is None:
        same = False
        notes.append("the system prompt names no memory folder")
    else:
        ok = cc_folder == auto and (case.index is None or cc_folder in active)
        same &= ok
        notes.append(f"folder: claude {cc_folder} · memtui {auto}" + ("" if ok else "  ← DIFFERS"))
        if inactive:
            notes.append("memtui lists as not used: " + ", ".join(
                f"{p} ({why})" for p, why in inactive.items()))
    if case.check_load and case.index is not None:
        loaded = _loaded_text(first, auto)
        report = memtui(["loaded", str(auto), "--json"], launch, mem_env)
        expected = report.get("loaded", "") if isinstance(report, dict) else ""
        warning = report.get("warning") if isinstance(report, dict) else None
        if warning:
            expected += "\n\n> WARNING: " + warning
        ok = loaded == expected
        same &= ok
        budget = report.get("budget", {}) if isinstance(report, dict) else {}
        notes.append(f"load: claude {_describe(loaded)} · memtui {_describe(expected)} "
                     f"({budget.get('lines')} lines, {budget.get('bytes')} {budget.get('unit')}, "
                     f"cut {report.get('cut_line') if isinstance(report, dict) else '?'})"
                     + ("" if ok else "  ← DIFFERS"))
        if not ok:
            notes.append(f"  first difference at character {_first_difference(loaded, expected)}")
        if warning:
            notes.append(f"  warning: {warning[:160]}…")
    return same, notes


def _loaded_text(request: dict[str, Any], folder: Path) -> str | None:
    """The MEMORY.md text the build put in its first request, or None when it put none."""
    marker = f"Contents of {folder}/MEMORY.md ("
    for message in request.get("messages", []):
        content = message.get("content")
        parts = [content] if isinstance(content, str) else [
            p.get("text", "") for p in content or [] if isinstance(p, dict)]
        for text in parts:
            at = text.find(marker)
            if at < 0:
                continue
            start = text.index("):\n\n", at) + 4
            ends = [e for e in (text.find("\n\nContents of ", start),
                                text.find("\n</system-reminder>", start)) if e >= 0]
            return text[start: min(ends) if ends else len(text)]
    return None


def _describe(text: str | None) -> str:
    if text is None:
        return "nothing"
    return f"{text.count(chr(10)) + 1 if text else 0} lines/{len(text.encode('utf-16-le')) // 2} chars"


def _first_difference(a: str | None, b: str) -> int:
    a = a or ""
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


# ---------------------------------------------------------------- memory writes through the hook


@dataclass
class HookCase:
    """The model asks for one Write or Edit into the auto memory folder; memtui's hooks are on."""

    name: str
    tool: str
    target: str  # relative to the memory folder
    tool_input: dict[str, Any]  # without file_path
    expect: str  # what memtui should decide: allow | deny
    files: dict[str, str] = field(default_factory=dict)  # the memory folder before


def _topic(name: str, body: str, type_: str = "project") -> str:
    return f"---\nname: {name}\ndescription: {name.lower()}\ntype: {type_}\n---\n\n{body}\n"


_BASE = {"MEMORY.md": "# Memory\n\n- [Deploys](project_deploys.md) — how we ship\n",
         "project_deploys.md": _topic("Deploys", "Tuesday mornings, two approvals.")}
HOOK_CASES = [
    HookCase("Write: a clean topic file", "Write", "feedback_tests.md",
             {"content": _topic("Tests first", "Write the failing test before the fix.", "feedback")}, "allow",
             dict(_BASE)),
    HookCase("Write: a topic file holding a token", "Write", "project_ci.md",
             {"content": _topic("CI", "The CI token is ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + ".")},
             "deny", dict(_BASE)),
    HookCase("Edit: an index entry pointing at nothing", "Edit", "MEMORY.md",
             {"old_string": "— how we ship\n", "new_string": "— how we ship\n- [Rollbacks](project_rollbacks.md) — undo\n",
              "replace_all": False}, "deny", dict(_BASE)),
    HookCase("Write: an index past 200 lines", "Write", "MEMORY.md",
             {"content": "# Memory\n\n- [Deploys](project_deploys.md) — how we ship\n"
              + "".join(f"- fact {k}: the staging host {k} restarts nightly\n" for k in range(230))}, "deny",
             dict(_BASE)),
    HookCase("Edit: a topic file, its entry kept", "Edit", "project_deploys.md",
             {"old_string": "two approvals.", "new_string": "two approvals, one from on-call.", "replace_all": False},
             "allow", dict(_BASE)),
]


def run_hook_case(case: HookCase, claude: Path, server: StandIn, base: Path) -> tuple[bool, list[str]]:
    """One scripted memory write: what memtui's ``hook pre`` answered (recorded by a wrapper) and
    what the build did with it — the file written or not, the reason Claude was told."""
    from memtui.core.hooks.install import with_hooks
    from memtui.core.roots.discover import claude_roots

    scratch = base / ("hook-" + re.sub(r"[^A-Za-z0-9]+", "-", case.name).strip("-"))
    shutil.rmtree(scratch, ignore_errors=True)
    home, project = scratch / "home", scratch / "proj"
    project.mkdir(parents=True)
    home.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, capture_output=True)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-dummy-standin",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
           "DISABLE_TELEMETRY": "1", "NO_PROXY": "127.0.0.1", "LANG": "C.UTF-8",
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
           "MEMTUI_CACHE_DIR": str(scratch / "memtui-cache")}
    memory = next(r for r in claude_roots(project, env=env, home=home) if r.kind == "auto").path
    memory.mkdir(parents=True)
    for rel, text in case.files.items():
        (memory / rel).write_text(text, encoding="utf-8")
    wrapper = scratch / "pre.sh"  # records what the build sent and what memtui answered
    wrapper.write_text(f"#!/bin/sh\ntee '{scratch}/pre-in.json' | '{sys.executable}' -m memtui hook pre "
                       f"> '{scratch}/pre-out.json'; code=$?\ncat '{scratch}/pre-out.json'\n"
                       f"echo $code > '{scratch}/pre-code'\nexit $code\n")
    wrapper.chmod(0o755)
    settings = with_hooks({}, f"'{sys.executable}' -m memtui")
    for group in settings["hooks"]["PreToolUse"]:
        for entry in group["hooks"]:
            entry["command"] = str(wrapper)
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    target = memory / case.target
    before = target.read_bytes() if target.exists() else None
    server.take()
    with server.lock:
        server.script[:] = [(case.tool, {"file_path": str(target), **case.tool_input})]
    try:
        done = subprocess.run([str(claude), "-p", "remember this", "--permission-mode", "acceptEdits",
                               "--output-format", "stream-json", "--verbose", "--include-hook-events"],
                              cwd=project, env=env, capture_output=True, text=True, timeout=180, check=False)
    except subprocess.TimeoutExpired:
        return False, ["claude did not finish within 180 s"]
    (scratch / "stream.jsonl").write_text(done.stdout)
    with server.lock:
        left = list(server.script)
        server.script.clear()
    requests = [r["body"] for r in server.take() if "/v1/messages" in r["path"] and "count_tokens" not in r["path"]]
    notes: list[str] = []
    if left:
        return False, ["the build never asked the stand-in for the main loop's answer"]
    out_path, code_path = scratch / "pre-out.json", scratch / "pre-code"
    if not code_path.exists():
        return False, ["memtui's PreToolUse hook did not run"]
    code = int(code_path.read_text().strip() or "-1")
    answer = out_path.read_text()
    try:
        specific = json.loads(answer).get("hookSpecificOutput", {}) if answer.strip().startswith("{") else {}
    except ValueError:
        specific = {}
    decision = specific.get("permissionDecision") or ("deny" if code == 2 else "allow" if code == 0 else f"exit {code}")
    reason = str(specific.get("permissionDecisionReason") or "")
    after = target.read_bytes() if target.exists() else None
    written = after != before
    told = _tool_result(requests)
    ok = decision == case.expect and written == (decision == "allow")
    if decision == "deny":
        ok &= told is not None and told[0] and bool(reason) and reason.splitlines()[0][:60] in told[1]
    notes.append(f"memtui: {decision} (exit {code}){': ' + reason.splitlines()[0][:110] if reason else ''}")
    notes.append(f"claude: file {'written' if written else 'unchanged'}; Claude was told "
                 + ("nothing" if told is None else f"{'an error' if told[0] else 'a result'}: {' '.join(told[1].split())[:110]}")
                 + ("" if ok else f"  ← DIFFERS (expected {case.expect})"))
    return ok, notes


def _tool_result(requests: list[dict[str, Any]]) -> tuple[bool, str] | None:
    """(is_error, text) of the first tool result the build sent back, or None."""
    for request in requests:
        for message in request.get("messages", []):
            content = message.get("content")
            for part in content if isinstance(content, list) else []:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    inner = part.get("content")
                    text = inner if isinstance(inner, str) else " ".join(
                        p.get("text", "") for p in inner or [] if isinstance(p, dict))
                    return bool(part.get("is_error")), text
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claude", type=Path, default=Path(os.environ.get("CLAUDE_BIN", DEFAULT_CLAUDE)))
    parser.add_argument("--only", help="run the cases whose name contains this")
    parser.add_argument("--keep", type=Path, help="keep the scratch folders here")
    args = parser.parse_args()
    if not args.claude.exists():
        print(f"no Claude Code build at {args.claude}: install one with `npm install "
              "@anthropic-ai/claude-code@<version>` in a scratch folder and pass --claude")
        return 2
    version = subprocess.run([str(args.claude), "--version"], capture_output=True, text=True,
                             timeout=60, check=False).stdout.strip()
    print(f"Claude Code {version} ({args.claude}) against memtui "
          f"{Path(__file__).resolve().parent.parent}")
    server = StandIn()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = args.keep or Path(tempfile.mkdtemp(prefix="memtuicc"))
    failed = 0
    try:
        runs: list[tuple[str, Callable[[], tuple[bool, list[str]]]]] = [
            (case.name, partial(run_case, case, args.claude, server, base)) for case in LOADER_CASES + FOLDER_CASES]
        runs += [(f"hook pre · {case.name}", partial(run_hook_case, case, args.claude, server, base))
                 for case in HOOK_CASES]
        for name, run in runs:
            if args.only and args.only not in name:
                continue
            same, notes = run()
            failed += not same
            print(f"{'same   ' if same else 'DIFFERS'} {name}")
            for note in notes:
                print(f"          {note}")
    finally:
        server.shutdown()
        server.server_close()
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    print(f"{failed} case{'s' * (failed != 1)} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
