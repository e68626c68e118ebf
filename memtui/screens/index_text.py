"""A full screen over ``MEMORY.md`` as it is on disk, with the loader's cut and stripped lines drawn."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from memtui.services.workspace import Workspace
from memtui.widgets.index_text import IndexText


class IndexTextScreen(Screen[None]):
    """The index text of the open root; esc, q or i closes it, c jumps to the cut."""

    BINDINGS = [
        Binding("escape,q,i", "dismiss", "Close", show=True),
        Binding("c", "to_cut", "Jump to the cut", show=True),
    ]

    DEFAULT_CSS = """
    IndexTextScreen { layout: vertical; }
    IndexTextScreen > #index-text-path { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        yield Static(str(self.workspace.root / "MEMORY.md"), id="index-text-path", markup=False)
        yield IndexText(id="index-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        text = self.query_one(IndexText)
        text.show(self.workspace.snapshot.index, self.workspace.budget)
        text.focus()

    def action_to_cut(self) -> None:
        self.query_one(IndexText).action_to_cut()
