"""How old a memory file is (DESIGN §5), and when that cannot be known.

The sources, in order (:func:`file_age`):

1. the frontmatter: ``modified`` (the ISO 8601 timestamp Claude Code writes), ``updated``,
   ``date``, ``created``;
2. a date in the file name (``YYYY-MM-DD``, ``YYYY_MM_DD``, ``YYYYMMDD``; a range
   ``2026-03-18-20`` is its last day);
3. the file's last commit, when the root is inside a git work tree (one ``git log`` for the
   whole root, parsed once);
4. a date the body states for itself (:func:`body_dates`): the writer's ``_Captured:`` line;
   else the newest of a ``Date:`` field, a dated heading anywhere, a line that starts with a date,
   "as of <date>" (also ``2026-03-19現在``, ``기준``), a bold label holding a date — notes that get
   dated sections appended are as new as their newest section, not their first; else a date in
   the ``description``; else the newest date in the first :data:`BODY_LINES` lines; then a
   date in the frontmatter title.  Dates are ISO, ``YYYY/MM/DD``, ``YYYY.MM.DD`` or the CJK
   ``2026年5月12日`` / ``2026년 5월 12일`` forms; a date after the clock is not the note's own;
5. the time of the Claude Code session named by ``originSessionId`` (the last timestamp of its
   transcript ``<config>/projects/<project>/<session>.jsonl``; a folder copied away from its
   transcripts has none);
6. the modification time — **unless the root's modification times carry no age**
   (:func:`copy_burst`): then the age is *unknown*, with the reason.

A creation date (frontmatter ``created``, or the name's) gives way to a later date the body
states in a heading, a field or an "as of" line: the note was begun then and last brought up to
date later.  The clock is always a parameter.  Dates are compared in UTC: a date is midnight UTC,
a naive datetime is read as UTC; a date in the future counts as age 0 (a frontmatter or name
date) or is passed over (a date the body mentions); unreadable values are skipped.

**Copies.**  A clone, a backup, a synced dotfiles repository or a restore writes every file of a
folder within moments, so every modification time is the copy's.  A root's times carry no age
when its memory files hold a *burst*: at least :data:`COPY_MIN_FILES` files written within
:data:`COPY_WINDOW` seconds of the root's oldest time, and at least :data:`COPY_SHARE` of all
its files (files changed after the copy keep their time: a change is a real date); or, for a
root of fewer files, every file — and its ``MEMORY.md`` — written within :data:`SAME_MOMENT`
(an agent or a person writes a topic file and its index line in separate steps, seconds apart;
a copy writes them in one go).  A single file with no index to compare with cannot show a copy:
its time is kept.  The same test on the commits that added the files (and are still their last)
finds an *import* — one commit that added every file: then git dates nothing either.

Why ten minutes and five files: a copy of hundreds of files takes seconds and a slow network
restore a few minutes, while a folder in use gets its files over days of sessions — only a
folder one session old has half its files written within ten minutes, and those are dated anyway
by the ``modified`` stamp or the session transcript Claude Code keeps beside them.  Why one
second for a small root: a copy writes its files within milliseconds, an agent's separate tool
calls are seconds apart.

:func:`stated_date` is the same order without git, sessions or copies: what everything that
orders files by date uses.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Callable, Collection, Mapping

from ..model.snapshot import MemoryFile
from ..roots.discover import git_toplevel, transcripts_folder
from .dates import (
    _UPDATE_TIERS,
    CREATION_KEYS,
    NAME_SOURCE,
    TITLE_SOURCE,
    parse_date,
    pick_body_date,
    title_date,
    to_utc,
)
from .dates import frontmatter_date as frontmatter_date  # the dates a file states: its own module
from .dates import name_date as name_date
from .facets import BODY_DATES

GIT_SOURCE = "git"
SESSION_SOURCE = "session"
MTIME_SOURCE = "mtime"
UNKNOWN = "unknown"  # :attr:`FileAge.source` of an age nothing dates; :attr:`FileAge.reason` says why

COPY_WINDOW = 600.0  # seconds: the files of a copy are written within this of each other
COPY_MIN_FILES = 5  # a burst of fewer files is tested by SAME_MOMENT instead
COPY_SHARE = 0.5  # the burst holds at least this share of the root's files
SAME_MOMENT = 1.0  # seconds: a small root's files and index written within this: one copy


def _declared(memory_file: MemoryFile, now: datetime | None) -> tuple[datetime, str] | None:
    """The frontmatter's date, else the name's: a creation date (``created``, the name's) gives
    way to a later date the body states in a heading, field or "as of" line."""
    found = frontmatter_date(memory_file)
    if found is None:
        named = name_date(memory_file.path)
        found = (named, NAME_SOURCE) if named is not None else None
    if found is None or (found[1] not in CREATION_KEYS and found[1] != NAME_SOURCE):
        return found
    later = pick_body_date(BODY_DATES(memory_file), now, _UPDATE_TIERS)
    return later if later is not None and later[0] > found[0] else found


def _stated(memory_file: MemoryFile, now: datetime | None) -> tuple[datetime, str] | None:
    """A date the body states for itself, else one in its title (None: neither)."""
    stated = pick_body_date(BODY_DATES(memory_file), now)
    if stated is not None:
        return stated
    titled = title_date(memory_file)
    if titled is not None and (now is None or titled <= now):
        return titled, TITLE_SOURCE
    return None


def stated_date(memory_file: MemoryFile) -> tuple[datetime, str]:
    """When a file was last true and where that comes from, without git, sessions or copies:
    frontmatter dates, else a date in its name (either giving way to a later stated update),
    else a date in its body, else one in its frontmatter title, else its modification time."""
    found = _declared(memory_file, None) or _stated(memory_file, None)
    if found is not None:
        return found
    return datetime.fromtimestamp(memory_file.mtime, timezone.utc), MTIME_SOURCE


# ---------------------------------------------------------------- copies: times that carry no age


@dataclass(frozen=True)
class Burst:
    """Times that carry no age: ``paths`` were all written (or last committed) within ``span``
    seconds from ``start``, of ``total`` files; ``what`` is ``written`` (modification times) or
    ``committed`` (last commits)."""

    paths: frozenset[str]
    total: int
    start: float  # seconds since the epoch
    span: float
    what: str = "written"

    @property
    def reason(self) -> str:
        """Why these times say nothing of a file's age, in words."""
        day = datetime.fromtimestamp(self.start, timezone.utc).date().isoformat()
        within = _duration(self.span)
        n = len(self.paths)
        if self.what == "committed":
            who = f"all {n} files" if n == self.total else f"{n} of the {self.total} files"
            return f"{who} were last committed {within} on {day}: an import, not their history"
        if self.total == 1:
            return f"the file and MEMORY.md were written {within} on {day}: a copy"
        who = f"all {n} files" if n == self.total else f"{n} of the {self.total} files"
        return f"{who} were written {within} on {day}: a copy, clone or restore"


def _duration(seconds: float) -> str:
    if seconds < 1.0:
        return "within a second"
    if seconds < 60.0:
        return f"within {math.ceil(seconds)} seconds"
    minutes = math.ceil(seconds / 60.0)
    return "within a minute" if minutes == 1 else f"within {minutes} minutes"


def copy_burst(times: Mapping[str, float], index_time: float | None = None,
               what: str = "written") -> Burst | None:
    """The burst of a root's times (path → seconds since the epoch) that carries no age, or None
    (see the module docstring): at least :data:`COPY_MIN_FILES` files within
    :data:`COPY_WINDOW` of the oldest and at least :data:`COPY_SHARE` of all; else, for a
    smaller root, every file and ``index_time`` (its ``MEMORY.md``) within :data:`SAME_MOMENT`."""
    total = len(times)
    if total == 0:
        return None
    start = min(times.values())
    if total >= COPY_MIN_FILES:
        burst = frozenset(p for p, t in times.items() if t - start <= COPY_WINDOW)
        if len(burst) >= COPY_MIN_FILES and len(burst) >= COPY_SHARE * total:
            span = max(times[p] for p in burst) - start
            return Burst(burst, total, start, span, what)
        return None
    moments = list(times.values())
    if index_time is not None and what == "written":
        moments.append(index_time)
    if len(moments) < 2:
        return None  # a single file, nothing to compare it with: its time is kept
    span = max(moments) - min(moments)
    if span <= SAME_MOMENT:
        return Burst(frozenset(times), total, min(moments), span, what)
    return None


def mtime_burst(files: Mapping[str, MemoryFile], index_time: float | None = None) -> Burst | None:
    """:func:`copy_burst` of the modification times of a root's memory files."""
    return copy_burst({path: f.mtime for path, f in files.items()}, index_time)


def git_burst(dates: Mapping[str, datetime], paths: Collection[str]) -> Burst | None:
    """:func:`copy_burst` of the commits that added a root's memory files (``paths``) and that
    are still their last — files never changed since (:class:`CommitDates`): an import.  A
    commit that changed files committed before is history, whatever it holds."""
    commits = getattr(dates, "commits", None)
    times = {p: dates[p].timestamp() for p in paths
             if p in dates and (commits is None or commits.get(p) == 1)}
    tracked = sum(1 for p in paths if p in dates)
    burst = copy_burst(times, what="committed")
    if burst is None or len(burst.paths) < COPY_SHARE * tracked:
        return None
    return Burst(burst.paths, tracked, burst.start, burst.span, burst.what)


def index_mtime(root: Path) -> float | None:
    """The modification time of a root's ``MEMORY.md`` (None when it cannot be read)."""
    try:
        return os.stat(Path(root) / "MEMORY.md").st_mtime
    except OSError:
        return None


# ---------------------------------------------------------------- git


def git_commit_dates(root: Path) -> CommitDates:
    """Last commit date of every file under ``root`` (root-relative paths), from one ``git log``.

    Empty when the root is not inside a git work tree, or git is missing or fails.
    """
    if git_toplevel(Path(root).absolute()) is None:
        return parse_git_log(b"")
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "-c", "core.quotepath=off", "log", "-z",
             "--format=%x1e%ct", "--name-only", "--relative", "--", "."],
            capture_output=True, timeout=60, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return parse_git_log(b"")
    if done.returncode != 0:
        return parse_git_log(b"")
    return parse_git_log(done.stdout)


