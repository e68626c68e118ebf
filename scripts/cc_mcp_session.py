"""One real Claude Code session against ``memtui mcp``: the scripted agent remembers a fact into an
index at its 200-line budget, is refused, archives a note to make room, and remembers again.

Optional and never part of the test run: it needs a Claude Code build from the npm registry
(``npm install @anthropic-ai/claude-code@2.1.332`` in a scratch folder; pass its
``node_modules/.bin/claude`` with ``--claude``).  Everything happens in a scratch folder: HOME,
``CLAUDE_CONFIG_DIR``, a git repository whose auto memory (``<config>/projects/<project>/memory``)
holds a 200-line ``MEMORY.md``.  memtui is registered as the project-scope server
(``memtui hook install --mcp --scope project``: ``.mcp.json`` naming ``memtui`` from PATH, and
``permissions.allow: ["mcp__memtui"]`` in ``.claude/settings.local.json``), this memtui's folder first on
PATH.  ``claude -p`` runs with ``ANTHROPIC_BASE_URL`` pointing at a loopback stand-in for the
Messages API that answers each request with the next scripted step (ToolSearch for the tools,
then ``mcp__memtui__memory_remember``, ``…__memory_archive``, ``…__memory_remember``) and logs the
requests, whose ``tool_result`` blocks are what the model would have read.  Nothing leaves the
machine.

    .venv/bin/python scripts/cc_mcp_session.py --claude /path/to/node_modules/.bin/claude [--keep DIR]

Prints each tool call and the result Claude Code sent back, the memory folder's listing after the
session, and ``memtui changes`` / ``memtui log`` of it; exits 1 when the session did not go as
scripted (the refusal, then the success).
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

TOOLS = "mcp__memtui__memory_remember,mcp__memtui__memory_archive,mcp__memtui__memory_search"
REMEMBER = {"title": "Cache warm-up", "body": "The cache warms up from the nightly snapshot at 02:00; "
                                              "a deploy before 02:30 serves cold pages.",
            "type": "project", "hook": "cache warms from the 02:00 snapshot; deploy after 02:30"}
STEPS: list[list[tuple[str, dict[str, Any]]]] = [
    [("ToolSearch", {"query": f"select:{TOOLS}"})],
    [("mcp__memtui__memory_remember", REMEMBER)],
    [("mcp__memtui__memory_archive", {"path": "project_note_000.md"})],
    [("mcp__memtui__memory_remember", REMEMBER)],
]


class StandIn(http.server.ThreadingHTTPServer):
    """A loopback Messages API: each request with messages gets the next scripted step once the
    session's tools are there (the MCP server connects while the first request is made)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.n = 0
        self.step = 0
        self.waits = 0
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}  # tool_use id -> (name, input)

    def blocks(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The next step; ToolSearch again (after a pause, as a model thinks) while Claude Code
        says the server is still connecting."""
        last = request.get("messages", [{}])[-1]
        if "still connecting" in json.dumps(last.get("content")) and self.waits < 60:
            self.waits += 1
            time.sleep(1)
            return [{"type": "tool_use", "name": name, "input": args} for name, args in STEPS[0]]
        step = self.step
        self.step += 1
        if step < len(STEPS):
            return [{"type": "tool_use", "name": name, "input": args} for name, args in STEPS[step]]
        return [{"type": "text", "text": "done"}]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: StandIn

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            request = json.loads(body)
        except ValueError:
            request = {}
        if "count_tokens" in self.path:
            return self._json({"input_tokens": 10})
        with self.server.lock:
            self.server.n += 1
            n = self.server.n
            if request.get("messages"):
                self.server.requests.append(request)
        with self.server.lock:
            blocks = self.server.blocks(request) if request.get("messages") else [{"type": "text", "text": "ok"}]
            for i, b in enumerate(blocks):
                if b["type"] == "tool_use":
                    self.server.calls[f"toolu_standin_{n}_{i}"] = (b["name"], b["input"])
        uses = any(b["type"] == "tool_use" for b in blocks)
        message = {"id": f"msg_standin_{n}", "type": "message", "role": "assistant",
                   "model": request.get("model", "stand-in"), "content": [], "stop_reason": None,
                   "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
        if not request.get("stream"):
            message["content"] = [dict(b, id=f"toolu_standin_{n}_{i}") if b["type"] == "tool_use" else b
                                  for i, b in enumerate(blocks)]
            message["stop_reason"] = "tool_use" if uses else "end_turn"
            return self._json(message)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": message})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": b["text"]}
            else:
                start = {"type": "tool_use", "id": f"toolu_standin_{n}_{i}", "name": b["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}),
                       ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
                       ("content_block_stop", {"type": "content_block_stop", "index": i})]
        events += [("message_delta", {"type": "message_delta", "delta": {
            "stop_reason": "tool_use" if uses else "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 1}}),
            ("message_stop", {"type": "message_stop"})]
        for kind, data in events:
            self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _json(self, value: dict[str, Any]) -> None:
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def build(base: Path) -> tuple[Path, Path, Path, Path]:
    """The scratch HOME, config folder, project and its auto memory (a 200-line index)."""
    from memtui.core.model.claude_settings import encode_project_path

    home, config, project = base / "home", base / "home" / "config", base / "project"
    for folder in (config, project):
        folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    memory = config / "projects" / encode_project_path(str(project)) / "memory"
    memory.mkdir(parents=True)
    lines = ["# Memory", "", "## Recent"]
    for i in range(197):
        name = f"project_note_{i:03d}.md"
        lines.append(f"- [Note {i}]({name}) — fact {i} of the release checklist, kept for step {i}")
        (memory / name).write_text(f"---\nname: Note {i}\ndescription: fact {i}\ntype: project\n---\n\n"
                                   f"Fact {i} of the release checklist, kept for step {i}.\n")
    (memory / "MEMORY.md").write_text("\n".join(lines) + "\n")
    return home, config, project, memory


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claude", required=True, type=Path, help="the claude binary to run")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it")
    parser.add_argument("--scope", choices=("project", "user", "local"), default="project",
                        help="where memtui hook install --mcp registers the server (default project)")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="memtui-cc-mcp"))
    if args.keep:
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
    try:
        return run(base, args.claude.absolute(), args.scope)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


def run(base: Path, claude: Path, scope: str = "project") -> int:
    home, config, project, memory = build(base)
    bin_dir = str(Path(sys.executable).parent)  # this memtui's console script, as `memtui` on PATH
    env = {"HOME": str(home), "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
           "CLAUDE_CONFIG_DIR": str(config), "ANTHROPIC_API_KEY": "sk-ant-dummy-standin",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
           "DISABLE_TELEMETRY": "1", "NO_PROXY": "127.0.0.1", "LANG": "C.UTF-8",
           "MEMTUI_CACHE_DIR": str(base / "cache")}
    installed = subprocess.run(["memtui", "hook", "install", "--mcp", "--scope", scope], cwd=project,
                               env=env, capture_output=True, text=True, check=False)
    print(f"$ memtui hook install --mcp --scope {scope}\n" + installed.stdout + installed.stderr)
    stand_in = StandIn()
    threading.Thread(target=stand_in.serve_forever, daemon=True).start()
    env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{stand_in.server_address[1]}"
    done = subprocess.run([str(claude), "-p", "remember the cache warm-up", "--output-format", "stream-json",
                           "--verbose"], cwd=project, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    stand_in.shutdown()
    init = next((json.loads(line) for line in done.stdout.splitlines() if '"subtype":"init"' in line), {})
    print(f"claude exited {done.returncode}; init mcp_servers: {init.get('mcp_servers')}")
    results: dict[str, dict[str, Any]] = {}
    for request in stand_in.requests:
        for message in request["messages"]:
            for part in message.get("content") if isinstance(message.get("content"), list) else []:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    results[part.get("tool_use_id", "")] = part
    print("\n--- the tool calls and what Claude Code sent back to the model ---")
    shown = []
    for use_id, (name, args) in stand_in.calls.items():
        result = results.get(use_id)
        if result is None:
            continue
        shown.append((name, result))
        content = result.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        if name == "ToolSearch" and "still connecting" in text:
            text = text[:90] + "…"
        print(f"> {name} {json.dumps(args, ensure_ascii=False)}")
        print(f"< is_error={bool(result.get('is_error'))}: {text}")
    print("\n--- the memory folder after the session ---")
    for path in sorted(p.relative_to(memory).as_posix() for p in memory.rglob("*")
                       if p.is_file() and ".memtui" not in p.parts and not p.name.startswith("project_note_")):
        print(path)
    print(f"(and {sum(1 for _ in memory.glob('project_note_*.md'))} project_note_*.md; "
          f"archive/: {sorted(p.name for p in (memory / 'archive').glob('*'))})")
    tail = (memory / "MEMORY.md").read_text().splitlines()
    print(f"MEMORY.md: {len(tail)} lines; its Recent block starts: {tail[3]!r}")
    for cmd in (["memtui", "log", str(memory)], ["memtui", "changes", str(memory), "--no-diff"]):
        said = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        print(f"\n$ {' '.join(cmd[:2])} <memory>\n{said.stdout}{said.stderr}")
    remembers = [r for name, r in shown if name.endswith("memory_remember")]
    refused = len(remembers) == 2 and remembers[0].get("is_error") and "200-line cap" in str(remembers[0])
    remembered = len(remembers) == 2 and not remembers[1].get("is_error") and \
        (memory / "project_cache_warm_up.md").is_file()
    return 0 if refused and remembered else 1


if __name__ == "__main__":
    raise SystemExit(main())
