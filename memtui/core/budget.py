"""The loader's budget: where it cuts ``MEMORY.md``, what falls past, and pressure sampling."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from .model import BudgetConfig, Index, IndexLine, LineKind, Snapshot, encode_text
from .safepath import UnsafePath, read_private_file

PRESSURE_FILE = ".memory-pressure.jsonl"
PRESSURE_THRESHOLD = 0.90
PRESSURE_LOCK_TIMEOUT = 0.5  # a sample is skipped rather than wait long for a busy root
FILL_TARGET = 0.80


@dataclass(frozen=True)
class Budget:
    """How much of its budget an index uses, and where the loader cuts it."""

    lines: int
    max_lines: int
    bytes: int
    max_bytes: int
    cut_line: int | None  # first line not loaded (1-based), None when all of it loads
    loaded_bytes: int  # bytes the loader takes

    @property
    def utilization(self) -> float:
        if self.max_lines <= 0 or self.max_bytes <= 0:
            return 0.0
        return max(self.lines / self.max_lines, self.bytes / self.max_bytes)

    @property
    def tokens(self) -> int:
        """Estimated tokens the loaded part costs every session (bytes / 4)."""
        return self.loaded_bytes // 4

    @property
    def over_lines(self) -> bool:
        return self.lines > self.max_lines

    @property
    def over_bytes(self) -> bool:
        return self.bytes > self.max_bytes

    def to_json(self) -> dict[str, object]:
        return {
            "lines": self.lines,
            "max_lines": self.max_lines,
            "bytes": self.bytes,
            "max_bytes": self.max_bytes,
            "utilization": round(self.utilization, 4),
            "tokens": self.tokens,
            "cut_line": self.cut_line,
        }


def line_sizes(index: Index) -> list[int]:
    """Byte size of each line including its ending (the BOM counts toward line 1)."""
    sizes = [len(encode_text(line.raw + line.ending)) for line in index.lines]
    if index.bom and sizes:
        sizes[0] += 3
    return sizes


def measure(index: Index, config: BudgetConfig) -> Budget:
    """Lines, bytes and the loader's cut for an index under the given caps."""
    if not index.exists:
        return Budget(0, config.max_lines, 0, config.max_bytes, None, 0)
    sizes = line_sizes(index)
    total = sum(sizes) + (3 if index.bom and not sizes else 0)
    cut: int | None = None
    loaded = 0
    for number, size in enumerate(sizes, start=1):
        if number > config.max_lines or loaded + size > config.max_bytes:
            cut = number
            break
        loaded += size
    return Budget(len(sizes), config.max_lines, total, config.max_bytes, cut, loaded)


def budget_of(snapshot: Snapshot) -> Budget:
    return measure(snapshot.index, snapshot.config)


def lines_past_cut(index: Index, budget: Budget) -> tuple[IndexLine, ...]:
    if budget.cut_line is None:
        return ()
    return index.lines[budget.cut_line - 1 :]


def entries_past_cut(index: Index, budget: Budget) -> tuple[IndexLine, ...]:
    """Entries and region pointers the loader never reads."""
    return tuple(
        line
        for line in lines_past_cut(index, budget)
        if line.kind in (LineKind.ENTRY, LineKind.REGION)
    )


def loaded_text(snapshot: Snapshot) -> bytes:
    """Exactly the bytes the loader takes from ``MEMORY.md``."""
    return snapshot.index.render()[: budget_of(snapshot).loaded_bytes]


def record_pressure(snapshot: Snapshot, today: date | None = None) -> bool:
    """Append today's utilisation to ``.memory-pressure.jsonl`` when ≥ 90%, once per day.

    Returns True when a line was written.  A folder that cannot be written, is busy (another
    memtui holds its lock a moment), or whose log is a symlink or hard link is left alone: the
    line goes through the writer's lock and safe append (:func:`memtui.core.txn.append_side_file`).
    """
    from .txn import TxnError, append_side_file  # txn imports this module

    budget = budget_of(snapshot)
    if not snapshot.index.exists or budget.utilization < PRESSURE_THRESHOLD:
        return False
    day = (today or date.today()).isoformat()
    if any(sample.get("date") == day for sample in read_pressure(snapshot.root)):
        return False
    record = {
        "date": day,
        "lines": budget.lines,
        "max_lines": budget.max_lines,
        "bytes": budget.bytes,
        "max_bytes": budget.max_bytes,
        "utilization": round(budget.utilization, 2),
    }
    try:
        append_side_file(snapshot.root, PRESSURE_FILE, (json.dumps(record) + "\n").encode("utf-8"),
                         timeout=PRESSURE_LOCK_TIMEOUT)
    except (OSError, TxnError):
        return False
    return True


def read_pressure(root: Path | str) -> list[dict[str, object]]:
    """The pressure history of a root, oldest first; unreadable lines are skipped."""
    try:
        raw = read_private_file(root, PRESSURE_FILE).decode("utf-8", errors="replace")
    except (OSError, UnsafePath):
        return []
    samples: list[dict[str, object]] = []
    for line in raw.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            samples.append(value)
    return samples
