"""A unified diff, drawn only where it is on screen (a change of a thousand files opens at once)."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from .row_list import RowList

#: the role of a diff line by how it starts (first match wins)
_ROLES = (("+++", "bold"), ("---", "bold"), ("rename ", "bold"), ("+", "ok"), ("-", "error"),
          ("@@", "accent"))


class DiffView(RowList[str]):
    """One line of a unified diff per row: additions, removals and hunk headers coloured and marked
    by their ``+`` / ``-`` / ``@@`` (never by colour alone)."""

    def __init__(self, diff: str, *, id: str | None = None) -> None:
        lines: Sequence[str] = diff.splitlines()
        super().__init__(lines, empty_text="no text changes: files are only moved", id=id)

    def item_key(self, item: str) -> object:
        return id(item)

    def item_path(self, item: str) -> str | None:
        return None

    def render_item(self, item: str, width: int) -> Text:
        text = Text(item, no_wrap=True, overflow="ellipsis")
        for prefix, role in _ROLES:
            if item.startswith(prefix):
                text.stylize("bold" if role == "bold" else self.style_of(role))  # a span: a
                break  # Text's own style is not rendered by Text.render
        return text
