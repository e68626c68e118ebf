"""The search screen: ranked full-text search across roots (:func:`memtui.core.stores.search.search`).

Type a query (words, ``"a phrase"``, ``prefix*``): results come as the Files view's rows — the
root and path, title, type and how the file is reached — with the selected hit's snippet, its
matches marked, in the preview beside them.  The search runs in a worker as you type (and at
once on enter); first from the index after a look at the roots' folders, then again once every
file's stat key was checked.  Enter on a result dismisses the screen with ``(root, path)``: the
app opens the file in its own root.  ``ctrl+t`` widens the scope from the app's roots to every
root on the machine, and back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState

from memtui.commands import BY_NAME
from memtui.paths import styles_dir
from memtui.services.workspace import FileRow
from memtui.terminal_text import plain
from memtui.widgets.files_view import FileList
from memtui.widgets.row_list import RowList
from memtui.widgets.status_line import display_path
from memtui.worker_errors import report_worker_error

if TYPE_CHECKING:
    from memtui.core.stores.search import Hit, SearchResult

#: how long typing pauses before the search runs (enter runs it at once)
TYPING_PAUSE = 0.25


@dataclass(frozen=True)
class SearchRow(FileRow):
    """A hit as a Files-view row: ``path`` is the root's label and the file's path (the path
    alone when one root is searched)."""

    hit: Hit | None = None


def root_labels(roots: list[Path]) -> dict[Path, str]:
    """Each root by its last two folders (``-home-u-app/memory``), which leave the row room for the
    file's name; roots those would not tell apart keep their whole path (the preview has it)."""
    short = {root: "/".join(root.parts[-2:]) for root in roots}
    taken: dict[str, int] = {}
    for label in short.values():
        taken[label] = taken.get(label, 0) + 1
    return {root: label if taken[label] == 1 else display_path(root) for root, label in short.items()}


def row_of(hit: Hit, label: str) -> SearchRow:
    where = "archive" if hit.archived else hit.reach
    shown = f"{label}/{hit.path}" if label else hit.path
    return SearchRow(path=shown, title=hit.title, type=hit.type, reach=where, pinned=False,
                     archived=hit.archived, size=0, search_key=shown, hit=hit)


def snippet_text(hit: Hit) -> Text:
    """The snippet, control characters escaped and each match in reverse video (and bold, so it
    shows without colour)."""
    text = hit.snippet.text
    out = Text()
    at = 0
    for start, end in hit.snippet.marks:
        if start < at:
            continue
        out.append(plain(text[at:start]))
        out.append(plain(text[start:end]), style="reverse bold")
        at = end
    out.append(plain(text[at:]))
    return out


class SearchPreview(Static):
    """The selected hit: where it is, how it is reached, its snippet."""

    def show(self, hit: Hit | None) -> None:
        if hit is None:
            self.update("")
            return
        head = Text()
        head.append(plain(hit.title) + "\n", style="bold")
        head.append(plain(str(hit.root)) + "\n", style="dim")
        head.append(plain(hit.path) + "\n")
        head.append(f"{hit.where} · {hit.type}" + (" · the words as one phrase" if hit.phrase else "")
                    + "\n\n", style="italic")
        self.update(Group(head, snippet_text(hit)))


