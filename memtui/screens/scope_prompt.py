"""Ask for the path the user works in (the scope filter); an empty answer clears the filter."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class ScopePromptScreen(ModalScreen["str | None"]):
    """Enter answers (the path, or '' to clear), esc cancels (None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", show=True)]

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="scope-dialog", classes="dialog"):
            yield Static("Which memories apply where you work? Type the path (empty: show all).",
                         classes="dialog-title", markup=False)
            field = Input(value=self.current, placeholder="/path/of/the/project/or/package",
                          id="scope-input")
            field.cursor_blink = False
            yield field

    def on_mount(self) -> None:
        self.query_one("#scope-input", Input).focus()

    @on(Input.Submitted, "#scope-input")
    def _on_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
