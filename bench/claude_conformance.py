"""Check memtui against a real Claude Code build: what it loads from ``MEMORY.md`` and which
folder it uses, case by case, beside what ``memtui loaded`` and ``memtui list`` say; and, with
memtui's hooks installed, what the build does with ``memtui hook pre``'s answer to a scripted
Write or Edit into the memory folder (the stand-in asks for the tool call); which settings files
a session launched in a subfolder reads (each file's SessionStart hook names it); the escaped
text of markup and invisible characters; and scripted sessions (the stand-in answers each request,
the main agent's and a ``memory: project`` subagent's, from the case's list of tool calls, one
message id a turn) whose transcripts and hook calls memtui then reads: a subagent's reads and
first writes, Bash reads, the Inbox's writer of an Edit plus a here-document append, and a
refused revert.

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
        #: when set, answers every streamed request: a list of content blocks (``text`` or
        #: ``tool_use``), or None for "ok" (a subagent's turns and the main loop's alike)
        self.decide: Callable[[dict[str, Any]], list[dict[str, Any]] | None] | None = None
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
            decide = self.server.decide
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
        blocks = decide(request) if decide is not None and request.get("messages") else None
        if blocks:
            self._blocks(message, blocks)
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

    def _blocks(self, message: dict[str, Any], blocks: list[dict[str, Any]]) -> None:
        """Stream content blocks: text, or a tool call (its input as one JSON delta)."""
        uses = any(b["type"] == "tool_use" for b in blocks)
        message = {**message, "id": f"msg_standin_{len(self.server.requests)}"}  # one per turn
        events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start",
                                                                       "message": message})]
        for i, block in enumerate(blocks):
            if block["type"] == "tool_use":
                use = {"type": "tool_use", "id": f"toolu_standin_{len(self.server.requests)}_{i}",
                       "name": block["name"], "input": {}}
                events += [("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": use}),
                           ("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": "input_json_delta",
                                                              "partial_json": json.dumps(block["input"])}})]
            else:
                events += [("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": {"type": "text", "text": ""}}),
                           ("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": "text_delta", "text": block["text"]}})]
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events += [("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": "tool_use" if uses else "end_turn",
                                                "stop_sequence": None}, "usage": {"output_tokens": 1}}),
                   ("message_stop", {"type": "message_stop"})]
        for kind, data in events:
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
    #: scope -> object; user, project and local (the repository root's), launch-project and
    #: launch-local (the launch folder's)
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    check_load: bool = True
    probe_hooks: bool = False  # a SessionStart hook records what a hook sees
    label_hooks: bool = False  # each settings file gets a SessionStart hook naming it


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

_CHOSEN = "{scratch}/mem-"
SETTINGS_CASES = [  # launched in sub/deep of the repository (CLAUDE-CODE.md "Which project settings")
    Case("subfolder: the root's settings.json is not read", launch="sub/deep", label_hooks=True,
         settings={"project": {"autoMemoryDirectory": _CHOSEN + "root-json"}}),
    Case("subfolder: the root's settings.local.json is read", launch="sub/deep", label_hooks=True,
         settings={"local": {"autoMemoryDirectory": _CHOSEN + "root-local"}}),
    Case("subfolder: the launch folder's settings.json", launch="sub/deep", label_hooks=True,
         settings={"launch-project": {"autoMemoryDirectory": _CHOSEN + "launch-json"}}),
    Case("subfolder: both local files, the root's wins", launch="sub/deep", label_hooks=True,
         settings={"local": {"autoMemoryDirectory": _CHOSEN + "root-local"},
                   "launch-local": {"autoMemoryDirectory": _CHOSEN + "launch-local"}}),
    Case("subfolder: all four repository files", launch="sub/deep", label_hooks=True,
         settings={"project": {"autoMemoryDirectory": _CHOSEN + "root-json"},
                   "local": {"autoMemoryDirectory": _CHOSEN + "root-local"},
                   "launch-project": {"autoMemoryDirectory": _CHOSEN + "launch-json"},
                   "launch-local": {"autoMemoryDirectory": _CHOSEN + "launch-local"}}),
]

_TAGS = ("- [A](a.md) — <command-name>x</command-name> and < system-reminder> here\n"
         "- [B](b.md) — <function_calls> <post-tool-use-hook> <user-memory-input> stay\n"
         "- [C](c.md) — \uff1ctick> \u2039system-reminder> <s\u0443stem-reminder> <SYSTEM_REMINDER>\n"
         "- [D](d.md) — <channel source=\"x\"> <channel> <antml" ":invoke> </antml" ":invoke>\n"
         "- [E](e.md) — <sys\u200btem-reminder> <sys\u0301tem-reminder> <\n\nbash-stdout>\n"
         "- [F](f.md) — <command-names> <ticket> &lt;system-reminder&gt; <tick/>\n")
ESCAPE_CASES = [
    Case("escaping: tags, look-alikes and the ones left alone", index=_TAGS),
    Case("escaping: invisible lines at both ends are trimmed",
         index="\u200b\n\u200b\n- [A](a.md) — a\n- [B](b.md) — b\n\u200b\n"),
    Case("escaping: Unicode 17 characters kept, unassigned ones removed",
         index="- [A](a.md) — \U0001e4d0 \u2ffc \u1c89 \ua7cb \u20c1 kept; \u0378 \U0001faff "
               "\ufff0 \u00ad \u200b gone \u200d\ufe0f\n"),
    Case("escaping: after the cut, and on the warning", index=_index(200)
         + "<system-reminder> injected \u200b here\n"),
    Case("escaping: the main index still loses its frontmatter and comments",
         index="---\nname: idx\n---\n<!-- block comment -->\n- [A](a.md) — <tick>\n"),
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
    written: dict[str, Path] = {}
    ran_log = scratch / "hooks-ran.txt"
    for scope, value in _fill(case.settings, scratch).items():
        path = {"user": config / "settings.json", "project": project / ".claude" / "settings.json",
                "local": project / ".claude" / "settings.local.json",
                "launch-project": launch / ".claude" / "settings.json",
                "launch-local": launch / ".claude" / "settings.local.json"}[scope]
        path.parent.mkdir(parents=True, exist_ok=True)
        if case.label_hooks:
            value = {**value, "hooks": {"SessionStart": [{"hooks": [
                {"type": "command", "command": f"echo {scope} >> '{ran_log}'"}]}]}}
        path.write_text(json.dumps(value))
        written[scope] = path
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
    if case.label_hooks:
        from memtui.core.model.claude_settings import settings_files

        read = {path for _scope, path in settings_files(str(launch), env, str(home))}
        predicted_ran = sorted(scope for scope, path in written.items() if str(path) in read)
        ran = sorted(set(ran_log.read_text().split())) if ran_log.exists() else []
        ok = ran == predicted_ran
        same &= ok
        notes.append(f"hooks that ran: claude {', '.join(ran) or 'none'} · memtui "
                     f"{', '.join(predicted_ran) or 'none'}" + ("" if ok else "  ← DIFFERS"))
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


# ---------------------------------------------------------------- subagents and the shell

_AGENT_INDEX = "---\nname: idx\n---\n<!-- block comment -->\n# Memory\n\n- [Findings](project_findings.md) — <tick> notes\n<!--\nmulti\n-->\n"


@dataclass
class AgentCase:
    """A scripted session: the main agent (``main``: its tool calls, in turn) and a subagent
    ``researcher`` with ``memory: project`` (``sub``: its tool calls), memtui's hooks on; then
    what memtui says of it (``check``)."""

    name: str
    main: Callable[[Path, Path], list[dict[str, Any]]]  # (memory, agent folder) -> tool calls
    sub: Callable[[Path, Path], list[dict[str, Any]]] | None = None
    agent_files: dict[str, str] | None = None  # the agent folder before (None: absent)
    check: Callable[[Path, Path, Path, dict[str, Any]], list[tuple[bool, str]]] = \
        lambda memory, agent, scratch, seen: []
    look_first: bool = False  # memtui changes looks once before the session (seeds the baseline)


def _tool(name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": tool_input}


def _first_user_text(request: dict[str, Any]) -> str:
    content = request["messages"][0].get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def _system_text(request: dict[str, Any]) -> str:
    system = request.get("system")
    return system if isinstance(system, str) else "\n".join(
        part.get("text", "") for part in system or [] if isinstance(part, dict))


def run_agent_case(case: AgentCase, claude: Path, server: StandIn, base: Path) -> tuple[bool, list[str]]:
    from memtui.core.hooks.install import with_hooks
    from memtui.core.roots.discover import claude_roots

    scratch = base / ("agent-" + re.sub(r"[^A-Za-z0-9]+", "-", case.name).strip("-"))
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
    (memory / "MEMORY.md").write_text("# Memory\n\n- [Deploys](project_deploys.md) — how we ship\n"
                                      "- [Style](project_style.md) — code style\n"
                                      "- [Oncall](project_oncall.md) — who is on call\n")
    for name, body in (("Deploys", "Tuesday mornings."), ("Style", "Black, 100 columns."),
                       ("Oncall", "The platform team.")):
        (memory / f"project_{name.lower()}.md").write_text(_topic(name, body))
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "researcher.md").write_text("---\nname: researcher\ndescription: Looks things up "
                                          "and keeps notes.\nmemory: project\n---\n\nYou research. "
                                          "SUBAGENT-SYSTEM-MARKER\n")
    agent = project / ".claude" / "agent-memory" / "researcher"
    if case.agent_files is not None:
        agent.mkdir(parents=True)
        for rel, text in case.agent_files.items():
            (agent / rel).write_text(text)
    log = scratch / "hooks.jsonl"
    recorder = scratch / "hook.py"  # what each memtui hook got and answered
    recorder.write_text(
        "import json, subprocess, sys\n"
        "raw = sys.stdin.buffer.read()\n"
        f"done = subprocess.run([{sys.executable!r}, '-m', 'memtui', 'hook', sys.argv[1]], input=raw, "
        "capture_output=True)\n"
        f"with open({str(log)!r}, 'a') as f:\n"
        "    f.write(json.dumps({'event': sys.argv[1], 'in': json.loads(raw or b'{}'), "
        "'out': done.stdout.decode(), 'code': done.returncode}) + '\\n')\n"
        "sys.stdout.write(done.stdout.decode())\n"
        "sys.exit(done.returncode)\n")
    settings = with_hooks({}, f"'{sys.executable}' -m memtui")
    for groups in settings["hooks"].values():
        for group in groups:
            for entry in group["hooks"]:
                entry["command"] = f"'{sys.executable}' {recorder} {entry['command'].rsplit(' ', 1)[-1]}"
    settings["permissions"] = {"allow": ["Read", "Write", "Edit", "Bash"]}
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    if case.look_first:
        memtui(["changes", str(memory), "--json"], project, env)
    main_calls = case.main(memory, agent)
    sub_calls = case.sub(memory, agent) if case.sub is not None else []
    seen: dict[str, Any] = {"sub_system": ""}

    def decide(request: dict[str, Any]) -> list[dict[str, Any]] | None:
        # the calls answered so far (Claude Code joins the turns of one message id into one message)
        turns = sum(1 for m in request["messages"] if m.get("role") == "assistant"
                    for b in (m["content"] if isinstance(m.get("content"), list) else [])
                    if isinstance(b, dict) and b.get("type") == "tool_use")
        system = _system_text(request)
        if "SUBAGENT-SYSTEM-MARKER" in system or "SUBAGENT-TASK" in _first_user_text(request):
            seen["sub_system"] = seen["sub_system"] or system
            return [sub_calls[turns]] if turns < len(sub_calls) else [{"type": "text", "text": "SUB-DONE"}]
        if not any(t.get("name") == "Write" for t in request.get("tools") or []):
            return None  # a side request (a title, a summary)
        return [main_calls[turns]] if turns < len(main_calls) else [{"type": "text", "text": "MAIN-DONE"}]

    server.take()
    with server.lock:
        server.decide = decide
    try:
        done = subprocess.run([str(claude), "-p", "go", "--output-format", "stream-json", "--verbose",
                               "--include-hook-events"], cwd=project, env=env, capture_output=True,
                              text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return False, ["claude did not finish within 300 s"]
    finally:
        with server.lock:
            server.decide = None
    (scratch / "stream.jsonl").write_text(done.stdout)
    (scratch / "subagent-system.txt").write_text(seen["sub_system"])
    server.take()
    seen["hooks"] = [json.loads(raw) for raw in (log.read_text().splitlines() if log.exists() else [])]
    seen["env"] = env
    results = case.check(memory, agent, scratch, seen)
    same = all(ok for ok, _ in results)
    return same, [note + ("" if ok else "  ← DIFFERS") for ok, note in results]


def _used(root: Path, scratch: Path, env: dict[str, str]) -> dict[str, Any]:
    report = memtui(["used", str(root), "--json"], scratch / "proj", env)
    return {f["path"]: f for f in report.get("files", [])} if isinstance(report, dict) else {}


def _check_subagent(memory: Path, agent: Path, scratch: Path, seen: dict[str, Any]) -> list[tuple[bool, str]]:
    out = []
    files = _used(memory, scratch, seen["env"])
    deploys = files.get("project_deploys.md", {})
    out.append((deploys.get("status") == "active" and deploys.get("agents") == ["researcher"],
                f"project_deploys.md, read by the subagent only: memtui {deploys.get('status')!r} "
                f"by {deploys.get('agents')}"))
    style = files.get("project_style.md", {})
    out.append((style.get("shell") == 1 and style.get("status") == "active",
                f"project_style.md, read by the subagent's `cd … && cat`: memtui shell "
                f"{style.get('shell')}, {style.get('status')!r}"))
    pres = [h for h in seen["hooks"] if h["event"] == "pre"]
    first = next((h for h in pres if h["in"].get("tool_input", {}).get("file_path", "").endswith(
        "project_findings.md")), None)
    decision = ""
    if first is not None and first["out"].startswith("{"):
        decision = json.loads(first["out"]).get("hookSpecificOutput", {}).get("permissionDecision", "")
    out.append((decision == "deny" and first is not None and first["in"].get("agent_type") == "researcher",
                f"the subagent's first topic file in the new agent folder: memtui {decision or 'allow'}"
                + (f" (transcript_path {'= the main one' if first and first['in'].get('transcript_path', '').endswith('.jsonl') and '/subagents/' not in first['in'].get('transcript_path', '') else '?'})" if first else "")))
    written = (agent / "project_findings.md").is_file() and (agent / "MEMORY.md").is_file()
    found = _used(agent, scratch, seen["env"]).get("project_findings.md", {})
    out.append((written and bool(found.get("writers")) and found.get("written_by_agents") == ["researcher"],
                f"after MEMORY.md first, the topic file is written: {written}; its writer: "
                f"{found.get('writers')} by {found.get('written_by_agents')}"))
    stops = [h for h in seen["hooks"] if h["event"] == "subagent-stop"]
    out.append((len(stops) == 1 and stops[0]["out"] == "" and "agent_transcript_path" in stops[0]["in"],
                f"SubagentStop: {len(stops)} call(s), answer {stops[0]['out'][:60] if stops else '-'!r} "
                "(nothing new left)"))
    return out


def _check_agent_index(memory: Path, agent: Path, scratch: Path, seen: dict[str, Any]) -> list[tuple[bool, str]]:
    system = seen.get("sub_system", "")
    at = system.find("## MEMORY.md\n\n")
    loaded = None
    if at >= 0:
        rest = system[at + len("## MEMORY.md\n\n"):]
        # 2.1.332 follows the index with this paragraph (measured); else the next heading
        ends = [k for k in (rest.find("\n\nMessages from the agent that launched you"),
                            rest.find("\n\n## ")) if k >= 0]
        loaded = rest[:min(ends)] if ends else rest
    report = memtui(["loaded", str(agent), "--json"], scratch / "proj", seen["env"])
    expected = report.get("loaded", "") if isinstance(report, dict) else ""
    ok = loaded == expected
    return [(ok, f"the agent index in the subagent's system prompt: claude {_describe(loaded)} · memtui "
                 f"{_describe(expected)} ({report.get('loader') if isinstance(report, dict) else '?'})")]


def _check_bash(memory: Path, agent: Path, scratch: Path, seen: dict[str, Any]) -> list[tuple[bool, str]]:
    files = _used(memory, scratch, seen["env"])
    got = {name: (files.get(name, {}).get("shell"), files.get(name, {}).get("status"))
           for name in ("project_style.md", "project_deploys.md", "project_oncall.md")}
    ok = got == {"project_style.md": (1, "active"), "project_deploys.md": (1, "active"),
                 "project_oncall.md": (1, "active")}
    return [(ok, f"memtui used: {got} (shell reads: cat | wc, cd && head, grep over *.md)")]


def _check_writers(memory: Path, agent: Path, scratch: Path, seen: dict[str, Any]) -> list[tuple[bool, str]]:
    session = next((h["in"].get("session_id") for h in seen["hooks"] if h["in"].get("session_id")), "")
    refused = [h for h in seen["hooks"] if h["event"] == "pre" and '"deny"' in h["out"]]
    out = [(not refused, f"memtui's hooks refused {len(refused)} of the session's writes")]
    report = memtui(["changes", str(memory), "--json"], scratch / "proj", seen["env"])
    got = sorted((c["kind"], c["path"], c.get("session")) for c in report.get("changes", [])) \
        if isinstance(report, dict) else []
    want = [("added", "project_release.md", session), ("changed", "MEMORY.md", session),
            ("changed", "project_style.md", session)]
    out.append((got == want, f"memtui changes: {[(k, p, 'the session' if s == session else s) for k, p, s in got]}"
                " (project_style.md Edited, then appended with cat >> <<'EOF')"))
    done = subprocess.run([sys.executable, "-m", "memtui", "changes", str(memory), "--revert", "MEMORY.md"],
                          cwd=scratch / "proj", env=seen["env"], capture_output=True, text=True,
                          timeout=120, check=False)
    hint = " ".join(done.stdout.split())
    said = "revert project_release.md instead" in hint
    out.append((done.returncode == 1 and said, f"--revert MEMORY.md alone: exit {done.returncode}, "
                f"{'names project_release.md' if said else 'no hint: ' + hint[-160:]}"))
    both = subprocess.run([sys.executable, "-m", "memtui", "changes", str(memory), "--revert", "MEMORY.md",
                           "--revert", "project_release.md"], cwd=scratch / "proj", env=seen["env"],
                          capture_output=True, text=True, timeout=120, check=False)
    back = "project_release.md" not in (memory / "MEMORY.md").read_text()
    out.append((both.returncode == 0 and back and not (memory / "project_release.md").exists(),
                f"--revert MEMORY.md --revert project_release.md: exit {both.returncode}, the index as "
                f"before: {back}"))
    return out


AGENT_CASES = [
    AgentCase("a subagent's reads, a shell read and its first writes",
              main=lambda m, a: [_tool("Agent", description="Research deploys", prompt="SUBAGENT-TASK: "
                                       "read and note", subagent_type="researcher", run_in_background=False)],
              sub=lambda m, a: [
                  _tool("Read", file_path=str(m / "project_deploys.md")),
                  _tool("Bash", command=f"cd {m} && cat project_style.md", description="style"),
                  _tool("Write", file_path=str(a / "project_findings.md"),
                        content=_topic("Findings", "Deploys are on Tuesdays.")),
                  _tool("Write", file_path=str(a / "MEMORY.md"), content="# Memory\n"),
                  _tool("Write", file_path=str(a / "project_findings.md"),
                        content=_topic("Findings", "Deploys are on Tuesdays.")),
                  _tool("Edit", file_path=str(a / "MEMORY.md"), old_string="# Memory\n",
                        new_string="# Memory\n\n- [Findings](project_findings.md) — what I found\n",
                        replace_all=False)],
              check=_check_subagent),
    AgentCase("a subagent's MEMORY.md loads with its frontmatter and comments",
              main=lambda m, a: [_tool("Agent", description="Look", prompt="SUBAGENT-TASK: look",
                                       subagent_type="researcher", run_in_background=False)],
              agent_files={"MEMORY.md": _AGENT_INDEX,
                           "project_findings.md": _topic("Findings", "Deploys are on Tuesdays.")},
              check=_check_agent_index),
    AgentCase("Bash reads of memory files in the main session",
              main=lambda m, a: [
                  _tool("Bash", command=f'cat "{m}/project_style.md" | wc -l', description="count"),
                  _tool("Bash", command=f"cd {m} && head -n 2 project_deploys.md", description="head"),
                  _tool("Bash", command=f"grep -n platform {m}/project_o*.md", description="grep")],
              check=_check_bash),
    AgentCase("the Inbox's writer and a refused revert",
              main=lambda m, a: [
                  _tool("Read", file_path=str(m / "project_style.md")),
                  _tool("Edit", file_path=str(m / "project_style.md"), old_string="Black",
                        new_string="Ruff format", replace_all=False),
                  _tool("Bash", command=f"cat >> {m}/project_style.md <<'EOF'\nImports sorted "
                        "(see MEMORY.md).\nEOF", description="append"),
                  _tool("Write", file_path=str(m / "project_release.md"),
                        content=_topic("Release", "A release train every Thursday.")),
                  _tool("Edit", file_path=str(m / "MEMORY.md"),
                        old_string="- [Oncall](project_oncall.md) — who is on call\n",
                        new_string="- [Oncall](project_oncall.md) — who is on call\n"
                                   "- [Release](project_release.md) — the release train\n",
                        replace_all=False)],
              look_first=True, check=_check_writers),
]


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
            (case.name, partial(run_case, case, args.claude, server, base))
            for case in LOADER_CASES + FOLDER_CASES + SETTINGS_CASES + ESCAPE_CASES]
        runs += [(f"hook pre · {case.name}", partial(run_hook_case, case, args.claude, server, base))
                 for case in HOOK_CASES]
        runs += [(f"session · {case.name}", partial(run_agent_case, case, args.claude, server, base))
                 for case in AGENT_CASES]
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
