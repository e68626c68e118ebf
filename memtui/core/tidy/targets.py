"""Evident targets of a dangling reference in an index, and rewriting the reference (DESIGN §4.1).

:class:`Targets` answers, for a path no file has, the one file it evidently meant: the same path
under ``archive/``, the same name in another case or one folder down, a unique near name in its
folder (``task8`` → ``task8_9``), else the same name in a child root or in one sibling root of the
same memory tree (:func:`tree_top`: the roots of one project, looked up on disk — never a
folder that merely sits nearby, such as another copy of the whole tree).  :func:`relink` points
a line's link there (or names another root's file in backticks: an entry may not cross roots);
:func:`unlink` makes a broken link plain words.
"""

from __future__ import annotations

import os
import posixpath
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..model.index import _MD_LINK, _WIKILINK
from ..model.snapshot import ARCHIVE_DIR, IndexLine, LineKind, Snapshot
from ..roots.discover import roots_under

_SEPARATORS = ("_", "-", ".")


@dataclass(frozen=True)
class Repoint:
    """Where a dangling reference goes: a new link ``target``, or (``mention``) a file of
    another root named in backticks; ``why`` is the evidence."""

    target: str
    why: str
    mention: bool = False
    archived: bool = False  # the file is in archive/: an active entry moves to the archive index


# ---------------------------------------------------------------- finding a target


def stem_of(name: str) -> str:
    return name[:-3] if name.lower().endswith(".md") else name


class Targets:
    """Lookups for evident targets in one snapshot (built once, linear in the files)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.by_folder: dict[str, list[str]] = defaultdict(list)
        for path in snapshot.files:
            folder, _, name = path.rpartition("/")
            self.by_name[name.lower()].append(path)
            self.by_folder[folder].append(name)

    def find(self, resolved: str) -> Repoint | None:
        files = self.snapshot.files
        folder, _, name = resolved.rpartition("/")
        archived = posixpath.join(ARCHIVE_DIR, resolved)
        if archived in files:
            return Repoint(archived, f"{resolved} was moved to {archived}", archived=True)
        same = [p for p in self.by_name.get(name.lower(), []) if p != resolved]
        exact_case = [p for p in same if p.rpartition("/")[0] == folder]
        if len(exact_case) == 1:
            return Repoint(exact_case[0], f"{exact_case[0]} is the same name in another case")
        down = [p for p in same
                if p.rpartition("/")[0].rpartition("/")[0] == folder and "/" in p[len(folder):].lstrip("/")]
        down = [p for p in down if not p.startswith(ARCHIVE_DIR + "/")]
        if len(down) == 1:
            return Repoint(down[0], f"{name} is one folder down, at {down[0]}")
        stem = stem_of(name).lower()
        near = [n for n in self.by_folder.get(folder, [])
                if stem_of(n).lower() != stem and stem_of(n).lower().startswith(stem)
                and stem_of(n)[len(stem):][:1] in _SEPARATORS]
        if len(near) == 1:
            target = posixpath.join(folder, near[0]) if folder else near[0]
            return Repoint(target, f"{near[0]} is the one file whose name continues {name}")
        if near or down or same:
            return None  # more than one candidate: nothing is evident
        return _elsewhere(self.snapshot, resolved)


def _elsewhere(snapshot: Snapshot, resolved: str) -> Repoint | None:
    """The file in a child root (one folder down) or in one sibling root of the same tree."""
    name = resolved.rpartition("/")[2]
    root = Path(snapshot.root)
    child = [n for n in snapshot.nested_roots if (root / n / resolved).is_file()]
    if len(child) == 1:
        path = f"{child[0]}/{resolved}"
        return Repoint(path, f"{name} is in the child root {child[0]}/", mention=True)
    if child:
        return None
    found = [other / name for other in _tree_roots(str(root)) if (other / name).is_file()]
    if len(found) == 1:
        rel = Path(os.path.relpath(found[0], root)).as_posix()
        return Repoint(rel, f"{name} is in the sibling root {Path(os.path.relpath(found[0].parent, root)).as_posix()}",
                       mention=True)
    return None


TREE_LEVELS = 4
#: the folders of Claude Code's memory layout between a project and its memory roots
#: (``<project>/.claude/memory``, ``<project>/.claude/agent-memory/<agent>``, ``<project>/memory``)
LAYOUT_FOLDERS = frozenset({"memory", ".claude", "agent-memory", "agent-memory-local"})
_AGENT_PARENTS = frozenset({"agent-memory", "agent-memory-local"})


def tree_top(root: Path) -> Path | None:
    """The top folder of the memory tree a root belongs to — the roots of one project: the git
    work tree holding it (found at most :data:`TREE_LEVELS` folders up), else the project folder
    Claude Code's layout names (``<project>`` of ``<project>/.claude/memory`` or
    ``<project>/.claude/agent-memory/<agent>``), else the outermost root that holds it, else the
    root itself (a memory folder copied on its own: the folders beside it are other trees, or
    copies of this one).  Never the home folder or above it, nor a folder at the top of the file
    system (``/tmp``, ``/srv``: the trees of everyone).  None for a Claude Code project's memory
    (``<config>/projects/<project>/memory``): the folders beside it are other projects'."""
    here = root.resolve()
    if here.name == "memory" and here.parent.parent.name == "projects":
        return None
    home = Path.home().resolve()

    def allowed(folder: Path) -> bool:
        return folder.parent != folder and not home.is_relative_to(folder) and len(folder.parts) > 2

    ancestors: list[Path] = []
    folder = here
    for _ in range(TREE_LEVELS):
        if not allowed(folder.parent):
            break
        folder = folder.parent
        ancestors.append(folder)
    for folder in ancestors:  # inside a git work tree, the work tree is the project
        if (folder / ".git").exists():
            return folder
    top = here
    for folder in ancestors:  # out of the layout's own folders, to the project that holds them
        if top.name in LAYOUT_FOLDERS or top.parent.name in _AGENT_PARENTS:
            top = folder
        else:
            break
    for folder in ancestors:  # a nested root's tree is the root that holds it
        if folder.is_relative_to(top) and folder != top:
            continue
        if (folder / "MEMORY.md").is_file():
            top = folder
    return top


