"""A unified diff of two line lists that stays fast on a long index.

:func:`difflib.unified_diff` looks for the longest matching block of every unmatched range, which
is quadratic in the lines between matches: an index of 100,000 lines with a few hundred scattered
edits took 12 s to diff.  :func:`unified_diff` gives difflib's own output for short inputs; for
long ones it matches the lines that occur once on each side in the order they keep (a patience
diff), grows each match over the equal lines around it, and hands only the short ranges left
between matches to difflib (a long range without such a line goes to difflib whole, with its
popular lines taken as junk, as difflib's own default does).  The result is a valid unified
diff of the same two texts: applied to the old lines it gives the new ones, though on a long
input its hunks may pair lines differently from difflib's.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial

#: inputs with more lines than this (both sides together) are matched by unique lines first
LONG = 4_000
#: a range between matches is handed to difflib when its two sides' product is at most this
SMALL_RANGE = 40_000
#: ranges nested deeper than this go to difflib whole, its popular lines taken as junk
DEPTH = 40

Block = tuple[int, int, int]  # (i, j, size): a[i:i+size] == b[j:j+size]


def unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str = "", tofile: str = "",
                 n: int = 3) -> Iterator[str]:
    """The lines of a unified diff from ``a`` to ``b`` with ``n`` lines of context (as
    :func:`difflib.unified_diff`, whose output it is for inputs up to :data:`LONG` lines)."""
    started = False
    for hunk in hunks(a, b, n):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        yield from hunk.lines()


class Hunk:
    """One hunk of a unified diff: how many lines it has (its ``@@`` line included), known
    before its lines are made, which happens only when they are read."""

    __slots__ = ("size", "_make")

    def __init__(self, size: int, make: Callable[[], Iterator[str]]) -> None:
        self.size = size
        self._make = make

    def lines(self) -> Iterator[str]:
        return self._make()


def hunks(a: Sequence[str], b: Sequence[str], n: int = 3) -> Iterator[Hunk]:
    """The hunks of :func:`unified_diff` (difflib's grouping for inputs up to :data:`LONG`
    lines, the unique-line matching beyond)."""
    if len(a) + len(b) <= LONG:
        groups: Iterable[list[Opcode]] = difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(n)
    else:
        groups = _grouped(_opcodes(matching_blocks(a, b), len(a), len(b)), n)
    for group in groups:
        size = 1 + sum(i2 - i1 if tag in ("equal", "delete") else j2 - j1 if tag == "insert"
                       else i2 - i1 + j2 - j1 for tag, i1, i2, j1, j2 in group)
        yield Hunk(size, partial(_hunk_lines, a, b, group))


def _hunk_lines(a: Sequence[str], b: Sequence[str], group: list[Opcode]) -> Iterator[str]:
    first, last = group[0], group[-1]
    yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            for line in a[i1:i2]:
                yield " " + line
            continue
        if tag in {"replace", "delete"}:
            for line in a[i1:i2]:
                yield "-" + line
        if tag in {"replace", "insert"}:
            for line in b[j1:j2]:
                yield "+" + line


Opcode = tuple[str, int, int, int, int]  # (tag, i1, i2, j1, j2) as difflib's


def _opcodes(blocks: list[Block], len_a: int, len_b: int) -> list[Opcode]:
    """What turns ``a`` into ``b`` around the matching blocks (as
    :meth:`difflib.SequenceMatcher.get_opcodes`)."""
    out: list[Opcode] = []
    i = j = 0
    for ai, bj, size in [*blocks, (len_a, len_b, 0)]:
        tag = "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else ""
        if tag:
            out.append((tag, i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            out.append(("equal", ai, i, bj, j))
    return out


def _grouped(codes: list[Opcode], n: int) -> Iterator[list[Opcode]]:
    """The opcodes in hunks with up to ``n`` lines of context (as
    :meth:`difflib.SequenceMatcher.get_grouped_opcodes`)."""
    if not codes:
        codes = [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":  # the leading context cut to n lines
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":  # and the trailing
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    nn = n + n
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > nn:  # a long equal run ends one hunk and starts the next
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    """A hunk's range as difflib writes it (``start,length``, 1-based; ``start-1,0`` when empty)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def matching_blocks(a: Sequence[str], b: Sequence[str]) -> list[Block]:
    """Blocks of equal lines, in order and not overlapping, adjacent blocks joined (as
    :meth:`difflib.SequenceMatcher.get_matching_blocks` without its closing sentinel)."""
    blocks: list[Block] = []
    _match(a, b, 0, len(a), 0, len(b), blocks, 0)
    joined: list[Block] = []
    for i, j, size in blocks:
        if joined and joined[-1][0] + joined[-1][2] == i and joined[-1][1] + joined[-1][2] == j:
            pi, pj, ps = joined[-1]
            joined[-1] = (pi, pj, ps + size)
        elif size:
            joined.append((i, j, size))
    return joined


def _match(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int,
           out: list[Block], depth: int) -> None:
    """Append the matching blocks of ``a[alo:ahi]`` and ``b[blo:bhi]`` to ``out``, in order."""
    start = 0  # the common head
    while alo + start < ahi and blo + start < bhi and a[alo + start] == b[blo + start]:
        start += 1
    if start:
        out.append((alo, blo, start))
        alo, blo = alo + start, blo + start
    end = 0  # the common tail
    while ahi - end > alo and bhi - end > blo and a[ahi - end - 1] == b[bhi - end - 1]:
        end += 1
    ahi, bhi = ahi - end, bhi - end
    if alo < ahi and blo < bhi:
        if (ahi - alo) * (bhi - blo) <= SMALL_RANGE:
            _difflib(a, b, alo, ahi, blo, bhi, out, autojunk=False)
        else:
            anchors = _anchors(a, b, alo, ahi, blo, bhi) if depth < DEPTH else []
            if not anchors:  # no line occurs once on each side: difflib, popular lines as junk
                _difflib(a, b, alo, ahi, blo, bhi, out, autojunk=True)
            else:
                i, j = alo, blo
                for ai, bj in anchors:
                    _match(a, b, i, ai, j, bj, out, depth + 1)
                    out.append((ai, bj, 1))
                    i, j = ai + 1, bj + 1
                _match(a, b, i, ahi, j, bhi, out, depth + 1)
    if end:
        out.append((ahi, bhi, end))


