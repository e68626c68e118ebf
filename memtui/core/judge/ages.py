"""How old a memory file is (DESIGN §5): frontmatter ``modified`` (the ISO 8601 timestamp Claude
Code writes) / ``updated`` / ``date`` / ``created``, else a ``YYYY-MM-DD`` date in the file name,
else a date the body states (:func:`body_date`), else one in its title (:func:`title_date`), else
the file's last commit (one ``git log`` for the whole root, parsed once), else its modification
time.  :func:`stated_date` is the same order
without git: what everything that orders files by date uses.

The clock is always a parameter.  Dates are compared in UTC: a date is midnight UTC, a naive
datetime is read as UTC; a date in the future counts as age 0; unreadable values are skipped.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Callable, Mapping

from ..model.snapshot import MemoryFile
from ..roots.discover import git_toplevel
from ..stores.statcache import cached

DATE_KEYS = ("modified", "updated", "date", "created")
NAME_SOURCE = "file name"
TITLE_SOURCE = "title"


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
    r"(?<!\d)(\d{4})([-_])(\d{2})\2(\d{2})(?!\d)|(?<!\d)(20\d{2})(\d{2})(\d{2})(?!\d)"
)


def name_date(path: str) -> datetime | None:
    """The first valid ``YYYY-MM-DD`` (also ``YYYY_MM_DD``, ``YYYYMMDD``) date in a file's name,
    midnight UTC."""
    name = path.rsplit("/", 1)[-1]
    for match in _NAME_DATE_RE.finditer(name):
        parts = match.groups()
        year, month, day = (parts[0], parts[2], parts[3]) if parts[0] else parts[4:]
        try:
            return datetime(int(year), int(month), int(day), tzinfo=timezone.utc)
        except ValueError:
            continue
    return None


#: the body's date sources, as :attr:`FileAge.source` names them
BODY_CAPTURED = "body _Captured:_"
BODY_FIELD = "body Date:"
BODY_LEADING = "body leading date"
BODY_HEADING = "body heading date"
BODY_LINES = 10  # the first non-blank body lines a field or a leading date is looked for in

_ISO = r"(\d{4}-\d{2}-\d{2})"
# the writer's own line: ``_Captured: 2026-03-29_`` (also with a time after the date)
_CAPTURED_RE = re.compile(r"^\s*_captured:\s*" + _ISO, re.IGNORECASE)
# a field line whose label is a date: ``Date: …``, ``**Date**: …``, ``- **Date captured**: …``,
# ``Research date: …`` (markup and an emoji before the label allowed)
_FIELD_RE = re.compile(
    r"^[\s>*_#\-+\W]*(?:[a-z]+\s+){0,2}date(?:\s+[a-z]+)?\s*[*_]*\s*:\s*[*_]*\s*" + _ISO,
    re.IGNORECASE,
)
# a line that starts with a date once markup is taken off: ``## 2026-03-16 — D2 unit tests``
_LEADING_RE = re.compile(r"^[\s>*_#\-+—–]*\(?" + _ISO + r"(?!\d)")
# a Markdown heading with a date in its text: ``# Title — 2026-03-29``, ``## Updates (2026-03-25)``
_HEADING_RE = re.compile(r"^ {0,3}#{1,6}\s.*?(?<!\d)" + _ISO + r"(?!\d)")
_HEADING_DATES = re.compile(r"(?<!\d)" + _ISO + r"(?!\d)")
_FENCE = ("```", "~~~")


def _day(text: str) -> datetime | None:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return None
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def body_date(body: str) -> tuple[datetime, str] | None:
    """The date a body states about itself, with its source: the writer's ``_Captured: <date>_``
    line (anywhere), else a ``Date:`` field (``**Date**:``, ``Date captured:`` …) in the first
    :data:`BODY_LINES` non-blank lines, else the latest date that starts one of those lines, else
    the latest date in the text of a heading anywhere in the body (:func:`heading_dates`)."""
    head: list[str] = []
    for line in body.splitlines():
        if "_captured" in line[:40].lower():
            match = _CAPTURED_RE.match(line)
            if match and (day := _day(match[1])) is not None:
                return day, BODY_CAPTURED
        if len(head) < BODY_LINES and line.strip() and line.strip() != "---":
            head.append(line)
    for line in head:
        match = _FIELD_RE.match(line)
        if match and (day := _day(match[1])) is not None:
            return day, BODY_FIELD
    leading = [day for line in head if (match := _LEADING_RE.match(line))
               and (day := _day(match[1])) is not None]
    if leading:
        return max(leading), BODY_LEADING
    headed = heading_dates(body)
    return (max(headed), BODY_HEADING) if headed else None


def heading_dates(body: str) -> list[datetime]:
    """Every valid ``YYYY-MM-DD`` date in the text of a Markdown heading of the body (``# Title —
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
        out.extend(day for text in _HEADING_DATES.findall(line) if (day := _day(text)) is not None)
    return out


def stated_date(memory_file: MemoryFile) -> tuple[datetime, str]:
    """When a file was last true and where that comes from, without git: frontmatter dates, else
    a date in its name, else a date in its body, else a date in its frontmatter title, else its
    modification time."""
    found = frontmatter_date(memory_file)
    if found is not None:
        return found
    named = name_date(memory_file.path)
    if named is not None:
        return named, NAME_SOURCE
    stated = cached_body_date(memory_file)
    if stated is not None:
        return stated
    titled = title_date(memory_file)
    if titled is not None:
        return titled, TITLE_SOURCE
    return datetime.fromtimestamp(memory_file.mtime, timezone.utc), "mtime"


def title_date(memory_file: MemoryFile) -> datetime | None:
    """The latest valid date in a file's frontmatter title (``name: improv renamed to endow
    (2026-05-26)``): the note's own heading, read like one of the body's."""
    title = memory_file.frontmatter.get("name")
    if not title or not _HEADING_DATES.search(title):
        return None
    days = [day for text in _HEADING_DATES.findall(title) if (day := _day(text)) is not None]
    return max(days) if days else None


def cached_body_date(memory_file: MemoryFile) -> tuple[datetime, str] | None:
    """:func:`body_date` of a file's body, kept in the stat cache for files of a cached load."""
    return cached(
        memory_file, "ages/body-date", lambda f: body_date(f.body),
        lambda v: () if v is None else (int(v[0].timestamp()), v[1]),
        lambda p: (datetime.fromtimestamp(p[0], timezone.utc), p[1]) if p else None,
    )


def git_commit_dates(root: Path) -> dict[str, datetime]:
    """Last commit date of every file under ``root`` (root-relative paths), from one ``git log``.

    Empty when the root is not inside a git work tree, or git is missing or fails.
    """
    if git_toplevel(Path(root).absolute()) is None:
        return {}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "-c", "core.quotepath=off", "log", "-z",
             "--format=%x1e%ct", "--name-only", "--relative", "--", "."],
            capture_output=True, timeout=60, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if done.returncode != 0:
        return {}
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


