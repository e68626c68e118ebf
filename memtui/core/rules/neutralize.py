"""What Claude Code changes in the loaded ``MEMORY.md`` before the agent reads it (v2.1.332;
CLAUDE-CODE.md "what loads"): invisible characters go, and tags imitating its own markup are
escaped, ``<command-name>`` loading as ``<\\command-name>``.

The rule, exactly as the binary applies it (its tables are data, ``neutralize.json``, written by
``scripts/claude_markup_tables.py`` from the binary itself — Claude Code's Unicode is 17.0, where
Python 3.11's ``unicodedata`` has 14.0):

- :func:`strip`: CRLF, CR, U+2028 and U+2029 become LF; every code point of the strip set goes
  (C0 controls but tab, LF and CR; DEL; C1; Cf, Co, Cn, Cs; default-ignorable code points; but
  U+200C, U+200D, U+FE0E, U+FE0F).
- :func:`escape`: the text is first *read*: each non-ASCII character with a look-alike reading
  stands for what it imitates (Cyrillic ``а`` for ``a``, ``—`` for ``-``, fullwidth letters…).
  An opener (``<`` or one of its look-alikes) not already followed by ``\\`` is escaped when,
  after any run of *filler* (anything but ASCII letters, digits, ``_``, ``-``, openers and
  closers — across line breaks, unbounded), one of the escaped tag names follows, spelled
  case-insensitively in letters or their look-alikes, with invisible and combining characters
  allowed between two letters and ``-``/``_`` interchangeable, and then:
  - for the 34 names of :data:`TAGS`: a character that is not a name character, or the end;
  - for ``channel``: a ``source`` attribute (``source=``, look-alike ``=`` too) within 120
    characters, before any closer;
  - for ``antml``: a colon or a look-alike.
  The opener itself — one code point — is replaced by ``<\\``; nothing else changes.

Everything is loaded on the first text that needs it: an ASCII text with no ``<`` and no
control character costs one scan.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

DATA = Path(__file__).with_name("neutralize.json")
_LINE_BREAKS = re.compile("\r\n?|[\u2028\u2029]")
_ASCII_STRIP = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class Escape:
    """One escaped tag: where its opener is in the text, the opener, and the tag's name."""

    at: int
    opener: str
    tag: str


def _chars(ranges: list[list[int]], fold: bool = False) -> frozenset[str]:
    out = {chr(c) for a, b in ranges for c in range(a, b + 1) if not 0xD800 <= c <= 0xDFFF}
    if fold:  # the patterns are case-insensitive: an ASCII letter's other case counts
        out |= {c.swapcase() for c in out if c.isascii() and c.isalpha()}
    return frozenset(out)


def _class(ranges: list[list[int]]) -> str:
    def one(c: int) -> str:
        return f"\\U{c:08x}"

    return "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in ranges)


class _Ranges:
    """Membership in sorted code point ranges (a large class: no set of every character)."""

    def __init__(self, ranges: list[list[int]]) -> None:
        self.starts = [a for a, _b in ranges]
        self.ends = [b for _a, b in ranges]

    def __contains__(self, ch: object) -> bool:
        if not isinstance(ch, str):
            return False
        cp = ord(ch)
        k = bisect_right(self.starts, cp) - 1
        return k >= 0 and cp <= self.ends[k]


class _Tables:
    """The binary's tables, read once."""

    def __init__(self) -> None:
        data = json.loads(DATA.read_text(encoding="utf-8"))
        self.version: str = data["claude_code"]
        self.unicode: str = data["unicode"]
        self.strip = _Ranges(data["strip"])
        self.reading_hex: dict[str, str] = data["reading"]
        self.read: dict[int, str] = {}  # code point -> its reading, as asked for
        self.open = _chars(data["open"])
        self.open_re = re.compile(f"[{_class(data['open'])}]")
        self.filler_not = _chars(data["filler_not"], True)
        self.skip = _Ranges(data["skip"])
        self.end_not = _chars(data["end_not"], True)
        self.letters = {k: _chars(v, True) for k, v in data["letters"].items()}
        self.letters["-"] = self.letters["_"]
        ch = data["channel"]
        self.channel = ch["tag"]
        self.name_not = _chars(ch["name_not"], True)
        self.gap = _chars(ch["gap"])
        self.span_free = _chars(ch["span_free"])
        self.span_not = _chars(ch["span_not"])
        self.closers = self.span_not - self.span_free
        self.span = int(ch["span"])
        self.attribute = ch["attribute"]
        self.assign_skip = _Ranges(ch["assign_skip"])
        self.assign = _chars(ch["assign"])
        self.antml = data["antml"]["tag"]
        self.colon = _chars(data["antml"]["colon"])
        self.word = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        self.tags: tuple[str, ...] = tuple(data["tags"])
        first: dict[str, list[tuple[str, str]]] = {}
        for kind, names in (("tag", self.tags), ("channel", (self.channel,)),
                            ("antml", (self.antml,))):
            for name in names:
                for c in self.letters[name[0]]:
                    first.setdefault(c, []).append((kind, name))
        self.first = first

    def reading_of(self, chars: set[str]) -> dict[int, str]:
        """A ``str.translate`` table reading each of ``chars`` that has a reading."""
        out = {}
        for c in chars:
            cp = ord(c)
            found = self.read.get(cp)
            if found is None:
                value = self.reading_hex.get(f"{cp:x}")
                found = c if value is None else "".join(chr(int(h, 16)) for h in value.split())
                self.read[cp] = found
            if found != c:
                out[cp] = found
        return out


_TABLES: list[_Tables] = []


def tables() -> _Tables:
    if not _TABLES:
        _TABLES.append(_Tables())
    return _TABLES[0]


