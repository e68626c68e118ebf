"""Column titles above a tabular list, laid out by the list's own cells so they line up."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widget import Widget

from .row_list import RowList, compose_row


class ColumnHeader(Widget):
    """One line naming a list's columns; follows its width, scrollbar and mark gutter."""

    DEFAULT_CSS = """
    ColumnHeader { height: 1; color: $text-muted; text-style: bold; }
    """

    def __init__(self, row_list: RowList[Any], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.row_list = row_list

    def render(self) -> Text:
        row_list = self.row_list
        width = row_list._row_width or self.size.width
        gutter = 2 if row_list.marks else 0
        cells = row_list.header_cells()
        line = Text(" " * gutter) + compose_row(cells, max(1, width - gutter)) if cells else Text()
        line.truncate(self.size.width, overflow="ellipsis", pad=True)
        return line
