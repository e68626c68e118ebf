"""The indented JSON writer writes exactly what ``json.dumps(indent=2, ensure_ascii=False)`` does."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.cli.jsontext import Raw, dumps_indented, scalar

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(), st.sampled_from(["", "é\u2028\x00\"\\\n", "\U0001f600", "a" * 3]),
)
keys = st.one_of(st.text(), st.integers(), st.floats(), st.booleans(), st.none())
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.lists(inner, max_size=3).map(tuple),
                            st.dictionaries(st.text(max_size=5), inner, max_size=4),
                            st.dictionaries(keys, inner, max_size=3)),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(values)
def test_bytes_equal_the_standard_encoder(value: object) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_subclasses_and_deep_values_fall_back_to_the_same_bytes() -> None:
    class Text(str):
        pass

    class Number(int):
        pass

    deep: list[object] = []
    for _ in range(300):
        deep = [deep]
    for value in ({"a": Text("x"), "b": Number(3), "c": [math.inf, -math.inf]}, deep,
                  {"k": {"nested": (1, [2, {"x": None}])}}):
        assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_what_the_standard_encoder_refuses_is_refused_alike() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    for value, error in (({"a": {1, 2}}, TypeError), (cycle, ValueError), ({(1, 2): 3}, TypeError)):
        try:
            json.dumps(value, indent=2, ensure_ascii=False)
        except error:
            pass
        else:  # pragma: no cover
            raise AssertionError("the standard encoder accepted it")
        try:
            dumps_indented(value)
        except error:
            continue
        raise AssertionError(f"{value!r} was encoded")


awkward = st.one_of(
    st.text(), st.text(st.characters(min_codepoint=0, max_codepoint=0x2FF)),
    st.text(st.characters(blacklist_categories=())),  # lone surrogates (file names read with
    st.sampled_from(["\"", "\\", "\x00\x1f\x7f", "\u2028\u2029", "\udcff", "\ud83d", "é\U0001f600"]),
)  # surrogateescape can hold them)


@settings(max_examples=400, deadline=None)
@given(st.one_of(awkward, st.none(), st.booleans(), st.integers(),
                 st.floats(allow_nan=True, allow_infinity=True)))
def test_a_scalar_is_encoded_as_the_standard_encoder_does(value: object) -> None:
    assert scalar(value) == json.dumps(value, ensure_ascii=False)  # type: ignore[arg-type]


def test_only_scalars_are_scalars() -> None:
    for value in ([], {}, (), object(), True.__class__.__mro__):
        try:
            scalar(value)  # type: ignore[arg-type]
        except TypeError:
            continue
        raise AssertionError(f"{value!r} taken for a scalar")  # pragma: no cover


def _as_written(value: object, newline: str) -> str:
    """What the standard encoder writes for ``value`` on a line starting with ``newline``."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline)


@settings(max_examples=300, deadline=None)
@given(values)
def test_raw_text_lands_where_the_value_would(value: object) -> None:
    """A Raw standing for a value, anywhere in a document, gives the document's bytes."""
    raw = Raw(_as_written, value)
    for document, expected in (
        (raw, value), ([raw], [value]), ({"a": raw, "b": [1, raw]}, {"a": value, "b": [1, value]}),
        ([{"k": [raw, 2, {"x": raw}]}, raw], [{"k": [value, 2, {"x": value}]}, value]),
    ):
        assert dumps_indented(document) == json.dumps(expected, indent=2, ensure_ascii=False)