def _difflib(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int,
             out: list[Block], autojunk: bool) -> None:
    matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=autojunk)
    out.extend((alo + i, blo + j, size) for i, j, size in matcher.get_matching_blocks() if size)


def _anchors(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
             ) -> list[tuple[int, int]]:
    """The lines that occur once in ``a[alo:ahi]`` and once in ``b[blo:bhi]``, as position pairs,
    the longest run of them whose order both sides keep."""
    seen_a: dict[str, int] = {}
    for i in range(alo, ahi):
        line = a[i]
        seen_a[line] = -1 if line in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(blo, bhi):
        line = b[j]
        if seen_a.get(line, -1) >= 0:
            seen_b[line] = -1 if line in seen_b else j
    pairs = sorted((seen_a[line], j) for line, j in seen_b.items() if j >= 0)
    # the longest increasing run of b positions (patience sorting), kept as back links
    tops: list[int] = []  # b position ending the best run of each length
    ends: list[int] = []  # index into pairs of that run's last pair
    back: list[int] = []
    for k, (_, j) in enumerate(pairs):
        at = bisect_left(tops, j)
        back.append(ends[at - 1] if at else -1)
        if at == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[at], ends[at] = j, k
    run: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    run.reverse()
    return run


@dataclass(frozen=True)
class DiffCut:
    """How much of a long diff to show: its first ``hunks`` hunks (a rename is one), at most
    ``lines`` lines of them, each line cut to ``width`` characters."""

    hunks: int = 5
    lines: int = 200
    width: int = 1_000


@dataclass(frozen=True)
class CutDiff:
    """The part of a diff :func:`cut_diff` kept, and how much it left out."""

    text: str
    hunks_left: int = 0  # hunks not shown, or shown in part
    lines_left: int = 0  # lines of the diff not shown

    @property
    def cut(self) -> bool:
        return bool(self.hunks_left or self.lines_left)


def cut_diff(lines: Iterable[str], cut: DiffCut) -> CutDiff:
    """The first hunks of a unified diff's lines (each ending in a line feed), within ``cut``;
    the rest is only counted, so a diff of a 300,000-line rewrite costs what reading it does,
    not what printing it would.  A file's ``---``/``+++`` header is kept with its first hunk
    shown; a hunk's own lines are told from headers by the counts its ``@@`` line gives."""
    kept: list[str] = []
    header: list[str] = []
    hunks = shown = hunks_left = lines_left = 0
    old_left = new_left = 0  # lines of the current hunk still to come, each side
    full = False  # the budget is spent: what follows is only counted
    part = False  # the current hunk was cut part way
    for line in lines:
        if old_left > 0 or new_left > 0:
            starts = False
            sign = line[:1]
            old_left -= sign in (" ", "-")
            new_left -= sign in (" ", "+")
        elif line.startswith("@@"):
            starts = True
            counts = _HUNK.match(line)
            if counts is not None:
                old_left = int(counts.group(1) or 1)
                new_left = int(counts.group(2) or 1)
        elif line.startswith("rename from "):
            starts = True
        elif line.startswith(("--- ", "+++ ")):
            if not full:
                header.append(line)
            continue
        else:  # "rename to", "\\ No newline at end of file": part of the hunk before
            starts = False
        if starts:
            part = False
            full = full or hunks >= cut.hunks or shown >= cut.lines
            if full:
                hunks_left += 1
                lines_left += 1
                continue
            hunks += 1
            kept += header
            header = []
        elif full:
            lines_left += 1
            continue
        if shown >= cut.lines:
            full = True
            if not part:
                part, hunks_left = True, hunks_left + 1
            lines_left += 1
            continue
        shown += 1
        kept.append(_narrow(line, cut.width))
    return CutDiff("".join(kept), hunks_left, lines_left)


_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


#: one file's part of a diff: its ``---``/``+++`` header (none for a rename) and its hunks
FileDiff = tuple[tuple[str, ...], Iterable[Hunk]]


def cut_hunks(files: Iterable[FileDiff], cut: DiffCut) -> CutDiff:
    """:func:`cut_diff` of a diff given as files of hunks: the hunks past the cut are counted by
    their sizes, never made into lines."""
    kept: list[str] = []
    shown_hunks = shown = hunks_left = lines_left = 0
    for header, file_hunks in files:
        started = False
        for hunk in file_hunks:
            if shown_hunks >= cut.hunks or shown >= cut.lines:
                hunks_left += 1
                lines_left += hunk.size
                continue
            if not started:
                started = True
                kept += header
            shown_hunks += 1
            for made, line in enumerate(hunk.lines()):
                if shown >= cut.lines:
                    hunks_left += 1
                    lines_left += hunk.size - made
                    break
                shown += 1
                kept.append(_narrow(line, cut.width))
    return CutDiff("".join(kept), hunks_left, lines_left)


def _narrow(line: str, width: int) -> str:
    """A diff line within ``width`` characters (and how many more it had), ending in a line
    feed (a last line without one is marked so, as a unified diff does)."""
    if len(line) > width + 1:
        return f"{line[:width]}… ({len(line.rstrip(chr(10))) - width:,} more characters)\n"
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
