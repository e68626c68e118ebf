"""A small dialog to pick one memory file by fuzzy name (the successor of a supersede)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from memtui.services.search import fuzzy_filter
from memtui.widgets.row_list import RowList, elide_middle


class PathList(RowList[str]):
    def render_item(self, item: str, width: int) -> Text:
        return Text(elide_middle(item, width), no_wrap=True)


class PickFileScreen(ModalScreen[str | None]):
    """Type to narrow, up/down to choose, enter to pick, esc to cancel."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", show=True),
        Binding("down", "list_down", show=False),
        Binding("up", "list_up", show=False),
    ]

    def __init__(self, title: str, choices: list[str], preselect: str | None = None,
                 what: str = "file") -> None:
        """``preselect`` (a proposed answer) is listed first, under the cursor: enter takes it;
        ``what`` the choices are, in the input's placeholder and the empty list's text."""
        super().__init__()
        self.title_text = title
        self.what = what
        self.choices = sorted(choices)
        if preselect in self.choices:
            self.choices.remove(preselect)
            self.choices.insert(0, preselect)

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-dialog", classes="dialog"):
            yield Static(self.title_text, classes="dialog-title", markup=False)
            query = Input(placeholder=f"type part of a {self.what} name…", id="pick-input")
            query.cursor_blink = False
            yield query
            yield PathList(self.choices, empty_text=f"no {self.what} matches", id="pick-list")

    def on_mount(self) -> None:
        self.query_one("#pick-input", Input).focus()

    @on(Input.Changed, "#pick-input")
    def _on_changed(self, event: Input.Changed) -> None:
        self.query_one(PathList).set_items(fuzzy_filter(event.value, self.choices, str))

    @on(Input.Submitted, "#pick-input")
    def _on_submitted(self) -> None:
        self.dismiss(self.query_one(PathList).highlighted)

    @on(RowList.Selected, "#pick-list")
    def _on_selected(self, event: RowList.Selected) -> None:
        self.dismiss(event.item)

    def action_list_down(self) -> None:
        self.query_one(PathList).action_cursor_down()

    def action_list_up(self) -> None:
        self.query_one(PathList).action_cursor_up()

    def action_cancel(self) -> None:
        self.dismiss(None)
