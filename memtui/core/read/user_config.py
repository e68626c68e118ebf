"""The user's config file, ``$XDG_CONFIG_HOME/memtui/config.json`` (``~/.config``): its keymap.

``{"keymap": {"pin_entry": "ctrl+t", "quit": "q,ctrl+c"}}`` rebinds commands by name (the ids of
the README's key table) to Textual key names, comma-separated.  The names are checked against
the registry by the command line that opens the app.
"""

from __future__ import annotations

import json

from ..model.places import config_path as config_path


def configured_keymap(env: dict[str, str] | None = None) -> dict[str, str]:
    """The config's ``"keymap"``: command name → keys ({} without a file or a keymap).

    A file that is not JSON, or a keymap that is not an object of strings, raises ValueError
    naming the file.
    """
    path = config_path(env)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    keymap = data.get("keymap", {}) if isinstance(data, dict) else {}
    if not isinstance(keymap, dict) or not all(
            isinstance(name, str) and isinstance(keys, str) and keys.strip()
            for name, keys in keymap.items()):
        raise ValueError(f'{path}: "keymap" must map command names to keys, e.g. '
                         '{"pin_entry": "ctrl+t"}')
    return {name: keys.replace(" ", "") for name, keys in keymap.items()}
