"""The help screen: every key from the action registry, grouped by what it does."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from memtui.commands import CommandHost, Keymap, help_groups
from memtui.widgets.moves import move_bindings


def help_table(read_only: bool = False, keymap: Keymap | None = None, query: str = "") -> Table:
    """Every key by group; with ``query``, only the keys whose key, name or text holds each of
    its words (case folded), under their groups."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold", no_wrap=True)
    groups = list(help_groups(keymap))
    widest = max(len(text) for group, rows in groups for text in (group, *(r[1] for r in rows)))
    table.add_column(no_wrap=True, min_width=widest)  # group headings are never cut
    table.add_column(ratio=1)
    words = query.casefold().split()
    if words:
        groups = [(group, shown) for group, rows in groups
                  if (shown := [row for row in rows
                                if all(w in " ".join(row).casefold() for w in words)])]
        if not groups:
            table.add_row("", Text(f"no key matches “{query}”", style="dim"), "")
    first = True
    for group, rows in groups:
        if not first:
            table.add_row("", "", "")
        first = False
        table.add_row("", Text(group, style="bold underline"), "")
        for keys, label, text in rows:
            table.add_row(keys, label, Text(text, style="dim"))
    if read_only:
        table.add_row("", "", "")
        table.add_row("", Text("read-only", style="bold"),
                      Text("--read-only is on: every change above is disabled.", style="dim"))
    return table


class HelpScreen(ModalScreen[None]):
    """Every key, generated from the registry; any of esc, q, ? or F1 closes it, ``/`` searches
    it (esc in the search clears it first)."""

    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close", show=True),
        Binding("slash", "search", "Search", show=True),
        *move_bindings({"down": "scroll('down')", "up": "scroll('up')", "first": "scroll('home')",
                        "last": "scroll('end')", "page_down": "scroll('page_down')",
                        "page_up": "scroll('page_up')"}, pager=True),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Static("memtui — keys", classes="dialog-title")
            search = Input(placeholder="search the keys: a word of a key, an action or what it does…",
                           id="help-search")
            search.display = False
            yield search
            with VerticalScroll(id="help-body"):
                yield Static(self._table(""), id="help-table")
            yield Static("Every change is checked by the validator before a byte is written, "
                         "journaled, and undoable with u.  j/k scroll, g/G top and end, / searches, "
                         "esc closes.", classes="dialog-hint")

    def _table(self, query: str) -> Table:
        host = self.app if isinstance(self.app, CommandHost) else None
        return help_table(host is not None and host.read_only, host.keymap if host is not None else None,
                          query)

    def on_mount(self) -> None:
        self.query_one("#help-body", VerticalScroll).focus()

    def action_search(self) -> None:
        search = self.query_one("#help-search", Input)
        search.display = True
        search.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#help-table", Static).update(self._table(event.value))
        self.query_one("#help-body", VerticalScroll).scroll_home(animate=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one("#help-body", VerticalScroll).focus()  # the matches stay; j/k scroll them

    def on_key(self, event: events.Key) -> None:
        """esc in the search clears it (and hides it) rather than closing the help; a key typed
        there is text, not a help key (``q`` in "quit")."""
        search = self.query_one("#help-search", Input)
        if not search.has_focus:
            return
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            search.value = ""
            search.display = False
            self.query_one("#help-body", VerticalScroll).focus()

    def action_scroll(self, where: str) -> None:
        """Move the keys table: a line, a page, or to either end (j k, space b, g G)."""
        body = self.query_one("#help-body", VerticalScroll)
        moves = {"down": body.scroll_down, "up": body.scroll_up, "home": body.scroll_home,
                 "end": body.scroll_end, "page_down": body.scroll_page_down,
                 "page_up": body.scroll_page_up}
        moves[where](animate=False)
