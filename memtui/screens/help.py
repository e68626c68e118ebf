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
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog", classes="dialog"):
            yield Static("memtui — keys", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                host = self.app if isinstance(self.app, CommandHost) else None
                yield Static(help_table(host is not None and host.read_only,
                                        host.keymap if host is not None else None))
            yield Static("Every change is checked by the validator before a byte is written, "
                         "journaled, and undoable with u.  esc closes.", classes="dialog-hint")
