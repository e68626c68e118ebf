"""Line-level edits of an index file that leave every untouched line byte for byte as it was.

An :class:`IndexDraft` starts from a parsed index, removes, moves and inserts lines, and renders
bytes in the file's own line-ending style (with its BOM).  It re-parses after every edit so the
next edit sees where the blocks are.  The blocks memtui writes are ``## Pinned``, ``## Recent``
and ``## Regions``; when an index has none (real ones use their own headings) a block is added
where a reader expects it and every other line stays where it was.
"""

from __future__ import annotations

import re
from collections import Counter
from operator import attrgetter
from typing import Callable

from .index import _BOLD_FILE, _CODE_FILE, _LIST_ITEM, _MD_LINK, _WIKILINK, entry_line, parse_index
from .snapshot import EntryForm, Index, IndexLine, LineKind, MemoryFile, encode_text

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_AFTER_LINK = re.compile(r"^([*_]*)(\s*(?:—|–|--|-|:)\s*)?")

PINNED, RECENT, REGIONS = "Pinned", "Recent", "Regions"
BLOCKS = (PINNED, RECENT, REGIONS)


def heading_level(line: IndexLine) -> int:
    """The heading level of a heading line (0 for any other line)."""
    if line.kind is not LineKind.HEADING:
        return 0
    match = _HEADING.match(line.raw)
    return len(match.group(1)) if match else 0


def heading_title(line: IndexLine) -> str:
    match = _HEADING.match(line.raw)
    return match.group(2).strip() if match else ""


def is_block_heading(line: IndexLine, name: str | None = None) -> bool:
    """A ``## Pinned`` / ``## Recent`` / ``## Regions`` heading (any case)."""
    if heading_level(line) != 2:
        return False
    title = heading_title(line).lower()
    names = (name,) if name else BLOCKS
    return any(title == n.lower() for n in names)


_ENDING = attrgetter("ending")


def dominant_ending(index: Index) -> str:
    endings = Counter(filter(None, map(_ENDING, index.lines)))  # counted in C
    return endings.most_common(1)[0][0] if endings else "\n"


#: characters a link target cannot hold as they are: link syntax, whitespace, every control
#: character (a newline in a file name would split the entry) and the backslash (read as "/")
_LINK_UNSAFE = {c: f"%{ord(c):02X}" for c in " ()<>#?%[]\\\x7f" + "".join(map(chr, range(32)))}


def link_target(path: str) -> str:
    """A root-relative path as a Markdown link target (characters a link cannot hold escaped)."""
    return "".join(_LINK_UNSAFE.get(c, c) for c in path)


def one_line(text: str) -> str:
    return " ".join(text.split())


def new_entry(f: MemoryFile, hook: str, path: str | None = None) -> str:
    """A memtui-style entry line for a file: ``- [Title](path) — hook``."""
    title = one_line(f.title).replace("[", "(").replace("]", ")") or f.stem
    return entry_line(title, link_target(path or f.path), one_line(hook))


def portable_raw(line: IndexLine, f: MemoryFile | None, path: str) -> str:
    """An entry line that can move anywhere in the index: its own text when it does not depend
    on a section's Memory base, else a fresh link to the root-relative path."""
    if line.scope == "" and line.form is not EntryForm.CODE:
        return line.raw.lstrip()
    if f is None:
        return entry_line(one_line(line.title) or path, link_target(path), one_line(line.hook))
    return new_entry(f, line.hook or f.description or f.title, path)


def with_hook(raw: str, hook: str) -> str:
    """An entry line with its hook (the text after the link) replaced, formatting kept."""
    item = _LIST_ITEM.match(raw)
    if item is None:
        raise ValueError("not a list item")
    start = item.start(1)
    content = item.group(1)
    md = _MD_LINK.search(content)
    wiki = _WIKILINK.search(content)
    if md and (not wiki or md.start() < wiki.start()):
        end = md.end()
    elif wiki:
        end = wiki.end()
    else:
        match = _BOLD_FILE.match(content) or _CODE_FILE.match(content)
        if match is None:
            raise ValueError("no link in the line")
        end = match.end()
    after = content[end:]
    sep_match = _AFTER_LINK.match(after)
    assert sep_match is not None
    emphasis, sep = sep_match.group(1), sep_match.group(2)
    if not sep or not sep.strip():
        sep = " — "
    elif not sep.endswith((" ", "\t")):
        sep += " "
    return raw[: start + end] + emphasis + sep + one_line(hook)


