"""The user's config file, ``$XDG_CONFIG_HOME/memtui/config.json`` (``~/.config``): its keymap,
its roots and its user layer.

``{"keymap": {"pin_entry": "ctrl+t", "quit": "q,ctrl+c"}}`` rebinds commands by name (the ids of
the README's key table) to Textual key names, comma-separated.  The names are checked against
the registry by the command line that opens the app.  ``"roots": ["~/notes/memory"]`` names more
memory roots (or folders holding some) for ``--all``; ``"user_layer": "~/.claude/memory"`` names
the root a lesson re-learned in several projects is promoted to.
"""

from __future__ import annotations

import json
from pathlib import Path

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


def _config_value(key: str, env: dict[str, str] | None) -> object:
    """One top-level value of the config file (None without a file or the key); a file that is
    not JSON raises ValueError naming the file."""
    path = config_path(env)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    return data.get(key) if isinstance(data, dict) else None


def _expanded(value: str, env: dict[str, str] | None) -> Path:
    home = env.get("HOME") if env is not None else None
    if value.startswith("~") and home:
        return Path(home + value[1:]).absolute()
    return Path(value).expanduser().absolute()


def configured_roots(env: dict[str, str] | None = None) -> list[Path]:
    """The config's ``"roots"``: folders that are memory roots or hold some (``~`` expanded),
    searched and listed with ``--all`` beside the ones memtui finds itself.  Not a list of
    strings: ValueError naming the file."""
    value = _config_value("roots", env)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f'{config_path(env)}: "roots" must be a list of folders, e.g. '
                         '["~/notes/memory"]')
    return [_expanded(v, env) for v in value]


def configured_user_layer(env: dict[str, str] | None = None) -> Path | None:
    """The config's ``"user_layer"``: the memory root that holds what applies in every project
    (where a lesson re-learned in several projects is promoted to); None when not set."""
    value = _config_value("user_layer", env)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f'{config_path(env)}: "user_layer" must be a folder, e.g. "~/.claude/memory"')
    return _expanded(value, env)