@lru_cache(maxsize=32)
def _tree_roots(root: str) -> tuple[Path, ...]:
    """Other memory roots of the tree a root belongs to (:func:`tree_top`), less the memories
    of Claude Code projects (``…/projects/<project>/memory``: other projects, never siblings)."""
    here = Path(root).resolve()
    top = tree_top(here)
    if top is None or top == here:
        return ()
    try:
        found = roots_under(top)
    except OSError:
        return ()
    return tuple(p for p in found if p.resolve() != here and not p.resolve().is_relative_to(here)
                 and not (p.name == "memory" and p.parent.parent.name == "projects"))


# ---------------------------------------------------------------- rewriting a line


def relink(raw: str, line_target: str, ref_kind: str, new: str, mention: bool) -> str:
    """``raw`` with the reference to ``line_target`` pointed at ``new`` (or, for another root's
    file, the link replaced by the path in backticks, its words kept)."""
    if ref_kind == "wikilink":
        for m in _WIKILINK.finditer(raw):
            name = m.group(1).strip()
            if (name if name.lower().endswith(".md") else name + ".md") == line_target:
                repl = f"`{new}`" if mention else "[[" + stem_of(new) + raw[m.start(1) + len(m.group(1)):m.end()]
                return raw[: m.start()] + repl + raw[m.end():]
        return raw
    for m in _MD_LINK.finditer(raw):
        if m.group(2) == line_target:
            if mention:
                text = m.group(1).strip()
                same = posixpath.basename(text.strip("`")) == posixpath.basename(new)
                repl = f"`{new}`" if same or not text else f"{text} (`{new}`)"
            else:
                repl = raw[m.start():m.start(2)] + new + raw[m.end(2):m.end()]
            return raw[: m.start()] + repl + raw[m.end():]
    bold = f"**{line_target}**"
    if bold in raw:
        return raw.replace(bold, f"`{new}`" if mention else f"**{new}**", 1)
    return raw


def unlink(raw: str, target: str) -> str:
    """``raw`` with a broken link or wikilink to ``target`` made plain words."""
    for m in _WIKILINK.finditer(raw):
        name = m.group(1).strip()
        if (name if name.lower().endswith(".md") else name + ".md") == target:
            return raw[: m.start()] + name + raw[m.end():]
    for m in _MD_LINK.finditer(raw):
        if m.group(2) == target:
            return raw[: m.start()] + m.group(1) + raw[m.end():]
    return raw


def is_dangling(snapshot: Snapshot, line: IndexLine) -> bool:
    nested = tuple(root + "/" for root in snapshot.nested_roots)
    return (line.kind is LineKind.ENTRY and line.resolved is not None and not line.escapes
            and line.resolved not in snapshot.files and not line.resolved.startswith(nested)
            and line.resolved not in snapshot.outside and line.resolved.lower().endswith(".md"))


def broken_refs(snapshot: Snapshot, line: IndexLine) -> list[tuple[str, str, str]]:
    """(kind, target, resolved) of the links and wikilinks on a line, other than an entry's own,
    that point at no file."""
    nested = tuple(root + "/" for root in snapshot.nested_roots)
    out = []
    for ref in line.refs:
        if ref.kind == "mention" or ref.escapes or ref.resolved is None:
            continue
        if line.kind is LineKind.ENTRY and ref.target == line.target:
            continue
        if ref.resolved in snapshot.files or ref.resolved.startswith(nested):
            continue
        plain = posixpath.normpath(ref.target.split("#", 1)[0])
        if plain in snapshot.files:
            continue
        out.append((ref.kind, ref.target, ref.resolved))
    return out
