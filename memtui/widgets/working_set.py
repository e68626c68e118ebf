"""One pane of the working set (Pinned, Recent or Regions): index entries with the loader's cut."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from memtui.services.workspace import PINNED, REGIONS, EntryRow

from .badges import ScopeReason, ScoreFor, badge, no_reason, no_scores
from .row_list import Cell, RowList, Rule, compose_row
from .view import read_only

PANE_TITLES = {"pinned": "Pinned", "recent": "Recent", "regions": "Regions"}


def with_cut(rows: Sequence[EntryRow], cut_line: int | None) -> list[EntryRow | Rule]:
    """The rows with the loader's cut drawn as a rule before the first row it leaves out."""
    out: list[EntryRow | Rule] = []
    drawn = False
    for row in rows:
        if not drawn and cut_line is not None and row.number >= cut_line:
            past = sum(1 for r in rows if r.number >= cut_line)
            out.append(Rule(f"✂ loader cut · line {cut_line} · {past} below not loaded"))
            drawn = True
        out.append(row)
    return out


#: what an empty pane says (read-only: without the key that would change it)
IDLE_TEXT = {"pinned": "no pinned entries — press p on an entry to pin it",
             "recent": "no entries", "regions": "no region pointers"}
IDLE_TEXT_READ_ONLY = {**IDLE_TEXT, "pinned": "no pinned entries"}


#: a pane of this many rows or fewer (``-few``), in use on a short screen, takes only the room they
#: need and leaves the rest to the fullest other pane
FEW_ROWS = 5


class WorkingSetPane(RowList[EntryRow]):
    """Entries of one working-set block, in index order, greyed past the loader's cut."""

    DEFAULT_CSS = """
    WorkingSetPane { height: 1fr; }
    """

    def __init__(self, pane: str, *, id: str | None = None) -> None:
        super().__init__(empty_text=IDLE_TEXT[pane], id=id, classes=f"pane -{pane}")
        self.pane = pane
        self.score_for: ScoreFor = no_scores
        self.scope_reason: ScopeReason = no_reason
        self.rows: tuple[EntryRow, ...] = ()
        self.border_title = PANE_TITLES[pane]

    def item_key(self, item: EntryRow) -> object:
        return item.path or f"line:{item.number}"

    DIFF_ROWS = True

    @property
    def idle_text(self) -> str:
        return (IDLE_TEXT_READ_ONLY if read_only(self) else IDLE_TEXT)[self.pane]

    def row_state(self, item: EntryRow | Rule) -> object:
        if isinstance(item, Rule):
            return item
        return item, self.score_for(item.path) if item.path else None, self.scope_reason(item.path)

    def show(
        self,
        rows: Sequence[EntryRow],
        cut_line: int | None,
        total: int | None = None,
        keep: object | None = None,
        query: str = "",
    ) -> None:
        """Show these rows (``total`` is the unfiltered count, for the border title; ``query``
        the filter they answer, for the empty text)."""
        self.rows = tuple(rows)
        self.empty_text = f"nothing here matches “{query}”" if query else self.idle_text
        count = f"{len(rows)}" if total is None or total == len(rows) else f"{len(rows)} of {total}"
        self.border_title = f"{PANE_TITLES[self.pane]} {count}"
        past = sum(1 for row in rows if not row.loaded)
        outside = sum(1 for row in rows if self.scope_reason(row.path) is not None)
        notes = [f"{past} not loaded" if past else "", f"{outside} not in scope" if outside else ""]
        self.border_subtitle = " · ".join(n for n in notes if n)
        self.set_class(past > 0, "-has-cut")
        items = with_cut(rows, cut_line)
        self.set_class(len(items) <= FEW_ROWS, "-few")
        self.set_items(items, keep=keep)

    def is_dim(self, item: EntryRow) -> bool:
        return not item.loaded or self.scope_reason(item.path) is not None

    def render_item(self, item: EntryRow, width: int) -> Text:
        if item.pane == REGIONS:
            return self._render_region(item, width)
        if item.missing:
            glyph = Text("✗", style=self.style_of("error"))
        elif not item.loaded:
            glyph = Text("⊘")
        elif item.pinned or item.pane == PINNED:
            glyph = Text("★", style=self.style_of("accent"))
        else:
            glyph = Text("•", style=self.style_of("muted"))
        hook = Text()
        outside = self.scope_reason(item.path)
        if outside is not None:
            hook.append(f"does not apply: {outside} · ", style=self.style_of("warn"))
        if not item.loaded:
            hook.append("not loaded · ")
        if item.missing:
            hook.append("missing file · ", style=self.style_of("error"))
        hook.append(item.hook or "(no hook)", style=self.style_of("muted"))
        title = Text(item.title)
        if item.scope:
            title = Text(f"{item.scope}/", style=self.style_of("muted")) + title
        score = self.score_for(item.path) if item.path else None
        # without a hook (the description often sits in the link text) the title takes the room
        hook_width = min(hook.cell_len, width // 3) if not item.hook else None
        cells = [
            Cell(glyph, 1),
            Cell(title, None, weight=2, min_width=12),
            Cell(hook, hook_width, weight=3, min_width=8),
            Cell(Text(item.type or "—", style=self.style_of("muted")), 9),
        ]
        if score is not None:
            cells.append(Cell(badge(self, score), 3, justify="right"))
        return compose_row(cells, width)

    def _render_region(self, item: EntryRow, width: int) -> Text:
        if item.covers is None:
            covers = Text("…", style=self.style_of("muted"))
        elif item.covers == 0:
            covers = Text("0 files ✗", style=self.style_of("error"))
        else:
            covers = Text(f"{item.covers} file{'s' if item.covers != 1 else ''}")
        glyph = Text("⊘") if not item.loaded else Text("›", style=self.style_of("accent"))
        hook = Text("not loaded · " if not item.loaded else "")
        hook.append(item.hook, style=self.style_of("muted"))
        return compose_row(
            [
                Cell(glyph, 1),
                Cell(Text(item.glob), None, weight=2, min_width=10),
                Cell(covers, 10, justify="right"),
                Cell(hook, None, weight=3, min_width=8),
            ],
            width,
        )
