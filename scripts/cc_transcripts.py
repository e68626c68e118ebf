"""Make real Claude Code transcripts: run a Claude Code build headless against a loopback
stand-in for the Messages API that scripts Read / Edit / Write calls on memory files.

A scratch HOME gets an auto-memory folder (``~/.claude/projects/<project>/memory``) with an index
and a few topic files; each scripted session is one ``claude -p`` run whose model turns come from
:data:`SCRIPTS` (the server picks the script by a ``SCRIPT:<name>`` marker in the prompt and the
step by how many assistant turns the request already holds).  Side requests (titles, summaries,
memory selection: any request whose prompt has no marker) get a short text answer.  Every request
is logged to ``requests.jsonl`` in the work folder.  The transcripts Claude Code wrote are copied
to ``--out`` anonymised: the scratch folders become ``/home/user`` and ``/home/user/proj``.

Needs the package (not run by the tests)::

    npm install @anthropic-ai/claude-code@2.1.332   # into a scratch folder
    .venv/bin/python scripts/cc_transcripts.py --claude <scratch>/node_modules/.bin/claude \\
        --out tests/core/data/transcripts
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MODEL = "claude-sonnet-4-5"

#: the memory folder each run starts from (path relative to the memory folder → text)
MEMORY = {
    "MEMORY.md": (
        "- [Build](build_steps.md) — how to build and test\n"
        "- [Style](code_style.md) — naming and layout rules\n"
        "- [Deploy](deploy_notes.md) — release checklist\n"
        "- [Old API](old_api.md) — the v1 endpoints\n"
    ),
    "build_steps.md": "---\nname: build-steps\ndescription: how to build\nmetadata:\n  type: project\n---\n"
                      "Run `make test` before pushing.\n",
    "code_style.md": "---\nname: code-style\ndescription: naming rules\nmetadata:\n  type: feedback\n---\n"
                     "Use snake_case for functions.\n",
    "deploy_notes.md": "---\nname: deploy-notes\ndescription: release checklist\nmetadata:\n  type: project\n---\n"
                       "Tag, then push the tag.\n",
    "scratch_idea.md": "---\nname: scratch-idea\ndescription: not in the index\nmetadata:\n  type: project\n---\n"
                       "Try caching the parser.\n",
}

#: one list of model turns per session: each turn is a list of tool calls, or a final text
SCRIPTS: dict[str, list[Any]] = {
    # reads an indexed file, follows a pointer to a file that is not there, reads an unindexed one
    "s1": [
        [("Read", {"file_path": "{mem}/build_steps.md"})],
        [("Read", {"file_path": "{mem}/old_api.md"})],
        [("Read", {"file_path": "{mem}/scratch_idea.md"})],
        "Done reading.",
    ],
    # reads and edits an indexed file, writes a new one
    "s2": [
        [("Read", {"file_path": "{mem}/build_steps.md"}), ("Read", {"file_path": "{mem}/code_style.md"})],
        [("Edit", {"file_path": "{mem}/code_style.md", "old_string": "snake_case for functions",
                   "new_string": "snake_case for functions and modules", "replace_all": False})],
        [("Write", {"file_path": "{mem}/release_train.md",
                    "content": "---\nname: release-train\ndescription: weekly release\nmetadata:\n"
                               "  type: project\n---\nReleases leave on Thursdays.\n"})],
        "Saved.",
    ],
    # a session that reads nothing
    "s3": ["Nothing to do."],
}


class Stand:
    """The scripted model: state shared by the request handler threads."""

    def __init__(self, mem: str, log: Path) -> None:
        self.mem = mem
        self.log = log
        self.lock = threading.Lock()
        self.counter = 0

    def next_id(self, prefix: str) -> str:
        with self.lock:
            self.counter += 1
            return f"{prefix}_{self.counter:04d}stand"

    def record(self, path: str, body: Any) -> None:
        with self.lock, self.log.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"path": path, "body": body}) + "\n")

    def turn(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The content blocks of the next assistant turn for this request."""
        messages = body.get("messages") or []
        script = None
        for message in messages:
            if message.get("role") != "user":
                continue
            content = message.get("content")
            texts = [content] if isinstance(content, str) else [
                c.get("text", "") for c in content or [] if isinstance(c, dict) and c.get("type") == "text"]
            for text in texts:
                if "SCRIPT:" in text:
                    script = text.split("SCRIPT:", 1)[1].split()[0].strip(".,")
        if script not in SCRIPTS or not body.get("tools"):
            return [{"type": "text", "text": "ok"}]
        step = sum(1 for m in messages if m.get("role") == "assistant")
        turns = SCRIPTS[script]
        item = turns[min(step, len(turns) - 1)]
        if isinstance(item, str):
            return [{"type": "text", "text": item}]
        blocks = []
        for name, args in item:
            filled = {k: v.replace("{mem}", self.mem) if isinstance(v, str) else v for k, v in args.items()}
            blocks.append({"type": "tool_use", "id": self.next_id("toolu"), "name": name, "input": filled})
        return blocks


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def make_handler(stand: Stand) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def _json(self, code: int, value: Any) -> None:
            data = json.dumps(value).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            stand.record(self.path, None)
            self._json(200, {})

        def do_HEAD(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            stand.record(self.path, body)
            if "count_tokens" in self.path:
                self._json(200, {"input_tokens": 100})
                return
            if not self.path.split("?")[0].endswith("/messages"):
                self._json(200, {})
                return
            blocks = stand.turn(body)
            stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
            message = {"id": stand.next_id("msg"), "type": "message", "role": "assistant",
                       "model": body.get("model", MODEL), "content": [], "stop_reason": None,
                       "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 1}}
            if not body.get("stream"):
                self._json(200, {**message, "content": blocks, "stop_reason": stop,
                                 "usage": {"input_tokens": 100, "output_tokens": 20}})
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            out = [_sse("message_start", {"type": "message_start", "message": message})]
            for i, block in enumerate(blocks):
                if block["type"] == "text":
                    out.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                            "content_block": {"type": "text", "text": ""}}))
                    out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                            "delta": {"type": "text_delta", "text": block["text"]}}))
                else:
                    start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                    out.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                            "content_block": start}))
                    out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                            "delta": {"type": "input_json_delta",
                                                                      "partial_json": json.dumps(block["input"])}}))
                out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
            out.append(_sse("message_delta", {"type": "message_delta",
                                              "delta": {"stop_reason": stop, "stop_sequence": None},
                                              "usage": {"output_tokens": 20}}))
            out.append(_sse("message_stop", {"type": "message_stop"}))
            self.wfile.write(b"".join(out))
            self.wfile.flush()
            self.close_connection = True

    return Handler


