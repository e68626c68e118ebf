"""Claude Code's hook calls made in-process: JSON on stdin, exit code and output back."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from memtui.cli.hook import run_hook


def call(event: str, payload: Any, env: dict[str, str], *flags: str) -> tuple[int, str, str]:
    """Run one hook in-process the way Claude Code runs it: JSON on stdin → (exit, stdout, stderr)."""
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    out, err = io.StringIO(), io.StringIO()
    code = run_hook(event, "--ask" in flags, io.BytesIO(raw), out, err, env)
    return code, out.getvalue(), err.getvalue()


def pre(tool: str, file_path: Path | str, cwd: Path, **tool_input: Any) -> dict[str, Any]:
    return {
        "session_id": "3f0c", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
        "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": tool,
        "tool_use_id": "toolu_01", "tool_input": {"file_path": str(file_path), **tool_input},
    }