def git_log_state(root: Path) -> tuple[object, ...] | None:
    """What :func:`git_commit_dates` of a root answers from, as plain data to compare on a later
    run: the work tree holding it, the commit HEAD names (whose history is then fixed) and the
    shallow and grafts files that cut that history; None when git cannot say (then nothing
    answered from it is kept).  Replace refs and git's configuration are not part of it."""
    top = git_toplevel(Path(root).absolute())
    if top is None:
        return (None,)
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD", "--git-path", "shallow", "--git-path",
             "info/grafts"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    if done.returncode != 0 or len(lines) != 3:
        return None
    cuts: list[bytes | None] = []
    for name in lines[1:]:
        try:
            with open(Path(root) / name, "rb") as handle:
                cuts.append(handle.read())
        except OSError:
            cuts.append(None)
    return (str(top), lines[0], *cuts)


class CommitDates(dict[str, datetime]):
    """The last commit date of each file (a dict), and in how many commits each appears
    (``commits``): a file in one commit only was added then and never changed."""

    commits: dict[str, int]


def parse_git_log(output: bytes) -> CommitDates:
    """Parse ``git log -z --format=%x1e%ct --name-only``: newest commit first, so first seen wins."""
    seconds: dict[str, int] = {}
    commits: dict[str, int] = {}
    for record in output.split(b"\x1e")[1:]:
        head, _, names = record.partition(b"\0")
        try:
            stamp = int(head.strip())
        except ValueError:
            continue
        for raw in names.split(b"\0"):
            name = raw.strip(b"\n").decode("utf-8", "surrogateescape")
            if name:
                commits[name] = commits.get(name, 0) + 1
                if name not in seconds:
                    seconds[name] = stamp
    out = CommitDates((name, datetime.fromtimestamp(s, timezone.utc)) for name, s in seconds.items())
    out.commits = commits
    return out


