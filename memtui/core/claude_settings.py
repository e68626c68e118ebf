"""Claude Code's settings files and memory folders, resolved the way Claude Code resolves them.

Every rule here is a fact from ``CLAUDE-CODE.md`` (Claude Code v2.1.240 docs): the settings
scopes, ``CLAUDE_CONFIG_DIR``, ``autoMemoryDirectory``, ``autoMemoryEnabled``,
``CLAUDE_CODE_DISABLE_AUTO_MEMORY`` and the memory-folder shapes.  It imports only ``os`` and
``json`` because the PreToolUse hook decides "outside every memory root" with this module alone,
before anything heavier loads.  Paths are plain strings for the same reason.
"""

from __future__ import annotations

import json
import os
TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~6 ms
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

INDEX_NAME = "MEMORY.md"
SCOPES = ("user", "project", "local")
#: the agent-memory layouts below a ``.claude`` folder (CLAUDE-CODE.md "Subagents")
AGENT_DIRS = ("agent-memory", "agent-memory-local")


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def config_dir(env: Mapping[str, str] | None = None, home: str | None = None) -> str:
    """``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` ("CLAUDE_CONFIG_DIR moves ~/.claude")."""
    value = _env(env).get("CLAUDE_CONFIG_DIR", "")
    if value:
        return os.path.abspath(os.path.expanduser(value))
    return os.path.join(home if home is not None else os.path.expanduser("~"), ".claude")


def settings_path(scope: str, project_dir: str, env: Mapping[str, str] | None = None,
                  home: str | None = None) -> str:
    """The settings file of a scope: user ``<config>/settings.json``, project
    ``.claude/settings.json``, local ``.claude/settings.local.json``."""
    if scope == "user":
        return os.path.join(config_dir(env, home), "settings.json")
    if scope == "project":
        return os.path.join(project_dir, ".claude", "settings.json")
    if scope == "local":
        return os.path.join(project_dir, ".claude", "settings.local.json")
    raise ValueError(f"unknown settings scope '{scope}' (user, project or local)")


def read_settings(path: str) -> dict | None:  # type: ignore[type-arg]
    """A settings file's object, or None when it is missing, unreadable or not a JSON object."""
    try:
        with open(path, "rb") as handle:
            value = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _expand_memory_dir(value: object, home: str | None) -> str | None:
    """An ``autoMemoryDirectory`` value as a path: absolute, or starting with ``~/``; else None."""
    if not isinstance(value, str) or not value:
        return None
    if value.startswith("~/"):
        base = home if home is not None else os.path.expanduser("~")
        return os.path.normpath(os.path.join(base, value[2:]))
    if os.path.isabs(value):
        return os.path.normpath(value)
    return None


def scoped_settings(project_dir: str, env: Mapping[str, str] | None = None,
                    home: str | None = None) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    """The readable settings objects, highest precedence first (local, project, user)."""
    out = []
    for scope in reversed(SCOPES):
        value = read_settings(settings_path(scope, project_dir, env, home))
        if value is not None:
            out.append((scope, value))
    return out


def auto_memory_override(project_dir: str, env: Mapping[str, str] | None = None,
                         home: str | None = None) -> str | None:
    """``autoMemoryDirectory`` from the settings scope that wins (local over project over user).

    Policy settings and ``--settings`` are not read (memtui cannot see how Claude Code was
    started); a relative value is ignored, as Claude Code accepts only absolute or ``~/`` ones.
    """
    for _scope, value in scoped_settings(project_dir, env, home):
        found = _expand_memory_dir(value.get("autoMemoryDirectory"), home)
        if found is not None:
            return found
    return None


def auto_memory_enabled(project_dir: str, env: Mapping[str, str] | None = None,
                        home: str | None = None) -> bool:
    """False under ``CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`` or ``autoMemoryEnabled: false``."""
    if _env(env).get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "") in ("1", "true"):
        return False
    for _scope, value in scoped_settings(project_dir, env, home):
        if "autoMemoryEnabled" in value:
            return value["autoMemoryEnabled"] is not False
    return True


