"""The loader's budget: where it cuts ``MEMORY.md``, what falls past, and pressure sampling.

The loader profile (DESIGN §1.7) decides what is measured: under ``claude-code`` the index's
frontmatter and block-level HTML comments (CommonMark HTML blocks of type 2: a line starting,
after at most three spaces, with ``<!--``, through the line holding ``-->``; never inside a code
fence) are stripped first, then the first 200 lines / 25,000 bytes of what is left load; under
``raw`` the file is measured as it is.  Line numbers stay those of the file.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Sequence

from .model import (
    CLAUDE_CODE_LOADER,
    LOADERS,
    RAW_LOADER,
    BudgetConfig,
    Index,
    IndexLine,
    LineKind,
    Snapshot,
    encode_text,
)
from .write.safepath import UnsafePath, read_private_file

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
    loader: str = RAW_LOADER  # the profile measured
    stripped: tuple[int, ...] = ()  # line numbers the profile strips before counting
    file_lines: int = 0  # the file as it is on disk
    file_bytes: int = 0

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
            "loader": self.loader,
            "stripped_lines": len(self.stripped),
            "file_lines": self.file_lines,
            "file_bytes": self.file_bytes,
        }


def line_sizes(index: Index) -> list[int]:
    """Byte size of each line including its ending (the BOM counts toward line 1)."""
    sizes = [len(line.raw) + len(line.ending) if line.raw.isascii()
             else len(encode_text(line.raw + line.ending)) for line in index.lines]
    if index.bom and sizes:
        sizes[0] += 3
    return sizes


_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_COMMENT_OPEN = re.compile(r"^ {0,3}<!--")


def stripped_lines(raws: Sequence[str], loader: str) -> frozenset[int]:
    """0-based indexes of the lines a loader profile strips before it counts (none for raw)."""
    if loader == RAW_LOADER:
        return frozenset()
    out: set[int] = set()
    n = len(raws)
    if n and raws[0].rstrip() == "---":
        for k in range(1, n):
            if raws[k].rstrip() == "---":
                out.update(range(k + 1))
                break
    fence = ""
    in_comment = False
    for k in range(len(out), n):
        raw = raws[k]
        if in_comment:
            out.add(k)
            in_comment = "-->" not in raw
            continue
        opened = _FENCE.match(raw)
        if fence:
            if opened and opened.group(1) == fence:
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        comment = _COMMENT_OPEN.match(raw)
        if comment:
            out.add(k)
            in_comment = "-->" not in raw[comment.end() :]
    return frozenset(out)


_LAST_MEASURED: list[tuple[Index, BudgetConfig, Budget]] = []


def measure(index: Index, config: BudgetConfig) -> Budget:
    """Lines, bytes and the loader's cut for an index under the given caps and profile (the
    last answer is kept: one validation measures the same index several times)."""
    last = _LAST_MEASURED[0] if _LAST_MEASURED else None
    if last is not None and last[0] is index and last[1] == config:
        return last[2]
    budget = _measure(index, config)
    _LAST_MEASURED[:] = [(index, config, budget)]
    return budget


def _measure(index: Index, config: BudgetConfig) -> Budget:
    if not index.exists:
        return Budget(0, config.max_lines, 0, config.max_bytes, None, 0, config.loader)
    sizes = line_sizes(index)
    file_bytes = sum(sizes) + (3 if index.bom and not sizes else 0)
    strip = stripped_lines([line.raw for line in index.lines], config.loader)
    kept = [(k + 1, size) for k, size in enumerate(sizes) if k not in strip]
    total = sum(size for _, size in kept) + (3 if index.bom and not sizes else 0)
    cut: int | None = None
    count = loaded = 0
    for number, size in kept:
        if count + 1 > config.max_lines or loaded + size > config.max_bytes:
            cut = number
            break
        count += 1
        loaded += size
    return Budget(
        len(kept), config.max_lines, total, config.max_bytes, cut, loaded, config.loader,
        tuple(k + 1 for k in sorted(strip)), len(sizes), file_bytes,
    )


def loaded_lines(index: Index, budget: Budget) -> tuple[IndexLine, ...]:
    """The index lines the loader takes, in order (stripped lines and the cut left out)."""
    stripped = set(budget.stripped)
    end = budget.cut_line if budget.cut_line is not None else len(index.lines) + 1
    return tuple(line for line in index.lines[: end - 1] if line.number not in stripped)


def configured_loader(env: dict[str, str] | None = None) -> str:
    """The default loader profile: ``$MEMTUI_LOADER``, else ``loader`` in the user's
    ``$XDG_CONFIG_HOME/memtui/config.json`` (``~/.config``), else ``claude-code``.

    A value that is not a known profile raises ValueError naming where it came from.
    """
    env = dict(os.environ) if env is None else env
    value = env.get("MEMTUI_LOADER", "").strip()
    where = "MEMTUI_LOADER"
    if not value:
        base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME", "~")).expanduser() / ".config")
        path = base / "memtui" / "config.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return CLAUDE_CODE_LOADER
        value = str(data.get("loader", "")).strip() if isinstance(data, dict) else ""
        where = str(path)
        if not value:
            return CLAUDE_CODE_LOADER
    if value not in LOADERS:
        raise ValueError(f"{where}: loader '{value}' is not one of {', '.join(LOADERS)}")
    return value


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
    """Exactly the bytes the loader takes from ``MEMORY.md`` (after the profile's stripping)."""
    return index_loaded_text(snapshot.index, budget_of(snapshot))


def index_loaded_text(index: Index, budget: Budget) -> bytes:
    """The bytes of :func:`loaded_lines` (with the BOM when line 1 loads)."""
    lines = loaded_lines(index, budget)
    data = encode_text("".join(line.raw + line.ending for line in lines))
    if index.bom and lines and lines[0].number == 1:
        data = b"\xef\xbb\xbf" + data
    return data


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
    from .write import TxnError, append_side_file  # the writer's gate imports this module

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
        append_side_file(root, PRESSURE_FILE, (json.dumps(record) + "\n").encode("utf-8"),
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
