"""One set of moving keys: the lists, the preview, the help and the checklist reviews all move
with the same keys (the pager's space and b only where one reads a text)."""

from __future__ import annotations

from pathlib import Path

from textual.binding import Binding

from memtui.screens.dream import REVIEW_KEYS
from memtui.screens.help import HelpScreen
from memtui.widgets.moves import MOVES, PAGER
from memtui.widgets.preview import Preview
from memtui.widgets.row_list import RowList
from tests.support.app import focus_recent, make_app, press, settle


def keys_by_move(bindings: object) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for b in bindings:  # type: ignore[attr-defined]
        if isinstance(b, Binding) and b.description in {"Down", "Up", "Page down", "Page up", "First", "Last"}:
            move = {"Down": "down", "Up": "up", "Page down": "page_down", "Page up": "page_up",
                    "First": "first", "Last": "last"}[b.description]
            out.setdefault(move, set()).update(k.strip() for k in b.key.split(","))
    return out


def test_every_list_text_and_review_moves_with_the_same_keys() -> None:
    every = {move: set(keys.split(",")) for move, keys in MOVES.items()}
    assert keys_by_move(RowList.BINDINGS) == every
    assert keys_by_move(REVIEW_KEYS) == every
    pager = {move: keys | ({PAGER[move]} if move in PAGER else set()) for move, keys in every.items()}
    assert keys_by_move(Preview.BINDINGS) == pager
    assert keys_by_move(HelpScreen.BINDINGS) == pager
    assert "space" not in set().union(*keys_by_move(RowList.BINDINGS).values())  # space marks a row


async def test_ctrl_d_and_ctrl_u_page_a_list(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await focus_recent(pilot)
        recent = app.main.query_one("#pane-recent", RowList)
        assert recent.cursor == 0
        await press(pilot, "ctrl+d")
        assert recent.cursor > 1  # a page, not a row
        await press(pilot, "ctrl+u")
        assert recent.cursor == 0
