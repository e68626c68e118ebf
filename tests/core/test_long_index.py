"""The long index's linear algorithms give exactly what the plain ones they replace give.

Each replaced algorithm is kept here in its plain form (the reference) and compared with the
project's on random inputs drawn from a small alphabet, so that the awkward cases (one text
inside another, equal texts, texts spanning lines) come up often.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.index_repair import distinct_hooks

# ---------------------------------------------------------------- the merged entry's hooks


def plain_distinct_hooks(hooks: list[str]) -> list[str]:
    """The reference: each hook against every kept one."""
    kept: list[str] = []
    for hook in hooks:
        if hook and not any(hook in h for h in kept):
            kept = [h for h in kept if h not in hook] + [hook]
    return kept


HOOK = st.text(alphabet="ab; .\n", max_size=7)


@settings(max_examples=400, deadline=None)
@given(st.lists(HOOK, max_size=40))
def test_distinct_hooks_equal_the_plain_walk(hooks: list[str]) -> None:
    assert distinct_hooks(hooks) == plain_distinct_hooks(hooks)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="ab", min_size=1, max_size=2), min_size=10, max_size=60))
def test_distinct_hooks_by_substrings_equal_the_plain_walk(hooks: list[str]) -> None:
    """Short hooks after many kept ones: the kept hooks inside a new one are found by its substrings."""
    many = [f"x{i}y" for i in range(12)]
    assert distinct_hooks(many + hooks) == plain_distinct_hooks(many + hooks)


def test_a_hook_inside_a_dropped_one_is_still_dropped() -> None:
    """'ab' was dropped for 'abc'; 'b' lies in both, so it stays out."""
    assert distinct_hooks(["ab", "abc", "b", "c d"]) == ["abc", "c d"]
