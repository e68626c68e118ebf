"""The unified diff of long line lists: difflib's own output on short inputs, and on long ones a
diff that, applied to the old lines, gives the new lines."""

from __future__ import annotations

import difflib
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.model import linediff
from memtui.core.model.linediff import matching_blocks, unified_diff

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def patched(old: list[str], diff: list[str]) -> list[str]:
    """The old lines with a unified diff applied (each hunk's context and removals checked)."""
    assert not diff or (diff[0].startswith("--- ") and diff[1].startswith("+++ "))
    out: list[str] = []
    at, k = 0, 2
    while k < len(diff):
        hunk = _HUNK.fullmatch(diff[k])
        assert hunk, diff[k]
        start = int(hunk[1]) - (0 if hunk[2] == "0" else 1)
        assert start >= at
        out += old[at:start]
        at, k = start, k + 1
        while k < len(diff) and not diff[k].startswith("@@"):
            sign, line = diff[k][0], diff[k][1:]
            if sign in " -":
                assert old[at] == line
                at += 1
            if sign in " +":
                out.append(line)
            k += 1
    return out + old[at:]


lines = st.lists(st.sampled_from([f"line {i}\n" for i in range(12)]), max_size=40)


@given(lines, lines)
def test_a_short_diff_is_difflibs(a: list[str], b: list[str]) -> None:
    assert list(unified_diff(a, b, "a/x", "b/x")) == list(difflib.unified_diff(a, b, "a/x", "b/x"))


@given(lines, lines, st.integers(0, 4))
def test_hunks_from_blocks_are_difflibs(a: list[str], b: list[str], n: int) -> None:
    """Given difflib's matching blocks, the opcodes and hunks are difflib's."""
    matcher = difflib.SequenceMatcher(None, a, b)
    blocks = [block for block in matcher.get_matching_blocks() if block[2]]
    assert linediff._opcodes(blocks, len(a), len(b)) == matcher.get_opcodes()
    assert list(linediff._grouped(linediff._opcodes(blocks, len(a), len(b)), n)) == \
        list(matcher.get_grouped_opcodes(n))


@given(lines, lines)
def test_the_long_path_on_short_inputs_applies(a: list[str], b: list[str]) -> None:
    """Every input taken the long way (edge cases: empty sides, all equal, all different)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(linediff, "LONG", 0)
        patch.setattr(linediff, "SMALL_RANGE", 4)
        diff = list(unified_diff(a, b, "a/x", "b/x"))
    assert patched(a, diff) == b and (diff == []) == (a == b)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 400), st.sampled_from([3, 40, 5_000]))
def test_a_long_diff_applies_to_the_new_lines(seed: int, edits: int, vocabulary: int) -> None:
    """Long inputs of repeated lines (few distinct ones) and of unique ones, with scattered
    removals, insertions and changes: the diff's hunks apply, and give the new lines."""
    rng = random.Random(seed)
    old = [f"- entry {rng.randrange(vocabulary)}\n" for _ in range(3_000)]
    new = list(old)
    for _ in range(edits):
        at = rng.randrange(len(new) + 1)
        roll = rng.random()
        if roll < 0.4 and at < len(new):
            del new[at]
        elif roll < 0.7:
            new.insert(at, f"- added {rng.randrange(vocabulary)}\n")
        elif at < len(new):
            new[at] = new[at].replace("entry", "changed")
    diff = list(unified_diff(old, new, "a/MEMORY.md", "b/MEMORY.md"))
    assert patched(old, diff) == new
    assert (diff == []) == (old == new)


@pytest.mark.parametrize("vocabulary", [500, 100_000])
def test_matching_blocks_are_equal_in_order_and_match_about_what_difflib_does(vocabulary: int) -> None:
    """Blocks in order, apart and equal; they match at least 95% of the lines difflib's own
    matcher does (lines repeated ~10 times, or none repeated)."""
    rng = random.Random(7)
    a = [f"{rng.randrange(vocabulary)}\n" for _ in range(5_000)]
    b = [line for line in a if rng.random() > 0.05] + ["tail\n"]
    blocks = matching_blocks(a, b)
    i_end = j_end = 0
    for i, j, size in blocks:
        assert size > 0 and i >= i_end and j >= j_end and a[i:i + size] == b[j:j + size]
        i_end, j_end = i + size, j + size
    theirs = sum(size for *_, size in difflib.SequenceMatcher(None, a, b).get_matching_blocks())
    assert sum(size for _, _, size in blocks) >= 0.95 * theirs


@pytest.mark.parametrize("depth", [0, 1, 40])
def test_nesting_beyond_the_depth_stays_a_valid_diff(monkeypatch: pytest.MonkeyPatch, depth: int) -> None:
    """Ranges nested deeper than DEPTH go to difflib whole: still a diff that applies."""
    monkeypatch.setattr(linediff, "DEPTH", depth)
    monkeypatch.setattr(linediff, "SMALL_RANGE", 0)
    old = [f"{i % 97}\n" for i in range(5_000)]
    new = old[::2] + old[1::2]
    assert patched(old, list(unified_diff(old, new))) == new
