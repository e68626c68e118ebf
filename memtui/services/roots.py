"""A quick summary of a root for the root picker: files and budget use, without a full load."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memtui.core.model.index import parse_index
from memtui.core.model.snapshot import INDEX_NAME, BudgetConfig, Index
from memtui.core.model.walk import memory_entries
from memtui.core.rules.budget import measure

_INDEX_NAMES = ("memory.md", "memory-archive.md")


@dataclass(frozen=True)
class RootSummary:
    files: int
    lines: int
    max_lines: int
    bytes: int
    max_bytes: int
    utilization: float
    errors: int | None = None  # the validator's errors, once counted (a full read: later)


def count_memory_files(root: Path) -> int:
    """Markdown files under a root, skipping dot-folders and nested roots (as the loader does)."""
    return sum(1 for rel, _ in memory_entries(root) if rel.lower() not in _INDEX_NAMES)


def summarize(root: Path, config: BudgetConfig = BudgetConfig()) -> RootSummary:
    try:
        data = (root / INDEX_NAME).read_bytes()
        index = parse_index(data, INDEX_NAME)
    except OSError:
        index = Index(INDEX_NAME, False)
    budget = measure(index, config)
    return RootSummary(count_memory_files(root), budget.lines, budget.max_lines, budget.bytes,
                       budget.max_bytes, budget.utilization)


def count_errors(root: Path, config: BudgetConfig = BudgetConfig()) -> int | None:
    """How many errors the validator finds in a root (None when it cannot be read)."""
    from memtui.core.read.store import RootError, load_root
    from memtui.core.rules.validate import errors, validate

    try:
        return len(errors(validate(load_root(root, config))))
    except (OSError, RootError):
        return None
