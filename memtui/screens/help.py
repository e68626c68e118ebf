"""The help screen: every key from the action registry, grouped by what it does."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from memtui.commands import CommandHost, Keymap, help_groups


def help_table(read_only: bool = False, keymap: Keymap | None = None) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold", no_wrap=True)
    groups = list(help_groups(keymap))
    widest = max(len(text) for group, rows in groups for text in (group, *(r[1] for r in rows)))
    table.add_column(no_wrap=True, min_width=widest)  # group headings are never cut
    table.add_column(ratio=1)
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
    """Every key, generated from the registry; any of esc, q, ? or F1 closes it."""

    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close", show=True),
        Binding("j,down", "scroll('down')", "Down", show=False),
        Binding("k,up", "scroll('up')", "Up", show=False),
        Binding("g,home", "scroll('home')", "Top", show=False),
        Binding("G,end", "scroll('end')", "End", show=False),
        Binding("space,pagedown,ctrl+d", "scroll('page_down')", "Page down", show=False),
        Binding("b,pageup,ctrl+u", "scroll('page_up')", "Page up", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Static("memtui — keys", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                host = self.app if isinstance(self.app, CommandHost) else None
                yield Static(help_table(host is not None and host.read_only,
                                        host.keymap if host is not None else None))
            yield Static("Every change is checked by the validator before a byte is written, "
                         "journaled, and undoable with u.  j/k scroll, g/G top and end, "
                         "esc closes.", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#help-body", VerticalScroll).focus()

    def action_scroll(self, where: str) -> None:
        """Move the keys table: a line, a page, or to either end (j k, space b, g G)."""
        body = self.query_one("#help-body", VerticalScroll)
        moves = {"down": body.scroll_down, "up": body.scroll_up, "home": body.scroll_home,
                 "end": body.scroll_end, "page_down": body.scroll_page_down,
                 "page_up": body.scroll_page_up}
        moves[where](animate=False)
