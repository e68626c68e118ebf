"""Every memory root on this machine memtui can find (``--all``: ``memtui search``, ``memtui list``).

In this order, each root once (by its real path):

1. every Claude Code project's auto memory, ``<config>/projects/<project>/memory/`` (``<config>``
   is ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``), when it holds an index or a memory file, and the
   folders of that project when its folder can be decoded from ``<project>`` and still exists:
   its agents' ``.claude/agent-memory/<agent>/`` and ``.claude/agent-memory-local/<agent>/``, its
   shared ``memory/`` and ``.claude/memory/`` (those holding ``MEMORY.md``);
2. the user's agent memories, ``<config>/agent-memory/<agent>/``;
3. the current project's layers (:func:`memtui.core.roots.discover.claude_roots`: an
   ``autoMemoryDirectory`` elsewhere is found there), and the roots at or below the current folder;
4. the user layer (:func:`user_layer`: the config's ``"user_layer"``, else ``<config>/memory``)
   when it is a root, and the roots of memtui's config (``"roots"``,
   :mod:`memtui.core.read.user_config`), each a root or a folder holding roots.

A team memory (``team/``) is part of its auto memory's root, never a root of its own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..model import claude_settings
from ..model.snapshot import INDEX_NAME
from ..read.project_find import decode_claude_project
from ..read.user_config import configured_roots, configured_user_layer
from .discover import TEAM, claude_roots, holds_memory_files, roots_under

#: the kinds of :class:`MachineRoot`
PROJECT, AGENT, SHARED, CURRENT, USER_LAYER, CONFIGURED = (
    "project", "agent", "shared", "current", "user layer", "config")


@dataclass(frozen=True)
class MachineRoot:
    """A root found on the machine: where, and why it was found (``kind``, ``label``)."""

    path: Path
    kind: str
    label: str


def _folders(base: Path) -> list[Path]:
    try:
        with os.scandir(base) as it:
            return sorted(Path(e.path) for e in it
                          if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _holds_memory(folder: Path) -> bool:
    return (folder / INDEX_NAME).is_file() or holds_memory_files(folder)


def _project_layers(project: Path) -> list[tuple[Path, str, str]]:
    """A decoded project's own memory folders: its agents' and its shared ones."""
    out: list[tuple[Path, str, str]] = []
    for folder in ("agent-memory", "agent-memory-local"):
        for agent in _folders(project / ".claude" / folder):
            if _holds_memory(agent):
                out.append((agent, AGENT, f"agent {agent.name} of {project.name}"))
    for shared in (project / "memory", project / ".claude" / "memory"):
        if (shared / INDEX_NAME).is_file():
            out.append((shared, SHARED, f"shared memory of {project.name}"))
    return out


def machine_roots(cwd: Path | None = None, env: Mapping[str, str] | None = None,
                  home: Path | None = None) -> list[MachineRoot]:
    """Every root memtui can find on the machine (see the module docstring).  The config's
    ``"roots"`` that are not JSON raise ValueError."""
    cwd = (cwd or Path.cwd()).absolute()
    config = Path(claude_settings.config_dir(env, str(home) if home is not None else None))
    found: list[tuple[Path, str, str]] = []
    for project in _folders(config / "projects"):
        memory = project / "memory"
        if memory.is_dir() and _holds_memory(memory):
            found.append((memory, PROJECT, project.name))
        decoded = decode_claude_project(project.name, max_candidates=1)
        if decoded:
            found += _project_layers(decoded[0])
    for agent in _folders(config / "agent-memory"):
        if _holds_memory(agent):
            found.append((agent, AGENT, f"agent {agent.name} (user)"))
    for root in claude_roots(cwd, env=env, home=home):
        if root.kind != TEAM and root.holds_memory():
            found.append((root.path, CURRENT, root.label))
    found += [(root, CURRENT, "under the current folder") for root in roots_under(cwd)]
    layer = user_layer(env, home)
    if (layer / INDEX_NAME).is_file():
        found.append((layer, USER_LAYER, "the user layer"))
    for folder in configured_roots(dict(env) if env is not None else None):
        found += [(root, CONFIGURED, f"from the config ({folder})") for root in roots_under(folder)]
    seen: set[str] = set()
    out = []
    for path, kind, label in found:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            out.append(MachineRoot(path.absolute(), kind, label))
    return out


def user_layer(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """The user layer: the config's ``"user_layer"``, else ``<config>/memory`` (``~/.claude/memory``;
    it need not exist yet)."""
    configured = configured_user_layer(dict(env) if env is not None else None)
    if configured is not None:
        return configured
    return Path(claude_settings.config_dir(env, str(home) if home is not None else None)) / "memory"
