"""The one set of moving keys: every list, every text and every review in memtui moves with the
same keys (vim's and the arrows', as lazygit and k9s do), each widget naming its own action.

A text one reads (the preview, the help) also pages as ``less`` does, with ``space`` and ``b``;
a list does not, for there ``space`` marks a row.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.binding import Binding

#: each move and the keys that make it
MOVES: dict[str, str] = {
    "down": "j,down",
    "up": "k,up",
    "page_down": "pagedown,ctrl+d",
    "page_up": "pageup,ctrl+u",
    "first": "g,home",
    "last": "G,end",
}
#: the pager's own keys, in a text one reads (added to the moves')
PAGER: dict[str, str] = {"page_down": "space", "page_up": "b"}
#: each move's label and what it does (the help screen and the README list them)
LABELS: dict[str, tuple[str, str]] = {
    "down": ("Down", "Move the cursor down."),
    "up": ("Up", "Move the cursor up."),
    "page_down": ("Page down", "A page down."),
    "page_up": ("Page up", "A page up."),
    "first": ("First", "Go to the first row."),
    "last": ("Last", "Go to the last row."),
}


def move_bindings(actions: Mapping[str, str], *, pager: bool = False) -> list[Binding]:
    """A hidden binding for each move a widget makes (``actions``: move -> the widget's action),
    with :data:`MOVES`' keys (and :data:`PAGER`'s when ``pager``)."""
    out = []
    for move, action in actions.items():
        keys = MOVES[move] + (f",{PAGER[move]}" if pager and move in PAGER else "")
        label, text = LABELS[move]
        out.append(Binding(keys, action, label, show=False, tooltip=text))
    return out
