"""The preview: the selected file rendered as Markdown, its frontmatter, reachability and staleness."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.core.judge.staleness import REFS_WORDS, StalenessResult
from memtui.core.model.snapshot import MemoryFile
from memtui.core.rules.validate import glob_matches, glob_regex
from memtui.services.workspace import REGIONS, EntryRow, Workspace

from .moves import move_bindings
from .theme import foreground_only

#: bodies longer than this are shown cut, to keep the preview instant
PREVIEW_CHARS = 20_000


def used_lines(workspace: Workspace, path: str) -> list[str]:
    """What Claude Code's transcripts say of a file: how often it was read, who wrote it last."""
    usage = workspace.usage
    if usage is None or usage.total_sessions == 0:
        return []
    lines = [usage.describe(path)]
    use = usage.of(path)
    if use is not None and use.writers:
        lines.append(f"last written by session {use.writers[0][:8]} on {use.last_written[:10]}")
    return lines


def staleness_table(result: StalenessResult, error: Style | str = "red") -> Table:
    """The breakdown of one staleness result: age, half-life, modifiers, class, the declared
    status that decided it, guards."""
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.add_row("action", Text(f"{result.action.value} ({result.bucket.value}) — score "
                                 f"{result.score:.0f}, from the age and what is missing"))
    if result.age.known:
        table.add_row("age", f"{result.age.days:.0f} days (from {result.age.source}, "
                             f"{result.age.when.date().isoformat()})")
        table.add_row("half-life", f"{result.half_life:.0f} days for type {result.type} → "
                                   f"base {result.base_score:.0f}")
    else:  # never "0 days": a copy's times say nothing of the note's age
        table.add_row("age", f"unknown — {result.age.reason}")
        table.add_row("half-life", f"{result.half_life:.0f} days for type {result.type}; an "
                                   f"unknown age scores as one half-life → base {result.base_score:.0f}")
    for modifier in result.modifiers:
        table.add_row("modifier", f"+{modifier.points} {modifier.reason}")
    if result.status is not None:  # what decided the action before the age: the author's word
        table.add_row("status", result.status.reason)
    words, cls = REFS_WORDS[result.cls.value], result.cls.value.replace("_", " ").lower()
    notes = ([] if cls == words else [f"class {cls}"]) + (["downgraded by a guard"] if result.downgraded else [])
    refs = (f"{words} — {len(result.found)} found · {len(result.missing)} missing · "
            f"{len(result.unverifiable)} unverifiable" + (f" ({', '.join(notes)})" if notes else ""))
    table.add_row("refs", refs)
    for check in result.missing[:8]:
        table.add_row("", Text(f"✗ {check.text} — {check.reason}", style=error))
    for guard in result.guards:
        table.add_row("guard", guard.reason)
    return table


def frontmatter_table(memory_file: MemoryFile) -> RenderableType:
    fm = memory_file.frontmatter
    if not fm.present:
        return Text("no frontmatter — read as type unknown", style="italic")
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for line in fm.lines:
        if line.key is not None:
            table.add_row(line.key, line.value or "")
        elif line.raw.strip() and line.raw.strip() != "---":
            table.add_row("?", Text(line.raw, style="italic"))
    if not fm.closed:
        table.add_row("!", Text("the block is not closed — read as no fields", style="bold"))
    return table


