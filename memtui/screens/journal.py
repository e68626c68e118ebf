"""The journal of the open root: every change memtui made there, newest first (``memtui log``).

Each row is one record — a change, an undo or a redo (its description says which) — with its
time and what it did, marked when it was undone since, is not committed (pending, rolled back)
or was asked by an agent (:meth:`~memtui.core.model.journal.LogEntry.marks`); the line under
the list names the files it touched.  Enter shows the first of them still in the folder in the
Files view; ``u`` and ``U`` on the main screen take the newest change back and forth, as the
marks here say.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from memtui.core.model.journal import LogEntry, journal_log
from memtui.widgets.row_list import RowList, elide_middle
from memtui.worker_errors import report_worker_error

#: the records the journal shows (the newest; ``memtui log -n N`` lists more)
JOURNAL_SHOWN = 500


class JournalList(RowList[LogEntry]):
    def render_item(self, item: LogEntry, width: int) -> Text:
        marks = item.marks()
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{item.time[:16].replace('T', ' '):<16}  ", style="dim")
        if marks:  # before the description: a long one would cut them off
            text.append(f"({', '.join(marks)}) ", style="yellow" if item.undone else "dim")
        text.append(item.description or item.verb or item.id,
                    style="dim strike" if item.undone else "")
        return text


class JournalScreen(ModalScreen[tuple[str, ...]]):
    """The open root's changes; enter answers the highlighted change's files (the app shows the
    first still in the folder), esc closes (no files)."""

    BINDINGS = [Binding("escape", "close", "Close", show=True)]

    class Read(Message):
        def __init__(self, entries: list[LogEntry]) -> None:
            super().__init__()
            self.entries = entries

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def compose(self) -> ComposeResult:
        with Vertical(id="journal-dialog", classes="dialog"):
            yield Static(Text(f"Journal of {self.root} — newest first"), classes="dialog-title")
            yield JournalList([], empty_text="reading the journal…", id="journal-list")
            yield Static("", id="journal-detail", classes="list-header")

    def on_mount(self) -> None:
        self.query_one(JournalList).focus()
        self._read()

    @work(thread=True, exclusive=True, group="journal", description="read the journal",
          exit_on_error=False)
    def _read(self) -> None:
        self.post_message(self.Read(journal_log(self.root, JOURNAL_SHOWN)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's one worker error policy: a journal that cannot be read is a notice, and
        the list says so instead of "reading the journal…" for ever."""
        if event.state is WorkerState.ERROR:
            report_worker_error(self, event.worker)
            journal = self.query_one(JournalList)
            journal.empty_text = "the journal could not be read (see the notice)"
            journal.set_items([])

    def on_journal_screen_read(self, message: Read) -> None:
        journal = self.query_one(JournalList)
        journal.empty_text = "no change recorded here yet: memtui journals every change it makes"
        journal.set_items(message.entries)
        self._show_detail()

    @on(RowList.Highlighted, "#journal-list")
    def _on_highlighted(self, event: RowList.Highlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        entry = self.query_one(JournalList).highlighted
        detail = self.query_one("#journal-detail", Static)
        if entry is None:
            detail.update("")
            return
        width = detail.content_size.width or self.app.size.width - 4
        files = ", ".join(entry.paths) if entry.paths else "no file"
        head = f"{entry.id} · {entry.verb or entry.kind} · "
        detail.update(Text(head + elide_middle(files, max(16, width - len(head))), no_wrap=True))

    @on(RowList.Selected, "#journal-list")
    def _on_selected(self, event: RowList.Selected) -> None:
        entry: LogEntry = event.item
        self.dismiss(entry.paths)

    def action_close(self) -> None:
        self.dismiss(())
