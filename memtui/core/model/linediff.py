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
from bisect import bisect_left
from collections.abc import Iterator, Sequence

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
    if len(a) + len(b) <= LONG:
        yield from difflib.unified_diff(a, b, fromfile, tofile, n=n)
        return
    started = False
    for group in _grouped(_opcodes(matching_blocks(a, b), len(a), len(b)), n):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
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
