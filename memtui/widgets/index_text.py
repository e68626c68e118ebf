"""The raw text of ``MEMORY.md`` with line numbers, the loader's cut drawn and stripped lines marked.

Drawn through the Line API: a row is rendered only when it scrolls into view, so a 1,000-line
index opens as fast as a 10-line one.  What the loader takes is the workspace's budget: the cut
line and, under the ``claude-code`` profile, the frontmatter and comment lines it strips first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.core.model.snapshot import INDEX_NAME, Index
from memtui.core.rules.budget import Budget
from memtui.terminal_text import plain

from .preview import Preview

#: what a line the loader profile strips is labelled with
STRIPPED = "stripped, not loaded"


@dataclass(frozen=True)
class TextRow:
    """One row of the view: a line of the file (``number``), or the cut's rule (``number`` 0)."""

    number: int
    text: str
    stripped: bool = False
    past_cut: bool = False
    label: str = ""  # shown after the text: why the line does not load


def cut_rule(budget: Budget) -> str:
    """The words on the loader's cut line."""
    assert budget.cut_line is not None
    below = budget.file_lines - budget.cut_line + 1
    return (f"✂ loader cut · line {budget.cut_line} · {below} line{'s' if below != 1 else ''} "
            f"below not loaded ({budget.loader}: {budget.max_lines} lines / "
            f"{budget.max_bytes:,} {budget.unit} load)")


def text_rows(index: Index, budget: Budget) -> list[TextRow]:
    """Every line of the index in order, with the cut's rule before the first line not loaded."""
    stripped = set(budget.stripped)
    cut = budget.cut_line
    rows: list[TextRow] = []
    in_block = False
    for line in index.lines:
        if cut is not None and line.number == cut:
            rows.append(TextRow(0, cut_rule(budget)))
        past = cut is not None and line.number >= cut
        is_stripped = line.number in stripped
        label = ""
        opens_comment = line.raw.lstrip().startswith("<!--")
        if is_stripped and (opens_comment or not in_block):
            what = "comment" if opens_comment else "frontmatter"
            label = f"← {STRIPPED} ({budget.loader}: {what})"
        in_block = is_stripped
        rows.append(TextRow(line.number, plain(line.raw.expandtabs(4)), is_stripped,
                            past and not is_stripped, label))
    return rows


def summary(index: Index, budget: Budget) -> str:
    """One line under the title: the profile, what loads and what does not."""
    parts = [f"loader {budget.loader}", f"{budget.file_lines} lines in the file"]
    if budget.stripped:
        parts.append(f"{len(budget.stripped)} stripped")
    if budget.cut_line is not None:
        parts.append(f"cut at line {budget.cut_line}")
    else:
        parts.append("all of it loads")
    return " · ".join(parts)


class IndexText(ScrollView, can_focus=True):
    """``MEMORY.md`` as it is on disk, read-only, with what the loader takes drawn on it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "index-text--number", "index-text--cut", "index-text--stripped", "index-text--past",
        "index-text--label",
    }

    DEFAULT_CSS = """
    IndexText {
        height: 1fr;
        overflow-x: auto;
        overflow-y: auto;
        border: round $foreground 30%;
        border-title-style: bold;
        &:focus { border: round $border; }
        & > .index-text--number { color: $text-muted; }
        & > .index-text--cut { color: $warning; text-style: bold; }
        & > .index-text--stripped { color: $text-disabled; text-style: italic; }
        & > .index-text--past { color: $text-disabled; }
        & > .index-text--label { color: $warning; text-style: italic; }
    }
    """

    BINDINGS = [
        *Preview.BINDINGS,  # the same scrolling keys as the preview
        Binding("left,h", "scroll_left", "Left", show=False),
        Binding("right,l", "scroll_right", "Right", show=False),
        Binding("c", "to_cut", "Jump to the cut", show=True,
                tooltip="In the index text (i): jump to the loader's cut line."),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.border_title = INDEX_NAME
        self.rows: list[TextRow] = []
        self._gutter = 4
        self._cache: dict[int, tuple[Strip, Strip]] = {}

    def show(self, index: Index, budget: Budget) -> None:
        """Draw this index under this budget (the workspace's)."""
        self.rows = text_rows(index, budget)
        self._gutter = max(4, len(str(len(index.lines))))
        self.border_title = f"{INDEX_NAME} · as on disk"
        self.border_subtitle = summary(index, budget)
        widest = max((len(row.text) + len(row.label) + 1 for row in self.rows), default=0)
        self._cache.clear()
        self.virtual_size = Size(self._gutter + 3 + widest, len(self.rows))
        self.refresh()

    @property
    def cut_row(self) -> int | None:
        """The row index of the cut's rule, if the loader cuts."""
        return next((i for i, row in enumerate(self.rows) if row.number == 0), None)

    def action_to_cut(self) -> None:
        row = self.cut_row
        if row is not None:
            self.scroll_to(y=max(0, row - 2), animate=False)

    def on_resize(self) -> None:
        self._cache.clear()

    def _style(self, role: str) -> Style:
        return self.get_component_rich_style(f"index-text--{role}", partial=True)

    def _render_row(self, row: TextRow) -> tuple[Strip, Strip]:
        """A row as its gutter (the line number and its mark, fixed) and its body (scrolls)."""
        gutter = Text(no_wrap=True, end="")
        body = Text(no_wrap=True, end="")
        if row.number == 0:
            gutter.append(" " * (self._gutter + 1) + row.text, style=self._style("cut"))
        else:
            gutter.append(f"{row.number:>{self._gutter}} ", style=self._style("number"))
            gutter.append("·" if row.stripped else "✂" if row.past_cut else "│",
                          style=self._style("number"))
            gutter.append(" ")
            style = self._style("stripped" if row.stripped else "past" if row.past_cut else "number")
            body.append(row.text, style=style if (row.stripped or row.past_cut) else None)
            if row.label:
                body.append("  " + row.label, style=self._style("label"))
        console = self.app.console
        return Strip(list(gutter.render(console))), Strip(list(body.render(console)))

    def render_line(self, y: int) -> Strip:
        """The gutter stays put while the body scrolls sideways (the cut's rule stays whole)."""
        width = self.scrollable_content_region.width or self.size.width
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        style = self.rich_style
        if not 0 <= index < len(self.rows):
            return Strip.blank(width, style)
        parts = self._cache.get(index)
        if parts is None:
            parts = self._cache[index] = self._render_row(self.rows[index])
        gutter, body = parts
        if self.rows[index].number == 0:
            return gutter.crop_extend(0, width, style).apply_style(style)
        fixed = min(width, self._gutter + 3)
        line = Strip.join([gutter.crop_extend(0, fixed, style),
                           body.crop_extend(scroll_x, scroll_x + width - fixed, style)])
        return line.apply_style(style)
