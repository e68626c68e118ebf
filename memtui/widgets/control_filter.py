"""The last line of defence against a memory folder that drives the terminal: every line the app
draws has its control characters taken out before it is written.

A file's title, description, body or name may hold ESC sequences (clear the screen, retitle the
terminal, a hyperlink to elsewhere), C1 controls or bidirectional overrides.  Rich measures them
as zero cells wide and writes them as they are; this filter (applied by Textual to every strip
of every widget) drops them, so a line keeps its width, and writes a lone surrogate (a name's
byte that is not UTF-8) as U+FFFD, one cell as it was measured.  Where the app shows such text on
purpose it shows escapes (:func:`memtui.terminal_text.plain`), which pass through untouched.
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

#: what :data:`memtui.terminal_text._CONTROL` matches, less the surrogates (kept one cell wide)
_ZERO_WIDTH = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def shown(text: str) -> str:
    """``text`` as the terminal may get it: controls dropped, lone surrogates as U+FFFD."""
    if text.isprintable():
        return text
    return _SURROGATE.sub("\ufffd", _ZERO_WIDTH.sub("", text))


class ControlFilter(LineFilter):
    """Drops the control characters of every text segment (a control segment, Textual's own
    cursor moves, is left as it is)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if all(segment.control or segment.text.isprintable() for segment in segments):
            return segments
        return [segment if segment.control else Segment(shown(segment.text), segment.style)
                for segment in segments]
