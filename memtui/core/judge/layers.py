"""Layers (DESIGN §11): the memory roots of one project, and the same fact kept in two of them.

A project's memory lives in layers:

- ``machine-local`` — Claude Code's ``<config>/projects/<encoded>/memory/``: on this machine only,
  never shared (nothing durable should end its life here);
- ``shared`` — the repository's committed ``memory/`` or ``.claude/memory/``, merged like code;
- ``agents`` — the subagents' folders (``agent-memory/<agent>/``, ``agent-memory-local/<agent>/``);
- ``other`` — any other root (a folder given by hand).

A root's layer is read from its path alone; its project is the one
:func:`memtui.core.read.project.find_project` finds (the decoded Claude Code project folder, else the
git work tree).  :func:`cross_layer_duplicates` runs the consolidation scan
(:func:`memtui.core.judge.consolidate.scan`, its public API) over the files of several roots at once and
keeps the pairs whose two files live in different roots: the same fact in the local and the
shared folder is a promotion half done.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from ..model.snapshot import MemoryFile, Snapshot
from ..read.project import find_project
from ..roots.discover import git_toplevel
from .consolidate import DEFAULT_THRESHOLD, scan

MACHINE_LOCAL, SHARED, AGENTS, OTHER = "machine-local", "shared", "agents", "other"
LAYERS = (MACHINE_LOCAL, SHARED, AGENTS, OTHER)
_AGENT_DIRS = frozenset({"agent-memory", "agent-memory-local"})


def layer_of(root: Path | str) -> str:
    """The layer a root belongs to, from its path (see the module docstring)."""
    root = Path(root).absolute()
    if root.parent.name in _AGENT_DIRS:
        return AGENTS
    if root.name == "memory" and root.parent.parent.name == "projects":
        return MACHINE_LOCAL
    top = git_toplevel(root)
    if top is not None and root in (top / "memory", top / ".claude" / "memory"):
        return SHARED
    return OTHER


def project_of(root: Path | str) -> Path | None:
    """The project folder a root's memory is about (None when there is none)."""
    found = find_project(Path(root))
    return found.path if found is not None else None


@dataclass(frozen=True)
class Layered:
    """One root with its layer and project."""

    root: Path
    layer: str
    project: Path | None


def layered(roots: Sequence[Path]) -> list[Layered]:
    """Roots with their layers, grouped by project, then in layer order, then by path."""
    out = [Layered(Path(r).absolute(), layer_of(r), project_of(r)) for r in roots]
    order = {name: i for i, name in enumerate(LAYERS)}
    return sorted(out, key=lambda x: (str(x.project or ""), order[x.layer], str(x.root)))


@dataclass(frozen=True)
class CrossDuplicate:
    """A near-duplicate pair whose two files live in different roots."""

    root_a: str
    a: str
    root_b: str
    b: str
    score: float
    similarity: float

    def to_json(self) -> dict[str, object]:
        return {"root_a": self.root_a, "a": self.a, "root_b": self.root_b, "b": self.b,
                "score": round(self.score, 4), "similarity": round(self.similarity, 4)}


def cross_layer_duplicates(snapshots: Sequence[Snapshot], threshold: float | None = None,
                           ) -> list[CrossDuplicate]:
    """Near-duplicate pairs across roots (never within one), scored by the consolidation scan.

    The roots' files are put in one snapshot under a prefix per root (``0/…``, ``1/…``), so the
    scan's candidate choice and scoring apply unchanged; pairs inside one root are dropped.
    """
    if len(snapshots) < 2:
        return []
    files: dict[str, MemoryFile] = {}
    for i, snapshot in enumerate(snapshots):
        for path, f in snapshot.files.items():
            files[f"{i}/{path}"] = replace(f, path=f"{i}/{path}")
    merged = replace(snapshots[0], files=dict(sorted(files.items())))
    result = scan(merged, DEFAULT_THRESHOLD if threshold is None else threshold)
    out: list[CrossDuplicate] = []
    for pair in result.pairs:
        (ia, a), (ib, b) = pair.a.split("/", 1), pair.b.split("/", 1)
        if ia == ib:
            continue
        out.append(CrossDuplicate(str(snapshots[int(ia)].root), a, str(snapshots[int(ib)].root), b,
                                  pair.score, pair.similarity))
    return out