def _names() -> tuple[str, ...]:
    t = tables()
    return (*t.tags, t.channel)


def strip(text: str) -> str:
    """Claude Code's ``c()``: line breaks made LF, the strip set's code points removed."""
    if "\r" in text or "\u2028" in text or "\u2029" in text:
        text = _LINE_BREAKS.sub("\n", text)
    if text.isascii():
        return _ASCII_STRIP.sub("", text)
    gone = _stripped(text)
    return text.translate(dict.fromkeys(map(ord, gone))) if gone else text


def strip_lines(lines: Sequence[str]) -> list[str]:
    """``[strip(line) for line in lines]``, the strip set asked once for the characters of all the
    lines rather than once per line (a 100,000-line index with a dash in every line: 2.5 million
    range lookups become a few dozen)."""
    ranges = tables().strip
    present = {c for c in set("".join(lines)) if c in ranges}
    table = dict.fromkeys(map(ord, present))
    out = []
    for text in lines:
        if "\r" in text or "\u2028" in text or "\u2029" in text:
            text = _LINE_BREAKS.sub("\n", text)
        if text.isascii():
            out.append(_ASCII_STRIP.sub("", text))
        else:
            out.append(text.translate(table) if table else text)
    return out


def _stripped(text: str) -> set[str]:
    """The distinct characters of ``text`` in the strip set (asked once per distinct character)."""
    ranges = tables().strip
    return {c for c in set(text) if c in ranges}


def stripped_chars(text: str) -> list[str]:
    """The characters :func:`strip` removes from ``text`` (line breaks it turns into LF left
    out), in order."""
    if text.isascii():
        return _ASCII_STRIP.findall(text)
    text = _LINE_BREAKS.sub("\n", text)
    gone = _stripped(text)
    return [c for c in text if c in gone] if gone else []


def escapes(text: str) -> list[Escape]:
    """The tags :func:`escape` escapes in ``text`` (already stripped), in order."""
    if "<" not in text and (text.isascii() or tables().open_re.search(text) is None):
        return []
    t = tables()
    where: list[int] | None = None
    if text.isascii():
        reading = text
    else:
        table = t.reading_of({c for c in set(text) if c >= "\x80"})
        reading = text.translate(table)
        if len(reading) != len(text):  # a character read as two: map reading back to text
            where = []
            for k, c in enumerate(text):
                where.extend([k] * len(table.get(ord(c), c)))
    out = []
    n = len(reading)
    for found in t.open_re.finditer(reading):
        k = found.start()
        if k + 1 < n and reading[k + 1] == "\\":
            continue
        j = k + 1
        while True:
            tag = _tag_at(t, reading, j)
            if tag is not None:
                at = where[k] if where is not None else k
                out.append(Escape(at, text[at], tag))
                break
            if j < n and reading[j] not in t.filler_not:
                j += 1
                continue
            break
    return out


def escape(text: str) -> str:
    """Claude Code's ``A_()``: each escaped tag's opener replaced by ``<\\`` (``text`` already
    stripped)."""
    found = escapes(text)
    if not found:
        return text
    parts, at = [], 0
    for e in found:
        parts += [text[at:e.at], "<\\"]
        at = e.at + 1
    parts.append(text[at:])
    return "".join(parts)


def neutralize(text: str) -> str:
    """Claude Code's ``BQ()``: :func:`strip`, then :func:`escape`."""
    return escape(strip(text))


def _spell(t: _Tables, r: str, j: int, word: str) -> int | None:
    """Where ``word`` ends when it is spelled at ``r[j]`` (skippable characters between its
    letters), or None."""
    n, skip, letters = len(r), t.skip, t.letters
    pos = j
    for k, letter in enumerate(word):
        if k:
            while pos < n and r[pos] in skip:
                pos += 1
        if pos >= n or r[pos] not in letters[letter]:
            return None
        pos += 1
    return pos


def _tag_at(t: _Tables, r: str, j: int) -> str | None:
    """The escaped tag spelled at ``r[j]``, with its tail, or None."""
    if j >= len(r):
        return None
    candidates = t.first.get(r[j])
    if not candidates:
        return None
    n = len(r)
    for kind, name in candidates:
        end = _spell(t, r, j, name)
        if end is None:
            continue
        if kind == "tag":
            if end == n or r[end] not in t.end_not:
                return name
            continue
        s = end
        while s < n and r[s] in t.skip:
            s += 1
        if kind == "antml":
            if s < n and r[s] in t.colon:
                return name + ":"
            continue
        if _channel_tail(t, r, end, s):
            return name
    return None


def _channel_tail(t: _Tables, r: str, end: int, s: int) -> bool:
    """After ``channel`` (ending at ``end``, its skippable run through ``s``): not joined to a
    longer name (or set apart by a gap character), then ``source=`` within the span."""
    n = len(r)
    if not (s >= n or r[s] not in t.name_not or any(r[k] in t.gap for k in range(end, s))):
        return False
    counted = 0
    p = s
    while True:
        if r[p - 1] not in t.word:
            q = _spell(t, r, p, t.attribute)
            if q is not None:
                while q < n and r[q] in t.assign_skip:
                    q += 1
                if q < n and r[q] in t.assign:
                    return True
        if p >= n or r[p] in t.closers:
            return False
        if r[p] not in t.span_free:
            counted += 1
            if counted > t.span:
                return False
        p += 1


def version() -> tuple[str, str]:
    """(the Claude Code build the tables come from, its Unicode version)."""
    t = tables()
    return t.version, t.unicode


def tag_names() -> tuple[str, ...]:
    """The tag names Claude Code escapes (``channel`` only with a ``source``; ``antml`` with a
    colon besides)."""
    return (*_names(), tables().antml + ":")
