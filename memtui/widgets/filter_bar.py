"""A filter input that hides when empty and not focused: ``/`` opens it, Escape clears it."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class FilterBar(Input):
    """Type to narrow the list below; Enter goes back to the list, Escape clears."""

    BINDINGS = [
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("enter", "done", "Done", show=False),
        Binding("down", "done", "Done", show=False),
    ]

    DEFAULT_CSS = """
    FilterBar {
        display: none;
        height: 1;
        &.-active { display: block; }
    }
    """

    class Done(Message):
        """The user left the filter (Enter, Escape or down); focus goes back to the list."""

        def __init__(self, filter_bar: FilterBar) -> None:
            super().__init__()
            self.filter_bar = filter_bar

        @property
        def control(self) -> FilterBar:
            return self.filter_bar

    def __init__(self, placeholder: str = "filter…", *, id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self.cursor_blink = False

    def open(self) -> None:
        """Show the filter and take the focus now, not after the keys already queued: typed in
        one burst with ``/``, they are the filter's text (the ``/`` binding is a priority one,
        so the app hands on the keys behind it only after this)."""
        self.add_class("-active")
        self.screen.set_focus(self)

    def on_blur(self) -> None:
        if not self.value:
            self.remove_class("-active")

    def action_clear_filter(self) -> None:
        self.value = ""
        self.remove_class("-active")
        self.post_message(self.Done(self))

    def action_done(self) -> None:
        if not self.value:
            self.remove_class("-active")
        self.post_message(self.Done(self))
