"""The index parser: every line kind, and byte-exact rendering."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.model.index import parse_index, resolve_target
from memtui.core.model.snapshot import EntryForm, LineKind


def one(line: str, **kw: object):  # type: ignore[no-untyped-def]
    return parse_index(line.encode(), **kw).lines[0]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "target", "hook", "form"),
    [
        ("- [Title](file.md) — hook here", "file.md", "hook here", EntryForm.LINK),
        ("- [Title](file.md) – en dash", "file.md", "en dash", EntryForm.LINK),
        ("- [Title](file.md) -- double", "file.md", "double", EntryForm.LINK),
        ("- [Title](file.md) - hyphen", "file.md", "hyphen", EntryForm.LINK),
        ("- [Title](file.md): colon", "file.md", "colon", EntryForm.LINK),
        ("* [Title](./dir/file.md) — star", "./dir/file.md", "star", EntryForm.LINK),
        ("1. [Title](file.md) — numbered", "file.md", "numbered", EntryForm.LINK),
        ("- **file.md** — bold form", "file.md", "bold form", EntryForm.BOLD),
        ("- **[Bold link](x.md)** — wrapped", "x.md", "wrapped", EntryForm.LINK),
        ("- ** ACTIVE ** [Mission](m.md)", "m.md", "ACTIVE", EntryForm.LINK),
        ("- read this → [[android-flow]]", "android-flow.md", "read this →", EntryForm.WIKILINK),
        ("- [Title](file.md)", "file.md", "", EntryForm.LINK),
        ("- [Spaced](my%20file.md) — pct", "my%20file.md", "pct", EntryForm.LINK),
    ],
)
def test_entry_forms(line: str, target: str, hook: str, form: EntryForm) -> None:
    parsed = one(line)
    assert parsed.kind is LineKind.ENTRY
    assert (parsed.target, parsed.hook, parsed.form) == (target, hook, form)


@pytest.mark.parametrize(
    "line",
    [
        "- a fact with no link",
        "- [site](https://example.com) — url",
        "- [anchor](#top) — anchor",
        "- [script](tools/run.sh) — not a memory file",
        "- [index](MEMORY.md) — navigation",
        "- `~/.claude/x.md` — inline code outside a Memory base",
        "Prose with [a link](a.md) is not a list item",
        "![img](a.md)",
    ],
)
def test_not_entries(line: str) -> None:
    assert one(line).kind is not LineKind.ENTRY


def test_region_pointer() -> None:
    for arrow in ("→", "->"):
        line = one(f"- region `lesson_*.md` {arrow} older lessons; grep the memory dir")
        assert line.kind is LineKind.REGION and line.glob == "lesson_*.md"


def test_headings_sections_and_scopes() -> None:
    text = (
        "# Memory\n## Pinned\n- [A](a.md) — a\n## PATH_SCOPE: web\nScope: `/srv/web`\n"
        "Memory base: `path/web/`\n- `ui.md` — ui\n## GLOBAL\n- [B](b.md) — b\n"
    )
    index = parse_index(text.encode())
    kinds = [ln.kind for ln in index.lines]
    assert kinds.count(LineKind.HEADING) == 4 and kinds.count(LineKind.SCOPE_FIELD) == 2
    assert index.lines[2].section == "Pinned"
    ui = index.lines[6]
    assert ui.form is EntryForm.CODE and ui.resolved == "path/web/ui.md" and ui.scope == "web"
    assert index.lines[8].resolved == "b.md" and index.lines[8].scope == ""
    assert index.scopes[0].scope_path == "/srv/web" and index.scopes[0].memory_base == "path/web/"


def test_memory_base_falls_back_to_root_relative() -> None:
    text = "## PATH_SCOPE: web\nMemory base: `path/web/`\n- [X](path/web/x.md) — x\n"
    line = parse_index(text.encode(), exists=lambda p: p == "path/web/x.md").lines[2]
    assert line.resolved == "path/web/x.md"


def test_comments_and_fences() -> None:
    text = "<!-- one -->\n<!--\n- [A](a.md) — hidden\n-->\n```\n- [B](b.md) — code\n```\n"
    kinds = [ln.kind for ln in parse_index(text.encode()).lines]
    assert LineKind.ENTRY not in kinds
    assert kinds[:4] == [LineKind.COMMENT] * 4


@pytest.mark.parametrize(
    ("target", "resolved", "escapes"),
    [("a.md", "a.md", False), ("./x/../a.md", "a.md", False), ("../a.md", None, True),
     ("/etc/a.md", None, True), ("~/a.md", None, True), ("x/../../a.md", None, True)],
)
def test_resolve_target(target: str, resolved: str | None, escapes: bool) -> None:
    assert resolve_target(target) == (resolved, escapes)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_render_is_byte_exact_for_any_input(data: bytes) -> None:
    assert parse_index(data).render() == data
