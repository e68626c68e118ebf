"""A virtualised list: a Line-API ScrollView that renders only the rows on screen.

DataTable and OptionList measure every row before the first paint, which takes seconds at ten
thousand rows; this widget costs the same at ten rows or a hundred thousand.  Subclasses say how
one item looks (:meth:`RowList.render_item`); the list keeps the cursor, scrolling, caching and
mouse handling, and posts :class:`RowList.Highlighted` / :class:`RowList.Selected` messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Sequence, TypeVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .moves import move_bindings
from .theme import foreground_only

T = TypeVar("T")


@dataclass(frozen=True)
class Rule:
    """A non-selectable separator row (the loader's cut, a group heading)."""

    text: str
    kind: str = "cut"


@dataclass(frozen=True)
class Cell:
    """One column of a row: fixed ``width`` or flexible (``width=None``, shares what is left)."""

    content: str | Text
    width: int | None = None
    justify: str = "left"
    style: str | Style = ""
    min_width: int = 4
    weight: int = 1
    keep_end: bool = False  # cut from the start ("…_2026-05-23_beats.md"): the end tells rows apart
    middle: bool = False  # cut in the middle ("reference_harb…cheatsheet.md"): a path's two ends


def elide_middle(text: str, width: int) -> str:
    """``text`` in ``width`` cells: its start and its end, the middle given up for ``…`` (the
    end is what tells long paths under one folder apart)."""
    if len(text) <= width or width < 8:
        return text
    head = max(4, width // 3)
    return text[:head] + "…" + text[len(text) - (width - head - 1):]


def compose_row(cells: Sequence[Cell], width: int, gap: int = 1) -> Text:
    """Lay cells out on one line of exactly ``width`` cells, truncating with an ellipsis."""
    fixed = sum(cell.width or 0 for cell in cells) + gap * max(0, len(cells) - 1)
    flexible = [cell for cell in cells if cell.width is None]
    spare = max(0, width - fixed)
    weights = sum(cell.weight for cell in flexible) or 1
    widths: list[int] = []
    given = 0
    for cell in cells:
        if cell.width is not None:
            widths.append(cell.width)
        else:
            share = max(cell.min_width, spare * cell.weight // weights)
            widths.append(share)
            given += share
    if flexible and given < spare:  # hand the rounding remainder to the last flexible cell
        last = max(i for i, cell in enumerate(cells) if cell.width is None)
        widths[last] += spare - given
    line = Text(no_wrap=True, overflow="ellipsis")
    for i, (cell, cell_width) in enumerate(zip(cells, widths)):
        if i:
            line.append(" " * gap)
        piece = cell.content.copy() if isinstance(cell.content, Text) else Text(cell.content)
        piece.no_wrap = True
        if cell.style:
            piece.stylize_before(cell.style)
        if cell.keep_end and piece.cell_len > cell_width > 1:
            piece = Text("…") + piece[piece.cell_len - cell_width + 1:]
        elif cell.middle and piece.cell_len > cell_width >= 8:
            head = max(4, cell_width // 3)
            piece = piece[:head] + Text("…") + piece[len(piece) - (cell_width - head - 1):]
        piece.truncate(cell_width, overflow="ellipsis")
        pad = cell_width - piece.cell_len
        if pad > 0:
            if cell.justify == "right":
                piece = Text(" " * pad) + piece
            elif cell.justify == "center":
                piece = Text(" " * (pad // 2)) + piece + Text(" " * (pad - pad // 2))
            else:
                piece.append(" " * pad)
        line.append_text(piece)
    line.truncate(width, overflow="ellipsis", pad=True)
    return line


class RowList(ScrollView, Generic[T], can_focus=True):
    """A cursor over a sequence of items, drawn one line per item."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *move_bindings({"down": "cursor_down", "up": "cursor_up", "page_down": "page_down",
                        "page_up": "page_up", "first": "first", "last": "last"}),
        Binding("enter", "select", "Open", show=False,
                tooltip="Jump to the file of a problem, review a candidate, pick a root."),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "row-list--cursor",
        "row-list--dim",
        "row-list--rule",
        "row-list--empty",
        "row-list--ok",
        "row-list--warn",
        "row-list--error",
        "row-list--muted",
        "row-list--accent",
    }

    DEFAULT_CSS = """
    RowList {
        overflow-x: hidden;
        overflow-y: auto;
    }
    """

    cursor: reactive[int] = reactive(0, always_update=True, init=False)

    #: when the items are replaced, redraw only the rows whose :meth:`row_state` changed (a list
    #: opts in when ``row_state`` names everything its drawing of a row depends on)
    DIFF_ROWS: ClassVar[bool] = False

    class Highlighted(Message):
        """The cursor moved onto an item."""

        def __init__(self, row_list: RowList[Any], item: Any) -> None:
            super().__init__()
            self.row_list = row_list
            self.item = item

        @property
        def control(self) -> RowList[Any]:
            return self.row_list

    class Selected(Message):
        """Enter (or a double click) on an item."""

        def __init__(self, row_list: RowList[Any], item: Any) -> None:
            super().__init__()
            self.row_list = row_list
            self.item = item

        @property
        def control(self) -> RowList[Any]:
            return self.row_list

    def __init__(
        self,
        items: Sequence[T | Rule] = (),
        *,
        empty_text: str = "nothing here",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._items: Sequence[T | Rule] = items
        self.empty_text = empty_text
        self._line_cache: LRUCache[tuple[object, int, bool], Strip] = LRUCache(2048)
        self._drawn: dict[int, tuple[object, bool]] = {}  # row index -> what was last drawn there
        self._styles: dict[str, Style] = {}
        self._styles_before: dict[str, Style] | None = None  # the styles before a style update
        self.marks: frozenset[str] = frozenset()

    # ------------------------------------------------------------------ data

    @property
    def items(self) -> Sequence[T | Rule]:
        return self._items

    @property
    def highlighted(self) -> T | None:
        """The item under the cursor (never a :class:`Rule`)."""
        if 0 <= self.cursor < len(self._items):
            item = self._items[self.cursor]
            if not isinstance(item, Rule):
                return item
        return None

    def item_key(self, item: T) -> object:
        """What identifies an item across reloads (to keep the cursor on it)."""
        return item

    def row_state(self, item: T | Rule) -> object:
        """Everything a row's drawing depends on besides the list's width, marks and styles
        (hashable; with :attr:`DIFF_ROWS` it keys the line cache instead of the row's index)."""
        return item

    def item_path(self, item: T) -> str | None:
        """The memory file an item stands for (what a mark marks), if any."""
        path = getattr(item, "path", None)
        return path if isinstance(path, str) and path else None

    def shown_paths(self) -> list[str]:
        """The memory files the list shows, in order."""
        paths = (self.item_path(item) for item in self._items if not isinstance(item, Rule))
        return [path for path in paths if path is not None]

    def set_marks(self, marks: frozenset[str]) -> None:
        """Draw a mark beside the rows of these files (a gutter appears while any is marked)."""
        if marks != self.marks:
            self.marks = marks
            self._forget_lines()
            self.refresh()
            self.post_message(self.Changed(self))

    class Changed(Message):
        """The list's layout changed (its marks gutter, its width): its header redraws."""

        def __init__(self, row_list: RowList[Any]) -> None:
            super().__init__()
            self.row_list = row_list

        @property
        def control(self) -> RowList[Any]:
            return self.row_list

    def set_items(self, items: Sequence[T | Rule], keep: object | None = None) -> None:
        """Replace the rows; the cursor stays on the item whose key is ``keep`` when present."""
        previous = self.cursor
        same_length = len(items) == len(self._items)
        self._items = items
        if not self.DIFF_ROWS:
            self._line_cache.clear()
        self._set_height(len(items), refresh=not (self.DIFF_ROWS and same_length))
        target = None
        if keep is not None:
            for i, item in enumerate(items):
                if not isinstance(item, Rule) and self.item_key(item) == keep:
                    target = i
                    break
        if target is None:
            target = min(previous, max(0, len(items) - 1))
        self.cursor = self._selectable(target, 1)
        if self.DIFF_ROWS and same_length:
            self._refresh_changed_rows()
        else:
            self.refresh()

    def _refresh_changed_rows(self) -> None:
        """Repaint the rows on screen whose drawing differs from what was last drawn there."""
        top = round(self.scroll_offset.y)
        height = self.scrollable_content_region.height or self.size.height
        for index in range(top, min(top + height, len(self._items))):
            drawn = self._drawn.get(index)
            if drawn is None or drawn != (self.row_state(self._items[index]), index == self.cursor):
                self.refresh_line(index - top)

    def _forget_lines(self) -> None:
        """Drop every drawn line (the marks, the width or the styles changed)."""
        self._line_cache.clear()
        self._drawn.clear()

    def _set_height(self, rows: int, refresh: bool = True) -> None:
        """Set the virtual height; skip the screen re-layout when the scrollbar stays as it is.

        Setting ``virtual_size`` lays the whole screen out again (tens of milliseconds on a busy
        screen); when only the number of rows changes and a scrollbar is needed before and
        after (or neither time), updating the scrollbar and repainting this widget is enough.
        """
        new = Size(self._row_width, rows)
        old = self.virtual_size
        viewport = self.scrollable_content_region.height
        same_bar = viewport > 0 and (old.height > viewport) == (rows > viewport)
        # a list as tall as its rows (height: auto) grows or shrinks with them: lay out again
        # unless it is at its cap before and after
        fits = not self.styles.height or not self.styles.height.is_auto or (
            old.height >= viewport and rows >= viewport)
        if same_bar and fits and old.width == new.width and self.is_mounted:
            self.set_reactive(RowList.virtual_size, new)
            self._scroll_update(new)
            if refresh:
                self.refresh()
        else:
            self.virtual_size = new

    def cursor_to_top(self) -> None:
        """Put the cursor on the first row (the best match, after a filter)."""
        self.cursor = self._selectable(0, 1)
        self.scroll_to(y=0, animate=False, immediate=True)

    def select_key(self, key: object) -> bool:
        """Move the cursor onto the item with this key; False when it is not listed."""
        for i, item in enumerate(self._items):
            if not isinstance(item, Rule) and self.item_key(item) == key:
                self.cursor = i
                return True
        return False

    def _selectable(self, index: int, step: int) -> int:
        """The nearest selectable row from ``index`` going ``step``, else the other way."""
        n = len(self._items)
        if n == 0:
            return 0
        index = max(0, min(index, n - 1))
        for direction in (step, -step):
            i = index
            while 0 <= i < n:
                if not isinstance(self._items[i], Rule):
                    return i
                i += direction
        return index

    # ------------------------------------------------------------------ rendering

    @property
    def _row_width(self) -> int:
        """Cells a row may use: the content width less a vertical scrollbar, if shown."""
        return self.scrollable_content_region.width or self.size.width

    def render_item(self, item: T, width: int) -> Text:
        """One item as one line of text; subclasses override."""
        return Text(str(item))

    def header_cells(self) -> list[Cell]:
        """The column titles, as cells of the same widths as :meth:`render_item`'s (none: no
        header)."""
        return []

    def is_dim(self, item: T) -> bool:
        """Whether an item is drawn greyed (e.g. past the loader's cut)."""
        return False

    def render_rule(self, rule: Rule, width: int) -> Text:
        label = f" {rule.text} " if rule.text else ""
        side = max(0, width - len(label))
        return Text("─" * 2 + label + "─" * max(0, side - 2), no_wrap=True, overflow="crop")

    def style_of(self, role: str) -> Style:
        """The theme's style for a role: ok, warn, error, muted, accent, dim, rule, cursor.

        Roles other than the cursor carry only a foreground (blended against the background,
        so ``$text-muted`` really is muted) and no background, so they sit on the cursor row.
        """
        style = self._styles.get(role)
        if style is None:
            full = self.get_component_rich_style(f"row-list--{role}")
            if role == "cursor":
                style = full
            else:
                style = foreground_only(full)
            self._styles[role] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self._styles_before is None:
            self._styles_before = self._styles
        self._styles = {}

    def _forget_restyled_lines(self) -> None:
        """After a style update, drop only the lines drawn with a style that changed.

        Focusing a list changes its cursor's style alone (its border is Textual's to draw), so
        the other rows stay cached.  The comparison waits for the first line drawn after the
        update: Textual updates a widget's component styles after notifying it.
        """
        before, self._styles_before = self._styles_before, None
        if not before:
            self._forget_lines()
            return
        now = {role: self.rich_style if role == "base" else self.style_of(role) for role in before}
        changed = {role for role, style in before.items() if now[role] != style}
        if changed == {"cursor"}:
            for key in [key for key in self._line_cache.keys() if key[2]]:
                self._line_cache.discard(key)
        elif changed:
            self._forget_lines()

    def on_resize(self, event: events.Resize) -> None:
        self._forget_lines()
        self.virtual_size = Size(self._row_width, len(self._items))
        self.post_message(self.Changed(self))
        self.call_after_refresh(self._scroll_cursor_into_view)  # a pane that shrank keeps it

    def render_line(self, y: int) -> Strip:
        if self._styles_before is not None:
            self._forget_restyled_lines()
        scroll_y = round(self.scroll_offset.y)
        index = scroll_y + y
        width = self._row_width
        base = self._styles.get("base")
        if base is None:
            base = self._styles["base"] = self.rich_style
        if not self._items:
            if y == 0:
                style = self.style_of("empty")
                text = Text(f" {self.empty_text}", style=style, no_wrap=True)
                text.truncate(width, overflow="ellipsis", pad=True)
                return Strip(list(text.render(self.app.console)), width).apply_style(base)
            return Strip.blank(width, base)
        if index >= len(self._items):
            return Strip.blank(width, base)
        is_cursor = index == self.cursor
        item = self._items[index]
        if self.DIFF_ROWS:
            state = self.row_state(item)
            self._drawn[index] = (state, is_cursor)
            key: tuple[object, int, bool] = (state, width, is_cursor)
        else:
            key = (index, width, is_cursor)
        cached = self._line_cache.get(key)
        if cached is not None:
            return cached
        if isinstance(item, Rule):
            text = self.render_rule(item, width)
            text.stylize_before(self.style_of("rule"))
        else:
            if self.marks:
                marked = self.item_path(item) in self.marks
                text = Text("✓ " if marked else "  ", style=self.style_of("accent"))
                text.append_text(self.render_item(item, max(1, width - 2)))
            else:
                text = self.render_item(item, width)
            if self.is_dim(item):
                text.stylize(self.style_of("dim"))
            if is_cursor:
                text.stylize_before(self.style_of("cursor"))
        text.truncate(width, overflow="ellipsis", pad=True)
        segments = list(text.render(self.app.console))
        strip = Strip(segments, width).apply_style(base)
        self._line_cache[key] = strip
        return strip

    # ------------------------------------------------------------------ cursor

    def watch_cursor(self, old: int, new: int) -> None:
        if not self.DIFF_ROWS:  # (a list keyed by state has a line for either look of a row)
            for index in (old, new):
                for cursor_flag in (True, False):
                    self._line_cache.discard((index, self._row_width, cursor_flag))
        scroll_y = round(self.scroll_offset.y)
        self.refresh_line(old - scroll_y)
        self.refresh_line(new - scroll_y)
        self._scroll_cursor_into_view()
        item = self.highlighted
        if item is not None:
            self.post_message(self.Highlighted(self, item))

    def refresh_line(self, y: int) -> None:
        if 0 <= y < self.size.height:
            self.refresh_lines(y)

    def _scroll_cursor_into_view(self) -> None:
        height = self.scrollable_content_region.height or self.size.height
        top = round(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif height and self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def _move(self, delta: int) -> None:
        if not self._items:
            return
        step = 1 if delta > 0 else -1
        target = max(0, min(len(self._items) - 1, self.cursor + delta))
        self.cursor = self._selectable(target, step)

    def action_cursor_down(self) -> None:
        self._move(1)

    def action_cursor_up(self) -> None:
        self._move(-1)

    def action_page_down(self) -> None:
        self._move(max(1, self.size.height - 1))

    def action_page_up(self) -> None:
        self._move(-max(1, self.size.height - 1))

    def action_first(self) -> None:
        if self._items:
            self.cursor = self._selectable(0, 1)

    def action_last(self) -> None:
        if self._items:
            self.cursor = self._selectable(len(self._items) - 1, -1)

    def action_select(self) -> None:
        item = self.highlighted
        if item is not None:
            self.post_message(self.Selected(self, item))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = offset.y + round(self.scroll_offset.y)
        if 0 <= index < len(self._items) and not isinstance(self._items[index], Rule):
            self.cursor = index
            if event.chain >= 2:
                self.action_select()
