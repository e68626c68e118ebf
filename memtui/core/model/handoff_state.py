"""What the project's session-state file says about itself (DESIGN §11): the facts
:mod:`memtui.core.read.handoff` reads when a root is loaded, carried on the snapshot."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

HEADINGS = ("Working On", "Modified Files", "Decisions Made", "Gotchas Discovered", "Next Steps",
            "Blocked On")
MAX_LINES = 80
STALE_DAYS = 2


@dataclass(frozen=True)
class HandoffState:
    """What the project's session-state file says about itself, as read at one moment."""

    path: str  # absolute path of the state file
    shown: str  # how findings name it: relative to the root when the project holds the root
    date: date
    date_source: str  # 'handoff-line' | 'mtime'
    since: datetime  # the moment commits are counted from
    age_days: int  # calendar days from ``date`` to the day it was read
    lines: int
    present: tuple[str, ...]  # the six headings it has, in the canonical order
    handoffs: int  # how many '## Handoff:' lines it holds
    repeated: tuple[str, ...]  # canonical headings that occur more than once
    commits_since: int | None  # None when git could not count them

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(h for h in HEADINGS if h not in self.present)

    @property
    def stale(self) -> bool:
        return self.age_days > STALE_DAYS

    @property
    def history(self) -> bool:
        """History appended instead of replaced."""
        return self.handoffs > 1 or bool(self.repeated)

    @property
    def too_long(self) -> bool:
        return self.lines > MAX_LINES or self.history

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "date": self.date.isoformat(),
            "date_source": self.date_source,
            "age_days": self.age_days,
            "lines": self.lines,
            "max_lines": MAX_LINES,
            "headings": list(self.present),
            "missing_headings": list(self.missing),
            "history": self.history,
            "commits_since": self.commits_since,
            "stale": self.stale,
            "too_long": self.too_long,
        }
