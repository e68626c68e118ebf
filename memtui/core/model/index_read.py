"""An index read for what its loader takes: the lines it loads parsed as :func:`parse_index`
parses them, the lines past the cut only looked at for their entries and region pointers.

A rotted ``MEMORY.md`` of 90,000 lines loads its first 200; what falls past the cut is reported
by line, kind and target, which one search of the text past the cut finds for the common entry
(``- [title](name.md) hook``), every other line parsed as the full parse would parse it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property
from itertools import repeat
from typing import TYPE_CHECKING, Callable, NamedTuple, overload

from .index import _INDEX_NAMES, _START, _parse_lines, split_lines
from .snapshot import Index, IndexLine, LineKind, ScopeSection, decode_bytes

if TYPE_CHECKING:
    from .index import _State

#: :data:`memtui.core.model.index._FAST_ENTRY` over the lines of a text at once, and the same
#: with only its target captured (a test holds both to it)
_FAST_ENTRIES = re.compile(r"(?m)^- \[([^\[\]\n]*)\]\(((?:[A-Za-z0-9_][\w.\-]*/)*[A-Za-z0-9_][\w.\-]*\.md)\)"
                           r"([^\[`\n]*)$")
_FAST_TARGETS = re.compile(r"(?m)^- \[[^\[\]\n]*\]\(((?:[A-Za-z0-9_][\w.\-]*/)*[A-Za-z0-9_][\w.\-]*\.md)\)"
                           r"[^\[`\n]*$")
#: :data:`_FAST_TARGETS` for a name of ASCII word characters (a quarter faster; a line it
#: matches, the other matches alike)
_FAST_ASCII_TARGETS = re.compile(_FAST_TARGETS.pattern, re.ASCII)
_MD_CASES = (".md", ".MD", ".Md", ".mD")
_SHOWN = (LineKind.ENTRY, LineKind.REGION)


class PastEntry(NamedTuple):
    """An entry or region pointer past the cut: its line, kind, target (the resolved path, else
    the target as written, else a region's glob) and text."""

    number: int
    kind: LineKind
    target: str
    raw: str


def past_entry(line: IndexLine) -> PastEntry:
    """A parsed line as :class:`PastEntry` tells it."""
    return PastEntry(line.number, line.kind, line.resolved or line.target or line.glob, line.raw)


class PastEntries(Sequence[PastEntry]):
    """Entries and region pointers past the cut, kept as columns (a rotted index has 90,000)."""

    def __init__(self, numbers: Sequence[int] = (), kinds: Sequence[LineKind] = (),
                 targets: Sequence[str] = (), raws: Sequence[str] = ()) -> None:
        self.numbers, self.kinds, self.targets, self.raws = numbers, kinds, targets, raws

    @classmethod
    def of(cls, entries: Iterable[PastEntry]) -> PastEntries:
        columns = tuple(zip(*entries))
        return cls(*columns) if columns else cls()

    def __len__(self) -> int:
        return len(self.numbers)

    @overload
    def __getitem__(self, at: int) -> PastEntry: ...
    @overload
    def __getitem__(self, at: slice) -> PastEntries: ...

    def __getitem__(self, at: int | slice) -> PastEntry | PastEntries:
        if isinstance(at, slice):
            return PastEntries(self.numbers[at], self.kinds[at], self.targets[at], self.raws[at])
        return PastEntry(self.numbers[at], self.kinds[at], self.targets[at], self.raws[at])

    def __iter__(self) -> Iterator[PastEntry]:
        return map(tuple.__new__, repeat(PastEntry), zip(self.numbers, self.kinds, self.targets, self.raws))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


class ReadIndex:
    """An index file's lines (their texts and endings), parsed only as far as asked."""

    def __init__(self, path: str, exists: bool, raws: Sequence[str] = (), endings: Sequence[str] = (),
                 bom: bool = False, entry_exists: Callable[[str], bool] | None = None,
                 size: int = 0) -> None:
        self.path = path
        self.exists = exists
        self.size = size  # the file's bytes
        self.raws = raws  # each line's text, without its ending
        self.endings = endings
        self.bom = bom
        self._entry_exists = entry_exists
        self._heads: dict[int, tuple[Index, _State]] = {}

    @cached_property
    def text(self) -> str:
        """The lines' texts joined by LF (:meth:`memtui.core.model.snapshot.Index.raw_text`)."""
        return "\n".join(self.raws)

    def head(self, end: int) -> Index:
        """The first ``end`` lines, as :func:`parse_index` parses them (and the PATH_SCOPE
        sections they open)."""
        return self._head(end)[0]

    def _head(self, end: int) -> tuple[Index, _State]:
        found = self._heads.get(end)
        if found is None:
            lines: list[IndexLine] = []
            scopes: list[ScopeSection] = []
            state = _parse_lines(zip(self.raws[:end], self.endings[:end]), 1, self._entry_exists,
                                 _START, lines, scopes)
            if state[1] is not None:
                scopes = [*scopes, state[1]]
            found = self._heads[end] = (
                Index(self.path, self.exists, tuple(lines), self.bom, tuple(scopes)), state)
        return found

    def past_entries(self, start: int) -> PastEntries:
        """The entries and region pointers from line ``start`` on, as :func:`parse_index` finds
        them: one search of the text for the common entry, the lines between parsed."""
        state = self._head(start - 1)[1]
        if start > len(self.raws):
            return PastEntries()
        text = self.text
        at = sum(map(len, self.raws[:start - 1])) + start - 1  # where line `start` begins
        if _clean(state):
            every = self._every_line_fast(text, at, start)
            if every is not None:
                return every
        out: list[PastEntry] = []
        number = start
        gap_from = start  # the first line not yet taken
        for match in _FAST_ENTRIES.finditer(text, at) if _clean(state) else ():
            number += text.count("\n", at, match.start())
            at = match.end()
            target = match.group(2)
            if target[target.rfind("/") + 1:].lower() in _INDEX_NAMES \
                    or ".md" in match.group(3).lower():
                continue  # the general parse decides: a line of the gap before the next
            if number > gap_from:
                state = self._parse(gap_from, number, state, out)
                gap_from = number
                if not _clean(state):  # the gap opened a comment, a fence or a scope
                    break
            out.append(PastEntry(number, LineKind.ENTRY, target, match.group(0)))
            gap_from = number + 1
        self._parse(gap_from, len(self.raws) + 1, state, out)
        return PastEntries.of(out)

    def _every_line_fast(self, text: str, at: int, start: int) -> PastEntries | None:
        """The entries from line ``start`` (at offset ``at``) on when every one of those lines
        is the common entry, found by one search; None when some line is not."""
        lines = len(self.raws) - start + 1
        targets = _FAST_ASCII_TARGETS.findall(text, at)
        if len(targets) != lines:
            targets = _FAST_TARGETS.findall(text, at)
            if len(targets) != lines:
                return None
        # one ".md" a line (its target's) leaves none after the link; no target an index file
        if sum(text.count(md, at) for md in _MD_CASES) != lines:
            return None
        names = "\n".join(targets).lower()
        if any(name in names for name in _INDEX_NAMES):
            return None
        return PastEntries(range(start, start + lines), [LineKind.ENTRY] * lines, targets,
                           self.raws[start - 1:])

    def _parse(self, first: int, end: int, state: _State, out: list[PastEntry]) -> _State:
        """Lines ``first`` to ``end - 1`` parsed from ``state``, their entries and region
        pointers appended to ``out``; the state after them."""
        lines: list[IndexLine] = []
        state = _parse_lines(zip(self.raws[first - 1:end - 1], self.endings[first - 1:end - 1]),
                             first, self._entry_exists, state, lines, [])
        out.extend(past_entry(line) for line in lines if line.kind in _SHOWN)
        return state


def _clean(state: _State) -> bool:
    """Whether a line is read as it would be at the top of the file (the fast entry applies)."""
    return state[1] is None and not state[2] and not state[3]


def read_index(data: bytes, path: str = "MEMORY.md",
               exists: Callable[[str], bool] | None = None) -> ReadIndex:
    """An index's bytes split into lines, none parsed yet (``exists`` as :func:`parse_index`'s)."""
    bom = data.startswith(b"\xef\xbb\xbf")
    text = decode_bytes(data[3:] if bom else data)
    if "\r" in text:
        pairs = split_lines(text)
        raws: list[str] = [raw for raw, _ in pairs]
        endings: list[str] = [ending for _, ending in pairs]
    else:
        raws = text.split("\n")
        last = raws.pop()
        endings = ["\n"] * len(raws)
        if last:
            raws.append(last)
            endings.append("")
    read = ReadIndex(path, True, raws, endings, bom, exists, len(data))
    if "\r" not in text:
        read.__dict__["text"] = text[:-1] if text.endswith("\n") else text  # already joined by LF
    return read
