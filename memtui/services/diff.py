"""Side-by-side differences of two memory files, for the merge review (pure, no Textual)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

#: a line longer than this is not diffed character by character (it would only be noise)
CHAR_DIFF_LIMIT = 2_000
#: two changed lines get character highlights only when at least this similar (0–1)
CHAR_DIFF_SIMILARITY = 0.6


@dataclass(frozen=True)
class SideRow:
    """One row of the side-by-side view: what each side holds there, and how they differ.

    ``kind`` is ``same`` (both sides equal), ``changed`` (a line on each side, different),
    ``left`` (only on the left: −) or ``right`` (only on the right: +).  ``*_spans`` are the
    character ranges that differ inside a changed line.
    """

    kind: str
    left: str | None
    right: str | None
    left_spans: tuple[tuple[int, int], ...] = ()
    right_spans: tuple[tuple[int, int], ...] = ()


def char_spans(a: str, b: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The character ranges of ``a`` and of ``b`` that are not shared (rapidfuzz Indel opcodes);
    none when the lines are too different for that to help."""
    from rapidfuzz.distance import Indel

    if (len(a) > CHAR_DIFF_LIMIT or len(b) > CHAR_DIFF_LIMIT
            or Indel.normalized_similarity(a, b) < CHAR_DIFF_SIMILARITY):
        return (), ()  # too different: the whole line is the difference

    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    for op in Indel.opcodes(a, b):
        if op.tag in ("delete", "replace") and op.src_end > op.src_start:
            left.append((op.src_start, op.src_end))
        if op.tag in ("insert", "replace") and op.dest_end > op.dest_start:
            right.append((op.dest_start, op.dest_end))
    return tuple(left), tuple(right)


def side_by_side(left_text: str, right_text: str) -> list[SideRow]:
    """Align two texts line by line: equal lines side by side, changes paired, the rest alone."""
    left = left_text.splitlines()
    right = right_text.splitlines()
    rows: list[SideRow] = []
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows.extend(SideRow("same", left[i], right[j]) for i, j in zip(range(i1, i2), range(j1, j2)))
            continue
        a_lines, b_lines = left[i1:i2], right[j1:j2]
        paired = min(len(a_lines), len(b_lines)) if tag == "replace" else 0
        for k in range(paired):
            spans_a, spans_b = char_spans(a_lines[k], b_lines[k])
            rows.append(SideRow("changed", a_lines[k], b_lines[k], spans_a, spans_b))
        rows.extend(SideRow("left", line, None) for line in a_lines[paired:])
        rows.extend(SideRow("right", None, line) for line in b_lines[paired:])
    return rows


def similarity_summary(rows: list[SideRow]) -> tuple[int, int, int, int]:
    """(same, changed, only left, only right) line counts."""
    counts = {"same": 0, "changed": 0, "left": 0, "right": 0}
    for row in rows:
        counts[row.kind] += 1
    return counts["same"], counts["changed"], counts["left"], counts["right"]
