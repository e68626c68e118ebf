"""A table laid out by ``bigtable`` prints exactly what Rich prints for it."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from memtui.cli import bigtable
from memtui.cli.bigtable import Col, print_table, rich_table

COLUMNS = (
    Col("score", justify="right", no_wrap=True),
    Col("action", no_wrap=True, styled=True),
    Col("type", no_wrap=True),
    Col("age", justify="right", no_wrap=True, styled=True),
    Col("missing refs", ratio=3),
    Col("guards", ratio=2),
    Col("file", ratio=3),
)
words = st.one_of(
    st.text(st.characters(min_codepoint=32, max_codepoint=0x7e), max_size=12),
    st.sampled_from(["", " ", "a b  c ", " lead", "trail ", "x" * 40, "[bold]not[/]", "\\[x]",
                     "a:smile:b", ":+1:", "漢字の名前.md", "e\u0301", "😀 wide", "tab\there",
                     "line\u2028sep", "nb\u00a0sp", "path/to/a_long-file name.md"]),
)
cells = st.lists(words, min_size=1, max_size=3).map(" ".join)
rows = st.lists(
    st.tuples(st.floats(0, 100), st.sampled_from(["[green]keep[/]", "[bold red]prune[/]",
                                                   "[yellow]review[/]"]),
              st.sampled_from(["project", "user", "unknown"]),
              st.sampled_from(["3d", "120d [dim]mtime[/]", "0d [dim]file name[/]"]),
              cells, cells, cells),
    min_size=0, max_size=12,
).map(lambda found: [[f"{s:5.1f}", *rest] for s, *rest in found])


def printed(rows: list[list[str]], width: int, color: bool, fast: bool) -> str:
    buffer = io.StringIO()
    out = Console(file=buffer, width=width, highlight=False, soft_wrap=True, force_terminal=color,
                  color_system="truecolor" if color else None)
    print_table(out, f"[bold]root[/] — {len(rows)} files · as of today", COLUMNS, rows,
                rich_rows=-1 if fast else 10**9)
    return buffer.getvalue()


@settings(max_examples=300, deadline=None)
@given(rows, st.sampled_from([1000, 160, 100, 80, 64, 50, 30]), st.booleans())
def test_the_same_text_as_rich(found: list[list[str]], width: int, color: bool) -> None:
    assert printed(found, width, color, True) == printed(found, width, color, False)


def test_it_writes_the_rows_itself_when_it_can(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain rows are laid out without Rich rendering them (else this module saves nothing)."""
    found = [[f"{i:5.1f}", "[green]keep[/]", "user", f"{i}d", "", "recent", f"note_{i}.md"]
             for i in range(300)]
    rendered: list[int] = []
    real = bigtable.rich_table

    def counted(title: str, columns: tuple[Col, ...], rows: list[list[str]]):  # type: ignore[no-untyped-def]
        rendered.append(len(rows))
        return real(title, columns, rows)

    monkeypatch.setattr(bigtable, "rich_table", counted)
    for width in (1000, 80):
        rendered.clear()
        text = printed(found, width, True, True)
        assert rendered and max(rendered) < 10  # only the rows that decide the widths
        assert "note_299.md" in text and text.count("\n") >= 300


def test_rich_table_escapes_literal_cells() -> None:
    table = rich_table("t", (Col("a"), Col("b", styled=True)), [["[red]x[/]", "[red]y[/]"]])
    buffer = io.StringIO()
    Console(file=buffer, width=40).print(table)
    assert "[red]x[/]" in buffer.getvalue() and "[red]y[/]" not in buffer.getvalue()
