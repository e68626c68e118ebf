"""The main screen: the six views as tabs over a status line and a short footer."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from textual import events, on
from textual.app import ComposeResult
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane, Tabs

from memtui.commands import BY_NAME, CommandHost, bindings, shown_keys_of
from memtui.core.judge.scopes import Applicability, applicability, stale_reasons
from memtui.core.model.snapshot import INDEX_NAME, Finding
from memtui.core.stores.seen import Change, Inbox
from memtui.services.scoring import Proposal
from memtui.services.workspace import Workspace
from memtui.widgets.budget_gauge import BudgetGauge
from memtui.widgets.consolidate_view import ConsolidateView
from memtui.widgets.files_view import FilesView
from memtui.widgets.footer import VerbFooter
from memtui.widgets.inbox_view import InboxView
from memtui.widgets.problems_view import ProblemsView
from memtui.widgets.row_list import RowList
from memtui.widgets.staleness_view import StalenessView
from memtui.widgets.status_line import StatusLine, display_path
from memtui.widgets.view import View
from memtui.widgets.working_set_view import WorkingSetView

VIEWS = ("working", "problems", "files", "staleness", "consolidate", "inbox")
VIEW_TITLES = {
    "working": "Working set",
    "problems": "Problems",
    "files": "Files",
    "staleness": "Staleness",
    "consolidate": "Consolidate",
    "inbox": "Inbox",
}


#: what the empty states offer instead of R when changes are disabled
READ_ONLY_HINT = "This is a read-only session (--read-only): open it without --read-only to write one."


def empty_message(workspace: Workspace, read_only: bool = False) -> str:
    """What to say when there is no working set to show (no index, or nothing at all)."""
    if workspace.is_empty:
        return (
            "[b]This folder holds no memory yet.[/b]\n\n"
            "memtui works on a folder with an index, MEMORY.md, and one Markdown file per fact.\n"
            "An agent writes them as it learns; you can also create one with "
            "[b]memtui remember[/b].\n\n"
            + (READ_ONLY_HINT if read_only else
               "Press [b]R[/b] to write a first, empty MEMORY.md (shown before it is written).")
        )
    count = len(workspace.snapshot.files)
    files = f"{count} memory file{'s' if count != 1 else ''}" if workspace.complete else "memory files"
    unread = next((s.reason for s in workspace.snapshot.skipped if s.path == INDEX_NAME), None)
    what = f"MEMORY.md here is not read ({escape(unread)})" if unread else "No MEMORY.md here"
    return (
        f"[b]{what} — the agent loads nothing from this folder.[/b]\n\n"
        f"{files} found, none of them reachable.\n\n"
        + (READ_ONLY_HINT + " Press [b]3[/b] to look at the files." if read_only else
           ("Move it aside (memtui writes only a regular file there), then press " if unread
            else "Press ")
           + "[b]R[/b] to build the index from them (Pinned, Recent up to 80% of the budget, "
           "region pointers for the rest; shown as a diff first), or [b]3[/b] to look at the files.")
    )


#: below this many columns the views stack their preview under the list
NARROW_BELOW = 120
#: below this many rows the working set gives its room to the pane in use
SHORT_BELOW = 36


class MainScreen(Screen[None]):
    """Working set, Problems, Files, Staleness, Consolidate, Inbox; the app drives them."""

    BINDINGS = bindings()
    #: what stays on screen beside a zoomed pane (``+``): the status line and the footer
    ALLOW_IN_MAXIMIZED_VIEW = "StatusLine, VerbFooter"

    #: the focused widget, without Textual's repaint of the whole screen when it moves: what the
    #: focus changes is drawn by the restyled widgets themselves (their ``:focus`` rules)
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def __init__(self) -> None:
        super().__init__()
        self.workspace: Workspace | None = None
        self.read_only = False
        self._shown: dict[str, Workspace] = {}  # what each view was last drawn from
        self._labels: dict[str, str] = {}  # the tab labels last set
        self.scope_path: str | None = None  # the scope filter's path (None: no filter)
        self.scope: Applicability | None = None  # ... and what applies there, for the workspace

    def compose(self) -> ComposeResult:
        with TabbedContent(id="views", initial="working"):
            with TabPane(VIEW_TITLES["working"], id="working"):
                yield Static(id="no-index", classes="empty-state")
                yield WorkingSetView(id="view-working")
            with TabPane(VIEW_TITLES["problems"], id="problems"):
                yield ProblemsView(id="view-problems")
            with TabPane(VIEW_TITLES["files"], id="files"):
                yield FilesView(id="view-files")
            with TabPane(VIEW_TITLES["staleness"], id="staleness"):
                yield StalenessView(id="view-staleness")
            with TabPane(VIEW_TITLES["consolidate"], id="consolidate"):
                yield ConsolidateView(id="view-consolidate")
            with TabPane(VIEW_TITLES["inbox"], id="inbox"):
                yield InboxView(id="view-inbox")
        yield StatusLine(id="status")
        yield VerbFooter(NARROW_BELOW, compact=True)

    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < NARROW_BELOW
        self.set_class(narrow, "-narrow")
        self.set_class(event.size.height < SHORT_BELOW, "-short")
        self.query_one(BudgetGauge).compact = narrow

    def on_mount(self) -> None:
        self.query_one(Tabs).can_focus = False
        self.query_one("#no-index").display = False
        keymap = self.app.keymap if isinstance(self.app, CommandHost) else None
        self.query_one(ConsolidateView).sessions_key = shown_keys_of(BY_NAME["toggle_sessions"],
                                                                     keymap)

    # ------------------------------------------------------------------ down: the app calls these

    @property
    def active_view_name(self) -> str:
        return self.query_one(TabbedContent).active or "working"

    def view(self, name: str | None = None) -> View:
        return self.query_one(f"#view-{name or self.active_view_name}", View)

    def show_view(self, name: str, focus: bool = True) -> None:
        tabs = self.query_one(TabbedContent)
        self._refresh_view(name)
        if tabs.active != name:
            # blur first: a focused widget that hides would hand focus to its neighbour, and
            # TabbedContent would switch back to the pane holding it
            self.set_focus(None)
            tabs.active = name
        if focus:
            self.call_after_refresh(self.view(name).focus_default)
            refresh = getattr(self.app, "_refresh_binding_state", None)
            if refresh is not None:  # the footer follows the row the focus lands on
                self.call_after_refresh(refresh)
        else:
            self.call_after_refresh(self._ensure_focus)

    def show_workspace(self, workspace: Workspace, read_only: bool) -> None:
        """Redraw every view from a workspace, keeping each view's place."""
        working = self.query_one(WorkingSetView)
        no_index = self.query_one("#no-index", Static)
        if workspace.has_index:
            no_index.display = False
            working.display = True
        else:
            no_index.update(empty_message(workspace, read_only))
            no_index.display = True
            working.display = False
        self.workspace = workspace
        self.read_only = read_only
        self.scope = self._applicability(workspace)
        self._refresh_view(self.active_view_name)  # hidden views catch up when shown
        problems = f"Problems {workspace.errors}✖ {workspace.warnings}⚠" if workspace.complete else "Problems"
        self._label("problems", problems)
        self._label("files", f"Files {len(workspace.snapshot.files):,}" if workspace.complete else "Files")
        if workspace.candidates is not None:
            scan = workspace.candidates
            self._label("consolidate", f"Consolidate {len(scan.pairs) + len(scan.contradictions)}")
        self.query_one(StatusLine).show(workspace, read_only)

    def _label(self, tab: str, text: str) -> None:
        """Set a tab's label; an unchanged one is left alone (setting it lays the screen out)."""
        if self._labels.get(tab) != text:
            self._labels[tab] = text
            self.query_one(TabbedContent).get_tab(tab).label = text

    def _refresh_view(self, name: str) -> None:
        workspace = self.workspace
        if workspace is not None and self._shown.get(name) is not workspace:
            self._shown[name] = workspace
            view = self.view(name)
            view.scope = self.scope
            view.show(workspace)

    def _applicability(self, workspace: Workspace) -> Applicability | None:
        if self.scope_path is None:
            return None
        return applicability(workspace.snapshot, self.scope_path, stale_reasons(workspace.staleness))

    def set_scope(self, path: str | None) -> Applicability | None:
        """Dim what does not apply at ``path`` (absolute) in every list; None clears the filter."""
        self.scope_path = path
        self.scope = self._applicability(self.workspace) if self.workspace is not None else None
        self._shown.clear()
        self._refresh_view(self.active_view_name)
        self.query_one(StatusLine).scope = display_path(Path(path)) if path is not None else ""
        return self.scope

    def show_marks(self, marks: frozenset[str]) -> None:
        """Draw the marks in every list, and their count in the status line."""
        for row_list in self.query(RowList):
            row_list.set_marks(marks)
        self.query_one(StatusLine).marked = len(marks)

    def show_inbox(self, inbox: Inbox) -> None:
        """The changes made outside memtui since the last look: the Inbox tab and its count."""
        count = len(inbox.changes)
        self.query_one(TabbedContent).get_tab("inbox").label = f"Inbox {count}" if count else "Inbox"
        self.query_one(InboxView).show_inbox(inbox)

    def selected_change(self) -> Change | None:
        return self.query_one(InboxView).selected_change()

    def set_busy(self, text: str) -> None:
        self.query_one(StatusLine).busy = text

    def selected_path(self) -> str | None:
        return self.view().selected_path()

    def selected_finding(self) -> Finding | None:
        return self.query_one(ProblemsView).selected_finding()

    def selected_candidate(self) -> Proposal | None:
        return self.query_one(ConsolidateView).selected_candidate()

    def next_pane(self, step: int) -> None:
        """Tab / shift+tab: the next pane that shows something (an empty list is passed over)."""
        panes = [p for p in self.view().panes()
                 if p.display and not (isinstance(p, RowList) and not p.items)]
        if not panes:
            return
        focused = self.focused
        index = panes.index(focused) if focused in panes else -1
        panes[(index + step) % len(panes)].focus()

    def toggle_zoom(self) -> None:
        """``+``: the focused pane takes the whole screen but the status line and the footer
        (``+`` or ``esc`` gives the room back), as lazygit's ``+`` and k9s's full screen."""
        if self.maximized is not None:
            self.minimize()
            return
        focused = self.focused
        if focused is not None and self.maximize(focused, container=False):
            self.app.notify("zoomed · + or esc gives the room back", timeout=2)

    @on(TabbedContent.TabActivated)
    def _on_tab(self, event: TabbedContent.TabActivated) -> None:
        self._refresh_view(self.active_view_name)
        self.call_after_refresh(self._ensure_focus)

    def _ensure_focus(self) -> None:
        """Focus the view's first pane unless something inside it already has the focus."""
        view = self.view()
        focused = self.focused
        if focused is None or not any(node is view for node in focused.ancestors):
            view.focus_default()
            refresh = getattr(self.app, "_refresh_binding_state", None)
            if refresh is not None:  # what applies follows the row the focus lands on
                self.call_after_refresh(refresh)
