"""The handoff state (DESIGN §11): the project's ``.claude/session-state.md``, read for its date,
length and headings, and the two warnings it can raise (``state-stale``, ``state-too-long``).

A memory loop replaces this file at every handoff, so it should hold the current state only:
under about 80 lines, under the six headings Working On / Modified Files / Decisions Made /
Gotchas Discovered / Next Steps / Blocked On.  Decisions:

- the project is the one :func:`memtui.core.read.project.find_project` finds for the root (the git
  work tree holding it, or the decoded Claude Code project folder);
- the date is the newest ``## Handoff: YYYY-MM-DD[ HH:MM]`` line, else the file's mtime; age is
  counted in calendar days (local time), and the state is stale when it is more than 2 days old;
- the commits since are counted with one ``git rev-list --count --since`` (from the start of
  the handoff day when the line gives no time);
- "history appended instead of replaced" is more than one ``## Handoff:`` line, or one of the six
  headings occurring twice;
- missing headings are reported in the state (the app's pane, :meth:`HandoffState.to_json`),
  not as a finding: DESIGN §2 has no rule for them.

The facts are read when a root is loaded (:func:`state_for_root`, by the store) and kept on the
snapshot, so the validator stays pure: :func:`handoff_findings` reads only them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timezone
from pathlib import Path

from ..model.handoff_state import HEADINGS as HEADINGS
from ..model.handoff_state import MAX_LINES as MAX_LINES
from ..model.handoff_state import STALE_DAYS as STALE_DAYS
from ..model.handoff_state import HandoffState as HandoffState
from ..model.snapshot import Finding
from .project_find import find_project

STATE_FILE = ".claude/session-state.md"
GIT_TIMEOUT = 10.0

_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_HANDOFF = re.compile(
    r"^#{1,6}\s*Handoff\s*:?\s*(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2})(?::\d{2})?)?", re.IGNORECASE)


def _canonical(title: str) -> str | None:
    key = title.strip().rstrip(":").strip().lower()
    return next((h for h in HEADINGS if h.lower() == key), None)


@dataclass(frozen=True)
class ParsedState:
    """The parts of a state file's text that do not need the disk or git."""

    lines: int
    present: tuple[str, ...]
    repeated: tuple[str, ...]
    handoffs: int
    stamp: datetime | None  # the newest '## Handoff:' moment (naive: local time)


def parse_state(text: str) -> ParsedState:
    """Count lines, headings and ``## Handoff:`` lines of a state file's text (pure)."""
    lines = text.splitlines()
    seen: dict[str, int] = {}
    handoffs = 0
    stamp: datetime | None = None
    for line in lines:
        match = _HANDOFF.match(line)
        if match:
            handoffs += 1
            try:
                day = date.fromisoformat(match.group(1))
                clock = time.fromisoformat(match.group(2).zfill(5)) if match.group(2) else time.min
            except ValueError:
                continue
            moment = datetime.combine(day, clock)
            if stamp is None or moment > stamp:
                stamp = moment
            continue
        heading = _HEADING.match(line)
        if heading:
            name = _canonical(heading.group(1))
            if name is not None:
                seen[name] = seen.get(name, 0) + 1
    present = tuple(h for h in HEADINGS if h in seen)
    repeated = tuple(h for h in HEADINGS if seen.get(h, 0) > 1)
    return ParsedState(len(lines), present, repeated, handoffs, stamp)


def count_commits(project: Path, since: datetime) -> int | None:
    """Commits reachable from HEAD made after ``since`` (one git call); None when git cannot say."""
    import subprocess  # deferred: most roots have no state file, and a hook pays for the import

    try:
        done = subprocess.run(
            ["git", "-C", str(project), "rev-list", "--count", f"--since={since.isoformat()}", "HEAD"],
            capture_output=True, timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        return int(done.stdout.strip() or b"0")
    except ValueError:
        return None


def read_state(project: Path, now: datetime | None = None, shown_from: Path | None = None,
               ) -> HandoffState | None:
    """Read ``<project>/.claude/session-state.md`` (None when there is none, or it is unreadable)."""
    path = Path(project) / STATE_FILE
    try:
        st = os.stat(path)
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            text = handle.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return None
    parsed = parse_state(text)
    moment = (now or datetime.now(timezone.utc)).astimezone()
    if parsed.stamp is not None:
        since = parsed.stamp.astimezone()
        day, source = parsed.stamp.date(), "handoff-line"
    else:
        since = datetime.fromtimestamp(st.st_mtime, timezone.utc).astimezone()
        day, source = since.date(), "mtime"
    shown = str(path)
    if shown_from is not None:
        shown = os.path.relpath(path, shown_from).replace(os.sep, "/")
    return HandoffState(
        path=str(path),
        shown=shown,
        date=day,
        date_source=source,
        since=since,
        age_days=(moment.date() - day).days,
        lines=parsed.lines,
        present=parsed.present,
        handoffs=parsed.handoffs,
        repeated=parsed.repeated,
        commits_since=count_commits(Path(project), since),
    )


def state_for_root(root: Path | str, now: datetime | None = None) -> HandoffState | None:
    """The handoff state of the project a memory root belongs to (None when it has none)."""
    root = Path(root).absolute()
    project = find_project(root)
    if project is None or not (project.path / STATE_FILE).is_file():
        return None
    holds_root = root == project.path or project.path in root.parents
    return read_state(project.path, now, root if holds_root else None)


def handoff_findings(state: HandoffState | None) -> list[Finding]:
    """The ``state-stale`` and ``state-too-long`` warnings of a project's handoff state."""
    if state is None:
        return []
    out: list[Finding] = []
    if state.stale:
        since = ("git could not count the commits since" if state.commits_since is None else
                 f"{state.commits_since} commit{'s' * (state.commits_since != 1)} since")
        where = "its Handoff line" if state.date_source == "handoff-line" else "its modification time"
        out.append(Finding(
            "state-stale", "warning", state.shown, None,
            f"the handoff state is {state.age_days} days old ({state.date.isoformat()}, from "
            f"{where}); {since} — a session resuming from it works from an old picture; "
            "replace it with the current state at the next handoff"))
    if state.too_long:
        problems = []
        if state.lines > MAX_LINES:
            problems.append(f"{state.lines} lines, over ~{MAX_LINES}")
        if state.handoffs > 1:
            problems.append(f"{state.handoffs} '## Handoff:' sections")
        if state.repeated:
            problems.append("repeated headings " + ", ".join(f"'{h}'" for h in state.repeated))
        history = " (history appended instead of replaced)" if state.history else ""
        out.append(Finding(
            "state-too-long", "warning", state.shown, None,
            f"the handoff state has {' and '.join(problems)}{history}; keep only the current "
            "state under the six headings and replace the file at each handoff"))
    return out
