"""Registering ``memtui mcp`` with Claude Code, and its permission rule; taking both out again.

Where Claude Code reads a stdio server (measured against Claude Code 2.1.332, the shapes ``claude
mcp add`` writes):

- **user**: the top-level ``mcpServers`` of ``~/.claude.json`` — ``$CLAUDE_CONFIG_DIR/.claude.json``
  when ``CLAUDE_CONFIG_DIR`` is set (Claude Code's own state file: every other key is kept);
- **local**: the same file, under ``projects["<repository root>"].mcpServers`` (a session launched
  in a subfolder reads its repository root's key);
- **project**: ``.mcp.json`` at the repository root, ``{"mcpServers": {…}}`` — committed, so the
  command is ``memtui`` from PATH, never this machine's path (sessions read every ``.mcp.json``
  from the repository root down to the launch folder; the nearest wins a name).

Each entry is ``{"type": "stdio", "command": …, "args": [… "mcp"]}``.  A project server needs no
approval in a non-interactive session (``-p``, the SDK), but every tool call is refused ("Claude
requested permissions to use mcp__memtui__…, but you haven't granted it yet") until a
``permissions.allow`` rule names the server: ``"mcp__memtui"`` allows all of its tools.  The rule
goes into the settings file of the same scope — user ``<config>/settings.json``, local
``.claude/settings.local.json`` — except for the project scope: measured (2.1.332, ``-p``), the rule
in the committed ``.claude/settings.json`` does not let a ``.mcp.json`` server's tools run (every
call is still refused), the same rule in ``.claude/settings.local.json`` does; so a project install
puts it there (:func:`rule_scope`), on each machine that runs the install, never in the
committed file.  Which ``settings.local.json`` is the one the hooks' local install picks
(:func:`memtui.core.hooks.install.place`): the repository root's (a linked worktree's main
checkout), read by every session launched in the repository.  Files are read and written as
the hooks' installer does (:mod:`memtui.core.hooks.install`: the parsed object merged, every other
key kept, indentation kept, written atomically with a backup).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from typing import Any

from ..model.claude_settings import config_dir

SERVER = "memtui"
RULE = f"mcp__{SERVER}"  # allows every tool of the server (mcp__memtui__memory_remember, …)
SCOPES = ("user", "project", "local")


def rule_scope(scope: str) -> str:
    """The settings scope whose file gets the permission rule (see the module docstring)."""
    return "local" if scope == "project" else scope


class McpConfigError(Exception):
    """A file memtui will not touch (its ``mcpServers`` or ``permissions`` is not an object)."""


def claude_json(env: Mapping[str, str] | None = None, home: str | None = None) -> str:
    """Claude Code's own state file: ``$CLAUDE_CONFIG_DIR/.claude.json``, else ``~/.claude.json``."""
    value = (os.environ if env is None else env).get("CLAUDE_CONFIG_DIR", "")
    if value:
        return os.path.join(config_dir(env, home), ".claude.json")
    return os.path.join(home if home is not None else os.path.expanduser("~"), ".claude.json")


def config_path(scope: str, project_dir: str, env: Mapping[str, str] | None = None,
                home: str | None = None) -> str:
    """The file a scope's server is registered in."""
    if scope == "project":
        return os.path.join(project_dir, ".mcp.json")
    if scope in ("user", "local"):
        return claude_json(env, home)
    raise ValueError(f"unknown scope '{scope}' (user, project or local)")


def _servers(value: dict[str, Any], scope: str, project_dir: str, create: bool) -> dict[str, Any] | None:
    """The ``mcpServers`` object of the scope in a parsed file (made when ``create``)."""
    holder: Any = value
    if scope == "local":
        projects = value.get("projects")
        if projects is None and create:
            projects = value["projects"] = {}
        if not isinstance(projects, dict):
            if projects is None:
                return None
            raise McpConfigError("\"projects\" is not an object; memtui leaves it alone")
        holder = projects.get(project_dir)
        if holder is None and create:
            holder = projects[project_dir] = {}
        if not isinstance(holder, dict):
            if holder is None:
                return None
            raise McpConfigError(f"projects[{project_dir!r}] is not an object; memtui leaves it alone")
    servers = holder.get("mcpServers")
    if servers is None and create:
        servers = holder["mcpServers"] = {}
    if servers is not None and not isinstance(servers, dict):
        raise McpConfigError("\"mcpServers\" is not an object; memtui leaves it alone")
    return servers


