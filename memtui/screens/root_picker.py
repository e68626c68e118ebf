"""The root picker: several memory roots were found; choose one, seeing each one's budget use."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from memtui.core.judge.layers import layer_of
from memtui.services.roots import RootSummary, count_errors, summarize
from memtui.widgets.budget_gauge import state_of
from memtui.widgets.row_list import Cell, RowList, compose_row
from memtui.widgets.status_line import display_path


@dataclass(frozen=True)
class RootRow:
    root: Path
    summary: RootSummary | None = None
    layer: str = ""  # machine-local, shared, agents or other (memtui.core.judge.layers)


class RootList(RowList[RootRow]):
    """One row per root: layer, path, files, lines and bytes against the caps, utilisation."""

    def item_key(self, item: RootRow) -> object:
        return item.root

    #: the root the app has open (marked ●), if any
    current: Path | None = None

    def render_item(self, item: RootRow, width: int) -> Text:
        summary = item.summary
        is_open = self.current is not None and item.root == self.current
        mark = Cell(Text("●" if is_open else " ", style=self.style_of("accent")), 1)
        layer = Cell(Text(item.layer, style=self.style_of("muted")), 13)
        if summary is None:
            return compose_row([mark, layer, Cell(display_path(item.root), None, keep_end=True),
                                Cell(Text("reading…", style=self.style_of("muted")), 30)], width)
        if summary.errors is None:
            found = Text("…", style=self.style_of("muted"))
        elif summary.errors:
            found = Text(f"✖ {summary.errors:,}", style=self.style_of("error"))
        else:
            found = Text("✔", style=self.style_of("ok"))
        role, word = state_of(summary.utilization)
        bar_width = 12
        filled = min(bar_width, round(min(summary.utilization, 1.0) * bar_width))
        bar = Text("█" * filled, style=self.style_of("error" if role == "error" else role))
        bar.append("░" * (bar_width - filled), style=self.style_of("muted"))
        return compose_row(
            [
                mark,
                layer,
                Cell(display_path(item.root), None, min_width=16, keep_end=True),  # the end tells roots apart
                Cell(found, 7, justify="right"),
                Cell(Text(f"{summary.files:,} file{'s' if summary.files != 1 else ''}",
                          style=self.style_of("muted")), 12, justify="right"),
                Cell(f"{summary.lines}/{summary.max_lines} lines "
                     f"{summary.lines / max(1, summary.max_lines):4.0%}", 20, justify="right"),
                Cell(f"{summary.bytes / 1000:.1f}k/{summary.max_bytes / 1000:.1f}k bytes "
                     f"{summary.bytes / max(1, summary.max_bytes):4.0%}", 24, justify="right"),
                Cell(bar, bar_width),
                Cell(Text(word if word != "ok" else "", style=self.style_of(role)), 11),
            ],
            width,
        )


class RootPickerScreen(Screen[Path]):
    """Pick a root with the cursor and Enter; the app then opens it."""

    BINDINGS = [
        Binding("q", "app.quit", "Quit", show=True),
        Binding("escape", "back", "Back", show=False),
    ]

    class Summarized(Message):
        def __init__(self, root: Path, summary: RootSummary) -> None:
            super().__init__()
            self.root = root
            self.summary = summary

    def __init__(self, roots: list[Path], can_go_back: bool = False,
                 current: Path | None = None) -> None:
        super().__init__()
        self.roots = roots
        self.rows = [RootRow(root, layer=layer_of(root)) for root in roots]
        self.can_go_back = can_go_back
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(f"{len(self.roots)} memory roots found — pick one to open",
                         classes="dialog-title")
            yield Static("each line: ● the root open now, layer, errors, files, MEMORY.md lines "
                         "against the loader's cap, and how full it is · enter opens",
                         classes="list-header")
            root_list = RootList(self.rows, id="root-list")
            root_list.current = self.current
            yield root_list
        yield Footer()

    def on_mount(self) -> None:
        root_list = self.query_one(RootList)
        root_list.focus()
        if self.current is not None:
            root_list.select_key(self.current)
        self._summarize()

    @work(thread=True, exclusive=True, group="summaries", description="summarize")
    def _summarize(self) -> None:
        """The quick figures of every root first, then each one's errors (a full read)."""
        summaries = {}
        for root in self.roots:
            summaries[root] = summarize(root)
            self.post_message(self.Summarized(root, summaries[root]))
        for root in self.roots:
            errors = count_errors(root)
            self.post_message(self.Summarized(root, replace(summaries[root], errors=errors)))

    def on_root_picker_screen_summarized(self, message: Summarized) -> None:
        self.rows = [replace(r, summary=message.summary) if r.root == message.root else r
                     for r in self.rows]
        root_list = self.query_one(RootList)
        root_list.set_items(self.rows, keep=root_list.highlighted.root if root_list.highlighted else None)

    @on(RowList.Selected, "#root-list")
    def _on_selected(self, event: RowList.Selected) -> None:
        self.dismiss(event.item.root)

    def action_back(self) -> None:
        if self.can_go_back:
            self.app.pop_screen()