class Preview(ScrollView, can_focus=True):
    """What the selected row points at, read-only, drawn through the Line API.

    The content is rendered to lines once per selection (and per width), so moving the cursor
    never re-lays-out the screen, however long the file.
    """

    DEFAULT_CSS = """
    Preview { height: 1fr; overflow-x: hidden; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"preview--error", "preview--muted"}

    BINDINGS = [
        *move_bindings({"down": "scroll_down", "up": "scroll_up", "page_down": "page_down",
                        "page_up": "page_up", "first": "scroll_home", "last": "scroll_end"}, pager=True),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Preview"
        self.path: str | None = None
        self._parts: list[RenderableType] = []
        self._lines: list[Strip] = []
        self._width = 0

    # ------------------------------------------------------------------ drawing

    def _role(self, role: str) -> Style:
        """A colour from the stylesheet (``preview--error``, ``preview--muted``)."""
        return foreground_only(self.get_component_rich_style(f"preview--{role}"))

    def _set(self, *parts: RenderableType) -> None:
        self._parts = [part for part in parts if part]
        self._width = 0  # re-render at the next paint
        self._render_parts()
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    def _render_parts(self) -> None:
        width = self.scrollable_content_region.width or self.size.width
        if width <= 0:
            return
        console = self.app.console
        options = console.options.update_width(width)
        lines: list[Strip] = []
        for i, part in enumerate(self._parts):
            if i:
                lines.append(Strip.blank(width))
            for line in console.render_lines(part, options, pad=True):
                lines.append(Strip(line, width))
        self._lines = lines
        self._width = width
        self.virtual_size = Size(width, len(lines))

    def on_resize(self) -> None:
        self._width = 0
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        if width != self._width:
            self._render_parts()
        index = y + round(self.scroll_offset.y)
        style = self.rich_style
        if 0 <= index < len(self._lines):
            return self._lines[index].apply_style(style).crop_extend(0, width, style)
        return Strip.blank(width, style)

    # ------------------------------------------------------------------ what to show

    def show_message(self, message: str) -> None:
        self.path = None
        self.border_title = "Preview"
        self._set(Text(message, style="italic"))

    def show_entry(self, workspace: Workspace, row: EntryRow | None) -> None:
        """Preview a working-set row: its file, or what a region covers, or why it is broken."""
        if row is None:
            self.show_message("nothing selected")
            return
        if row.pane == REGIONS:
            self._show_region(workspace, row)
            return
        if row.path is None:
            self.path = None
            self.border_title = row.target
            self._set(
                Text(row.title, style="bold"),
                Text(f"line {row.number} of MEMORY.md", style=self._role("muted")),
                Text(f"✗ '{row.target}' does not exist on disk — a broken link. Fix the "
                     "path in MEMORY.md or remove the line.", style=self._role("error")),
            )
            return
        self.show_file(workspace, row.path)

    def _show_region(self, workspace: Workspace, row: EntryRow) -> None:
        self.path = None
        self.border_title = f"region {row.glob}"
        if glob_regex(row.glob) is None:
            body: RenderableType = Text("the glob uses something other than * and ? — invalid",
                                        style=self._role("error"))
        elif not workspace.complete:
            body = Text("scanning the folder…", style="italic")
        else:
            names = [p for p in workspace.snapshot.files if glob_matches(row.glob, p)]
            lines = Text()
            for path in names[:200]:
                lines.append(f"• {path}\n")
            if len(names) > 200:
                lines.append(f"… and {len(names) - 200} more\n", style="italic")
            if not names:
                lines.append("matches no file — a confidently wrong cue (region-empty)",
                             style=self._role("error"))
            body = lines
        covers = "…" if row.covers is None else f"{row.covers} files"
        self._set(Text(f"region `{row.glob}` → {covers}", style="bold"),
                  Text(f"line {row.number} of MEMORY.md — {row.hook}", style=self._role("muted")),
                  body)

    def show_file(self, workspace: Workspace, path: str | None) -> None:
        memory_file = workspace.file(path)
        if memory_file is None or path is None:
            self.show_message("nothing selected" if path is None else f"{path}: not on disk")
            return
        self.path = path
        self.border_title = path
        head = Text(memory_file.title, style="bold")
        tags = [memory_file.type]
        if memory_file.pinned:
            tags.append("★ pinned")
        if memory_file.status:
            tags.append(memory_file.status)
        if memory_file.archived and memory_file.status != "archived":
            tags.append("archived")
        head.append("  " + " · ".join(tags), style=self._role("muted") + Style(bold=False))
        reach = Text("\n".join(workspace.reachability(path) + used_lines(workspace, path)),
                     style=self._role("muted"))
        stale: RenderableType = ""
        result = workspace.staleness.get(path) if workspace.staleness is not None else None
        if result is not None:
            stale = Group(Text("Staleness", style="bold underline"),
                          staleness_table(result, self._role("error")))
        front = Group(Text("Frontmatter", style="bold underline"), frontmatter_table(memory_file))
        text = memory_file.body
        body: RenderableType = Markdown(text[:PREVIEW_CHARS]) if text.strip() else Text(
            "(empty body)", style="italic")
        if len(text) > PREVIEW_CHARS:
            body = Group(body, Text(f"… {len(text) - PREVIEW_CHARS:,} more characters", style="italic"))
        self._set(Group(head, reach), stale, front, body)
