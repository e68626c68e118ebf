"""Finding memory roots (DESIGN §1.1): a given path, the current folder, Claude Code's
per-project folder, or the usual places under the current git work tree."""

from __future__ import annotations

import os
from pathlib import Path

from .model import INDEX_NAME
from .store import RootError, check_root

#: folders never descended into when looking for roots
_SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".memtui",
     ".mypy_cache", ".pytest_cache", ".cache", "dist", "build", "target"}
)
MAX_DEPTH = 8


def encode_project_path(path: Path | str) -> str:
    """Claude Code's folder name for a project: the absolute path with '/' and '.' made '-'."""
    return str(Path(path).absolute()).replace("/", "-").replace(".", "-")


def claude_project_memory(cwd: Path, home: Path | None = None) -> Path:
    home = home if home is not None else Path.home()
    return home / ".claude" / "projects" / encode_project_path(cwd) / "memory"


def roots_under(path: Path, max_depth: int = MAX_DEPTH) -> list[Path]:
    """``path`` if it is a root, and every root below it (nested roots included), sorted."""
    found: list[Path] = []
    stack: list[tuple[Path, int]] = [(path, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        if any(e.name == INDEX_NAME and e.is_file() for e in entries):
            found.append(folder)
        if depth >= max_depth:
            continue
        for entry in entries:
            if entry.name in _SKIP_DIRS:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), depth + 1))
            except OSError:
                continue
    return sorted(found)


def git_toplevel(start: Path) -> Path | None:
    """The enclosing git work tree, found by walking up to a ``.git`` entry (no subprocess)."""
    for folder in [start, *start.parents]:
        if (folder / ".git").exists():
            return folder
    return None


def discover(path: Path | str | None = None, cwd: Path | None = None, home: Path | None = None) -> list[Path]:
    """The memory roots to work on.  Raises :class:`RootError` when none can be found."""
    if path is not None:
        given = check_root(Path(path))
        roots = roots_under(given)
        if not roots:
            raise RootError(f"{path}: no MEMORY.md here or in any folder below")
        return roots
    cwd = (cwd or Path.cwd()).absolute()
    roots = roots_under(cwd)
    if roots:
        return roots
    project = claude_project_memory(cwd, home)
    if (project / INDEX_NAME).is_file():
        return [project]
    top = git_toplevel(cwd)
    if top is not None:
        candidates = [top / ".claude" / "memory", top / "memory"]
        agent = top / ".claude" / "agent-memory"
        if agent.is_dir():
            candidates.extend(sorted(p for p in agent.iterdir() if p.is_dir()))
        found = [c for c in candidates if (c / INDEX_NAME).is_file()]
        if found:
            return found
    raise RootError(
        "no memory root found: give a folder holding MEMORY.md, or run memtui inside one "
        f"(looked in {cwd}, {project} and the git work tree's .claude/memory, memory/, "
        ".claude/agent-memory/*/)"
    )
