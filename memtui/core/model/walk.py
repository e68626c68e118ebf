"""One walk over a folder tree: each folder listed once, symlinked folders never entered.

:func:`walk` yields every folder it lists with its entries; the caller prunes by clearing
``subfolders`` (as with :func:`os.walk`).  :func:`walk_root` adds the memory-root rules of DESIGN
§1.1: dot-folders are invisible, and a sub-folder holding its own ``MEMORY.md`` is another root,
yielded with ``nested`` set and not entered.  The loader, the folder watcher, the root picker's
count and root discovery all walk with these.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Callable, Iterator

from .snapshot import INDEX_NAME

#: whether to enter a sub-folder (it is never a symlink)
Enter = Callable[[os.DirEntry[str]], bool]


@dataclass
class Folder:
    """One listed folder: its entries (sorted by name unless the walk was asked not to), and the
    sub-folders to enter next."""

    path: str  # as reached from the top
    prefix: str  # relative to the top, with a trailing "/" ("" for the top itself)
    depth: int
    entries: list[os.DirEntry[str]] = field(default_factory=list)
    subfolders: list[os.DirEntry[str]] = field(default_factory=list)  # clear to prune
    error: OSError | None = None  # the folder could not be listed
    nested: bool = False  # walk_root: another memory root, not entered

    def holds(self, name: str) -> bool:
        """Whether an entry of this folder has exactly this name."""
        return name in map(_NAME, self.entries)

    def entry(self, name: str) -> os.DirEntry[str] | None:
        """This folder's entry of exactly this name, if it has one."""
        try:
            return self.entries[list(map(_NAME, self.entries)).index(name)]
        except ValueError:
            return None


def _enter_all(entry: os.DirEntry[str]) -> bool:
    return True


def walk(top: Path | str, enter: Enter = _enter_all, *, ordered: bool = True) -> Iterator[Folder]:
    """Every folder under ``top`` (itself first), entering the real sub-folders ``enter`` allows.

    ``ordered``: each folder's entries sorted by name, and its sub-folders walked in that order;
    without it, in the order the system lists them (a caller that only collects a set saves the
    sort: a third of listing a folder of 100k files).
    """
    stack: list[tuple[str, str, int]] = [(str(top), "", 0)]
    while stack:
        path, prefix, depth = stack.pop()
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=_NAME) if ordered else list(it)
        except OSError as exc:
            yield Folder(path, prefix, depth, error=exc)
            continue
        subfolders = [e for e in _real_dirs(entries) if enter(e)]
        folder = Folder(path, prefix, depth, entries, subfolders)
        yield folder
        stack.extend((e.path, f"{prefix}{e.name}/", depth + 1) for e in reversed(folder.subfolders))


_NAME = attrgetter("name")


def _real_dirs(entries: list[os.DirEntry[str]]) -> list[os.DirEntry[str]]:
    """The entries that are folders, not symlinks (one that cannot be asked is none)."""
    try:
        return [e for e in entries if e.is_dir(follow_symlinks=False)]  # no call of ours per file
    except OSError:
        return [e for e in entries if _is_real_dir(e)]


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _visible(entry: os.DirEntry[str]) -> bool:
    return not entry.name.startswith(".")


def walk_root(root: Path | str) -> Iterator[Folder]:
    """The folders of one memory root: dot-folders skipped, nested roots flagged and not entered."""
    for folder in walk(root, _visible):
        if folder.prefix and folder.holds(INDEX_NAME):
            folder.nested = True
            folder.subfolders.clear()
        yield folder


def memory_entries(root: Path | str) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every visible ``*.md`` file of a root (the indexes too), as (root-relative path, entry)."""
    for folder in walk_root(root):
        if folder.nested:
            continue
        for entry in folder.entries:
            name = entry.name
            if not name.startswith(".") and name.lower().endswith(".md") and not _is_real_dir(entry):
                yield folder.prefix + name, entry
