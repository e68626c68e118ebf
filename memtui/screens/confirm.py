"""The confirm dialog: a change shown as a diff with the gate's verdict, before anything is written.

The same dialog shows a refused change: then it lists the validator's findings that refused it
and offers only to close.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from memtui.services.writer import Plan


def diff_content(diff: str) -> Content:
    """A unified diff with additions, removals and hunk headers in the theme's colours."""
    if not diff.strip():
        return Content.styled("no text changes: files are only moved", "italic")
    parts: list[tuple[str, str] | str] = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---", "rename ")):
            style = "bold"
        elif line.startswith("+"):
            style = "$success"
        elif line.startswith("-"):
            style = "$error"
        elif line.startswith("@@"):
            style = "$accent"
        else:
            style = ""
        parts.append((line, style) if style else line)
        parts.append("\n")
    return Content.assemble(*parts[:-1])


class ConfirmChange(ModalScreen[bool]):
    """Show a plan; y / enter applies it, n / esc cancels.  A refused plan can only be closed."""

    BINDINGS = [
        Binding("y", "confirm", "Apply", show=True),
        Binding("n,escape", "cancel", "Cancel", show=True),
    ]

    def __init__(self, plan: Plan, title: str | None = None) -> None:
        super().__init__(classes="-refused" if not plan.accepted else "")
        self.plan = plan
        self.title_text = title or plan.description

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(id="confirm-dialog", classes="dialog"):
            heading = "Refused: " if not plan.accepted else ""
            yield Static(f"{heading}{self.title_text}", classes="dialog-title", markup=False)
            verdict = Text()
            if plan.accepted:
                verdict.append("✔ ", style="bold")
                verdict.append(plan.verdict)
            else:
                verdict.append("✖ the validator refuses this change — nothing was written\n",
                               style="bold")
                for finding in plan.refusing:
                    where = finding.path + (f":{finding.line}" if finding.line else "")
                    verdict.append(f"  {finding.rule}", style="bold")
                    verdict.append(f"  {where}\n    {finding.message}\n")
                if plan.reason:
                    verdict.append(f"  budget: {plan.reason}\n")
            yield Static(verdict, id="confirm-verdict")
            if plan.operations:
                yield Static("\n".join(plan.operations), id="confirm-ops", markup=False)
            with VerticalScroll(id="confirm-diff"):
                yield Static(diff_content(plan.diff))
            with Horizontal(classes="dialog-buttons"):
                if plan.accepted:
                    yield Button("Apply  y", variant="primary", id="confirm-yes")
                    yield Button("Cancel  n", id="confirm-no")
                else:
                    yield Button("Close  esc", variant="error", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-diff").focus()

    def action_confirm(self) -> None:
        if self.plan.accepted:
            self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes" and self.plan.accepted)