class IndexDraft:
    """A mutable copy of an index's lines; :meth:`render` gives the new bytes."""

    def __init__(self, index: Index, exists: Callable[[str], bool] | None = None) -> None:
        self.path = index.path
        self.existed = index.exists
        self.original = index.render() if index.exists else None
        self.bom = index.bom
        self.nl = dominant_ending(index)
        self.exists = exists
        self.items: list[tuple[str, str]] = [(line.raw, line.ending) for line in index.lines]
        self._index: Index | None = index

    @property
    def index(self) -> Index:
        """The draft parsed again, only when read after an edit (appending many entries in a row
        parses once, not once per entry)."""
        if self._index is None:
            self._index = parse_index(self.render(), self.path, self.exists)
        return self._index

    # -- rendering

    def render(self) -> bytes:
        text = "".join(raw + ending for raw, ending in self.items)
        return (b"\xef\xbb\xbf" if self.bom else b"") + encode_text(text)

    @property
    def changed(self) -> bool:
        return self.render() != self.original if self.existed else bool(self.items)

    def _reparse(self) -> None:
        self._index = None

    # -- edits

    def insert(self, pos: int, raws: list[str]) -> None:
        """Insert lines before line ``pos`` (0-based; ``len`` appends)."""
        if not raws:
            return
        new = [(raw, self.nl) for raw in raws]
        if pos >= len(self.items):
            if self.items and self.items[-1][1] == "":  # keep "no newline at the end of the file"
                self.items[-1] = (self.items[-1][0], self.nl)
                new[-1] = (new[-1][0], "")
            self.items.extend(new)
        else:
            self.items[pos:pos] = new
        self._reparse()

    def remove(self, positions: list[int] | set[int]) -> None:
        for pos in sorted(set(positions), reverse=True):
            del self.items[pos]
        self._reparse()

    def remove_entries(self, path: str) -> list[IndexLine]:
        """Remove every entry line pointing at ``path``; the removed lines, in order.  A Pinned
        block this leaves empty goes too."""
        lines = [line for line in self.index.lines if line.kind is LineKind.ENTRY and line.resolved == path]
        if lines:
            pinned = any(self.in_block(line, PINNED) for line in lines)
            self.remove([line.number - 1 for line in lines])
            if pinned:
                self.drop_empty_block(PINNED)
        return lines

    def remove_entries_of(self, paths: set[str] | frozenset[str]) -> dict[str, list[IndexLine]]:
        """:meth:`remove_entries` for many files in one edit; the removed lines by path."""
        removed: dict[str, list[IndexLine]] = {}
        for line in self.index.lines:
            resolved = line.resolved
            if line.kind is LineKind.ENTRY and resolved is not None and resolved in paths:
                removed.setdefault(resolved, []).append(line)
        if removed:
            lines = [line for found in removed.values() for line in found]
            pinned = any(self.in_block(line, PINNED) for line in lines)
            self.remove([line.number - 1 for line in lines])
            if pinned:
                self.drop_empty_block(PINNED)
        return removed

    def entries_for(self, path: str) -> list[IndexLine]:
        return [line for line in self.index.lines if line.kind is LineKind.ENTRY and line.resolved == path]

    # -- blocks

    def block(self, name: str) -> tuple[int, int] | None:
        """(heading position, end position) of a memtui block; the end is the next heading of
        level 1 or 2, or the end of the file."""
        lines = self.index.lines
        for i, line in enumerate(lines):
            if is_block_heading(line, name):
                end = next(
                    (j for j in range(i + 1, len(lines)) if 0 < heading_level(lines[j]) <= 2), len(lines)
                )
                return i, end
        return None

    def in_block(self, line: IndexLine, name: str) -> bool:
        span = self.block(name)
        return span is not None and span[0] < line.number - 1 < span[1]

    def _last_content(self, start: int, end: int) -> int:
        """Position after the last non-blank line in [start, end)."""
        last = start
        for j in range(start, end):
            if self.index.lines[j].kind is not LineKind.BLANK:
                last = j
        return last + 1

    def _first_structural(self) -> int | None:
        for i, line in enumerate(self.index.lines):
            if heading_level(line) >= 2 or line.kind in (LineKind.ENTRY, LineKind.REGION):
                return i
        return None

    def _blank_before(self, pos: int) -> list[str]:
        if pos > 0 and self.index.lines[pos - 1].kind is not LineKind.BLANK:
            return [""]
        return []

    def add_pinned(self, raw: str, *more: str) -> None:
        """Append entries to the Pinned block, adding the block near the top if missing."""
        span = self.block(PINNED)
        if span is not None:
            self.insert(self._last_content(*span), [raw, *more])
            return
        recent = self.block(RECENT)
        pos = recent[0] if recent is not None else self._first_structural()
        if pos is None:
            self.insert(len(self.items), self._blank_before(len(self.items)) + ["## " + PINNED, raw, *more])
            return
        raws = self._blank_before(pos) + ["## " + PINNED, raw, *more, ""]
        if not 0 < heading_level(self.index.lines[pos]) <= 2:
            raws.append("## " + RECENT)  # close the block: what follows is the working set
        self.insert(pos, raws)

    def add_recent(self, raw: str, *more: str) -> None:
        """Put entries at the top of the Recent block (newest first), adding the block if missing."""
        raws_in = [raw, *more]
        span = self.block(RECENT)
        if span is not None:
            start, end = span
            first = next(
                (j for j in range(start + 1, end)
                 if self.index.lines[j].kind in (LineKind.ENTRY, LineKind.REGION)),
                None,
            )
            self.insert(first if first is not None else self._last_content(start, end), raws_in)
            return
        pinned = self.block(PINNED)
        if pinned is not None:
            end = pinned[1]
            if end >= len(self.items):
                self.insert(end, self._blank_before(end) + ["## " + RECENT, *raws_in])
            else:
                self.insert(end, self._blank_before(end) + ["## " + RECENT, *raws_in, ""])
            return
        pos = self._first_structural()
        if pos is None:
            self.insert(len(self.items), self._blank_before(len(self.items)) + ["## " + RECENT, *raws_in])
        elif self.index.lines[pos].kind in (LineKind.ENTRY, LineKind.REGION):
            self.insert(pos, self._blank_before(pos) + ["## " + RECENT, *raws_in])
        else:
            self.insert(pos, self._blank_before(pos) + ["## " + RECENT, *raws_in, ""])

    def drop_empty_block(self, name: str) -> None:
        """Remove a memtui block that holds nothing but blank lines (heading included)."""
        span = self.block(name)
        if span is None:
            return
        start, end = span
        if all(self.index.lines[j].kind is LineKind.BLANK for j in range(start + 1, end)):
            self.remove(list(range(start, end)))

    def append_entry(self, raw: str, *more: str, title: str = "# Memory archive") -> None:
        """Append entries at the end (an archive index gets a title line when new)."""
        if not self.items:
            self.insert(0, [title, "", raw, *more])
        else:
            self.insert(len(self.items), [raw, *more])
