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
from typing import Callable, Collection, Iterable, Mapping, Sequence

from ..model.snapshot import MemoryFile
from ..roots.discover import git_toplevel
from ..stores.statcache import cached

DATE_KEYS = ("modified", "updated", "date", "created")
CREATION_KEYS = frozenset({"created"})  # a date the note was begun on: a later stated one wins
NAME_SOURCE = "file name"
TITLE_SOURCE = "title"
GIT_SOURCE = "git"
SESSION_SOURCE = "session"
MTIME_SOURCE = "mtime"
UNKNOWN = "unknown"  # :attr:`FileAge.source` of an age nothing dates; :attr:`FileAge.reason` says why

COPY_WINDOW = 600.0  # seconds: the files of a copy are written within this of each other
COPY_MIN_FILES = 5  # a burst of fewer files is tested by SAME_MOMENT instead
COPY_SHARE = 0.5  # the burst holds at least this share of the root's files
SAME_MOMENT = 1.0  # seconds: a small root's files and index written within this: one copy


def to_utc(moment: datetime | date) -> datetime:
    """A date (midnight UTC) or datetime (naive read as UTC) as an aware UTC datetime."""
    if isinstance(moment, datetime):
        if moment.tzinfo is timezone.utc:
            return moment
        if moment.tzinfo is None:
            return moment.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc)
    return datetime(moment.year, moment.month, moment.day, tzinfo=timezone.utc)


_DATE_PREFIX_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_date(value: str) -> datetime | None:
    """An ISO date or datetime from a frontmatter value (quotes allowed); ``None`` for garbage."""
    text = value.strip().strip("\"'").strip()
    if len(text) == 10:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            return None
        return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
    if not _DATE_PREFIX_RE.match(text):
        return None
    if len(text) > 10:
        try:
            return to_utc(datetime.fromisoformat(text.replace(" ", "T", 1)))
        except ValueError:
            pass
    try:
        return to_utc(date.fromisoformat(text[:10]))
    except ValueError:
        return None


def frontmatter_date(memory_file: MemoryFile) -> tuple[datetime, str] | None:
    """The first readable of ``modified``, ``updated``, ``date``, ``created``, with its key."""
    for key in DATE_KEYS:
        value = memory_file.frontmatter.get(key)
        if value:
            when = parse_date(value)
            if when is not None:
                return when, key
    return None


_NAME_DATE_RE = re.compile(
    r"(?<!\d)(\d{4})([-_])(\d{2})\2(\d{2})(?:\2(\d{2}))?(?!\d)"
    r"|(?<!\d)(20\d{2})(\d{2})(\d{2})(?!\d)"
)


def name_date(path: str) -> datetime | None:
    """The first valid ``YYYY-MM-DD`` (also ``YYYY_MM_DD``, ``YYYYMMDD``) date in a file's name,
    midnight UTC; of a range of days (``session_2026-03-18-20``) the last."""
    name = path.rsplit("/", 1)[-1]
    for match in _NAME_DATE_RE.finditer(name):
        parts = match.groups()
        year, month, day = (parts[0], parts[2], parts[3]) if parts[0] else parts[5:]
        try:
            first = datetime(int(year), int(month), int(day), tzinfo=timezone.utc)
        except ValueError:
            continue
        if parts[0] and parts[4] and int(parts[4]) > int(day):
            try:
                return first.replace(day=int(parts[4]))
            except ValueError:
                pass
        return first
    return None


# ---------------------------------------------------------------- the dates a body states

#: the body's date sources, as :attr:`FileAge.source` names them
BODY_CAPTURED = "body _Captured:_"
BODY_FIELD = "body Date:"
BODY_LEADING = "body leading date"
BODY_HEADING = "body heading date"
BODY_AS_OF = "body 'as of'"
BODY_LABEL = "body dated label"
DESCRIPTION_SOURCE = "description"
BODY_FIRST_LINES = "body first lines"
BODY_LINES = 10  # the first non-blank body lines a field or a leading date is looked for in

#: the tiers of :func:`body_dates`: the first that holds a date (not after the clock) decides,
#: and within it the newest date
TIER_CAPTURED, TIER_STATED, TIER_DESCRIPTION, TIER_FIRST_LINES = 0, 1, 2, 3
#: the tiers a creation date gives way to when they are later
_UPDATE_TIERS = frozenset({TIER_CAPTURED, TIER_STATED})

_ISO = r"(\d{4}-\d{2}-\d{2})"
# one date in any of the forms read: ISO; 2026/05/12 and 2026.05.12; 2026年5月12日, 2026년 5월 12일
_ANY_DATE = (r"(?<![\d./])(20\d\d)-(\d\d)-(\d\d)(?!\d)"
             r"|(?<![\d./])(20\d\d)([./])(\d{1,2})\5(\d{1,2})(?![\d.]*\d)"
             r"|(20\d\d)\s?[年년]\s?(\d{1,2})\s?[月월]\s?(\d{1,2})\s?[日일]")
