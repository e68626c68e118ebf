"""The "read" column and the ``read:`` facet of the Staleness and Files views (DESIGN §12).

The column (shown once there are sessions to count) shows how many of the last M Claude Code
sessions read the file (``4/20``), or ``dead`` (indexed, never read) and ``miss`` (read, but no
index reaches it); blank until the transcripts are read or when there are none.  The facet
``read:dead``, ``read:recent`` (read in the last 14 days), ``read:active``, ``read:missing`` or
``read:never`` keeps the matching files.
"""

from __future__ import annotations

from datetime import datetime

from memtui.core.judge.usage import Usage

READ_VALUES = ("dead", "recent", "active", "missing", "never")
READ_WIDTH = 5


def shows_reads(usage: Usage | None) -> bool:
    """Whether the read column is shown: only once there are sessions to count (no empty
    column for a folder Claude Code never used)."""
    return usage is not None and usage.total_sessions > 0


def read_label(usage: Usage | None, path: str) -> tuple[str, str]:
    """The column's text for a file and its role (a colour with a word, never colour alone)."""
    if usage is None or usage.total_sessions == 0:
        return "", "muted"
    status = usage.status(path)
    if status == "dead":
        return "dead", "warn"
    if status == "missing":
        return "miss", "accent"
    use = usage.of(path)
    count = use.read_in if use is not None else 0
    return f"{count}/{usage.sessions}", "ok" if count else "muted"


def matches_read(usage: Usage | None, path: str, value: str, now: datetime | None = None) -> bool:
    """Whether a file matches ``read:<value>`` (a prefix of one of :data:`READ_VALUES`)."""
    if usage is None or usage.total_sessions == 0:
        return False
    for known in READ_VALUES:
        if not known.startswith(value):
            continue
        if known == "dead" and usage.status(path) == "dead":
            return True
        if known == "missing" and usage.status(path) == "missing":
            return True
        if known == "recent" and usage.read_recently(path, now):
            return True
        use = usage.of(path)
        if known == "active" and use is not None and use.read_in:
            return True
        if known == "never" and (use is None or not use.read_in):
            return True
    return False


def read_header(usage: Usage | None) -> str:
    """`` · read: of the last M sessions`` for a view's header, or "" while there are none (the
    same before the transcripts are read as after finding none, so nothing flickers)."""
    if usage is None or usage.total_sessions == 0:
        return ""
    return f" · read: of the last {usage.sessions} sessions"