def encode_project_path(path: str) -> str:
    """Claude Code's folder name for a project: the absolute path with '/' and '.' made '-'."""
    return os.path.abspath(path).replace("/", "-").replace(".", "-")


def project_dir_name(project_root: str, env: Mapping[str, str] | None = None) -> str:
    """``$CLAUDE_CODE_PROJECT_DIR_NAME`` (v2.1.234), else the encoded project root."""
    named = _env(env).get("CLAUDE_CODE_PROJECT_DIR_NAME", "")
    return named if named else encode_project_path(project_root)


def auto_memory_dir(project_root: str, env: Mapping[str, str] | None = None,
                    home: str | None = None, settings_dir: str | None = None) -> str:
    """The project's auto-memory folder: ``autoMemoryDirectory``, else
    ``<config>/projects/<project>/memory`` (``project_root`` is the git root, shared by worktrees).

    ``settings_dir`` is where the project's ``.claude/`` settings live (the work tree; default
    ``project_root``).
    """
    override = auto_memory_override(settings_dir or project_root, env, home)
    if override is not None:
        return override
    return os.path.join(config_dir(env, home), "projects", project_dir_name(project_root, env),
                        "memory")


def _under(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def shaped_root(path: str, config: str) -> str | None:
    """The memory folder a path lies in by Claude Code's folder shapes alone (no disk access):
    ``<config>/projects/<p>/memory/``, ``<config>/agent-memory/<a>/`` and
    ``…/.claude/agent-memory[-local]/<a>/``."""
    if _under(path, config):
        parts = path[len(config.rstrip(os.sep)) + 1:].split(os.sep)
        if len(parts) >= 4 and parts[0] == "projects" and parts[2] == "memory":
            return os.path.join(config, *parts[:3])
        if len(parts) >= 3 and parts[0] == "agent-memory":
            return os.path.join(config, *parts[:2])
    parts = path.split(os.sep)
    for i in range(len(parts) - 3, 0, -1):
        if parts[i] == ".claude" and parts[i + 1] in AGENT_DIRS and i + 3 < len(parts):
            return os.sep.join(parts[: i + 3])
    return None


def nearest_root(path: str) -> str | None:
    """The nearest folder above ``path`` that holds a ``MEMORY.md`` (DESIGN §1.1), or None."""
    folder = os.path.dirname(path)
    while True:
        if os.path.isfile(os.path.join(folder, INDEX_NAME)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def project_dir_of(cwd: str) -> str:
    """Where the project's ``.claude/`` settings live, seen from a session's cwd: the nearest
    folder above it holding a ``.git`` entry or a ``.claude/settings*.json`` (no subprocess),
    else ``cwd`` itself."""
    folder = os.path.abspath(cwd)
    while True:
        if (os.path.lexists(os.path.join(folder, ".git"))
                or os.path.isfile(os.path.join(folder, ".claude", "settings.json"))
                or os.path.isfile(os.path.join(folder, ".claude", "settings.local.json"))):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.abspath(cwd)
        folder = parent


def memory_root_of(file_path: str, project_dir: str, env: Mapping[str, str] | None = None,
                   home: str | None = None) -> str | None:
    """The memory root a file written by Claude Code belongs to, or None when it is outside all.

    The nearest folder holding ``MEMORY.md`` wins (so a root nested in another owns its files);
    a folder without one yet counts when it is ``autoMemoryDirectory`` or has one of Claude Code's
    memory-folder shapes (the agent's first write there creates a topic file before the index).
    """
    path = os.path.normpath(file_path)
    found = nearest_root(path)
    config = config_dir(env, home)
    shaped = shaped_root(path, config)
    override = auto_memory_override(project_dir, env, home)
    if override is not None and not _under(path, override):
        override = None
    candidates = [c for c in (found, shaped, override) if c is not None]
    if not candidates:
        return None
    return max(candidates, key=len)  # the innermost folder is the root that owns the file
