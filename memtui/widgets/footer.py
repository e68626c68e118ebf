"""The main screen's footer: Textual's, with every verb that applies; on a narrow terminal each
label is one word and Help, Quit and (when there is a change to take back) Undo come first, so
they are never the keys cut off the end."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: the cells the command palette's key takes at the right end
PALETTE_CELLS = 13

#: the actions shown first on a narrow terminal (Undo is shown only when there is a change to undo)
FIRST = ("app.command('show_help')", "app.command('quit')", "app.command('undo_change')")


def one_word(label: str) -> str:
    """"Rebuild index" → "Rebuild", "Pin / unpin" → "Pin", "Edit in $EDITOR" → "Edit"."""
    return label.split(" ", 1)[0]


class VerbFooter(Footer):
    """Every key that applies; below ``narrow_below`` columns, short labels, :data:`FIRST` first."""

    def __init__(self, narrow_below: int, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.narrow_below = narrow_below
        self._narrow: bool | None = None

    def on_resize(self, event: events.Resize) -> None:
        if self._narrow is not None and (self.app.size.width < self.narrow_below) != self._narrow:
            self.refresh(recompose=True)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        narrow = self._narrow = self.app.size.width < self.narrow_below
        active = self.screen.active_bindings
        first: dict[str, tuple[Binding, bool, str]] = {}
        for _, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in first:
                first[binding.action] = (binding, enabled, tooltip)
        keys = list(first.values())
        if narrow:
            keys.sort(key=lambda item: FIRST.index(item[0].action) if item[0].action in FIRST
                      else len(FIRST))  # stable: the rest keep order
            # only the keys that fit beside ^p palette (one running under it shows through)
            room, fitted = self.app.size.width - PALETTE_CELLS, []
            for item in keys:
                binding = item[0]
                room -= len(self.app.get_key_display(binding)) + len(one_word(binding.description)) + 2
                if room < 0:
                    break
                fitted.append(item)
            keys = fitted
        self.styles.grid_size_columns = len(keys)
        for binding, enabled, tooltip in keys:
            yield FooterKey(
                binding.key, self.app.get_key_display(binding),
                one_word(binding.description) if narrow else binding.description,
                binding.action, disabled=not enabled, tooltip=tooltip or binding.description,
            ).data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                yield FooterKey(
                    binding.key, self.app.get_key_display(binding), binding.description,
                    binding.action, classes="-command-palette", disabled=not enabled,
                    tooltip=binding.tooltip or binding.description,
                )
