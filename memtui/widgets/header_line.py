"""A one-line label that repaints without re-laying-out the screen (list headers, status)."""

from __future__ import annotations

from rich.console import RenderableType
from textual.reactive import reactive
from textual.widget import Widget


class HeaderLine(Widget):
    """Fixed height 1: changing its text repaints only this line.

    ``Static.update`` asks for a layout of the whole screen, because new content may change its
    size; a line whose height never changes does not need that, and typing in a filter over ten
    thousand files then costs one line, not a screen.
    """

    DEFAULT_CSS = """
    HeaderLine { height: 1; }
    """

    text: reactive[RenderableType] = reactive("", layout=False)

    def __init__(self, text: RenderableType = "", *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.set_reactive(HeaderLine.text, text)

    def update(self, text: RenderableType) -> None:
        self.text = text

    def render(self) -> RenderableType:
        return self.text
