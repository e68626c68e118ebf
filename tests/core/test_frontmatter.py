"""Frontmatter reading (both dialects) and byte-preserving edits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.model.frontmatter import clear_key, parse_frontmatter, set_key, split_names

FLAT = "---\nname: Alpha\ndescription: \"quoted: value\"\ntype: feedback\ncustom: kept\n---\nBody\n"
NESTED = "---\nname: N\ndescription: d\nmetadata: \n  node_type: memory\n  type: project\n  originSessionId: 42\n---\nB\n"


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        (FLAT, "name", "Alpha"),
        (FLAT, "description", "quoted: value"),
        (FLAT, "custom", "kept"),
        (NESTED, "type", "project"),
        (NESTED, "node_type", "memory"),
        ("---\nrelates_to:\n  - a.md\n  - b\n---\n", "relates_to", ""),
    ],
)
def test_fields(text: str, key: str, value: str) -> None:
    assert parse_frontmatter(text).get(key) == value


def test_flat_key_wins_over_nested() -> None:
    text = "---\ntype: user\nmetadata:\n  type: project\n---\n"
    assert parse_frontmatter(text).get("type") == "user"


@pytest.mark.parametrize(
    ("value", "names"),
    [("a.md, b.md", ("a.md", "b.md")), ("[a.md, 'b.md']", ("a.md", "b.md")), ("[]", ()),
     ("[[wiki]]", ("wiki",)), ("", ())],
)
def test_split_names(value: str, names: tuple[str, ...]) -> None:
    assert split_names(value) == names


def test_list_values_under_a_bare_key() -> None:
    fm = parse_frontmatter("---\nsupersedes:\n  - old.md\n  - older\n---\n")
    assert fm.names("supersedes") == ("old.md", "older")
    assert fm.unsplit == ()


@pytest.mark.parametrize(
    ("text", "present", "closed"),
    [("no block\n", False, False), ("---\nname: x\n", True, False), ("---\n---\n", True, True),
     ("----\nname: x\n---\n", False, False), ("\ufeff---\nname: x\n---\n", True, True)],
)
def test_block_detection(text: str, present: bool, closed: bool) -> None:
    fm = parse_frontmatter(text)
    assert (fm.present, fm.closed) == (present, closed)


def test_unsplit_lines_are_reported_and_kept() -> None:
    fm = parse_frontmatter("---\nname: x\njust words\n---\n")
    assert fm.unsplit == (3,)


@pytest.mark.parametrize(
    ("text", "key", "value", "expected"),
    [
        (FLAT, "type", "user", FLAT.replace("type: feedback", "type: user")),
        (FLAT, "pinned", "true", FLAT.replace("custom: kept\n", "custom: kept\npinned: true\n")),
        (NESTED, "type", "user", NESTED.replace("  type: project", "  type: user")),
        ("body only\n", "pinned", "true", "---\npinned: true\n---\nbody only\n"),
        ("---\r\nname: x\r\n---\r\nb\r\n", "pinned", "true", "---\r\nname: x\r\npinned: true\r\n---\r\nb\r\n"),
        ("---\nsupersedes:\n  - a.md\n---\n", "supersedes", "b.md", "---\nsupersedes: b.md\n---\n"),
    ],
)
def test_set_key_changes_only_its_line(text: str, key: str, value: str, expected: str) -> None:
    assert set_key(text, key, value) == expected


def test_clear_key_removes_only_its_line() -> None:
    assert clear_key(FLAT.replace("custom: kept\n", "custom: kept\npinned: true\n"), "pinned") == FLAT
    assert clear_key(FLAT, "absent") == FLAT
    assert clear_key("no block", "name") == "no block"


@settings(max_examples=150, deadline=None)
@given(
    body=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
    value=st.from_regex(r"[A-Za-z0-9 ._-]{1,20}", fullmatch=True).map(str.strip).filter(bool),
    crlf=st.booleans(),
)
def test_set_then_clear_restores_the_text(body: str, value: str, crlf: bool) -> None:
    nl = "\r\n" if crlf else "\n"
    text = f"---{nl}name: a{nl}type: user{nl}---{nl}{body}"
    edited = set_key(text, "status", value)
    assert parse_frontmatter(edited).get("status") == value
    assert edited.endswith(body)
    assert clear_key(edited, "status") == text
