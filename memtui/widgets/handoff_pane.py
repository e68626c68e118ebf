"""The Handoff pane: the project's ``.claude/session-state.md`` — its age, length and headings."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from memtui.core.read.handoff import HEADINGS, MAX_LINES, HandoffState


def handoff_text(state: HandoffState) -> Text:
    """The pane's lines; a warning is a word (and a colour), never a colour alone."""
    text = Text()
    source = "Handoff line" if state.date_source == "handoff-line" else "file's mtime"
    days = f"{state.age_days} day{'s' if state.age_days != 1 else ''} old"
    text.append(f"{state.date.isoformat()} · {days} ", style="bold" if state.stale else "")
    text.append(f"(from its {source})", style="dim")
    if state.stale:
        text.append("  ⚠ STALE", style="bold yellow")
    text.append("\n")
    if state.commits_since is None:
        text.append("commits since: unknown (git could not count them)", style="dim")
    else:
        text.append(f"{state.commits_since} commit{'s' if state.commits_since != 1 else ''} since")
    text.append(f" · {state.lines}/{MAX_LINES} lines")
    if state.too_long:
        text.append("  ⚠ TOO LONG", style="bold yellow")
    if state.history:
        text.append(" (history appended)", style="yellow")
    text.append("\n")
    text.append(f"headings {len(state.present)}/{len(HEADINGS)}")
    if state.missing:
        text.append(" — missing " + ", ".join(state.missing), style="dim")
    return text


class HandoffPane(Static):
    """Shown beside the budget when the project has a handoff state file; hidden otherwise."""

    DEFAULT_CSS = """
    HandoffPane { height: auto; }
    """

    def on_mount(self) -> None:
        self.border_title = "Handoff"

    def show(self, state: HandoffState | None) -> None:
        self.display = state is not None
        if state is None:
            return
        self.set_class(state.stale or state.too_long, "-warn")
        self.border_subtitle = ".claude/session-state.md"
        self.update(handoff_text(state))