_DATES = re.compile(_ANY_DATE)
# the writer's own line: ``_Captured: 2026-03-29_`` (also with a time after the date)
_CAPTURED_RE = re.compile(r"^\s*_captured:\s*" + _ISO, re.IGNORECASE)
# a field line whose label is a date: ``Date: …``, ``**Date**: …``, ``- **Date captured**: …``,
# ``Research date: …``, ``Last updated: …``, ``日付: …`` (markup and an emoji before the label allowed)
_FIELD_RE = re.compile(
    r"^[\s>*_#\-+\W]*(?:(?:[a-z]+\s+){0,2}(?:date|updated)(?:\s+[a-z]+)?"
    r"|日付|更新日|作成日|날짜|작성일|업데이트|tarih|fecha)\s*[*_]*\s*[:：]\s*[*_]*\s*(?=\S)",
    re.IGNORECASE,
)
# the markup before a date that starts a line: ``## 2026-03-16 — D2 unit tests``
_LEADING_RE = re.compile(r"^[\s>*_#\-+—–|]*[(\[]?")
# a Markdown heading: ``# Title — 2026-03-29``, ``## Updates (2026-03-25)``
_HEADING_RE = re.compile(r"^ {0,3}#{1,6}\s")
# "as of 2026-03-19", "(last updated: 2026-05-07)", "updated 2026-06-12"; 2026-03現在, 2026-06-16 기준
_AS_OF_RE = re.compile(
    r"(?i)(?:\bas of|\blast updated|\bupdated(?: on)?|\bstatus as of|\bcurrent as of)\s*[:(]?\s*"
    r"(?=20\d\d)|(?<=\d)\s?(?:現在|時点|기준|현재)")
# a bold label holding a date at a line's start: ``**상태 업데이트(2026-06-12 P4)**:``
_LABEL_RE = re.compile(r"^[\s>\-+*]*\*\*[^*\n]{0,60}?(?=20\d\d)[^*\n]{0,40}\*\*")
_FENCE = ("```", "~~~")


def _day(text: str) -> datetime | None:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return None
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def dates_in(text: str) -> list[datetime]:
    """Every valid date of :data:`_ANY_DATE`'s forms in a text, in order."""
    out = []
    for match in _DATES.finditer(text):
        groups = match.groups()
        if groups[0]:
            year, month, day = groups[0:3]
        elif groups[3]:
            year, month, day = groups[3], groups[5], groups[6]
        else:
            year, month, day = groups[7:10]
        try:
            out.append(datetime(int(year), int(month), int(day), tzinfo=timezone.utc))
        except ValueError:
            continue
    return out


#: a date a body states, with its tier (:data:`TIER_STATED` …) and source
BodyDate = tuple[int, datetime, str]


def body_dates(body: str, description: str = "") -> tuple[BodyDate, ...]:
    """Every date a body states for itself, each with its tier and source (see the module
    docstring): the ``_Captured:`` line; the ``Date:`` fields and leading dates of the first
    :data:`BODY_LINES` non-blank lines, the dated headings, "as of" phrases and dated bold
    labels anywhere (not inside fenced code); the dates of the ``description``; the dates in
    the text of the first lines."""
    out: list[BodyDate] = []
    head = 0
    fenced = False
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            fenced = not fenced
            continue
        if fenced or not stripped or stripped == "---":
            continue
        if "_captured" in line[:40].lower():
            match = _CAPTURED_RE.match(line)
            if match and (day := _day(match[1])) is not None:
                out.append((TIER_CAPTURED, day, BODY_CAPTURED))
        head += 1
        in_head = head <= BODY_LINES
        if not in_head and "20" not in line:
            continue
        found = dates_in(line) if "20" in line else []
        if not found:
            continue
        if in_head and _FIELD_RE.match(line) is not None:
            out.append((TIER_STATED, found[0], BODY_FIELD))
        elif in_head and _DATES.match(line, _lead(line)) is not None:
            out.append((TIER_STATED, found[0], BODY_LEADING))
        if _HEADING_RE.match(line) is not None:
            out.extend((TIER_STATED, day, BODY_HEADING) for day in found)
        elif _LABEL_RE.match(line) is not None:
            out.append((TIER_STATED, found[0], BODY_LABEL))
        as_of = _AS_OF_RE.search(line)
        if as_of is not None:
            near = dates_in(line[max(0, as_of.start() - 16):as_of.end() + 24])
            out.extend((TIER_STATED, day, BODY_AS_OF) for day in near[:1])
        if in_head:
            out.extend((TIER_FIRST_LINES, day, BODY_FIRST_LINES) for day in found)
    if description and "20" in description:
        out.extend((TIER_DESCRIPTION, day, DESCRIPTION_SOURCE) for day in dates_in(description))
    return tuple(out)


