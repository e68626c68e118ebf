"""Shared fixtures: the real-world corpora (skipped when absent) and a root builder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pytest

CORPORA = Path(
    os.environ.get("MEMTUI_CORPORA", Path(__file__).resolve().parents[1].parent / "shared" / "corpora")
)


def corpus_roots() -> list[Path]:
    """Every memory root under the shared corpora ([] when the folder is absent)."""
    if not CORPORA.is_dir():
        return []
    from memtui.core.discover import roots_under

    return roots_under(CORPORA)


def corpus(name: str) -> Path:
    """One corpus folder by name; skips the test when the corpora are absent."""
    path = CORPORA / name
    if not path.is_dir():
        pytest.skip(f"corpus {name} not available at {CORPORA}")
    return path


@pytest.fixture(autouse=True)
def _no_pressure_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run by tests never append to a folder's pressure log unless a test asks."""
    monkeypatch.setenv("MEMTUI_NO_PRESSURE", "1")


@pytest.fixture
def corpora() -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"corpora not available at {CORPORA}")
    return CORPORA


MakeRoot = Callable[..., Path]


@pytest.fixture
def make_root(tmp_path: Path) -> MakeRoot:
    """Write a memory root: ``make_root({"MEMORY.md": "...", "a.md": "..."})`` → its path.

    Values may be str (written as UTF-8) or bytes.  ``name`` picks a sub-folder of tmp_path.
    """

    def build(files: dict[str, str | bytes], name: str = "root") -> Path:
        root = tmp_path / name
        root.mkdir(parents=True, exist_ok=True)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_bytes(content.encode("utf-8"))
        return root

    return build


def topic(name: str, description: str = "a fact", type_: str = "project", body: str = "Body.\n",
          **extra: str) -> str:
    """A topic file's text with flat frontmatter."""
    lines = ["---", f"name: {name}", f"description: {description}", f"type: {type_}"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n---\n\n" + body
