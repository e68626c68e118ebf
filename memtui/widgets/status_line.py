"""The status line: which root, how many files, how many errors and warnings, what is running."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import RenderableType
from textual.content import Content
from textual.reactive import reactive

from memtui.services.workspace import Workspace

from .header_line import HeaderLine


def display_path(path: Path) -> str:
    """A root as the user would type it: relative to the current folder, else with ``~``."""
    try:
        rel = path.relative_to(Path.cwd())
        return str(rel) if str(rel) != "." else "."
    except ValueError:
        pass
    home = str(Path.home())
    text = str(path)
    if home not in ("/", "") and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home):]
    return text


class StatusLine(HeaderLine):
    """One line under the views: root, files, error and warning counts, busy state."""

    DEFAULT_CSS = """
    StatusLine { height: 1; }
    """

    busy: reactive[str] = reactive("")
    marked: reactive[int] = reactive(0)
    scope: reactive[str] = reactive("")  # the scope filter's path while one is on (A)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.workspace: Workspace | None = None
        self.read_only = False
        self._archived_count: tuple[object, int] = ((), 0)  # (the rows counted, how many archived)
        self._path = ""  # the root as the user would type it, drawn after the counts

    def show(self, workspace: Workspace | None, read_only: bool = False) -> None:
        self.workspace = workspace
        self.read_only = read_only
        self._redraw()

    def _archived(self, ws: Workspace) -> int:
        """How many rows are archived (counted once per list of rows: it is redrawn often)."""
        rows, count = self._archived_count
        if rows is not ws.files:
            count = sum(1 for row in ws.files if row.archived)
            self._archived_count = (ws.files, count)
        return count

    def watch_busy(self) -> None:
        self._redraw()

    def watch_marked(self) -> None:
        self._redraw()

    def watch_scope(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        ws = self.workspace
        if ws is None:
            self._path = ""
            self.update("no root open")
            return
        # the counts first and the folder last: a narrow terminal cuts the end, never the counts
        parts: list[str | tuple[str, str]] = []
        if self.read_only:
            parts.append((" read-only ", "bold reverse $warning"))
        if self.marked:
            parts.append((f"✓ {self.marked:,} marked", "bold $accent"))
        if ws.complete:
            files = len(ws.snapshot.files)
            archived = self._archived(ws)
            count = f"{files:,} file{'s' if files != 1 else ''}"
            parts.append(count + (f" ({archived:,} archived)" if archived else ""))
            if ws.errors:
                parts.append((f"✖ {ws.errors} error{'s' if ws.errors != 1 else ''}", "bold $error"))
            else:
                parts.append(("✔ no errors", "$success"))
            warnings = f"⚠ {ws.warnings} warning{'s' if ws.warnings != 1 else ''}"
            parts.append((warnings, "$warning") if ws.warnings else warnings)
        else:
            parts.append(("scanning files…", "italic"))
        if self.scope:  # after the counts: a long path never pushes them off the line
            parts.append((f"scope {self.scope}", "bold $accent"))
        if self.busy:
            parts.append((self.busy, "italic"))
        self._path = display_path(ws.root)
        joined: list[str | tuple[str, str]] = []
        for part in parts:
            joined.append(part)
            joined.append(" · ")
        self.set_class(ws.errors > 0, "-errors")
        self.update(Content.assemble(*joined))

    def render(self) -> RenderableType:
        """The counts, then the folder, its start elided (``…``) when the line is too short (left
        out when not even its last part fits)."""
        counts = self.text
        if not isinstance(counts, Content) or not self._path:
            return counts
        width = self.content_region.width or self.size.width
        room = width - counts.cell_length
        path = self._path
        if room < len(path) and room < 12:  # no room for a useful part: no path, no dangling ·
            return counts[:-3]
        if room < len(path):
            path = "…" + path[len(path) - room + 1:]
        return Content.assemble(counts, (path, "bold"))
