"""The main view: the working set in three panes beside the budget gauge and the preview."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget

from memtui.services.search import fuzzy_scores
from memtui.services.workspace import PANES, EntryRow, Workspace

from .badges import scores_of
from .budget_gauge import BudgetGauge
from .filter_bar import FilterBar
from .handoff_pane import HandoffPane
from .index_text import IndexText
from .preview import Preview
from .row_list import RowList
from .view import View
from .working_set import WorkingSetPane


class WorkingSetView(View):
    """Pinned / Recent / Regions with the loader's cut, the budget gauge and a preview.

    The pane in use (focused, else the one used last) carries ``-current``: on a short screen
    it takes the room and the others shrink to their title and the row under their cursor.  A
    pane in use that needs less than the room (three pinned entries) takes what it needs, and the
    pane holding most rows besides it (``-room``) takes the rest.
    """

    FILTER_ID = "ws-filter"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._current: WorkingSetPane | None = None

    @property
    def _last(self) -> WorkingSetPane | None:
        """The working-set pane in use: the focused one, else the one used last."""
        return self._current

    @_last.setter
    def _last(self, pane: WorkingSetPane | None) -> None:
        if pane is self._current:
            return
        if self._current is not None:
            self._current.remove_class("-current")
        self._current = pane
        if pane is not None:
            pane.add_class("-current")
        self._give_room()

    def _give_room(self) -> None:
        """Mark ``-room`` the pane that takes what the pane in use leaves when it needs little."""
        current = self._current
        few = current is not None and current.has_class("-few")
        others = [p for p in self.pane_widgets() if p is not current] if self.is_mounted else []
        taker = max(others, key=lambda p: len(p.items), default=None) if few else None
        for pane in others:
            pane.set_class(pane is taker, "-room")
        if current is not None:
            current.remove_class("-room")

    def compose(self) -> ComposeResult:
        with Horizontal(id="ws-columns", classes="view-columns"):
            with Vertical(id="ws-panes"):
                yield FilterBar("filter the working set…", id="ws-filter")
                for pane in PANES:
                    yield WorkingSetPane(pane, id=f"pane-{pane}")
                index_text = IndexText(id="ws-index-text")  # shown when no entry is recognised
                index_text.display = False
                yield index_text
            with Vertical(id="ws-side"):
                yield BudgetGauge(id="budget")
                yield HandoffPane(id="handoff")
                yield Preview(id="ws-preview")

    def pane_widgets(self) -> list[WorkingSetPane]:
        return [self.query_one(f"#pane-{pane}", WorkingSetPane) for pane in PANES]

    def panes(self) -> list[Widget]:
        if self.index_text.display:
            return [self.index_text, self.query_one("#ws-preview", Preview)]
        return [*self.pane_widgets(), self.query_one("#ws-preview", Preview)]

    @property
    def index_text(self) -> IndexText:
        return self.query_one("#ws-index-text", IndexText)

    def _show_index_text(self, workspace: Workspace) -> None:
        """An index with no entry memtui recognises is shown as text instead of empty panes."""
        working_set = workspace.working_set
        fallback = workspace.has_index and not (
            working_set.pinned or working_set.recent or working_set.regions)
        for pane in self.pane_widgets():
            pane.display = not fallback
        self.index_text.display = fallback
        if fallback:
            self.index_text.show(workspace.snapshot.index, workspace.budget)
            self.index_text.border_title = "MEMORY.md · no entries memtui recognises — its text"

    def focus_default(self) -> None:
        """While filtering, the pane holding the best match; else the first that shows anything."""
        if self.index_text.display:
            self.index_text.focus()
            return
        panes = self.pane_widgets()
        if self.filter_text.strip() and self._last is not None and self._last.rows:
            self._last.focus()
            return
        target = next((p for p in panes if p.rows), panes[1])
        target.focus()

    def current_pane(self) -> WorkingSetPane | None:
        focused = self.screen.focused if self.is_mounted else None
        if isinstance(focused, WorkingSetPane):
            return focused
        return self._last

    def current_row(self) -> EntryRow | None:
        pane = self.current_pane()
        return pane.highlighted if pane is not None else None

    def selected_path(self) -> str | None:
        row = self.current_row()
        return row.path if row is not None else None

    def show(self, workspace: Workspace) -> None:
        self.query_one(BudgetGauge).show(workspace.budget, workspace.pressure,
                                         workspace.working_set.not_loaded)
        self.query_one(HandoffPane).show(workspace.snapshot.handoff)
        self._show_index_text(workspace)
        super().show(workspace)

    def refill(self) -> None:
        workspace = self.workspace
        if workspace is None:
            return
        query = self.filter_text.strip()
        score_for = scores_of(workspace)
        best: tuple[float, WorkingSetPane] | None = None
        for pane in self.pane_widgets():
            pane.score_for = score_for
            pane.scope_reason = self.scope_reason
            rows = workspace.working_set.pane(pane.pane)
            scored = fuzzy_scores(query, rows, lambda r: f"{r.title} {r.hook} {r.target} {r.glob}")
            keep = pane.item_key(pane.highlighted) if pane.highlighted is not None else None
            pane.show([row for row, _ in scored], workspace.working_set.cut_line, total=len(rows),
                      keep=None if self.typing else keep, query=query)
            if self.typing:  # after a keystroke: the best match, in the pane that holds it
                pane.cursor_to_top()
                if scored and (best is None or scored[0][1] > best[0]):
                    best = (scored[0][1], pane)
        if best is not None:
            self._last = best[1]
        self._give_room()
        self.schedule_preview()

    def shown_paths(self) -> list[str]:
        """The files the focused pane shows (Recent's ``*`` marks Recent, not Pinned too)."""
        pane = self.current_pane()
        if pane is None:
            pane = next((p for p in self.pane_widgets() if p.rows), None)
        return pane.shown_paths() if pane is not None else []

    def select_path(self, path: str) -> bool:
        for pane in self.pane_widgets():
            if pane.select_key(path):
                pane.focus()
                self._last = pane
                return True
        return False

    def select_line(self, number: int) -> bool:
        """Put the cursor on the row for a line of MEMORY.md; False when no pane shows it."""
        for pane in self.pane_widgets():
            for i, item in enumerate(pane.items):
                if isinstance(item, EntryRow) and item.number == number:
                    pane.cursor = i
                    pane.focus()
                    self._last = pane
                    return True
        return False

    def update_preview(self) -> None:
        if self.workspace is None:
            return
        preview = self.query_one("#ws-preview", Preview)
        if self.index_text.display:
            preview.show_message(
                "No line of MEMORY.md is an entry memtui recognises (- [Title](file.md) — hook), "
                "so its text is shown instead. "
                + (mention_summary(len(self.workspace.mentions), len(self.workspace.snapshot.files))
                   if self.workspace.complete else ""))
            return
        pane = self.current_pane()
        if pane is None:
            pane = next((p for p in self.pane_widgets() if p.rows), None)
        preview.show_entry(self.workspace, pane.highlighted if pane is not None else None)

    @on(RowList.Highlighted)
    def _on_highlighted(self, event: RowList.Highlighted) -> None:
        if isinstance(event.row_list, WorkingSetPane) and event.row_list.has_focus:
            self._last = event.row_list
            self.schedule_preview()

    def on_descendant_focus(self, event: object) -> None:
        focused = self.screen.focused
        if isinstance(focused, WorkingSetPane) and focused is not self._last:
            self._last = focused
            self.schedule_preview()


def mention_summary(mentioned: int, files: int) -> str:
    """What the index-as-text preview says of the folder's topic files: how many the loaded part
    of the index names (each reached by that mention; the Files tab lists them)."""
    if not files:
        return "The folder holds no topic file besides it."
    if not mentioned:
        return (f"None of its {files} topic file{'s' if files != 1 else ''} is named in the loaded "
                "part (Files tab, 3).")
    return (f"{mentioned} of its {files} topic file{'s' if files != 1 else ''} "
            f"{'are' if mentioned != 1 else 'is'} named in the loaded part and reached by that "
            "mention (Files tab, 3).")

