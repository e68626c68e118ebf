"""What a command may read and ask for: the host the registry's commands run on.

The app (:class:`memtui.app.MemtuiApp`) is the one host; the commands see only this
:class:`CommandHost` protocol, so the registry never imports the app and a command cannot reach
a worker, a widget's insides or the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from memtui.core.stores.seen import Inbox
    from memtui.screens.main import MainScreen
    from memtui.services.scoring import Proposal
    from memtui.services.workspace import Workspace
    from memtui.services.writer import Request

    from .registry import Command


@runtime_checkable
class CommandHost(Protocol):
    """What the commands of the registry may read and ask the app to do."""

    # ------------------------------------------------------------------ what they read
    read_only: bool
    roots: list[Path]
    workspace: Workspace | None
    inbox: Inbox | None
    marks: frozenset[str]
    last_rejected: tuple[str, str] | None
    keymap: Mapping[str, str]  # the user's: command name → keys

    @property
    def main(self) -> MainScreen:
        """The main screen (its views and what is selected in them)."""
        ...

    def is_main(self, screen: Screen[object]) -> bool:
        """Whether ``screen`` is the main screen."""
        ...

    # ------------------------------------------------------------------ what they ask for
    def run_command(self, command: Command, screen: Screen[object] | None = None) -> None:
        """Run a command as it applies on ``screen`` (default: the screen shown), or say why not."""
        ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...

    def run_change(self, request: Request) -> None:
        """Plan a change; apply it at once, or confirm first, or show the refusal."""
        ...

    def review(self, candidate: Proposal) -> None: ...

    def pick_successor(self, path: str, marked: tuple[str, ...] = ()) -> None: ...

    def promote_to_layer(self, path: str) -> None: ...

    def reject_pair(self, a: str, b: str) -> None: ...

    def unreject_pair(self) -> None: ...

    def edit_in_editor(self, path: str | None) -> None: ...

    def mark_seen(self, paths: tuple[str, ...] | None) -> None: ...

    def set_marks(self, marks: frozenset[str]) -> None: ...

    def toggle_mark(self, path: str) -> None: ...

    def mark_shown(self) -> None: ...

    def reload(self, keep: str | None = None) -> None: ...

    def toggle_sessions(self) -> None: ...

    def ask_scope(self) -> None: ...

    def open_dream(self) -> None: ...

    def open_journal(self) -> None:
        """The journal of the open root (its changes, newest first)."""
        ...

    def open_relearned(self) -> None:
        """The review of the notes re-learned across projects (every root on this machine)."""
        ...

    def pick_root(self) -> None: ...

    def open_search(self) -> None:
        """The search screen across the roots (enter on a hit opens it in its own root)."""
        ...

    def show_help(self) -> None: ...

    def show_index_text(self) -> None: ...

    def action_command_palette(self) -> None: ...

    def exit(self, result: int | None = None, return_code: int = 0,
             message: RenderableType | None = None) -> None: ...
