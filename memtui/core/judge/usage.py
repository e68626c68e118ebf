"""Evidence of use (DESIGN §12): which memory files the agent read, from Claude Code's transcripts.

Per memory file: the sessions that read it (a ``Read`` tool call on its path, a Bash command
reading it — ``cat``, ``head``, ``sed -n``, ``grep``…, kind "shell" —, or a memory recall record
naming it; a subagent's reads count as its session's), when it was last read, and in how many of
the last ``window`` sessions.  Per root, four kinds of evidence over the last ``window`` sessions:

- **active** — a memory file read at least once;
- **dead** — a file with a direct ``MEMORY.md`` entry that no session read;
- **missing** — a file read that no index reaches (no entry, archive entry, region or mention);
- **hallucinated** — a read of a path in the root answered "does not exist", still absent now
  (a pointer followed to a file that is not there; the index line naming it is given).

Evidence is a fact shown beside staleness, never a score: with no transcripts nothing is dead.
:func:`evidence` is pure (a snapshot and sessions in, a :class:`Usage` out); :func:`usage_of`
is the edge that finds the root's transcripts folder and reads it (cached, see
:mod:`memtui.core.stores.transcripts`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from ..model.changeset import is_index
from ..model.snapshot import Snapshot
from ..roots.discover import transcripts_folder as transcripts_folder
from ..rules.validate import reach_of
from ..stores.transcripts import Session, Sessions, load_sessions

WINDOW = 20  # sessions: "read in N of the last M"
RECENT_DAYS = 14  # "read recently": the dream never archives such a file as stale (seed 004)
KINDS = ("active", "dead", "missing", "hallucinated")


@dataclass(frozen=True)
class FileUse:
    """What the transcripts say of one memory file."""

    path: str
    read_in: int = 0  # sessions of the window that read it
    sessions: tuple[str, ...] = ()  # those sessions, newest first
    last_read: str = ""  # ISO 8601, over every transcript ("" never read)
    recalled: int = 0  # sessions of the window whose recall record named it
    writers: tuple[str, ...] = ()  # sessions that wrote it, newest first (any transcript)
    last_written: str = ""
    shell: int = 0  # sessions of the window that read it through the shell (Bash)
    agents: tuple[str, ...] = ()  # subagents that read it in the window
    written_by: tuple[str, ...] = ()  # subagents that wrote it (any transcript)

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "read_in": self.read_in, "sessions": list(self.sessions),
                "last_read": self.last_read or None, "recalled": self.recalled,
                "writers": list(self.writers), "last_written": self.last_written or None,
                "shell": self.shell, "agents": list(self.agents),
                "written_by_agents": list(self.written_by)}


@dataclass(frozen=True)
class Pointer:
    """A read of a path in the root that does not exist (a hallucinated pointer)."""

    path: str
    sessions: tuple[str, ...]  # newest first
    last: str
    line: int | None = None  # the index line pointing at it, if any
    index: str = ""  # which index that line is in

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "sessions": list(self.sessions), "last": self.last or None,
                "index": self.index or None, "line": self.line}


@dataclass(frozen=True)
class Usage:
    """The evidence of use of one root."""

    root: Path
    folder: Path | None  # the transcripts folder read (None: none found)
    window: int
    sessions: int  # sessions in the window (at most ``window``)
    total_sessions: int
    files: Mapping[str, FileUse]  # every memory file of the root
    active: tuple[str, ...] = ()
    dead: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    hallucinated: tuple[Pointer, ...] = ()
    lines: int = 0
    skipped: int = 0  # transcript lines not understood (skipped and counted)
    unreadable: tuple[str, ...] = ()
    note: str = ""
    _dead: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _missing: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    #: the sessions that wrote each index (MEMORY.md, archive/MEMORY.md), newest first
    index_writers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def writers_of(self) -> dict[str, tuple[str, ...]]:
        """The sessions that wrote each path, newest first: memory files and indexes alike (the
        Inbox names a change's writer from it)."""
        out = {p: u.writers for p, u in self.files.items() if u.writers}
        out.update(self.index_writers)
        return out

    def of(self, path: str) -> FileUse | None:
        return self.files.get(path)

    def status(self, path: str) -> str:
        """``dead``, ``missing``, ``active`` or ``""`` (not indexed, not read, or no sessions)."""
        if path in self._dead:
            return "dead"
        if path in self._missing:
            return "missing"
        use = self.files.get(path)
        return "active" if use is not None and use.read_in else ""

    def read_since(self, path: str, since: datetime) -> bool:
        """Whether the file was read at or after ``since``."""
        use = self.files.get(path)
        return use is not None and bool(use.last_read) and _parse(use.last_read) >= since

    def read_recently(self, path: str, now: datetime | date | None = None, days: int = RECENT_DAYS) -> bool:
        """Whether the file was read in the last ``days`` days (the dream's guard)."""
        return self.read_since(path, _as_datetime(now) - timedelta(days=days))

    def recently_read(self, now: datetime | date | None = None, days: int = RECENT_DAYS) -> frozenset[str]:
        """Every file read in the last ``days`` days."""
        since = _as_datetime(now) - timedelta(days=days)
        return frozenset(p for p, u in self.files.items() if u.last_read and _parse(u.last_read) >= since)

    def describe(self, path: str) -> str:
        """One line for people: "read in 4 of the last 20 sessions, last 2026-11-28"."""
        if self.total_sessions == 0:
            return "no Claude Code sessions found for this folder"
        use = self.files.get(path)
        span = f"the last {self.sessions} session{'s' * (self.sessions != 1)}"
        if use is None or not use.last_read:
            text = f"never read in {span}" if self.sessions == self.total_sessions else \
                f"never read in {span} (nor in the {self.total_sessions - self.sessions} before)"
        elif not use.read_in:
            text = f"not read in {span}, last {use.last_read[:10]}"
        else:
            text = f"read in {use.read_in} of {span}, last {use.last_read[:10]}"
        status = self.status(path)
        if status == "dead":
            text += " — indexed but unused"
        elif status == "missing":
            text += " — read, but no index reaches it"
        return text

    def to_json(self, only: str | None = None) -> dict[str, object]:
        files = [u for p, u in sorted(self.files.items()) if only is None or p == only]
        return {
            "root": str(self.root),
            "transcripts": str(self.folder) if self.folder is not None else None,
            "window": self.window,
            "sessions": self.sessions,
            "total_sessions": self.total_sessions,
            "lines": self.lines,
            "skipped_lines": self.skipped,
            "unreadable": list(self.unreadable),
            "files": [{**u.to_json(), "status": self.status(u.path)} for u in files],
            "active": [p for p in self.active if only is None or p == only],
            "dead": [p for p in self.dead if only is None or p == only],
            "missing": [p for p in self.missing if only is None or p == only],
            "hallucinated": [h.to_json() for h in self.hallucinated if only is None or h.path == only],
            "note": self.note or None,
        }


def _parse(stamp: str) -> datetime:
    """An ISO 8601 timestamp as an aware datetime (naive ones are UTC; bad ones the epoch)."""
    try:
        value = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return datetime.fromtimestamp(0, timezone.utc)
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


def _as_datetime(now: datetime | date | None) -> datetime:
    if now is None:
        return datetime.now(timezone.utc)
    if isinstance(now, datetime):
        return now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    return datetime(now.year, now.month, now.day, 23, 59, 59, tzinfo=timezone.utc)


def relative_to_root(path: str, prefixes: Sequence[str], *, indexes: bool = False) -> str | None:
    """A transcript's absolute path as a root-relative memory path, or None when it is outside
    the root, hidden, or (unless ``indexes``) one of the indexes."""
    clean = os.path.normpath(path)
    for prefix in prefixes:
        head = prefix.rstrip(os.sep) + os.sep
        if clean.startswith(head):
            rel = clean[len(head):].replace(os.sep, "/")
            if not rel or any(part.startswith(".") for part in rel.split("/")) or \
                    (is_index(rel) and not indexes):
                return None
            return rel
    return None


_GLOB = frozenset("*?[")


def _rels(path: str, prefixes: Sequence[str], snapshot: Snapshot) -> tuple[str, ...]:
    """The root-relative memory paths a transcript's path names: one, or for a shell glob
    (``grep x /…/memory/*.md``) every file of the root it matches."""
    rel = relative_to_root(path, prefixes, indexes=True)
    if rel is None:
        return ()
    if _GLOB.isdisjoint(rel):
        return (rel,)
    from fnmatch import fnmatchcase

    depth = rel.count("/")
    return tuple(p for p in snapshot.files if p.count("/") == depth and fnmatchcase(p, rel))


def _index_writes(touches: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """Sessions newest first from (when, session) pairs."""
    return tuple(dict.fromkeys(s for _, s in sorted(touches, reverse=True)))


def evidence(snapshot: Snapshot, sessions: Sequence[Session], prefixes: Sequence[str],
             window: int = WINDOW, folder: Path | None = None, lines: int | None = None,
             skipped: int | None = None, unreadable: Sequence[str] = (), note: str = "") -> Usage:
    """The evidence of use of ``snapshot`` from ``sessions`` (oldest first); ``prefixes`` are the
    absolute spellings of the root (as given and its real path)."""
    ordered = list(sessions)
    recent = ordered[-window:] if window > 0 else []
    recent_ids = {id(s) for s in recent}
    reads: dict[str, list[tuple[str, str]]] = {}  # rel -> (when, session) over all sessions
    window_reads: dict[str, list[str]] = {}  # rel -> sessions of the window, oldest first
    recalled: dict[str, int] = {}
    absent: dict[str, list[tuple[str, str]]] = {}
    writes: dict[str, list[tuple[str, str]]] = {}
    shell: dict[str, int] = {}
    agents: dict[str, dict[str, None]] = {}
    agent_writes: dict[str, dict[str, None]] = {}
    index_writes: dict[str, list[tuple[str, str]]] = {}
    cache: dict[str, tuple[str, ...]] = {}
    for session in ordered:
        in_window = id(session) in recent_ids
        seen_read: set[str] = set()
        seen_recall: set[str] = set()
        seen_shell: set[str] = set()
        for touch in session.touches:
            if touch.path not in cache:
                cache[touch.path] = _rels(touch.path, prefixes, snapshot)
            for rel in cache[touch.path]:
                when = touch.last or session.ended
                if is_index(rel):  # an index is no memory file: only who wrote it is kept
                    if touch.kind == "write":
                        index_writes.setdefault(rel, []).append((when, session.session_id))
                    continue
                if touch.kind in ("read", "recall", "shell"):
                    reads.setdefault(rel, []).append((when, session.session_id))
                    if in_window and rel not in seen_read:
                        seen_read.add(rel)
                        window_reads.setdefault(rel, []).append(session.session_id)
                    if touch.kind == "recall" and in_window and rel not in seen_recall:
                        seen_recall.add(rel)
                        recalled[rel] = recalled.get(rel, 0) + 1
                    if touch.kind == "shell" and in_window and rel not in seen_shell:
                        seen_shell.add(rel)
                        shell[rel] = shell.get(rel, 0) + 1
                    if touch.agent and in_window:
                        agents.setdefault(rel, {})[touch.agent] = None
                elif touch.kind == "absent" and in_window:
                    absent.setdefault(rel, []).append((when, session.session_id))
                elif touch.kind == "write":
                    writes.setdefault(rel, []).append((when, session.session_id))
                    if touch.agent:
                        agent_writes.setdefault(rel, {})[touch.agent] = None
    files: dict[str, FileUse] = {}
    for path in snapshot.files:
        got = reads.get(path, [])
        wrote = sorted(writes.get(path, []), reverse=True)
        files[path] = FileUse(
            path, len(window_reads.get(path, [])), tuple(reversed(window_reads.get(path, []))),
            max((w for w, _ in got), default=""), recalled.get(path, 0),
            tuple(dict.fromkeys(s for _, s in wrote)), wrote[0][0] if wrote else "",
            shell.get(path, 0), tuple(agents.get(path, {})), tuple(agent_writes.get(path, {})))
    active = tuple(sorted(p for p, u in files.items() if u.read_in))
    dead: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    if recent:
        reach = reach_of(snapshot)
        dead = tuple(sorted(p for p in reach.direct if p in files and not files[p].read_in
                            and not snapshot.files[p].archived))
        reached = set(reach.direct) | set(reach.archived) | set(reach.region) | set(reach.mention)
        missing = tuple(p for p in active if p not in reached)
    pointers = []
    for rel, got in sorted(absent.items()):
        if rel in snapshot.files:
            continue  # it exists now (written after the failed read)
        line, where = _pointer_line(snapshot, rel)
        got.sort(reverse=True)
        pointers.append(Pointer(rel, tuple(dict.fromkeys(s for _, s in got)), got[0][0], line, where))
    return Usage(
        snapshot.root, folder, window, len(recent), len(ordered), files, active, dead, missing,
        tuple(pointers),
        lines if lines is not None else sum(s.lines for s in ordered),
        skipped if skipped is not None else sum(s.skipped for s in ordered),
        tuple(unreadable), note, frozenset(dead), frozenset(missing),
        {rel: _index_writes(got) for rel, got in index_writes.items()})


def _pointer_line(snapshot: Snapshot, rel: str) -> tuple[int | None, str]:
    """The first index line whose entry or mention points at ``rel``."""
    for index in (snapshot.index, snapshot.archive_index):
        for line in index.lines:
            if line.resolved == rel or any(ref.resolved == rel for ref in line.refs):
                return line.number, index.path
    return None, ""


def consulted_recently(usage: Usage, now: datetime | date | None = None,
                       days: int = RECENT_DAYS) -> dict[str, str]:
    """The dream's guard (seed 004): every file read in the last ``days`` days, with the reason
    to show ("read 2026-11-28, in 3 of the last 20 sessions")."""
    out = {}
    for path in sorted(usage.recently_read(now, days)):
        use = usage.files[path]
        out[path] = (f"read {use.last_read[:10]}, in {use.read_in} of the last {usage.sessions} "
                     f"session{'s' * (usage.sessions != 1)}")
    return out


# ---------------------------------------------------------------- the edge: finding and reading


def usage_of(snapshot: Snapshot, folder: Path | None = None, window: int = WINDOW,
             env: Mapping[str, str] | None = None, home: Path | None = None,
             cwd: Path | None = None) -> Usage:
    """The evidence of use of a root, from its transcripts folder (found when not given)."""
    if folder is None:
        folder = transcripts_folder(snapshot.root, env, home, cwd)
    root = Path(snapshot.root)
    prefixes = list(dict.fromkeys([os.path.abspath(root), os.path.realpath(root)]))
    if folder is None:
        return evidence(snapshot, [], prefixes, window,
                        note="no Claude Code transcripts found for this folder")
    found: Sessions = load_sessions(folder, [root])
    return evidence(snapshot, found.sessions, prefixes, window, folder, found.lines, found.skipped,
                    found.unreadable, "" if found.sessions else "no sessions in the transcripts folder")
