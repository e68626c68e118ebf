"""The Files view: every memory file (archived and region-covered too), fuzzy-filtered."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.worker import Worker, WorkerState

from memtui.core.judge.usage import Usage
from memtui.services.search import Ranked, SearchKeys, fuzzy_filter, fuzzy_ranked, parse_facets
from memtui.services.workspace import FileRow, Workspace
from memtui.worker_errors import report_worker_error

from .badges import ScopeReason, ScoreFor, badge, no_reason, no_scores, scores_of
from .column_header import ColumnHeader
from .filter_bar import FilterBar
from .header_line import HeaderLine
from .preview import Preview
from .read_column import READ_WIDTH, matches_read, read_header, read_label, shows_reads
from .row_list import Cell, RowList, Rule, compose_row
from .sorting import Sorting, SortKey
from .view import SortedListView

#: lists longer than this are filtered in a worker so typing never waits
FILTER_IN_WORKER = 20_000

REACH_ROLE = {"entry": "ok", "not loaded": "warn", "archive": "muted", "region": "accent",
              "orphan": "error", "document": "muted", "scanning": "muted"}


class FileList(RowList[FileRow]):
    """One row per memory file: marks, path, title, type, how it is reached, staleness."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(empty_text="no memory files match", id=id)
        self.score_for: ScoreFor = no_scores
        self.scope_reason: ScopeReason = no_reason
        self.usage: Usage | None = None
        self.sorting: Sorting[FileRow] | None = None  # the view's order, marked in the header

    def item_key(self, item: FileRow) -> object:
        return item.path

    DIFF_ROWS = True

    def row_state(self, item: FileRow | Rule) -> object:
        if isinstance(item, Rule):
            return item
        return (item, self.score_for(item.path) if item.path else None, self.scope_reason(item.path),
                read_label(self.usage, item.path))

    def is_dim(self, item: FileRow) -> bool:
        return item.archived or self.scope_reason(item.path) is not None

    def render_item(self, item: FileRow, width: int) -> Text:
        if item.pinned:
            glyph = Text("★", style=self.style_of("accent"))
        elif item.reach == "orphan":
            glyph = Text("✗", style=self.style_of("error"))
        elif item.reach == "not loaded":
            glyph = Text("⊘", style=self.style_of("warn"))
        else:
            glyph = Text(" ")
        return compose_row(
            self._cells(glyph, item.path, self._title(item),
                        Text(item.type, style=self.style_of("muted")),
                        Text(item.reach, style=self.style_of(REACH_ROLE.get(item.reach, "muted"))),
                        badge(self, self.score_for(item.path)),
                        self._read(item)),
            width,
        )

    def _cells(self, glyph: Text | str, path: Text | str, title: Text | str, type_: Text | str,
               reach: Text | str, score: Text | str, read: Text | str = "") -> list[Cell]:
        cells = [
            Cell(glyph, 1),
            Cell(path, None, weight=3, min_width=16),
            Cell(title, None, weight=2, min_width=8),
            Cell(type_, 9),
            Cell(reach, 10),
            Cell(score, 6, justify="right"),  # room for the sort mark: "score▼"
        ]
        if shows_reads(self.usage):
            cells.append(Cell(read, READ_WIDTH, justify="right"))
        return cells

    def set_usage(self, usage: Usage | None) -> None:
        """Take new evidence of use; every row is drawn again when the read column comes or goes."""
        toggled = shows_reads(usage) != shows_reads(self.usage)
        self.usage = usage
        if toggled:
            self._forget_lines()
            self.refresh()

    def header_cells(self) -> list[Cell]:
        title = self.sorting.title if self.sorting is not None else str
        return self._cells("", *map(title, ("file", "title", "type", "reached by", "score", "read")))

    def _read(self, item: FileRow) -> Text:
        text, role = read_label(self.usage, item.path)
        return Text(text, style=self.style_of(role))

    def _title(self, item: FileRow) -> Text:
        """The title, or why the file does not apply under the scope filter."""
        outside = self.scope_reason(item.path)
        if outside is not None:
            return Text(f"does not apply: {outside}", style=self.style_of("warn"))
        return Text(item.title, style=self.style_of("muted"))