class SearchScreen(Screen[tuple[Path, str] | None]):
    """Search every root of the scope; enter opens the hit, esc goes back."""

    CSS_PATH = str(styles_dir() / "search.tcss")
    BINDINGS = [
        Binding("escape", "back", "Back", show=True),
        Binding("ctrl+t", "toggle_scope", "This project / every root", show=True, id="search-scope"),
        Binding("down", "to_results", show=False),
        # the search's own key, here too (the keymap moves it with its id): back to the query
        Binding(BY_NAME["search_roots"].keys, "to_query", show=False, id="search_roots"),
    ]

    class Found(Message):
        """A search finished (``final``: after every file's stat key was checked)."""

        def __init__(self, query: str, result: SearchResult | None, error: str, final: bool) -> None:
            super().__init__()
            self.query = query
            self.result = result
            self.error = error
            self.final = final

    def __init__(self, roots: list[Path], query: str = "") -> None:
        super().__init__()
        self.project_roots = list(roots)
        self.roots = list(roots)
        self.every = False
        self.initial = query
        self.shown: str | None = None
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="search"):
            query = Input(value=self.initial, id="search-input",
                          placeholder='search every memory: words, "a phrase", prefix* …')
            query.cursor_blink = False
            yield query
            yield Static(self._scope_line(), id="search-header", classes="list-header")
            with Horizontal(id="search-columns"):
                yield FileList(id="search-results")
                yield SearchPreview(id="search-preview")
        yield Footer()

    #: below this many columns the snippet goes under the results
    NARROW_BELOW = 100

    def on_resize(self) -> None:
        self.set_class(self.size.width < self.NARROW_BELOW, "-narrow")

    def on_mount(self) -> None:
        self.set_class(self.size.width < self.NARROW_BELOW, "-narrow")
        self.query_one("#search-results", FileList).empty_text = "type to search"
        self.query_one("#search-input", Input).focus()
        if self.initial:
            self._run(self.initial)

    def _scope_line(self, result: SearchResult | None = None, note: str = "") -> str:
        scope = ("every root on this machine" if self.every else
                 f"the {len(self.roots)} root{'s' * (len(self.roots) != 1)} memtui opened")
        if result is None:
            return f"{scope} · ctrl+t widens or narrows · enter opens a hit" + (f" · {note}" if note else "")
        many = (f"{len(result.hits)} of {result.total:,}" if result.total > len(result.hits)
                else f"{len(result.hits)}")
        roots = len(result.roots)
        files = "1 file matches" if result.total == 1 and len(result.hits) == 1 else f"{many} files match"
        return (f"{files} in {roots} root{'s' * (roots != 1)} ({result.files:,} files) · {scope}"
                + (f" · {note}" if note else ""))

    # ---------------------------------------------------------------- running the search

    @on(Input.Changed, "#search-input")
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(TYPING_PAUSE, lambda: self._run(event.value))

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._run(event.value)
        self.query_one("#search-results", FileList).focus()

    def _run(self, query: str) -> None:
        if not query.strip():
            results = self.query_one("#search-results", FileList)
            results.empty_text = "type to search"
            results.set_items([])
            self.query_one("#search-header", Static).update(self._scope_line())
            self._preview()
            return
        self.query_one("#search-header", Static).update(self._scope_line(note="searching…"))
        self._search_worker(query, list(self.roots))

    @work(thread=True, exclusive=True, group="search", description="search", exit_on_error=False)
    def _search_worker(self, query: str, roots: list[Path]) -> None:
        from memtui.core.stores.search import EmptyQuery, search
        from memtui.core.stores.search_index import FILES, FOLDERS, IndexBusy, SearchIndex

        try:
            with SearchIndex.open() as index:
                first = search(query, roots, check=FOLDERS, index=index)
                self.post_message(self.Found(query, first, "", False))
                last = search(query, roots, check=FILES, prune=False, index=index, after=first)
                self.post_message(self.Found(query, last, "", True))
        except EmptyQuery as exc:
            self.post_message(self.Found(query, None, str(exc), True))
        except (IndexBusy, OSError) as exc:
            self.post_message(self.Found(query, None, f"the search index is not usable: {exc}", True))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's one worker error policy: a search that fails is a notice, and the header
        says so instead of "searching…" for ever."""
        if event.state is WorkerState.ERROR:
            report_worker_error(self, event.worker)
            self.query_one("#search-header", Static).update(self._scope_line(note="the search failed (see the notice)"))

    def on_search_screen_found(self, message: Found) -> None:
        if message.query != self.query_one("#search-input", Input).value:
            return  # typed on since: its own search is coming
        results = self.query_one("#search-results", FileList)
        header = self.query_one("#search-header", Static)
        if message.result is None:
            results.empty_text = message.error
            results.set_items([])
            header.update(self._scope_line(note=message.error))
            self._preview()
            return
        results.empty_text = "no memory file holds every word"
        keep = results.highlighted.path if results.highlighted is not None else None
        labels = root_labels(list(dict.fromkeys(hit.root for hit in message.result.hits)))
        if len(self.roots) == 1:  # one root searched: the header and the preview name it
            labels = dict.fromkeys(labels, "")
        results.set_items([row_of(hit, labels[hit.root]) for hit in message.result.hits], keep=keep)
        header.update(self._scope_line(message.result,
                                       "" if message.final else "checking every file…"))
        self._preview()

    # ---------------------------------------------------------------- the results

    @on(RowList.Highlighted, "#search-results")
    def _highlighted(self) -> None:
        self._preview()

    def _preview(self) -> None:
        row = self.query_one("#search-results", FileList).highlighted
        self.query_one(SearchPreview).show(row.hit if isinstance(row, SearchRow) else None)

    @on(RowList.Selected, "#search-results")
    def _selected(self, event: RowList.Selected) -> None:
        hit = event.item.hit if isinstance(event.item, SearchRow) else None
        if hit is not None:
            self.dismiss((hit.root, hit.path))

    def action_to_results(self) -> None:
        results = self.query_one("#search-results", FileList)
        if self.query_one("#search-input", Input).has_focus:
            results.focus()

    def action_to_query(self) -> None:
        query = self.query_one("#search-input", Input)
        query.focus()
        query.select_all()

    def action_toggle_scope(self) -> None:
        """Every root on this machine, or back to the app's roots; searches again."""
        from memtui.core.roots.machine import machine_roots

        self.every = not self.every
        if self.every:
            try:
                found = [root.path for root in machine_roots()]
            except ValueError as exc:
                self.every = False
                self.notify(str(exc), severity="error", timeout=6)
                return
            self.roots = found + [r for r in self.project_roots if r not in found]
        else:
            self.roots = list(self.project_roots)
        self._run(self.query_one("#search-input", Input).value)

    def action_back(self) -> None:
        self.dismiss(None)
