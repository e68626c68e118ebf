"""Claude Code transcripts recorded by a real build (``tests/core/data/transcripts``, see
``tests/core/test_usage.py``) and the memory folder they were recorded against, installed under
a test's home."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "core" / "data" / "transcripts"
RECORDED_ROOT = "/home/user/.claude/projects/-home-user-proj/memory"
S1, S2, S3 = ("1669d64f-792a-4baf-ad62-b3f293be18f5", "fd15f464-5cc2-4836-b6ae-97af12d431c7",
              "7875cf05-da6a-49c6-9e30-73e77111f6cf")


def install_fixtures(home: Path) -> Path:
    """The recorded memory folder and transcripts under ``home``'s Claude config; the root."""
    project = home / "proj"
    encoded = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(project))
    folder = home / ".claude" / "projects" / encoded
    root = folder / "memory"
    root.mkdir(parents=True)
    for name, text in json.loads((DATA / "memory-after.json").read_text(encoding="utf-8")).items():
        (root / name).write_text(text, encoding="utf-8")
    for transcript in sorted(DATA.glob("session*.jsonl")):
        text = transcript.read_text(encoding="utf-8").replace(RECORDED_ROOT, str(root))
        (folder / transcript.name).write_text(text, encoding="utf-8")
    return root
