"""A Rich table of many rows, laid out without rendering every cell through Rich.

Rich measures and renders each cell as a Text (about 0.6 ms a row): a 10,000-row ``stale`` took
seconds.  :func:`print_table` prints what ``out.print(Table(...))`` prints, byte for byte: Rich
itself lays out a table of the few rows that decide the column widths (per column, the cell with
the longest line and the one with the longest word: Rich's measure is the maximum over cells)
and renders its title, header and borders; the body rows are then written here at those widths.
A cell that does not fit its column is folded by Rich's own ``Text.wrap``.  Anything this does
not do the way Rich does (a cell that is not plain printable text, a no-wrap column Rich would
cut, a styled cell that would wrap, a border it cannot read) leaves the whole table to Rich.
Small tables always go to Rich: they are fast there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

#: tables of at most this many rows are printed by Rich itself
RICH_ROWS = 100


@dataclass(frozen=True)
class Col:
    """A column: Rich's ``add_column`` options, and whether its cells are Rich markup
    (``styled``: few distinct values, never wrapped) or literal text shown as it is."""

    header: str
    justify: str = "left"
    no_wrap: bool = False
    overflow: str = "fold"
    ratio: int | None = None
    styled: bool = False
    min_width: int | None = None  # a column that keeps its width (a file name's) on a narrow terminal


def fit_columns(width: int, columns: Sequence[Col], rows: Sequence[Sequence[str]],
                keep: int, order: Sequence[int]) -> tuple[list[Col], list[list[str]]]:
    """The columns that fit ``width`` on a narrow terminal: column ``keep`` (the name) first at
    its full width (as far as it can be), then the others in ``order`` (most wanted first) while
    they fit, shown in that order; the rows cut to match."""
    import re

    def natural(i: int) -> int:
        cells = [re.sub(r"\[/?[^\]]*\]", "", row[i]) if columns[i].styled else row[i]
                 for row in rows]
        return max([len(columns[i].header), *map(len, cells)]) + 3  # padding and a border

    name = min(natural(keep), max(16, width - 24))
    chosen, used = [keep], name + 1
    for i in order:
        need = natural(i) if columns[i].no_wrap or columns[i].styled else min(natural(i), 16)
        if used + need <= width:
            chosen.append(i)
            used += need
    shown = [replace(columns[keep], min_width=name - 3, ratio=None)] + [columns[i] for i in chosen[1:]]
    return shown, [[row[i] for i in chosen] for row in rows]


def rich_table(title: str, columns: Sequence[Col], rows: Sequence[Sequence[str]]) -> Table:
    """The Rich table :func:`print_table` prints (``title`` is markup; literal cells escaped)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, title_justify="left", expand=False, pad_edge=False)
    for col in columns:
        table.add_column(col.header, justify=col.justify, no_wrap=col.no_wrap,  # type: ignore[arg-type]
                         overflow=col.overflow, ratio=col.ratio,  # type: ignore[arg-type]
                         min_width=col.min_width)
    for row in rows:
        table.add_row(*[cell if col.styled else escape(cell) for col, cell in zip(columns, row)])
    return table


def print_table(out: Console, title: str, columns: Sequence[Col], rows: Sequence[Sequence[str]],
                rich_rows: int = RICH_ROWS) -> None:
    """``out.print(rich_table(title, columns, rows))``, the body rows written without Rich when
    there are more than ``rich_rows``."""
    text = _laid_out(out, title, columns, rows) if len(rows) > rich_rows else None
    if text is None:
        out.print(rich_table(title, columns, rows))
    else:
        out.file.write(text)
        out.file.flush()


_MARKUP = frozenset("[]\\:")  # what Rich's markup or emoji codes could change in a literal cell


#: a cell as measured: (what is written, its plain text)
Cell = tuple[str, str]
#: a column's padding: (left, right)
Pad = tuple[int, int]


def _laid_out(out: Console, title: str, columns: Sequence[Col],
              rows: Sequence[Sequence[str]]) -> str | None:
    """The printed table, or None when Rich must print it: every cell measured, the frame Rich
    draws for the few rows that decide the column widths, then the body laid out in them."""
    if not rows or any(col.justify not in ("left", "right") for col in columns):
        return None
    measured = _measured(out, columns, rows)
    if measured is None:
        return None
    cells, deciding = measured
    frame = _frame(out, title, columns, [rows[n] for n in deciding])
    if frame is None:
        return None
    head, foot, widths = frame
    count = len(columns)
    pads = [(0 if i == 0 else 1, 0 if i == count - 1 else 1) for i in range(count)]
    inner = [w - left - right for w, (left, right) in zip(widths, pads)]
    if any(width < 1 for width in inner):
        return None
    body = _body(out, columns, cells, widths, inner, pads)
    return None if body is None else head + "".join(body) + foot


