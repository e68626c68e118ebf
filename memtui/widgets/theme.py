"""Styles from the stylesheet for text drawn by hand (Line API rows, gauges)."""

from __future__ import annotations

from rich.style import Style


def foreground_only(style: Style) -> Style:
    """A component style reduced to its colour and emphasis, so it can sit on any background.

    Component colours such as ``$text-muted`` are blended against the background by Textual; the
    full style carries that background too, which would paint over a cursor row.
    """
    return Style(
        color=style.color,
        bold=style.bold or None,
        italic=style.italic or None,
        underline=style.underline or None,
        strike=style.strike or None,
    )
