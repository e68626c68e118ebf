"""The confirm dialog: a change shown as a diff with the gate's verdict, before anything is written.

The same dialog shows a refused change: then it lists the validator's findings that refused it
and offers only to close.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from memtui.services.writer import Plan
from memtui.widgets.diff_view import DiffView

#: below this many rows the dialog goes compact (one-line buttons, a shorter operation list)
SHORT_BELOW = 40

#: operations listed one per line in the dialog; the rest are counted (the diff has them all)
MAX_LISTED_OPERATIONS = 12


def operations_text(operations: tuple[str, ...]) -> str:
    """One line per operation, the first few of a big change and how many more."""
    shown = operations[:MAX_LISTED_OPERATIONS]
    more = len(operations) - len(shown)
    return "\n".join(shown) + (f"\n… and {more:,} more operations" if more > 0 else "")


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
        #: marked files that are pinned: the first y asks again, naming them
        self.pinned = plan.request.pinned if plan.accepted else ()
        self.pinned_confirmed = not self.pinned

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
                for line in plan.reasons:
                    if line.where:
                        verdict.append(f"  {line.rule}", style="bold")
                        verdict.append(f"  {line.where}\n    {line.message}\n")
                    else:
                        verdict.append(f"  {line}\n")
            yield Static(verdict, id="confirm-verdict")
            if self.pinned:
                yield Static(self._pinned_text(), id="confirm-pinned")
            if plan.operations:
                yield Static(operations_text(plan.operations), id="confirm-ops", markup=False)
            yield DiffView(plan.diff, id="confirm-diff")
            with Horizontal(classes="dialog-buttons"):
                if plan.accepted:
                    yield Button("Apply  y", variant="primary", id="confirm-yes")
                    yield Button("Cancel  n", id="confirm-no")
                else:
                    yield Button("Close  esc", variant="error", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-diff").focus()

    def on_resize(self, event: events.Resize) -> None:
        short = event.size.height < SHORT_BELOW
        self.set_class(short, "-short")
        for button in self.query(Button):
            button.compact = short

    def _pinned_text(self) -> Text:
        count = len(self.pinned)
        names = ", ".join(self.pinned[:5]) + (f" and {count - 5} more" if count > 5 else "")
        text = Text()
        text.append(f"⚠ {count} of the marked files {'are' if count != 1 else 'is'} pinned: ",
                    style="bold")
        text.append(names)
        if self.pinned_confirmed:
            text.append("\n  included: y applies the change to them too, n cancels", style="bold")
        else:
            text.append("\n  the change reaches them too: y includes them, a second y applies")
        return text

    def action_confirm(self) -> None:
        if not self.plan.accepted:
            return
        if not self.pinned_confirmed:
            self.pinned_confirmed = True
            self.query_one("#confirm-pinned", Static).update(self._pinned_text())
            self.notify(f"{len(self.pinned)} pinned file{'s' if len(self.pinned) != 1 else ''} "
                        "in this change: y again applies it to them too", severity="warning",
                        timeout=4)
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "confirm-yes":
            self.action_confirm()
        else:
            self.dismiss(False)
