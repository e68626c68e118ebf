"""A snapshot's memory files known by path, each read only when first asked for.

What a kept whole-root answer (:mod:`memtui.core.stores.kept`) builds its snapshot on: the paths come
from the listing, in snapshot order (sorted), and a file's text and frontmatter are read from
disk only when a rule needs them — a write judged in a root of 100,000 files reads the few files
the change can affect.  Membership is a binary search in the sorted paths (no set of every path
is hashed) until so many paths were asked for that a set of them is quicker (a rule that checks
every index entry), iteration is in snapshot order, and a copy shares the reader (what
:func:`memtui.core.model.changeset.apply_to_snapshot` plays a change on).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Iterator, MutableMapping

from .snapshot import MemoryFile


class LazyFiles(MutableMapping[str, MemoryFile]):
    """Memory files by root-relative path; ``load(path)`` reads one the first time it is asked
    for (and may raise: :class:`memtui.core.stores.kept.Stale` when the disk no longer holds what the
    kept answer is about)."""

    __slots__ = ("_paths", "_load", "_loaded", "_folders", "_mixed", "_set", "_probes")

    def __init__(self, paths: list[str], load: Callable[[str], MemoryFile],
                 loaded: dict[str, MemoryFile] | None = None,
                 folders: set[str] | None = None, mixed: set[str] | None = None) -> None:
        self._paths = paths  # sorted, each once
        self._load = load
        self._loaded: dict[str, MemoryFile] = {} if loaded is None else loaded
        # what a lookup by bare name needs: every folder a file is in ("" the root's, else
        # ending in "/"), and the files whose bare name is not in lower case
        self._folders = folder_set(paths) if folders is None else folders
        self._mixed = mixed_case(paths) if mixed is None else mixed
        self._set: set[str] | None = None  # every path, once enough were looked up
        self._probes = 0

    def _has(self, path: str) -> bool:
        if self._set is not None:
            return path in self._set
        self._probes += 1
        if self._probes > SET_AFTER:
            self._set = set(self._paths)
            return path in self._set
        paths = self._paths
        i = bisect_left(paths, path)
        return i < len(paths) and paths[i] == path

    def __contains__(self, path: object) -> bool:
        every = self._set
        if every is not None:
            try:
                return path in every
            except TypeError:  # unhashable: no path
                return False
        return isinstance(path, str) and (path in self._loaded or self._has(path))

    def path_set(self) -> set[str]:
        """Every path as a set (built once, then kept up to date): for a caller about to look
        up many paths.  Not to be changed by the caller."""
        if self._set is None:
            self._set = set(self._paths)
        return self._set

    def __getitem__(self, path: str) -> MemoryFile:
        found = self._loaded.get(path)
        if found is None:
            if not self._has(path):
                raise KeyError(path)
            found = self._loaded[path] = self._load(path)
        return found

    def __setitem__(self, path: str, f: MemoryFile) -> None:
        if not self._has(path):
            insort(self._paths, path)
            if self._set is not None:
                self._set.add(path)
            self._folders.add(path[: path.rfind("/") + 1])
            if _name(path) != _name(path).lower():
                self._mixed.add(path)
        self._loaded[path] = f

    def __delitem__(self, path: str) -> None:
        paths = self._paths
        i = bisect_left(paths, path)
        if i >= len(paths) or paths[i] != path:
            raise KeyError(path)
        del paths[i]
        if self._set is not None:
            self._set.discard(path)
        self._loaded.pop(path, None)
        self._mixed.discard(path)

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def copy(self) -> LazyFiles:
        """The same files, to change without changing these (the reader is shared)."""
        out = LazyFiles(list(self._paths), self._load, dict(self._loaded), set(self._folders),
                        set(self._mixed))
        if self._set is not None:
            out._set = set(self._set)
        out._probes = self._probes
        return out

    def named(self, name: str) -> list[str]:
        """The paths whose bare name, lower-cased, is ``name`` (lower case), in snapshot order:
        :func:`memtui.core.rules.validate.names_of`'s answer for one name, without a walk."""
        if "/" in name:
            return []
        found = {folder + name for folder in self._folders if self._has(folder + name)}
        found.update(p for p in self._mixed if _name(p).lower() == name and self._has(p))
        return sorted(found)

    @property
    def read(self) -> frozenset[str]:
        """The paths whose file was read (or given) so far."""
        return frozenset(self._loaded)


#: lookups by binary search before a set of every path is built (hashing 100,000 paths costs
#: about what 15,000 searches do)
SET_AFTER = 2048


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def folder_set(paths: list[str]) -> set[str]:
    """Every folder prefix of ``paths`` (``""`` for the root, else ending in ``/``)."""
    return {path[: path.rfind("/") + 1] for path in paths}


def mixed_case(paths: list[str]) -> set[str]:
    """The paths whose bare name is not all lower case."""
    return {path for path in paths if _name(path) != _name(path).lower()}
