"""One worker error policy: a worker that raises is a notice and a logged traceback, not a crash.

Every worker runs with ``exit_on_error=False``; the node that started it (the app, or a screen)
hands its ``Worker.StateChanged`` in the ERROR state to :func:`report_worker_error`.
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual import Logger
    from textual.notifications import SeverityLevel
    from textual.worker import Worker


class Notifies(Protocol):
    """An app or a screen: something with a log and notices."""

    @property
    def log(self) -> Logger: ...

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...


def report_worker_error(node: Notifies, worker: Worker[object]) -> None:
    """Say what failed and why in a notice (plain text), and log the traceback (``textual
    console``, or the file ``TEXTUAL_LOG`` names)."""
    error = worker.error
    if error is None:
        return
    what = worker.description or worker.name or "a background task"
    node.log.error("".join(traceback.format_exception(error)))
    node.notify(f"{what} failed: {error}", severity="error", timeout=10, markup=False)
