"""The gate's erasure check (DESIGN §2, §4.1): no change may lose the text of an index line.

Every non-blank line that leaves ``MEMORY.md`` or ``MEMORY-archive.md`` must be found again in
the change's result: as a line of either index, or inside a file the change wrote, created or
moved (``MEMORY-history.md``, the archive index, a topic file).  An entry line may come back
rewritten (a decayed pointer listed again with its hook, a link repointed, a path moved into
``archive/``): what must survive of it is its hook, or its title when it has no hook.  The block
headings memtui writes itself (``## Pinned``, ``## Recent``, ``## Regions``) are structure and
may go with their last entry.

:func:`erased_lines` is pure and linear: one set of the result's lines, and a substring search
over the changed files only for the few lines that are not found whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import Iterable, Sequence

from ..model.snapshot import Index, IndexLine, LineKind, Snapshot


@dataclass(frozen=True)
class ErasedLine:
    """A line of an index whose text the change's result no longer holds."""

    path: str  # the index it left
    line: int  # 1-based, in the index before the change
    text: str

    def message(self) -> str:
        shown = self.text if len(self.text) <= 80 else self.text[:79] + "…"
        return (f"line {self.line} of {self.path} would be erased ('{shown}'); a change keeps "
                "every index line's text (in an index, MEMORY-history.md or a topic file)")


def _needles(line: IndexLine) -> tuple[str, ...]:
    """What of a line must be found again: the line itself, or for an entry its hook (else its
    title), which a rewritten entry keeps."""
    whole = line.raw.strip()
    if line.kind is LineKind.ENTRY:
        words = line.hook.strip() or line.title.strip()
        return (whole, words) if words else (whole,)
    return (whole,)


#: the block headings memtui itself writes and drops with their last entry: structure, not text
BLOCK_HEADINGS = frozenset({"## pinned", "## recent", "## regions"})


_BLANK = frozenset({""})
_RAW = attrgetter("raw")


def _stripped(index: Index) -> list[str]:
    """Each line's text, stripped, in order (none for an index that does not exist); built once
    per index: a plan's steps each gate the index the step before left."""
    if not index.exists or not index.lines:
        return []
    found: list[str] | None = index.__dict__.get("_stripped_lines")
    if found is None:
        found = list(map(str.strip, map(_RAW, index.lines)))  # a line with nothing to strip: itself
        object.__setattr__(index, "_stripped_lines", found)
    return found


def _stripped_set(index: Index) -> frozenset[str]:
    """:func:`_stripped` as a set (built once per index)."""
    found: frozenset[str] | None = index.__dict__.get("_stripped_set")
    if found is None:
        found = frozenset(_stripped(index))
        object.__setattr__(index, "_stripped_set", found)
    return found


def erased_lines(before: Snapshot, after: Snapshot, touched: Iterable[str]) -> list[ErasedLine]:
    """The lines of ``before``'s two indexes whose text ``after`` has lost.

    ``touched`` names the paths the change wrote, created or moved to (in ``after``); their
    texts, with both indexes after, are where a leaving line may land.
    """
    kept, kept_archive = _stripped_set(after.index), _stripped_set(after.archive_index)
    gone = [(index, _stripped_set(index) - kept - kept_archive - _BLANK)
            for index in (before.index, before.archive_index)]
    if not any(texts for _, texts in gone):
        return []
    found_in: _Haystack | None = None
    out: list[ErasedLine] = []
    for index, left in gone:
        if not left:
            continue
        texts = _stripped(index)
        for line, text in compress(zip(index.lines, texts), map(left.__contains__, texts)):
            if line.kind is LineKind.BLANK:
                continue
            if text[0] == "#" and " ".join(text.lower().split()) in BLOCK_HEADINGS:  # every
                continue  # block heading starts so
            if found_in is None:
                found_in = _Haystack(after, touched)
            if not found_in.holds(text, _needles(line)):
                out.append(ErasedLine(index.path, line.number, text))
    return out


class _Haystack:
    """The texts a leaving line may be found in: the written files', then both indexes'.

    They are searched as one text with a line break between two: a needle is part of one line,
    so it is in the joined text exactly when it is in one of them.  Two lookups come first, so
    that a change moving thousands of entries does not search the whole text for each: the
    written files' stripped lines (a leaving line is in neither index after, so only those can
    hold it whole), and the hooks and titles of the entries of both indexes after (an entry
    moved or rewritten keeps its hook), each kept with its line to confirm it is there.
    """

    def __init__(self, after: Snapshot, touched: Iterable[str]) -> None:
        texts: list[str] = []
        for path in dict.fromkeys(touched):
            f = after.files.get(path)
            if f is not None:
                texts.append(f.text)
        self.whole_lines: set[str] = set()
        for text in texts:
            self.whole_lines.update(map(str.strip, text.splitlines()))
        self.words: dict[str, str] = {}
        for index in (after.index, after.archive_index):
            if index.exists:
                texts.append(index.raw_text())
                for entry in index.entries:
                    for words in (entry.hook.strip(), entry.title.strip()):
                        if words:
                            self.words.setdefault(words, entry.raw)
        self.text = "\n".join(texts)

    def holds(self, text: str, needles: Sequence[str]) -> bool:
        """Whether the stripped line ``text`` or one of its ``needles`` is found here."""
        if text in self.whole_lines:
            return True
        for needle in needles:
            raw = self.words.get(needle)
            if raw is not None and needle in raw:
                return True
        return any(needle in self.text for needle in needles)
