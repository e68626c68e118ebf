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

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from memtui.terminal_text import shown


class ControlFilter(LineFilter):
    """Drops the control characters of every text segment (a control segment, Textual's own
    cursor moves, is left as it is)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if all(segment.control or segment.text.isprintable() for segment in segments):
            return segments
        return [segment if segment.control else Segment(shown(segment.text), segment.style)
                for segment in segments]