class FilesView(SortedListView[FileRow]):
    """Every file under the root with a fuzzy filter and a preview."""

    FILTER_ID = "files-filter"
    LIST_ID = "files-list"
    PREVIEW_ID = "files-preview"
    COLUMNS_ID = "files-columns"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown: Sequence[FileRow] = []
        self._keys: SearchKeys | None = None
        self.sorting: Sorting[FileRow] = Sorting([
            SortKey("file"), SortKey("title", lambda row: row.title.lower()),
            SortKey("type", lambda row: row.type), SortKey("reached by", lambda row: row.reach),
            SortKey("score", lambda row: self.file_list.score_for(row.path) if row.path else None),
        ])

    def compose(self) -> ComposeResult:
        with Horizontal(classes="view-columns"):
            with Vertical(classes="list-column"):
                yield FilterBar("fuzzy filter by path or title… read:dead|recent", id="files-filter")
                yield HeaderLine(id="files-header", classes="list-header")
                file_list = FileList(id="files-list")
                file_list.sorting = self.sorting
                yield ColumnHeader(file_list, id="files-columns")
                yield file_list
            yield Preview(id="files-preview")

    @property
    def file_list(self) -> FileList:
        return self.query_one("#files-list", FileList)

    def shown_paths(self) -> list[str]:
        return self.file_list.shown_paths()

    def select_path(self, path: str) -> bool:
        if self.file_list.select_key(path):
            return True
        filter_bar = self.filter_bar
        if filter_bar is not None and filter_bar.value:  # filtered out: clear, look again
            filter_bar.value = ""
            self._apply(self._filter(""))
            return self.file_list.select_key(path)
        return False

    def show(self, workspace: Workspace) -> None:
        self.file_list.score_for = scores_of(workspace)
        self.file_list.scope_reason = self.scope_reason
        self.file_list.set_usage(workspace.usage)
        super().show(workspace)
        self.query_one("#files-columns", ColumnHeader).refresh()

    def _filter(self, query: str) -> Sequence[FileRow]:
        rows = self.workspace.files if self.workspace is not None else ()
        if "read:" in query:  # the one facet of this view (see read_column)
            parsed = parse_facets(query, ("read",))
            value = parsed.facets.get("read")
            if value is not None:
                usage = self.workspace.usage if self.workspace is not None else None
                picked = [r for r in rows if r.path and matches_read(usage, r.path, value)]
                return fuzzy_filter(parsed.text, picked, lambda row: row.search_key)
        if self._keys is None or self._keys.items is not rows:
            self._keys = SearchKeys(rows, lambda row: row.search_key)
        # ranked lazily: a keystroke over a hundred thousand rows makes the screen's rows only
        return fuzzy_ranked(query, rows, lambda row: row.search_key, self._keys)

    def refill(self) -> None:
        query = self.filter_text
        total = len(self.workspace.files) if self.workspace is not None else 0
        if total > FILTER_IN_WORKER and query:
            self._filter_in_worker(query, self.typing)
        else:
            self._apply(self._filter(query), self.typing)

    class Filtered(Message):
        """A filter worker finished."""

        def __init__(self, rows: Sequence[FileRow], typed: bool) -> None:
            super().__init__()
            self.rows = rows
            self.typed = typed

    @work(thread=True, exclusive=True, group="files-filter", description="filtering the files", exit_on_error=False)
    def _filter_in_worker(self, query: str, typed: bool) -> None:
        rows = self._filter(query)
        if isinstance(rows, Ranked):
            rows.rank()  # the order made here, not on the first paint
        self.post_message(self.Filtered(rows, typed))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's one worker error policy: a filter that fails is a notice, the list as it was."""
        if event.state is WorkerState.ERROR:
            report_worker_error(self, event.worker)

    def on_files_view_filtered(self, message: Filtered) -> None:
        self._apply(message.rows, message.typed)

    def _apply(self, rows: Sequence[FileRow], typed: bool = False) -> None:
        """Show the rows (in the chosen order); after a keystroke in the filter the cursor goes
        to the best match."""
        rows = self.sorting.apply(rows)
        self.shown = rows
        file_list = self.file_list
        keep = file_list.highlighted.path if file_list.highlighted is not None else None
        file_list.set_items(rows, keep=None if typed else keep)
        if typed:
            file_list.cursor_to_top()
        total = len(self.workspace.files) if self.workspace is not None else 0
        if self.workspace is not None and not self.workspace.complete:
            header = "scanning the folder…"
        elif len(rows) == total:
            usage = self.workspace.usage if self.workspace is not None else None
            header = f"{total:,} files · / to filter{read_header(usage)}{self.sorting.words()}"
        else:
            header = f"showing {len(rows):,} of {total:,} files{self.sorting.words()}"
        self.query_one("#files-header", HeaderLine).update(header)
        self.schedule_preview()

    @on(RowList.Changed, "#files-list")
    def _on_list_changed(self) -> None:
        self.query_one("#files-columns", ColumnHeader).refresh()
