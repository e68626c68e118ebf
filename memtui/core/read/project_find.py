"""The project a memory root talks about: ``--repo``, else the decoded
``~/.claude/projects/<encoded>`` folder, else the git work tree holding the root.

Apart from :mod:`memtui.core.read.project` (what the project holds, and checking references against
it), so that what only needs the project's folder (the handoff state every validation reads)
imports nothing else: no reference patterns, no root discovery.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Project:
    """The code a memory root talks about, and how it was found (``git``, ``repo``, ``claude``)."""

    path: Path
    source: str


_JOINERS = (" ", "_", ".", "-")


def decode_claude_project(encoded: str, max_candidates: int = 64) -> list[Path]:
    """Existing folders whose Claude Code encoding is ``encoded``, fewest path segments first.

    Encoding turned ``/`` and ``.`` into ``-``, so each ``-`` may have been ``/``, ``.`` or ``-``
    (or ``_`` or a space, which some versions also encode); the candidates are tried against the
    filesystem, pruned by each folder's listing.
    """
    if not encoded.startswith("-"):
        return []
    parts = encoded[1:].split("-")
    listings: dict[str, list[str]] = {}

    def names(folder: str) -> list[str]:
        if folder not in listings:
            try:
                listings[folder] = [e.name for e in os.scandir(folder) if e.is_dir()]
            except OSError:
                listings[folder] = []
        return listings[folder]

    results: list[Path] = []
    # (folder, index of next part, segment built so far)
    stack: list[tuple[str, int, str]] = [("/", 1, parts[0])]
    steps = 0
    while stack and len(results) < max_candidates and steps < 100_000:
        steps += 1
        folder, i, segment = stack.pop()
        entries = names(folder)
        if not any(name.startswith(segment) for name in entries):
            continue
        if i == len(parts):
            if segment in entries:
                results.append(Path(folder) / segment)
            continue
        nxt = parts[i]
        if segment in entries:
            stack.append((os.path.join(folder, segment), i + 1, nxt))
        for joiner in _JOINERS:
            stack.append((folder, i + 1, segment + joiner + nxt))
    return sorted(set(results), key=lambda p: (len(p.parts), str(p)))


def find_project(root: Path, repo: Path | None = None) -> Project | None:
    """The project a root's references are checked against.

    ``repo`` when given; else, for a ``~/.claude/projects/<encoded>/memory`` root, the decoded
    project folder when it exists (tried before the enclosing work tree because ``~/.claude`` is
    often a git repository of its own, which is not the project the memory is about); else the
    git work tree holding the root; else none.
    """
    if repo is not None:
        return Project(Path(repo).absolute(), "repo")
    root = Path(root).absolute()
    if (root.name == "memory" and root.parent.parent.name == "projects"
            and root.parent.parent.parent.name == ".claude"):
        candidates = decode_claude_project(root.parent.name)
        if candidates:
            return Project(candidates[0], "claude")
    top = git_toplevel(root)
    if top is not None:
        return Project(top, "git")
    return None


def git_toplevel(start: Path) -> Path | None:
    """The enclosing git work tree, found by walking up to a ``.git`` entry (no subprocess)."""
    for folder in [start, *start.parents]:
        if (folder / ".git").exists():
            return folder
    return None