def entry(command: list[str]) -> dict[str, Any]:
    """The server's entry: ``command`` is how to start memtui (``["memtui"]``,
    ``["/…/python", "-m", "memtui"]``); ``mcp`` is added."""
    return {"type": "stdio", "command": command[0], "args": [*command[1:], "mcp"]}


def registered(value: dict[str, Any], scope: str, project_dir: str) -> dict[str, Any] | None:
    """memtui's entry in a parsed file of the scope, or None."""
    servers = _servers(value, scope, project_dir, create=False)
    found = servers.get(SERVER) if servers else None
    return found if isinstance(found, dict) else None


def command_of(found: Mapping[str, Any]) -> str:
    """An entry's command line, for people."""
    import shlex

    args = found.get("args") if isinstance(found.get("args"), list) else []
    return " ".join(shlex.quote(str(w)) for w in [found.get("command", ""), *(args or [])])


def with_server(value: dict[str, Any], scope: str, project_dir: str, command: list[str]) -> dict[str, Any]:
    """A copy of the parsed file with memtui's server registered (its other keys kept)."""
    new = copy.deepcopy(value)
    servers = _servers(new, scope, project_dir, create=True)
    assert servers is not None
    old = servers.get(SERVER)
    fresh = entry(command)
    if isinstance(old, dict):  # keep what a person added (env, a timeout): set only the start
        servers[SERVER] = {**old, **fresh}
    else:
        servers[SERVER] = fresh
    return new


def without_server(value: dict[str, Any], scope: str, project_dir: str) -> dict[str, Any]:
    """A copy of the parsed file without memtui's server (an emptied ``mcpServers`` goes)."""
    new = copy.deepcopy(value)
    servers = _servers(new, scope, project_dir, create=False)
    if not servers or SERVER not in servers:
        return new
    del servers[SERVER]
    if not servers:
        holder = new if scope != "local" else new["projects"][project_dir]
        del holder["mcpServers"]
        if scope == "local" and not holder:
            del new["projects"][project_dir]
    return new


def _allow(value: dict[str, Any], create: bool) -> list[Any] | None:
    permissions = value.get("permissions")
    if permissions is None and create:
        permissions = value["permissions"] = {}
    if permissions is None:
        return None
    if not isinstance(permissions, dict):
        raise McpConfigError("\"permissions\" is not an object; memtui leaves it alone")
    allow = permissions.get("allow")
    if allow is None and create:
        allow = permissions["allow"] = []
    if allow is not None and not isinstance(allow, list):
        raise McpConfigError("\"permissions.allow\" is not a list; memtui leaves it alone")
    return allow


def allowed(settings: dict[str, Any]) -> str | None:
    """The ``permissions.allow`` rule of a parsed settings file that lets memtui's tools run
    (``mcp__memtui``, ``mcp__memtui__*``), or None."""
    try:
        allow = _allow(settings, create=False)
    except McpConfigError:
        return None
    for rule in allow or []:
        if rule in (RULE, f"{RULE}__*"):
            return str(rule)
    return None


def with_rule(settings: dict[str, Any]) -> dict[str, Any]:
    """A copy of the settings with ``mcp__memtui`` allowed (kept as it is when already allowed)."""
    new = copy.deepcopy(settings)
    if allowed(new) is None:
        allow = _allow(new, create=True)
        assert allow is not None
        allow.append(RULE)
    return new


def without_rule(settings: dict[str, Any]) -> dict[str, Any]:
    """A copy of the settings without memtui's allow rules (emptied lists and objects go)."""
    new = copy.deepcopy(settings)
    allow = _allow(new, create=False)
    if not allow:
        return new
    rest = [rule for rule in allow if rule not in (RULE, f"{RULE}__*")]
    if len(rest) == len(allow):
        return new
    permissions = new["permissions"]
    if rest:
        permissions["allow"] = rest
    else:
        del permissions["allow"]
        if not permissions:
            del new["permissions"]
    return new
