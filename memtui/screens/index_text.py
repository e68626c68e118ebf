"""A full screen over ``MEMORY.md`` as it is on disk, with the loader's cut and stripped lines drawn."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from memtui.services.workspace import Workspace
from memtui.widgets.index_text import IndexText


class IndexTextScreen(Screen[None]):
    """The index text of the open root; esc, q or i closes it, c jumps to the cut (the text's key)."""

    BINDINGS = [
        Binding("escape,q,i", "dismiss", "Close", show=True),
    ]

    DEFAULT_CSS = """
    IndexTextScreen { layout: vertical; }
    """

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        yield IndexText(id="index-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        text = self.query_one(IndexText)
        text.show(self.workspace.snapshot.index, self.workspace.budget)
        text.border_title = f"{self.workspace.root.name}/MEMORY.md · as on disk"
        text.focus()
