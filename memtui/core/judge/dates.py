"""The dates a memory file states for itself — its frontmatter's, its name's, its body's, its
title's — as plain functions of its text (no clock but the one given, no disk, no cache):
what :mod:`memtui.core.judge.ages` orders into a file's age, and what the consolidation scans
compare (the order of the sources is the ages module's docstring).

Dates are compared in UTC: a date is midnight UTC, a naive datetime is read as UTC; unreadable
values are skipped.  Dates the body states are ISO, ``YYYY/MM/DD``, ``YYYY.MM.DD`` or the CJK
``2026年5月12日`` / ``2026년 5월 12일`` forms (:func:`body_dates`).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone
from typing import Iterable, Sequence

from ..model.snapshot import MemoryFile

DATE_KEYS = ("modified", "updated", "date", "created")
CREATION_KEYS = frozenset({"created"})  # a date the note was begun on: a later stated one wins
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