def _lead(line: str) -> int:
    """Where a line's text starts once the markup before a date is taken off."""
    lead = _LEADING_RE.match(line)
    return lead.end() if lead is not None else 0


def pick_body_date(found: Sequence[BodyDate], now: datetime | None = None,
                   tiers: Iterable[int] | None = None) -> tuple[datetime, str] | None:
    """The date a body states for itself: the newest date of the first tier that has one (not
    after ``now`` when given; only ``tiers`` when given), with its source."""
    allowed = None if tiers is None else frozenset(tiers)
    best: dict[int, tuple[datetime, str]] = {}
    for tier, day, source in found:
        if (allowed is not None and tier not in allowed) or (now is not None and day > now):
            continue
        held = best.get(tier)
        if held is None or day > held[0]:
            best[tier] = (day, source)
    return best[min(best)] if best else None


def body_date(body: str, description: str = "") -> tuple[datetime, str] | None:
    """:func:`pick_body_date` of :func:`body_dates` (no clock): the date a body states for
    itself, with its source, or None."""
    return pick_body_date(body_dates(body, description))


def heading_dates(body: str) -> list[datetime]:
    """Every valid date in the text of a Markdown heading of the body (``# Title —
    2026-03-29``, ``## Updates (2026-03-25)``, ``### 1. Sweep (DONE 2026-05-27)``), anywhere in
    it; lines inside fenced code blocks are not headings."""
    out: list[datetime] = []
    fenced = False
    for line in body.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(_FENCE):
            fenced = not fenced
            continue
        if fenced or not stripped.startswith("#") or _HEADING_RE.match(line) is None:
            continue
        out.extend(dates_in(line))
    return out


def title_date(memory_file: MemoryFile) -> datetime | None:
    """The latest valid date in a file's frontmatter title (``name: improv renamed to endow
    (2026-05-26)``): the note's own heading, read like one of the body's."""
    title = memory_file.frontmatter.get("name")
    if not title or "20" not in title:
        return None
    days = dates_in(title)
    return max(days) if days else None


def cached_body_dates(memory_file: MemoryFile) -> tuple[BodyDate, ...]:
    """:func:`body_dates` of a file (body and description), kept in the stat cache for files of
    a cached load."""
    return cached(
        memory_file, "ages/body-dates",
        lambda f: body_dates(f.body, f.frontmatter.get("description")),
        lambda v: tuple((tier, int(day.timestamp()), source) for tier, day, source in v),
        lambda p: tuple((int(tier), datetime.fromtimestamp(int(s), timezone.utc), str(source))
                        for tier, s, source in p),
    )


def cached_body_date(memory_file: MemoryFile) -> tuple[datetime, str] | None:
    """:func:`body_date` of a file, from :func:`cached_body_dates`."""
    return pick_body_date(cached_body_dates(memory_file))


def _declared(memory_file: MemoryFile, now: datetime | None) -> tuple[datetime, str] | None:
    """The frontmatter's date, else the name's: a creation date (``created``, the name's) gives
    way to a later date the body states in a heading, field or "as of" line."""
    found = frontmatter_date(memory_file)
    if found is None:
        named = name_date(memory_file.path)
        found = (named, NAME_SOURCE) if named is not None else None
    if found is None or (found[1] not in CREATION_KEYS and found[1] != NAME_SOURCE):
        return found
    later = pick_body_date(cached_body_dates(memory_file), now, _UPDATE_TIERS)
    return later if later is not None and later[0] > found[0] else found


def _stated(memory_file: MemoryFile, now: datetime | None) -> tuple[datetime, str] | None:
    """A date the body states for itself, else one in its title (None: neither)."""
    stated = pick_body_date(cached_body_dates(memory_file), now)
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
    :func:`memtui.core.judge.usage.transcripts_folder` finds it), each read once (its first and last
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
            from .usage import transcripts_folder

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
        from .usage import transcripts_folder

        times.folder, times.looked, times.consulted = transcripts_folder(Path(root)), True, {}
    return times.state() == state


def _session_end(path: Path) -> tuple[tuple[int, int] | None, datetime | None]:
    """A transcript's stat key and its last timestamp (None, None when it is not there)."""
    from ..stores.transcripts import session_span

    try:
        st = os.stat(path)
    except OSError:
        return None, None
    key = (st.st_size, st.st_mtime_ns)
    span = session_span(path)
    if span is None:
        return key, None
    when = parse_date(span[1])
    if when is None:
        return key, None
    return key, when


