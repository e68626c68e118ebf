"""The pressure log: ``<root>/.memory-pressure.jsonl``, one line a day the index's budget is at
:data:`~memtui.core.rules.budget.PRESSURE_THRESHOLD` or over — memtui's own bookkeeping, appended through
the writer's lock and safe append, never a memory file."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from .. import write
from ..model.safepath import UnsafePath, read_private_file
from ..model.snapshot import Snapshot
from ..rules.budget import PRESSURE_THRESHOLD, Budget, budget_of

PRESSURE_FILE = ".memory-pressure.jsonl"
PRESSURE_LOCK_TIMEOUT = 0.5  # a sample is skipped rather than wait long for a busy root


def record_pressure(snapshot: Snapshot, today: date | None = None) -> bool:
    """Append today's utilisation to ``.memory-pressure.jsonl`` when ≥ 90%, once per day.

    Returns True when a line was written.  A folder that cannot be written, is busy (another
    memtui holds its lock a moment), or whose log is a symlink or hard link is left alone: the
    line goes through the writer's lock and safe append (:func:`memtui.core.write.append_side_file`).
    """
    if not snapshot.index.exists:
        return False
    return record_budget(snapshot.root, budget_of(snapshot), today)


def record_budget(root: Path | str, budget: Budget, today: date | None = None) -> bool:
    """:func:`record_pressure` for a root whose budget is known already."""
    if budget.utilization < PRESSURE_THRESHOLD:
        return False
    day = (today or date.today()).isoformat()
    if any(sample.get("date") == day for sample in read_pressure(root)):
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
        write.append_side_file(root, PRESSURE_FILE, (json.dumps(record) + "\n").encode("utf-8"),
                         timeout=PRESSURE_LOCK_TIMEOUT)
    except (OSError, write.TxnError):
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
