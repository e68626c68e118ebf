"""Shared helpers of the tests: the corpora (skipped when absent), a memory-root builder's type,
topic-file text and the demo copied with fixed modification times.

Tests import them from here (``from tests.support.roots import topic``); ``tests/conftest.py``
holds only pytest's hooks and fixtures.
"""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import pytest

CORPORA = Path(
    os.environ.get("MEMTUI_CORPORA", Path(__file__).resolve().parents[2].parent / "shared" / "corpora")
)


def corpus_roots() -> list[Path]:
    """Every memory root under the shared corpora ([] when the folder is absent)."""
    if not CORPORA.is_dir():
        return []
    from memtui.core.roots.discover import roots_under

    return roots_under(CORPORA)


def corpus(name: str) -> Path:
    """One corpus folder by name; skips the test when the corpora are absent."""
    path = CORPORA / name
    if not path.is_dir():
        pytest.skip(f"corpus {name} not available at {CORPORA}")
    return path


MakeRoot = Callable[..., Path]


def topic(name: str, description: str = "a fact", type_: str = "project", body: str = "Body.\n",
          **extra: str) -> str:
    """A topic file's text with flat frontmatter."""
    lines = ["---", f"name: {name}", f"description: {description}", f"type: {type_}"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n---\n\n" + body


#: every file of a copied fixture gets this modification time, so mtime-based ages are stable
FIXED_MTIME = datetime(2026, 11, 1, tzinfo=timezone.utc).timestamp()


def freeze_mtimes(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, (FIXED_MTIME, FIXED_MTIME))


def copy_demo_to(root: Path) -> Path:
    """The bundled demo memory folder copied to ``root``, every mtime fixed."""
    from memtui.core.read.demo import demo_source

    shutil.copytree(demo_source(), root, ignore=shutil.ignore_patterns("__pycache__"))
    freeze_mtimes(root)
    return root
