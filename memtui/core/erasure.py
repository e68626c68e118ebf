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
from typing import Iterable

from .model import Index, IndexLine, LineKind, Snapshot


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


def _lines_of(index: Index) -> Iterable[str]:
    return (line.raw.strip() for line in index.lines) if index.exists else ()


def erased_lines(before: Snapshot, after: Snapshot, touched: Iterable[str]) -> list[ErasedLine]:
    """The lines of ``before``'s two indexes whose text ``after`` has lost.

    ``touched`` names the paths the change wrote, created or moved to (in ``after``); their
    texts, with both indexes after, are where a leaving line may land.
    """
    kept: set[str] = set(_lines_of(after.index)) | set(_lines_of(after.archive_index))
    missing: list[tuple[Index, IndexLine]] = []
    for index in (before.index, before.archive_index):
        if not index.exists:
            continue
        for line in index.lines:
            if line.kind is LineKind.BLANK:
                continue
            text = line.raw.strip()
            if text and text not in kept and " ".join(text.lower().split()) not in BLOCK_HEADINGS:
                missing.append((index, line))
    if not missing:
        return []
    texts: list[str] = []
    for path in dict.fromkeys(touched):
        f = after.files.get(path)
        if f is not None:
            texts.append(f.text)
    texts.append("\n".join(_lines_of(after.index)))
    texts.append("\n".join(_lines_of(after.archive_index)))
    whole_lines: set[str] = set()
    for text in texts:
        whole_lines.update(part.strip() for part in text.splitlines())
    out: list[ErasedLine] = []
    for index, line in missing:
        needles = _needles(line)
        if needles[0] in whole_lines:
            continue
        if any(needle in text for needle in needles for text in texts):
            continue
        out.append(ErasedLine(index.path, line.number, line.raw.strip()))
    return out