def encode(path: str) -> str:
    """Claude Code's project folder name (CLAUDE-CODE.md: every non-alphanumeric character '-')."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in path)


def anonymise(text: str, work: str) -> str:
    """The scratch folders as ``/home/user``, in plain and in encoded form."""
    return text.replace(work + "/home", "/home/user").replace(encode(work + "/home"), encode("/home/user"))


#: line types whose every field is kept whole (the rest have long strings cut to keep fixtures small)
_WHOLE_TYPES = ("user", "assistant", "system")
_LONG = 400


def _cut(value: Any) -> Any:
    """``value`` with every string longer than :data:`_LONG` characters cut to a stub."""
    if isinstance(value, str) and len(value) > _LONG:
        return value[:80] + f"…[{len(value) - 80} characters cut]"
    if isinstance(value, list):
        return [_cut(v) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return value


def shrink(text: str) -> str:
    """A transcript with the long strings of bookkeeping lines (system prompts, request shapes,
    listings) cut; user, assistant and system lines are kept whole."""
    out = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        if isinstance(value, dict) and value.get("type") not in _WHOLE_TYPES:
            value = _cut(value)
        out.append(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claude", required=True, help="the claude binary (node_modules/.bin/claude)")
    parser.add_argument("--out", required=True, help="folder for the anonymised transcripts")
    parser.add_argument("--keep", help="keep the scratch folder here instead of a temporary one")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--memtui", help="a memtui command (its console script): before the sessions "
                        "it takes its first look at the memory folder and installs its hooks in the "
                        "scratch HOME's user settings, so the sessions run them")
    args = parser.parse_args(argv)
    work = Path(args.keep or tempfile.mkdtemp(prefix="cc-transcripts-")).resolve()
    home = work / "home"
    proj = home / "proj"
    proj.mkdir(parents=True, exist_ok=True)
    config = home / ".claude"
    mem = config / "projects" / encode(str(proj)) / "memory"
    if mem.exists():
        shutil.rmtree(mem.parent)
    mem.mkdir(parents=True)
    for name, text in MEMORY.items():
        (mem / name).write_text(text, encoding="utf-8")
    env_memtui = {**os.environ, "HOME": str(home), "MEMTUI_CACHE_DIR": str(work / "cache")}
    env_memtui.pop("CLAUDE_CONFIG_DIR", None)
    if args.memtui:
        subprocess.run([args.memtui, "changes", str(mem)], env=env_memtui, check=True,
                       capture_output=True)
        subprocess.run([args.memtui, "hook", "install", "--scope", "user"], env=env_memtui,
                       check=True, capture_output=True, cwd=proj)
    stand = Stand(str(mem), work / "requests.jsonl")
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(stand))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    version = subprocess.run([args.claude, "--version"], capture_output=True, text=True,
                             env={**os.environ, "HOME": str(home)}, check=False).stdout.strip()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TERM": "dumb",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
        "ANTHROPIC_API_KEY": "sk-ant-dummy-key-for-a-loopback-stand-in",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
        "MEMTUI_CACHE_DIR": str(work / "cache"),
    }
    try:
        for name in SCRIPTS:
            prompt = f"SCRIPT:{name} please look at the project memory."
            done = subprocess.run(
                [args.claude, "-p", prompt, "--output-format", "stream-json", "--verbose",
                 "--include-hook-events",
                 "--model", MODEL, "--allowedTools", "Read", "Edit", "Write"],
                cwd=proj, env=env, capture_output=True, text=True, timeout=args.timeout, check=False)
            (work / f"{name}.stream.jsonl").write_text(done.stdout, encoding="utf-8")
            print(f"{name}: exit {done.returncode}; {len(done.stdout.splitlines())} stream lines"
                  + (f"; stderr: {done.stderr.strip()[:300]}" if done.stderr.strip() else ""))
    finally:
        server.shutdown()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    folder = mem.parent
    made = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)
    for i, transcript in enumerate(made, 1):
        text = shrink(anonymise(transcript.read_text(encoding="utf-8"), str(work)))
        (out / f"session{i}.jsonl").write_text(text, encoding="utf-8")
    (out / "memory-before.json").write_text(json.dumps(MEMORY, indent=1) + "\n", encoding="utf-8")
    after = {p.name: p.read_text(encoding="utf-8") for p in sorted(mem.iterdir()) if p.is_file()}
    (out / "memory-after.json").write_text(anonymise(json.dumps(after, indent=1), str(work)) + "\n",
                                           encoding="utf-8")
    (out / "VERSION").write_text(f"{version}\n", encoding="utf-8")
    print(f"{len(made)} transcripts from {version} → {out} (scratch folder {work})")
    if not args.keep:
        shutil.rmtree(work)
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
