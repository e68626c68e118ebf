"""The user's actions: one registry feeding the bindings, the palette, help and the README.

- :mod:`.registry` — every :class:`Command` (keys, words, when it applies, what it runs), the
  bindings made from it, help's groups and the README's key table;
- :mod:`.applicability` — the :class:`Situation` a command is asked in and each ``why_not``;
- :mod:`.host` — :class:`CommandHost`, all a command may read or ask of the app;
- :mod:`.palette` — the command palette's provider.

``python -m memtui.commands`` prints the README's key table.
"""

from __future__ import annotations

from .applicability import Situation
from .host import CommandHost
from .palette import MemtuiCommands
from .registry import (
    BY_KEY,
    BY_NAME,
    COMMANDS,
    NAVIGATION_KEYS,
    Command,
    Keymap,
    bindings,
    by_key,
    help_groups,
    key_table_markdown,
    keymap_conflicts,
    keys_of,
    shown_keys_of,
    unknown_in_keymap,
)

__all__ = [
    "BY_KEY", "BY_NAME", "COMMANDS", "NAVIGATION_KEYS", "Command", "CommandHost", "Keymap",
    "MemtuiCommands", "Situation", "bindings", "by_key", "help_groups", "key_table_markdown",
    "keymap_conflicts", "keys_of", "shown_keys_of", "unknown_in_keymap",
]
