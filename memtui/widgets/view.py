"""What every view of the main screen offers the app: show a workspace, say what is selected."""

from __future__ import annotations

from textual.containers import Vertical
from textual.timer import Timer
from textual.widget import Widget

from memtui.core.scopes import Applicability
from memtui.services.workspace import Workspace


#: seconds the cursor must rest before the preview is drawn
PREVIEW_DELAY = 0.04


class View(Vertical):
    """A tab of the main screen.  The app calls down into it; it posts messages up."""

    DEFAULT_CSS = """
    View { height: 1fr; }
    """

    workspace: Workspace | None = None
    scope: Applicability | None = None  # the scope filter: what applies at the path typed
    _preview_timer: Timer | None = None
    #: seconds the cursor must rest before the preview is drawn (0: right after this message)
    preview_delay = PREVIEW_DELAY

    def show(self, workspace: Workspace) -> None:
        """Redraw from a (new) workspace, keeping the user's place."""
        self.workspace = workspace

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

    def open_filter(self) -> bool:
        """Show and focus this view's filter; False when the view has none."""
        return False

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

