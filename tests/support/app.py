"""Helpers for driving the real app with Pilot: a fixed clock, no debounce, settled workers.

The fixtures (``demo_root``, ``make_root``, temp folders under pytest's) live in ``conftest.py``.
"""

from __future__ import annotations

import hashlib
import io
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from rich.console import Console
from textual.message import Message
from textual.notifications import Notify
from textual.widgets import Footer
from textual.worker import WorkerCancelled, WorkerState

from memtui.app import MemtuiApp
from memtui.screens.merge_review import MergeReviewScreen
from memtui.widgets.view import View

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def make_app(*roots: Path, **options: Any) -> MemtuiApp:
    """The app on these roots with the fixed clock, no folder watching, no animations and no
    debounce (a preview or a verdict follows at once, so a test waits for messages, not time)."""
    View.preview_delay = 0.0
    MergeReviewScreen.RECHECK_DELAY = 0.0
    options.setdefault("now", NOW)
    options.setdefault("watch", False)
    app = MemtuiApp(list(roots), **options)
    app.animation_level = "none"
    return app


async def settle(pilot: Any) -> None:
    """Wait until every worker is done, every message they posted is handled and the footer
    shows its keys.

    ``pilot.pause(0)`` waits for the queued messages and paints, without Pilot's wait for an
    idle CPU (which costs a tenth of a second or more each time). The footer composes its keys
    only after the screen publishes its bindings, a few hops after mount or a focus change: on
    a slow machine three quiet pauses can pass before that, so an empty footer is not quiet.
    """
    quiet = 0
    for _ in range(200):
        await _workers_done(pilot.app)
        await pilot.pause(0)
        if any(worker.is_running or worker.state is WorkerState.PENDING for worker in pilot.app.workers) \
                or _footer_pending(pilot.app):
            quiet = 0
            continue
        quiet += 1
        if quiet >= 3:
            return


async def _workers_done(app: Any) -> None:
    """Wait for every started worker to end.  Textual's ``wait_for_complete`` raises
    ``WorkerCancelled`` for a worker a newer one of its exclusive group replaced (and
    ``WorkerError`` for one not started yet) when it is still listed: under load that raced and
    failed a test now and then.  A cancelled worker is done; one not started yet is waited for
    on the next round; a failed one still raises."""
    for worker in list(app.workers):
        if worker.state is WorkerState.PENDING:
            continue
        try:
            await worker.wait()
        except WorkerCancelled:
            pass


def _footer_pending(app: Any) -> bool:
    """A footer on the screen that has not composed its keys yet (ours always has Help/Quit)."""
    return any(not footer.children for footer in app.screen.query(Footer))


async def press(pilot: Any, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def notice_hook(notices: list[str]) -> Callable[[Message], None]:
    """A ``message_hook`` for ``app.run_test`` that keeps the text of every notice the app posts
    in ``notices`` (read from the app's messages, not from Textual's private list)."""

    def hook(message: Message) -> None:
        if isinstance(message, Notify):
            notices.append(str(message.notification.message))

    return hook


def screen_lines(app: Any) -> list[str]:
    """The text of every line of the whole screen as the terminal shows it now (no styles, no
    control sequences).  The one place the tests read Textual's compositor: the public
    screenshot is an SVG, and these tests ask what text the terminal shows."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(),
                      record=True, color_system=None)
    console.print(app.screen._compositor.render_update(full=True,
                                                       screen_stack=app._background_screens))
    return console.export_text().splitlines()


def digest(root: Path) -> dict[str, str]:
    """Every file's bytes under a root (dot-folders excluded), by path."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not any(part.startswith(".") for part in rel.split("/")):
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


#: the first Recent entry of the demo's index
RECENT_FIRST = "project_gc_concurrent_mark.md"


async def focus_recent(pilot: Any) -> None:
    """Put the cursor on the first Recent entry of the demo (wherever it is now)."""
    assert pilot.app.main.view("working").select_path(RECENT_FIRST)
    await settle(pilot)
    assert pilot.app.selected_path() == RECENT_FIRST
