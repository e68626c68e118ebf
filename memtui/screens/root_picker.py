"""The root picker: the fleet view of the roots memtui found — choose one to open.

Each root is a row of the fleet (:func:`memtui.core.dream.fleet.fleet_row`, the same one
``memtui list --all`` prints): its budget (MEMORY.md lines and characters against the caps,
where the loader cuts), errors and warnings, the peak of its pressure log, the agent's last
change and how many items a dream would check.  The rows show at once with their layer and
path; a worker measures each root (the dream's count last, the costly part) and its row fills
as it is measured.  ``>`` sorts by the next column, ``I`` turns the order round (both
registry commands: rebindable, on the palette); a root that needs a person is marked ``!`` and
says why in words (the ``why`` column, and the line under the list for the highlighted root).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState, get_current_worker

from memtui.commands import BY_NAME
from memtui.core.dream.fleet import SORT_COLUMNS, FleetRow, ago, fleet_row, sort_fleet
from memtui.core.judge.layers import layer_of
from memtui.core.model.snapshot import BudgetConfig
from memtui.core.rules.budget import PRESSURE_THRESHOLD
from memtui.widgets.column_header import ColumnHeader
from memtui.widgets.row_list import Cell, RowList, compose_row, elide_middle
from memtui.widgets.status_line import display_path
from memtui.worker_errors import report_worker_error

#: the order the picker cycles through: the order the roots were found in, then the fleet's
#: columns (:data:`memtui.core.dream.fleet.SORT_COLUMNS`)
SORT_ORDER = ("found", *SORT_COLUMNS)


@dataclass(frozen=True)
class RootRow:
    root: Path
    layer: str = ""  # machine-local, shared, agents or other (memtui.core.judge.layers)
    fleet: FleetRow | None = None  # the root's fleet row, once measured
    counted: bool = False  # the fleet row holds the dream's count (or it was asked and failed)

    @property
    def attention(self) -> tuple[str, ...]:
        return self.fleet.attention if self.fleet is not None else ()


@dataclass(frozen=True)
class Column:
    """A column of the picker: the fleet's sort column it shows, its title, its width, and
    when it goes on a narrow screen (0: never; the highest goes first)."""

    sort: str
    title: str
    width: int
    drops: int = 0
    justify: str = "right"


COLUMNS = (
    Column("layer", "layer", 13, 5, "left"),
    Column("files", "files", 6, 3),
    Column("lines", "lines", 8),
    Column("chars", "chars", 9),
    Column("use", "use", 5, 4),
    Column("cut", "cut", 5),
    Column("errors", "err", 4),
    Column("warnings", "warn", 4, 4),
    Column("pressure", "peak", 8, 1),
    Column("agent", "agent", 8, 1),
    Column("dream", "dream", 6),
    Column("attention", "why", 24, 2, "left"),
)

#: the path is never narrower than this; columns are dropped to keep it
PATH_MIN = 16


def columns_for(width: int) -> tuple[Column, ...]:
    """The columns that fit beside a path of at least :data:`PATH_MIN` cells."""
    shown = list(COLUMNS)

    def need() -> int:
        return 1 + 1 + PATH_MIN + sum(c.width for c in shown) + (len(shown) + 2)

    while need() > width and any(c.drops for c in shown):
        worst = max(c.drops for c in shown)
        shown.remove(next(c for c in reversed(shown) if c.drops == worst))
    return tuple(shown)


def sort_rows(rows: list[RootRow], column: str, descending: bool) -> list[RootRow]:
    """The rows in the order the roots were found (``found``), else by a fleet column as
    ``list --all --sort`` orders them; roots not measured yet keep their place after those
    that are."""
    if column == "found":
        return list(reversed(rows)) if descending else list(rows)
    by_root = {r.root.absolute(): r for r in rows}
    measured = [r.fleet for r in rows if r.fleet is not None]
    ordered = [by_root[f.root] for f in sort_fleet(measured, column, descending=descending)]
    return ordered + [r for r in rows if r.fleet is None]


def shared_start(paths: list[str]) -> str:
    """What every one of several paths starts with, up to a separator (``/``, ``-``, ``_`` or
    ``.``), leaving each at least one character: written once above the list, so the rows show
    the part that tells them apart (``-home-dev-`` of Claude Code's project folders)."""
    if len(paths) < 2:
        return ""
    start = os.path.commonprefix(paths)
    while start and (start[-1] not in "/-_." or any(len(p) == len(start) for p in paths)):
        start = start[:-1]
    return start


class RootList(RowList[RootRow]):
    """One row per root: the fleet's columns, as many as fit."""

    #: the root the app has open (marked ●), if any
    current: Path | None = None
    #: the column sorted by, and which way (the header marks it ▲ or ▼)
    sort_column: str = "found"
    descending: bool = False
    now: datetime | None = None
    #: each root as its row names it: its path less what every root's starts with (the
    #: title says that part once)
    names: dict[Path, str] = {}

    def item_key(self, item: RootRow) -> object:
        return item.root

    def header_cells(self) -> list[Cell]:
        width = self._row_width

        def title(sort: str, text: str) -> str:
            return text + (("▼" if self.descending else "▲") if sort == self.sort_column else "")

        cells = [Cell(" ", 1), Cell("!", 1), Cell(title("root", "root"), None, min_width=PATH_MIN)]
        cells += [Cell(title(c.sort, c.title), c.width, justify=c.justify)
                  for c in columns_for(width)]
        return cells

    def render_item(self, item: RootRow, width: int) -> Text:
        is_open = self.current is not None and item.root == self.current
        attention = item.attention
        cells = [
            Cell(Text("●" if is_open else " ", style=self.style_of("accent")), 1),
            Cell(Text("!" if attention else " ", style=self.style_of("error")), 1),
            Cell(self.names.get(item.root) or display_path(item.root), None, min_width=PATH_MIN,
                 middle=True),
        ]
        figures = self._figures(item)
        cells += [Cell(figures[c.sort], c.width, justify=c.justify) for c in columns_for(width)]
        return compose_row(cells, width)

    def _figures(self, item: RootRow) -> dict[str, Text]:
        """Each column's text for a row (``…`` while it is being measured)."""
        muted, error, warn = (self.style_of(role) for role in ("muted", "error", "warn"))
        waiting = Text("…", style=muted)
        out = {c.sort: waiting for c in COLUMNS}
        out["layer"] = Text(item.layer, style=muted)
        row = item.fleet
        if row is None:
            return out
        budget = row.budget
        out["files"] = Text(f"{row.files:,}", style=muted)
        out["errors"] = Text(f"{row.errors:,}", style=error) if row.errors else Text("0", style=muted)
        out["warnings"] = Text(f"{row.warnings:,}", style=warn if row.warnings else muted)
        if budget is not None:
            role = error if budget.cut_line is not None else warn if budget.utilization >= PRESSURE_THRESHOLD else ""
            out["lines"] = Text(f"{budget.lines}/{budget.max_lines}", style=role)
            used = budget.bytes / 1000
            out["chars"] = Text(f"{used:.{0 if used >= 100 else 1}f}k/{budget.max_bytes / 1000:.0f}k",
                                style=role)
            out["use"] = Text(f"{budget.utilization:.0%}", style=role)
            out["cut"] = (Text(f"{budget.cut_line}", style=error) if budget.cut_line is not None
                          else Text("—", style=muted))
        else:
            for key in ("lines", "chars", "use", "cut"):
                out[key] = Text("—", style=muted)
        out["pressure"] = (Text(f"{row.pressure_peak:.0%}·{row.pressure_days}d", style=warn)
                           if row.pressure_peak is not None else Text("—", style=muted))
        now = self.now or datetime.now(timezone.utc)
        out["agent"] = Text(ago(row.agent_change, now)
                            + ("~" if row.agent_source == "file time" else ""))
        if item.counted:
            out["dream"] = Text("—", style=muted) if row.dream_checked is None else Text(
                f"{row.dream_checked}" + (f"+{row.dream_waiting}" if row.dream_waiting else ""))
        why = ", ".join(row.attention)
        out["attention"] = Text(why, style=error) if why else Text("", style=muted)
        return out


def describe(item: RootRow | None, width: int | None = None) -> str:
    """The line under the list: the highlighted root, and what needs attention there; in
    ``width`` cells the path gives up its middle before the line wraps (what needs attention is
    the part read)."""
    if item is None:
        return ""
    row = item.fleet
    if row is None:
        says = "measuring…"
    elif row.problem:
        says = f"! needs attention: unreadable ({row.problem})"
    elif row.attention:
        says = f"! needs attention: {', '.join(row.attention)}"
    else:
        says = "nothing needs attention"
    path, rest = display_path(item.root), f" · {says}"
    if width is not None and cell_len(path + rest) > width:
        path = elide_middle(path, max(PATH_AT_LEAST, width - cell_len(rest)))
    return path + rest


#: the cells a path keeps however long what follows it (below this, the line wraps instead)
PATH_AT_LEAST = 16


class RootPickerScreen(Screen[Path]):
    """Pick a root with the cursor and Enter; the app then opens it."""

    BINDINGS = [
        Binding("q", "app.quit", "Quit", show=True),
        Binding("escape", "back", "Back", show=False),
        # the registry's sort keys (their ids are the commands': a keymap rebinds them here too)
        *(Binding(BY_NAME[name].keys, f"app.command({name!r})", label, show=True,
                  key_display=BY_NAME[name].key_display, id=name, tooltip=BY_NAME[name].help)
          for name, label in (("sort_roots", "Sort"), ("reverse_roots", "Reverse"))),
    ]

    class Measured(Message):
        """A root's fleet row (``counted``: with the dream's count)."""

        def __init__(self, row: FleetRow, counted: bool) -> None:
            super().__init__()
            self.row = row
            self.counted = counted

    class Sorted(Message):
        """The order chosen (the app keeps it: the picker opens in it next time)."""

        def __init__(self, column: str, descending: bool) -> None:
            super().__init__()
            self.column = column
            self.descending = descending

    def __init__(self, roots: list[Path], can_go_back: bool = False,
                 current: Path | None = None, *, config: BudgetConfig = BudgetConfig(),
                 now: datetime | None = None, order: tuple[str, bool] = ("found", False)) -> None:
        super().__init__()
        self.roots = roots
        self.found = [RootRow(root, layer=layer_of(root)) for root in roots]
        self.rows = list(self.found)
        self.can_go_back = can_go_back
        self.current = current
        self.config = config
        self.now = now
        self.sort_column, self.descending = order  # the order the picker was last left in

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            start = shared_start([display_path(root) for root in self.roots])
            under = f" under {start}…" if start else ""
            yield Static(Text(f"{len(self.roots)} memory roots found{under} — pick one to open"),
                         classes="dialog-title")
            yield Static(self._legend(), id="root-legend", classes="list-header")
            root_list = RootList(self.rows, id="root-list")
            root_list.current = self.current
            root_list.now = self.now
            root_list.names = {root: display_path(root)[len(start):] for root in self.roots}
            yield ColumnHeader(root_list, id="root-columns")
            yield root_list
            yield Static("", id="root-detail", classes="list-header")
        yield Footer()

    def _legend(self) -> str:
        order = "the order found" if self.sort_column == "found" else self.sort_column
        return (f"sorted by {order}{' (reversed)' if self.descending else ''} · > next column · "
                f"I reverses · enter opens · ● open now · ! needs attention · lines, chars: "
                f"MEMORY.md against the caps · cut: first line not loaded · peak: highest use "
                f"logged · agent: last write (~ file times) · dream: items it would check (+ left "
                f"for you)")

    def on_mount(self) -> None:
        root_list = self.query_one(RootList)
        root_list.focus()
        if self.current is not None:
            root_list.select_key(self.current)
        self._show_detail()
        self._measure()

    @work(thread=True, exclusive=True, group="fleet", description="measuring the roots", exit_on_error=False)
    def _measure(self) -> None:
        """Every root's fleet row without the dream's count first, then each one's count (a
        dream plan when the stat cache does not keep it)."""
        worker = get_current_worker()
        for dream in (False, True):
            for root in self.roots:
                if worker.is_cancelled:  # the picker is gone (a root was opened)
                    return
                row = fleet_row(root, self.config, now=self.now, dream=dream)
                self.post_message(self.Measured(row, dream))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's one worker error policy: a root that cannot be measured is a notice, and
        the picker still opens every root (the rows measured so far keep their figures)."""
        if event.state is WorkerState.ERROR:
            report_worker_error(self, event.worker)

    def on_root_picker_screen_measured(self, message: Measured) -> None:
        root = message.row.root
        self.found = [replace(r, fleet=message.row, counted=message.counted)
                      if r.root.absolute() == root else r for r in self.found]
        self._show()

    def _show(self, to_top: bool = False) -> None:
        """The rows in the chosen order, the cursor kept on its root (``to_top``: on the first
        row, what a new order puts first)."""
        root_list = self.query_one(RootList)
        keep = root_list.highlighted.root if root_list.highlighted else None
        self.rows = sort_rows(self.found, self.sort_column, self.descending)
        root_list.sort_column, root_list.descending = self.sort_column, self.descending
        root_list.set_items(self.rows, keep=keep)
        if to_top:
            root_list.cursor_to_top()
        self.query_one("#root-columns", ColumnHeader).refresh()
        self.query_one("#root-legend", Static).update(self._legend())
        self._show_detail()

    def _show_detail(self) -> None:
        detail = self.query_one("#root-detail", Static)
        width = detail.content_size.width or self.app.size.width - 2
        detail.update(Text(describe(self.query_one(RootList).highlighted, width)))

    @on(RowList.Highlighted, "#root-list")
    def _on_highlighted(self, event: RowList.Highlighted) -> None:
        self._show_detail()

    @on(RowList.Changed, "#root-list")
    def _on_changed(self, event: RowList.Changed) -> None:
        self.query_one("#root-columns", ColumnHeader).refresh()

    def on_resize(self) -> None:
        self.query_one("#root-columns", ColumnHeader).refresh()
        self._show_detail()

    def cycle_sort(self) -> None:
        """Sort by the next column (after the last: the order the roots were found in)."""
        self.sort_column = SORT_ORDER[(SORT_ORDER.index(self.sort_column) + 1) % len(SORT_ORDER)]
        self._show(to_top=True)
        self.post_message(self.Sorted(self.sort_column, self.descending))

    def reverse_sort(self) -> None:
        self.descending = not self.descending
        self._show(to_top=True)
        self.post_message(self.Sorted(self.sort_column, self.descending))

    @on(RowList.Selected, "#root-list")
    def _on_selected(self, event: RowList.Selected) -> None:
        self.dismiss(event.item.root)

    def action_back(self) -> None:
        if self.can_go_back:
            self.app.pop_screen()
