"""What every view of the main screen offers the app, and the wiring the list views share.

:class:`View` is a tab: it shows a workspace, says what is selected, and owns the optional filter
bar above its lists (typing refills, leaving it focuses the list).  :class:`ListView` is a view
over one row list with a preview or a detail beside it: Files, Staleness, Problems, Consolidate.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from textual import on
from textual.containers import Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from memtui.core.judge.scopes import Applicability
from memtui.services.workspace import Workspace

from .column_header import ColumnHeader
from .filter_bar import FilterBar
from .preview import Preview
from .row_list import RowList
from .sorting import Sorting

T = TypeVar("T")

#: seconds the cursor must rest before the preview is drawn
PREVIEW_DELAY = 0.04


def read_only(widget: Widget) -> bool:
    """Whether the app runs ``--read-only`` (then no text may offer a change key)."""
    return bool(getattr(widget.app, "read_only", False))


class View(Vertical):
    """A tab of the main screen.  The app calls down into it; it posts messages up."""

    DEFAULT_CSS = """
    View { height: 1fr; }
    """

    #: the id of the view's filter bar, if it has one
    FILTER_ID: ClassVar[str | None] = None

    workspace: Workspace | None = None
    scope: Applicability | None = None  # the scope filter: what applies at the path typed
    _preview_timer: Timer | None = None
    #: seconds the cursor must rest before the preview is drawn (0: right after this message)
    preview_delay = PREVIEW_DELAY

    def show(self, workspace: Workspace) -> None:
        """Redraw from a (new) workspace, keeping the user's place."""
        self.workspace = workspace
        self.refill()

    def refill(self) -> None:
        """Redraw the lists from the workspace and the filter's text."""

    def scope_reason(self, path: str | None) -> str | None:
        """Why a file does not apply under the scope filter (None: it applies, or no filter)."""
        return self.scope.excluded_reason(path) if self.scope is not None and path else None

    def selected_path(self) -> str | None:
        """The memory file under the cursor, if any (what the verbs act on)."""
        return None

    def panes(self) -> list[Widget]:
        """The widgets ``tab`` cycles through, in order."""
        return []

    def focus_default(self) -> None:
        panes = self.panes()
        if panes:
            panes[0].focus()

    def shown_paths(self) -> list[str]:
        """The memory files this view's lists show now (what "mark all" marks)."""
        return []

    @property
    def filter_bar(self) -> FilterBar | None:
        return self.query_one(f"#{self.FILTER_ID}", FilterBar) if self.FILTER_ID else None

    @property
    def filter_text(self) -> str:
        filter_bar = self.filter_bar
        return filter_bar.value if filter_bar is not None else ""

    def open_filter(self) -> bool:
        """Show and focus this view's filter; False when the view has none."""
        filter_bar = self.filter_bar
        if filter_bar is None:
            return False
        filter_bar.open()
        return True

    def select_path(self, path: str) -> bool:
        """Put the cursor on a file; False when this view does not list it."""
        return False

    def update_preview(self) -> None:
        """Show the selected item in this view's preview, if it has one."""

    def schedule_preview(self) -> None:
        """Update the preview shortly, once however many cursor moves came before.

        The list paints at once; the preview (rendered Markdown, tens of milliseconds for a big
        file) follows when the keys pause, so holding ``j`` never waits for it.
        """
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None
        if self.preview_delay <= 0:
            self.call_later(self._run_preview)
            return
        self._preview_timer = self.set_timer(self.preview_delay, self._run_preview)

    def _run_preview(self) -> None:
        self._preview_timer = None
        self.update_preview()

    #: true while the lists refill after a keystroke in the filter: the cursor then goes to
    #: the best match instead of staying on the row it was on
    typing = False

    @on(Input.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        if self.FILTER_ID is not None and event.input.id == self.FILTER_ID:
            self.typing = bool(event.value.strip())
            try:
                self.refill()
            finally:
                self.typing = False

    @on(FilterBar.Done)
    def _filter_done(self) -> None:
        self.focus_default()


class ListView(View, Generic[T]):
    """A view over one row list, with a preview (or a detail pane) for the highlighted item."""

    #: the id of the row list, and of the preview beside it (None: the view draws a detail)
    LIST_ID: ClassVar[str]
    PREVIEW_ID: ClassVar[str | None] = None

    @property
    def row_list(self) -> RowList[T]:
        return self.query_one(f"#{self.LIST_ID}", RowList)

    @property
    def highlighted(self) -> T | None:
        return self.row_list.highlighted

    @property
    def preview(self) -> Preview | None:
        return self.query_one(f"#{self.PREVIEW_ID}", Preview) if self.PREVIEW_ID else None

    def selected_path(self) -> str | None:
        item = self.highlighted
        return self.row_list.item_path(item) if item is not None else None

    def panes(self) -> list[Widget]:
        preview = self.preview
        return [self.row_list, *([preview] if preview is not None else [])]

    def cursor_moved(self) -> None:
        """The highlighted item changed: the preview follows (a detail view redraws at once)."""
        self.schedule_preview()

    def update_preview(self) -> None:
        preview = self.preview
        if preview is not None and self.workspace is not None:
            preview.show_file(self.workspace, self.selected_path())

    @on(RowList.Highlighted)
    def _highlighted(self, event: RowList.Highlighted) -> None:
        if event.row_list is self.row_list:
            self.cursor_moved()


class SortedListView(ListView[T]):
    """A list view whose rows the sort keys order by a column (``>``, ``I``: the registry's
    sort commands), marked in the column header ``COLUMNS_ID``."""

    COLUMNS_ID: ClassVar[str]
    sorting: Sorting[T]

    def cycle_sort(self) -> None:
        """Order the rows by the next column (after the last: the view's own order again)."""
        self.sorting.cycle()
        self._sorted()

    def reverse_sort(self) -> None:
        self.sorting.reverse()
        self._sorted()

    def _sorted(self) -> None:
        self.refill()
        self.row_list.cursor_to_top()
        self.query_one(f"#{self.COLUMNS_ID}", ColumnHeader).refresh()