def parse_git_log(output: bytes) -> dict[str, datetime]:
    """Parse ``git log -z --format=%x1e%ct --name-only``: newest commit first, so first seen wins."""
    seconds: dict[str, int] = {}
    for record in output.split(b"\x1e")[1:]:
        head, _, names = record.partition(b"\0")
        try:
            stamp = int(head.strip())
        except ValueError:
            continue
        for raw in names.split(b"\0"):
            name = raw.strip(b"\n").decode("utf-8", "surrogateescape")
            if name and name not in seconds:
                seconds[name] = stamp
    return {name: datetime.fromtimestamp(s, timezone.utc) for name, s in seconds.items()}


@dataclass(frozen=True)
class FileAge:
    """How old a file is and where that date came from (``modified``/``updated``/``date``/
    ``created``, ``file name``, ``git`` or ``mtime``)."""

    when: datetime
    source: str
    days: float


def file_age(memory_file: MemoryFile, now: datetime | date,
             git_dates: Callable[[], Mapping[str, datetime]] | Mapping[str, datetime] | None = None,
             ) -> FileAge:
    """Age from :func:`stated_date`, where the last commit date (when known) comes before the
    modification time."""
    moment = to_utc(now)
    when, source = stated_date(memory_file)
    if source == "mtime":
        dates = git_dates() if callable(git_dates) else git_dates
        commit = dates.get(memory_file.path) if dates else None
        if commit is not None:
            when, source = commit, "git"
    days = max(0.0, (moment - when).total_seconds() / 86400.0)
    return FileAge(when, source, days)