# ---------------------------------------------------------------- the age


@dataclass(frozen=True)
class FileAge:
    """How old a file is and where that date came from (``modified``/``updated``/``date``/
    ``created``, ``file name``, ``git``, a body source, ``title``, ``session`` or ``mtime``);
    ``unknown`` when nothing dates it: ``when`` is then the moment its time says (a copy's),
    ``days`` the time since (the least it can be), and ``reason`` says why it is unknown."""

    when: datetime
    source: str
    days: float
    reason: str = ""

    @property
    def known(self) -> bool:
        return self.source != UNKNOWN


@dataclass(frozen=True)
class RootTimes:
    """What a root's files say about their times together: the modification-time burst of a copy
    (:func:`mtime_burst`) and the sessions' times (``sessions``: an ``originSessionId`` → the
    last time its transcript records, None when it has no transcript here)."""

    burst: Burst | None = None
    sessions: Callable[[str], datetime | None] | None = None


SESSION_KEY = "originSessionId"


def file_age(memory_file: MemoryFile, now: datetime | date,
             git_dates: Callable[[], Mapping[str, datetime]] | Mapping[str, datetime] | None = None,
             times: RootTimes | None = None,
             git_import: Callable[[], Burst | None] | Burst | None = None) -> FileAge:
    """The age of a file from the sources of the module docstring, in their order.

    ``git_dates`` gives the root's last commits (called at most once, when needed),
    ``git_import`` the burst of those commits that is an import (their dates then say nothing),
    ``times`` the root's copy burst and session times (None: a lone file, its mtime kept)."""
    moment = to_utc(now)
    found = _declared(memory_file, moment)
    if found is not None:
        return _age(found, moment)
    dates = git_dates() if callable(git_dates) else git_dates
    commit = dates.get(memory_file.path) if dates else None
    imported = None
    if commit is not None:
        imported = git_import() if callable(git_import) else git_import
        if imported is None or memory_file.path not in imported.paths:
            return _age((commit, GIT_SOURCE), moment)
    stated = _stated(memory_file, moment)
    if stated is not None:
        return _age(stated, moment)
    session = memory_file.frontmatter.get(SESSION_KEY).strip()
    no_transcript = ""
    if session and times is not None and times.sessions is not None:
        when = times.sessions(session)
        if when is not None:
            return _age((when, SESSION_SOURCE), moment)
        no_transcript = f"session {session[:8]} has no transcript here"
    mtime = datetime.fromtimestamp(memory_file.mtime, timezone.utc)
    burst = times.burst if times is not None else None
    if burst is None or memory_file.path not in burst.paths:
        return _age((mtime, MTIME_SOURCE), moment)
    why = [burst.reason]
    if imported is not None:  # its commit is an import too
        why.append(imported.reason)
    why.append("no date in the file")
    if no_transcript:
        why.append(no_transcript)
    days = max(0.0, (moment - mtime).total_seconds() / 86400.0)
    return FileAge(mtime, UNKNOWN, days, "; ".join(why))


