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
from bisect import bisect_right
from dataclasses import dataclass

from .snapshot import IndexLine, LineKind, Snapshot, in_team

_MARK = re.compile(r"(?<![\w-])superseded(?![\w-])", re.IGNORECASE)
_BY = re.compile(r"\s*(?:by|:|→|->)\s*", re.IGNORECASE)
_PHRASE_END = re.compile(r"[.!?](?=\s|$)|[;\]\n]|\s[—–]\s|$")  # a sentence's end, not a name's dot
_WORD = re.compile(r"[a-z0-9]+")
_FILE = re.compile(r"\(([^()\s]+\.md)\)|`([^`\s]+\.md)`|(?<![\w/.-])([\w./-]+\.md)(?![\w-])")
_NEGATED = re.compile(r"(?:\bnot|\bnever|\bno longer|\bisn't|\bwasn't)\s+(?:\w+\s+)?$", re.IGNORECASE)
_PARTIAL = re.compile(r"\b(?:partial|partially|partly|in part)\b\W*(?:\w+\W+)?$", re.IGNORECASE)
#: the entries holding a mark's rarest word looked at each way for its successor: a phrase of
#: words every entry holds names none of them
SCAN = 200
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
    finder = _Finder(entries)
    for at, line in enumerate(entries):
        if "uperseded" not in line.raw and "UPERSEDED" not in line.raw:  # the cheap first test
            continue
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
        successor, why = _successor(snapshot, finder, at, text[mark_end:end])
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


class _Finder:
    """The entries of an index by the words of their titles and file names, read when first
    asked: a mark's successor is looked up among the entries holding its rarest word, not by
    reading every entry after it (an index of many marks stays linear)."""

    def __init__(self, entries: list[IndexLine]) -> None:
        self.entries = entries
        self._words: list[frozenset[str]] | None = None
        self._by_word: dict[str, list[int]] = {}
        self._by_name: dict[str, list[int]] = {}

    def words(self, k: int) -> frozenset[str]:
        self._build()
        assert self._words is not None
        return self._words[k]

    def named(self, name: str) -> list[int]:
        """The positions of the entries whose file's name is ``name``, in order."""
        self._build()
        return self._by_name.get(name, [])

    def rarest(self, wanted: list[str]) -> list[int]:
        """The positions of the entries holding the rarest of ``wanted``, in order."""
        self._build()
        return min((self._by_word.get(w, []) for w in set(wanted)), key=len) if wanted else []

    def holds(self, k: int, wanted: list[str]) -> bool:
        return all(w in self.words(k) for w in wanted)

    def _build(self) -> None:
        if self._words is not None:
            return
        self._words = []
        for k, line in enumerate(self.entries):
            held = frozenset(_WORD.findall(f"{line.title} {line.link_text} {line.resolved}".lower()))
            self._words.append(held)
            for word in held:
                self._by_word.setdefault(word, []).append(k)
            self._by_name.setdefault((line.resolved or "").rpartition("/")[2], []).append(k)


def _successor(snapshot: Snapshot, finder: _Finder, at: int, phrase: str) -> tuple[str | None, str]:
    """The file the words after the mark name, and how: a file named there, or the entry they
    describe.  Only "by" (or an arrow) names one: "SUPERSEDED: v1 collapsed" is a status."""
    by = _BY.match(phrase)
    if by is None or by.group().strip().lower() not in {"by", "→", "->"}:
        return None, ""
    phrase = phrase[by.end():]
    entries = finder.entries
    own = entries[at].resolved
    for groups in _FILE.findall(phrase):
        name = next(g for g in groups if g)
        if name in snapshot.files and name != own:
            return name, f"the mark names {name}"
        for k in finder.named(name.rpartition("/")[2]):
            if entries[k].resolved != own:
                return entries[k].resolved, f"the mark names {name}"
    lower = phrase.lower()
    wanted = [w for w in _WORD.findall(lower) if w not in _PLACE]
    below, above = bool(re.search(r"\bbelow\b", lower)), bool(re.search(r"\babove\b", lower))
    if not wanted:
        k = at + 1 if below and not above else at - 1 if above and not below else -1
        if 0 <= k < len(entries) and entries[k].resolved != own:
            where = "below" if k > at else "above"
            return entries[k].resolved, f"the entry {where} it (line {entries[k].number})"
        return None, ""
    rarest = finder.rarest(wanted)
    split = bisect_right(rarest, at)
    after, before = range(split, len(rarest)), range(split - 1, -1, -1)
    ways = [after] if below and not above else [before] if above and not below else [after, before]
    for way in ways:  # the nearest entry that way holding every word, among the first SCAN looked at
        for n, i in enumerate(way):
            k = rarest[i]
            if n >= SCAN:
                break
            if k != at and entries[k].resolved != own and finder.holds(k, wanted):
                line = entries[k]
                return line.resolved, (f"the entry on line {line.number}, whose title holds "
                                       f"{', '.join(dict.fromkeys(wanted))}")
    return None, ""
