"""What the author says of a file in its index entry: ``— SUPERSEDED by unified rules below``.

An author who replaces a note often says so where they read it, in ``MEMORY.md``, rather than in
the file's frontmatter::

    - [Cover letter quality](feedback_cover_letter_quality.md) — SUPERSEDED by unified rules below.
    - [Unified resume/CL rules](feedback_resume_cover_letter_quality_2026-03-26.md) — all rules consolidated

That is the author's own word, as exact as ``superseded_by:``.  :func:`index_marks` finds such
entries and, when the words after "superseded by" name another entry, that entry's file: a file
named or linked there; else the nearest entry in the direction they give ("below", "above"),
whose title and file name hold every word of the phrase (``synthesis below`` → the next entry
titled "skill-recon SYNTHESIS + roll-in plan"); "below" alone is the next entry.

The word must read as a status: ``SUPERSEDED`` in capitals, "superseded by", or the start of the
hook — not ``superseded_by`` or prose about supersession — and not after "not"/"never".  A mark
after "partial"/"partly" says the file is only partly replaced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import IndexLine, LineKind, Snapshot, in_team

_MARK = re.compile(r"(?<![\w-])superseded(?![\w-])", re.IGNORECASE)
_BY = re.compile(r"\s*(?:by|:|→|->)\s*", re.IGNORECASE)
_PHRASE_END = re.compile(r"[.;!?\]\n]|\s[—–]\s|$")
_WORD = re.compile(r"[a-z0-9]+")
_FILE = re.compile(r"\(([^()\s]+\.md)\)|`([^`\s]+\.md)`|(?<![\w/.-])([\w./-]+\.md)(?![\w-])")
_NEGATED = re.compile(r"(?:\bnot|\bnever|\bno longer|\bisn't|\bwasn't)\s+(?:\w+\s+)?$", re.IGNORECASE)
_PARTIAL = re.compile(r"\b(?:partial|partially|partly|in part)\b\W*(?:\w+\W+)?$", re.IGNORECASE)
#: words of a phrase that say where, not what
_PLACE = frozenset({"the", "a", "an", "by", "below", "above", "see", "entry", "this", "that", "its",
                    "new", "newer", "later", "one", "in", "of", "and"})


@dataclass(frozen=True)
class IndexMark:
    """An index entry whose author marked its file superseded."""

    path: str  # the file the entry points at
    line: int  # the entry's line number in MEMORY.md
    words: str  # the mark as written ("SUPERSEDED by unified rules below")
    successor: str | None  # the file the words name, when they name one
    partial: bool = False  # "PARTIAL - superseded by …": only partly replaced
    why: str = ""  # how the successor was found


def index_marks(snapshot: Snapshot) -> list[IndexMark]:
    """Each live, unpinned file an entry of ``MEMORY.md`` marks superseded (outside path scopes,
    archive/ and team memory; a file whose frontmatter already says so is left to it)."""
    index = snapshot.index
    entries = [line for line in index.lines
               if line.kind is LineKind.ENTRY and not line.scope and line.resolved in snapshot.files]
    out: list[IndexMark] = []
    for at, line in enumerate(entries):
        path = line.resolved
        assert path is not None
        f = snapshot.files[path]
        if (f.archived or f.pinned or path.startswith("archive/") or in_team(path)
                or f.status == "superseded" or f.frontmatter.names("superseded_by")):
            continue
        text = line.raw.replace(f"({line.target})", " ", 1) if line.target else line.raw
        found = _status(text, line.hook)
        if found is None:
            continue
        start, mark_end, end, partial = found
        successor, why = _successor(snapshot, entries, at, text[mark_end:end])
        out.append(IndexMark(path, line.number, text[start:end].strip(), successor, partial, why))
    return out


def _status(text: str, hook: str) -> tuple[int, int, int, bool] | None:
    """Where the entry's text marks its file superseded (the start of the mark, the end of the
    word, the end of the phrase after it, and whether only partly); None when it does not."""
    for match in _MARK.finditer(text):
        before = text[: match.start()]
        if _NEGATED.search(before):
            continue
        by = _BY.match(text, match.end())
        says_by = by is not None and by.group().strip().lower() in {"by", "→", "->"}
        leads = hook.lstrip(" ([").lower().startswith("superseded")
        if not (match.group().isupper() or says_by or leads):
            continue
        end = _PHRASE_END.search(text, by.end() if by else match.end())
        partly = _PARTIAL.search(before)  # quoted from "PARTIAL" on
        return (partly.start() if partly else match.start(), match.end(), end.start() if end else len(text),
                partly is not None)
    return None


def _successor(snapshot: Snapshot, entries: list[IndexLine], at: int, phrase: str) -> tuple[str | None, str]:
    """The file the words after the mark name, and how: a file named there, or the entry they
    describe.  Only "by" (or an arrow) names one: "SUPERSEDED: v1 collapsed" is a status."""
    by = _BY.match(phrase)
    if by is None or by.group().strip().lower() not in {"by", "→", "->"}:
        return None, ""
    phrase = phrase[by.end():]
    own = entries[at].resolved
    for groups in _FILE.findall(phrase):
        name = next(g for g in groups if g)
        for path in (name, *(p for p in snapshot.files if p.rpartition("/")[2] == name)):
            if path in snapshot.files and path != own:
                return path, f"the mark names {name}"
    lower = phrase.lower()
    wanted = [w for w in _WORD.findall(lower) if w not in _PLACE]
    below, above = bool(re.search(r"\bbelow\b", lower)), bool(re.search(r"\babove\b", lower))
    after = list(range(at + 1, len(entries)))
    before = list(range(at - 1, -1, -1))
    order = after if below and not above else before if above and not below else after + before
    if not wanted:
        if (below or above) and order and entries[order[0]].resolved != own:
            where = "below" if order is after else "above"
            return entries[order[0]].resolved, f"the entry {where} it (line {entries[order[0]].number})"
        return None, ""
    for k in order:
        line = entries[k]
        if line.resolved == own:
            continue
        held = set(_WORD.findall(f"{line.title} {line.link_text} {line.resolved}".lower()))
        if all(w in held for w in wanted):
            return line.resolved, (f"the entry on line {line.number}, whose title holds "
                                   f"{', '.join(dict.fromkeys(wanted))}")
    return None, ""
