"""The Inbox view: what changed outside memtui since the last look, newest first, with diffs."""

from __future__ import annotations

from datetime import datetime

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from memtui.core.stores.seen import Change, Inbox, tracked_words
from memtui.core.stores.seen_store import root_writable
from memtui.services.workspace import Workspace

from .header_line import HeaderLine
from .row_list import Cell, RowList, compose_row
from .view import View, read_only

#: a glyph and a word per kind (colour is never the only signal)
#: the list's text when the look found no change
EMPTY = "nothing changed outside memtui since the last look"
#: the list's text when the folder's changes cannot be known (never also "nothing changed")
UNAVAILABLE = "cannot tell what changed outside memtui: the inbox is unavailable"
#: the list's text when there is no baseline (not "since the last look": there was none)
NO_BASELINE = "nothing to compare with yet"

KIND_MARK = {"added": ("+", "ok"), "changed": ("~", "warn"), "removed": ("-", "error"),
             "renamed": ("→", "muted")}


class ChangeList(RowList[Change]):
    """One row per change: kind, path (old → new for a rename), when."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(empty_text=EMPTY, id=id)

    def item_key(self, item: Change) -> object:
        return (item.kind, item.path, item.old_path)

    def render_item(self, item: Change, width: int) -> Text:
        glyph, role = KIND_MARK[item.kind]
        label = f"{item.old_path} → {item.path}" if item.old_path else item.path
        when = datetime.fromtimestamp(item.when).strftime("%m-%d %H:%M") if item.when else ""
        flag = Text(f"{len(item.findings)}✖" if any(f.severity == "error" for f in item.findings) else "",
                    style=self.style_of("error"))
        return compose_row(
            [
                Cell(Text(glyph, style=self.style_of(role)), 1),
                Cell(Text(item.kind, style=self.style_of(role)), 8),
                Cell(label, None, weight=1, min_width=16),
                Cell(flag, 3),
                Cell(Text(when, style=self.style_of("muted")), 11),
            ],
            width,
        )


def change_detail(change: Change) -> RenderableType:
    """The findings a change introduced, then its diff."""
    parts: list[RenderableType] = []
    head = Text(f"{change.kind} ", style="bold")
    head.append(f"{change.old_path} → {change.path}" if change.old_path else change.path)
    if change.by is not None:
        head.append(f"  by {change.by.words()}", style="italic")
        if change.record:
            head.append(f" · journal {change.record}: undo with u or `memtui undo`", style="italic")
    elif change.session:
        head.append(f"  by session {change.session[:8]}", style="italic")
    parts.append(head)
    for f in change.findings:
        where = f.path + (f":{f.line}" if f.line else "")
        mark = "✖ error" if f.severity == "error" else "⚠ warning"
        parts.append(Text(f"{mark} {f.rule} {where} — {f.message}",
                          style="red" if f.severity == "error" else "yellow"))
    if change.note:
        parts.append(Text(change.note, style="italic"))
    if change.diff:
        parts.append(wrapped_diff(change.diff))
    return Group(*parts)


#: how a diff line is drawn, by how it starts (first match wins): file and hunk headers whole
_DIFF_HEADS = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"))
_DIFF_MARKS = {"+": "green", "-": "red"}


def wrapped_diff(diff: str) -> Table:
    """A unified diff whose long lines wrap under their text: the ``+``/``-`` marker keeps a
    column of its own (a wrapped line never starts under it)."""
    table = Table.grid(expand=True)
    table.add_column(width=1, no_wrap=True)
    table.add_column(ratio=1, overflow="fold")
    for line in diff.rstrip("\n").splitlines():
        head = next((style for prefix, style in _DIFF_HEADS if line.startswith(prefix)), None)
        if head is not None:
            table.add_row(Text(line[:1], style=head), Text(line[1:], style=head))
            continue
        style = _DIFF_MARKS.get(line[:1], "")
        table.add_row(Text(line[:1], style=style), Text(line[1:], style=style))
    return table


class InboxView(View):
    """Changes made outside memtui since the last look; ``n`` marks one seen, ``N`` all."""

    DEFAULT_CSS = """
    InboxView #inbox-body { height: 1fr; }
    InboxView #inbox-list { width: 2fr; height: 1fr; }
    InboxView #inbox-detail { width: 3fr; height: 1fr; padding: 0 1;
                              border-left: solid $foreground 30%; }
    """

    inbox: Inbox | None = None

    def compose(self) -> ComposeResult:
        yield HeaderLine("looking for changes…", id="inbox-header", classes="list-header")
        with Horizontal(id="inbox-body", classes="view-columns"):
            yield ChangeList(id="inbox-list")
            with VerticalScroll(id="inbox-detail"):
                yield Static(id="inbox-diff")

    @property
    def change_list(self) -> ChangeList:
        return self.query_one("#inbox-list", ChangeList)

    def panes(self) -> list[Widget]:
        return [self.change_list]

    def show(self, workspace: Workspace) -> None:
        super().show(workspace)
        if self.inbox is not None:  # the header counts the workspace's files
            self.show_inbox(self.inbox)

    def show_inbox(self, inbox: Inbox) -> None:
        """Redraw from a new look at the folder, keeping the cursor on the same change."""
        self.inbox = inbox
        changes = self.change_list
        if inbox.note.startswith("the inbox is unavailable"):
            changes.empty_text = UNAVAILABLE
        elif inbox.note:  # no baseline: there was no last look to compare with
            changes.empty_text = NO_BASELINE
        else:
            changes.empty_text = EMPTY
        keep = changes.item_key(changes.highlighted) if changes.highlighted else None
        changes.set_items(list(inbox.changes), keep=keep)
        # a baseline in the cache by choice (a look writes nothing in the folder) is no news;
        # one there because the folder cannot be written is
        where = (" · baseline kept in the user's cache (the folder cannot be written)"
                 if inbox.in_cache and self.workspace is not None
                 and not root_writable(self.workspace.snapshot.root) else "")
        if inbox.note:
            header = inbox.note
        elif inbox.seeded:
            tracked = (tracked_words(inbox.tracked, self.workspace.snapshot) if self.workspace
                       else f"{inbox.tracked} files")
            header = (f"first look: {tracked} remembered as seen; changes made outside "
                      f"memtui from now on appear here{where}")
        elif not inbox.changes:  # the list itself says nothing changed: the header does not repeat it
            header = f"files changed, added or removed outside memtui appear here{where}"
        else:
            count = len(inbox.changes)
            header = (f"{count} change{'s' if count != 1 else ''} outside memtui since the last look"
                      f"{where}" + ("" if read_only(self) else " · n marks one seen · N marks all · v reverts"))
        self.query_one("#inbox-header", HeaderLine).update(header)
        self._update_detail()

    def selected_change(self) -> Change | None:
        return self.change_list.highlighted

    def selected_path(self) -> str | None:
        change = self.selected_change()
        if change is None or self.workspace is None or change.kind == "removed":
            return None
        return change.path if change.path in self.workspace.snapshot.files else None

    def _update_detail(self) -> None:
        change = self.selected_change()
        self.query_one("#inbox-diff", Static).update(change_detail(change) if change else "")

    @on(RowList.Highlighted, "#inbox-list")
    def _on_highlighted(self) -> None:
        self._update_detail()
