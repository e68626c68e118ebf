"""A quick summary of a root for the root picker: files and budget use, without a full load."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memtui.core.budget import measure
from memtui.core.index import parse_index
from memtui.core.model import INDEX_NAME, BudgetConfig, Index


_INDEX_NAMES = ("memory.md", "memory-archive.md")


@dataclass(frozen=True)
class RootSummary:
    files: int
    lines: int
    max_lines: int
    bytes: int
    max_bytes: int
    utilization: float


def count_memory_files(root: Path) -> int:
    """Markdown files under a root, skipping dot-folders and nested roots (as the loader does)."""
    count = 0
    stack = [str(root)]
    first = True
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        if not first and any(e.name == INDEX_NAME for e in entries):
            continue
        first = False
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.lower().endswith(".md"):
                    if folder == str(root) and entry.name.lower() in _INDEX_NAMES:
                        continue
                    count += 1
            except OSError:
                continue
    return count


def summarize(root: Path, config: BudgetConfig = BudgetConfig()) -> RootSummary:
    try:
        data = (root / INDEX_NAME).read_bytes()
        index = parse_index(data, INDEX_NAME)
    except OSError:
        index = Index(INDEX_NAME, False)
    budget = measure(index, config)
    return RootSummary(count_memory_files(root), budget.lines, budget.max_lines, budget.bytes,
                       budget.max_bytes, budget.utilization)