def _measured(out: Console, columns: Sequence[Col],
              rows: Sequence[Sequence[str]]) -> tuple[list[list[Cell]], list[int]] | None:
    """Every row's cells as written and as plain text, and the rows that decide the column
    widths (per column, the longest text and the longest word); None when a cell is no plain
    printable text (line breaks, tabs, controls; spaces Rich would strip)."""
    from rich.cells import cell_len
    from rich.markup import escape

    count = len(columns)
    styled: dict[str, Cell] = {}  # markup -> (what Rich writes, its plain text)
    shown: dict[str, str] = {}  # a literal cell that Rich's markup could touch -> its plain text
    cells: list[list[Cell]] = []  # per row: (written, plain) per column
    longest = [(-1, 0)] * count  # per column: (cells, row) of the longest text
    widest_word = [(-1, 0)] * count  # per column: (cells, row) of the longest word
    for number, row in enumerate(rows):
        done = []
        for i, (col, cell) in enumerate(zip(columns, row)):
            if col.styled:
                found = styled.get(cell)
                if found is None:
                    text = out.render_str(cell)
                    with out.capture() as capture:
                        out.print(text, end="")
                    found = styled[cell] = (capture.get(), text.plain)
                written, plain = found
            else:
                plain = cell
                if not _MARKUP.isdisjoint(cell):
                    plain = shown.get(cell) or shown.setdefault(cell, out.render_str(escape(cell)).plain)
                written = plain
            if not plain.isprintable() or (col.justify == "right" and plain.endswith(" ")):
                return None
            width = len(plain) if plain.isascii() else cell_len(plain)
            if width > longest[i][0]:
                longest[i] = (width, number)
            words = plain.split()
            word = (max(map(cell_len, words)) if words else width) if " " in plain else width
            if word > widest_word[i][0]:
                widest_word[i] = (word, number)
            done.append((written, plain))
        cells.append(done)
    return cells, sorted({n for _, n in longest} | {n for _, n in widest_word})


def _frame(out: Console, title: str, columns: Sequence[Col],
           deciding: Sequence[Sequence[str]]) -> tuple[str, str, list[int]] | None:
    """What Rich prints of a table of the deciding rows around its body: the title, header and
    the rule below it; the bottom border; and the width of each column between its borders
    (None when the borders are not the ones read here)."""
    with out.capture() as capture:
        out.print(rich_table(title, columns, deciding))
    lines = capture.get().split("\n")
    top = next((i for i, line in enumerate(lines) if line.startswith("┏")), None)
    head_end = next((i for i, line in enumerate(lines) if line.startswith("┡")), None)
    if top is None or head_end is None or not lines[-2].startswith("└"):
        return None
    parts = lines[top][1:-1].split("┳")
    if len(parts) != len(columns) or any(part.strip("━") for part in parts):
        return None
    return "\n".join(lines[: head_end + 1]) + "\n", lines[-2] + "\n", [len(part) for part in parts]


def _body(out: Console, columns: Sequence[Col], cells: list[list[Cell]], widths: list[int],
          inner: list[int], pads: list[Pad]) -> list[str] | None:
    """The body's lines: each cell padded to its column, one that does not fit folded by
    Rich's ``Text.wrap`` (its row then as tall as its tallest cell); None when Rich would cut a
    cell (a no-wrap column) or wrap styles."""
    from rich.cells import cell_len

    body: list[str] = []
    append = body.append
    for done in cells:
        parts = []
        folded: dict[int, list[str]] = {}
        for i, (written, plain) in enumerate(done):
            col = columns[i]
            space = inner[i] - (len(plain) if plain.isascii() else cell_len(plain))
            left, right = pads[i]
            if space >= 0:
                if col.justify == "right":
                    parts.append(" " * (left + space) + written + " " * right)
                else:
                    parts.append(" " * left + written + " " * (space + right))
                continue
            if col.no_wrap or col.styled:
                return None  # Rich would cut it (or wrap styles): its own business
            cell_lines = _folded(out, col, plain, inner[i], pads[i])
            if cell_lines is None:
                return None
            folded[i] = cell_lines
            parts.append(cell_lines[0])
        if not folded:
            append("│" + "│".join(parts) + "│\n")
            continue
        height = max(len(cell) for cell in folded.values())
        for y in range(height):
            append("│" + "│".join(
                part if i not in folded and y == 0
                else folded[i][y] if i in folded and y < len(folded[i]) else " " * widths[i]
                for i, part in enumerate(parts)) + "│\n")
    return body


def _folded(out: Console, col: Col, plain: str, inner: int, pad: Pad) -> list[str] | None:
    """A cell too wide for its column as Rich folds it, each line padded to the column; None
    when a line still does not fit."""
    from rich.cells import cell_len
    from rich.text import Text

    left, right = pad
    cell_lines = []
    for line in Text(plain).wrap(out, inner, justify=col.justify,  # type: ignore[arg-type]
                                 overflow=col.overflow):  # type: ignore[arg-type]
        line_text = line.plain
        gap = inner - cell_len(line_text)
        if gap < 0:
            return None
        cell_lines.append(" " * left + (" " * gap + line_text if col.justify == "right"
                                        else line_text + " " * gap) + " " * right)
    return cell_lines