def _age(found: tuple[datetime, str], moment: datetime) -> FileAge:
    when, source = found
    return FileAge(when, source, max(0.0, (moment - when).total_seconds() / 86400.0))


# ---------------------------------------------------------------- the session's time

_SESSION_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_\-]{0,79}$")


@dataclass
class SessionTimes:
    """The time of each Claude Code session a root's files name, from its transcript in the
    root's transcripts folder (``<config>/projects/<project>/<session>.jsonl``, found as
    :func:`memtui.core.roots.discover.transcripts_folder` finds it), each read once (its first and last
    timestamps only: :func:`memtui.core.stores.transcripts.session_span`).  ``consulted`` records what
    was asked and found, to tell a later run whether the answers still hold."""

    root: Path
    folder: Path | None = None
    looked: bool = False
    consulted: dict[str, tuple[int, int] | None] | None = None

    def __call__(self, session: str) -> datetime | None:
        if not _SESSION_ID.match(session):
            return None
        if not self.looked:
            self.folder = transcripts_folder(self.root)
            self.looked = True
            self.consulted = {}
        assert self.consulted is not None
        if self.folder is None:
            return None
        path = self.folder / f"{session}.jsonl"
        key, when = _session_end(path)
        self.consulted[session] = key
        return when

    def state(self) -> tuple[object, ...] | None:
        """What the answers came from (None: no session was asked for)."""
        if not self.looked:
            return None
        return (str(self.folder) if self.folder is not None else None,
                tuple(sorted((self.consulted or {}).items())))


def sessions_hold(root: Path, state: object) -> bool:
    """Whether :meth:`SessionTimes.state` kept by an earlier run is what a run that asks for the
    same sessions finds now (the transcripts folder, and each transcript's stat key)."""
    if type(state) is not tuple or len(state) != 2 or type(state[1]) is not tuple:
        return False
    asked = [item[0] for item in state[1]
             if type(item) is tuple and len(item) == 2 and type(item[0]) is str]
    times = SessionTimes(Path(root))
    for session in asked:
        times(session)
    if not times.looked:
        times.folder, times.looked, times.consulted = transcripts_folder(Path(root)), True, {}
    return times.state() == state


def _session_end(path: Path) -> tuple[tuple[int, int] | None, datetime | None]:
    """A transcript's stat key and its last timestamp (None, None when it is not there)."""
    try:
        st = os.stat(path)
    except OSError:
        return None, None
    key = (st.st_size, st.st_mtime_ns)
    from ..stores.transcripts import session_span  # a hook scoring ages without sessions never loads it

    span = session_span(path)
    if span is None:
        return key, None
    when = parse_date(span[1])
    if when is None:
        return key, None
    return key, when


