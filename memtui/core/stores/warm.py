"""A root kept loaded between calls by a long-running memtui (the agent's door, ``memtui mcp``).

:class:`WarmRoot` holds one root's snapshot and its findings (:class:`~memtui.core.rules.
incremental.FindingsCache`) and, before each use, brings them to what the disk holds now — so a
change made by anyone else since (the app, a hook, the agent's own plain ``Write``, a shell) is
judged with, not over:

1. the root is listed again only when one of the folders it listed changed its stat key (a
   folder's mtime moves when an entry is added, removed or renamed in it; the keys are taken
   before the listing, so an entry added meanwhile shows next time; a folder holding a symlink
   or a special file, or changed within the racy rule's 2 s, vouches for nothing, and the root
   is listed every time until it does; after a change of its own, it is listed at the next use);
2. every memory file is ``stat``-ed and its key compared with the one it was read under; a file
   too young for its key to be trusted (the stat cache's racy rule: mtime or ctime within 2 s of
   the clock taken before it was read) is compared by its bytes instead;
3. the two indexes are read (their bytes compared);
4. what changed is read and played on the kept snapshot as a change is
   (:func:`~memtui.core.rules.incremental.revalidate`: only what it can affect is validated
   again); nothing changed, and the kept snapshot is the answer, as it was.

The first load, and a reload when more than :data:`MAX_CHANGED` files changed, when the
listing's other entries (symlinks, nested roots, skipped files, an index appearing or going)
changed, or when a change is pending in the journal, go through the stat cache
(:mod:`memtui.core.stores.statcache`), which reads only the files whose keys it does not know.

A change this process commits is taken over with :meth:`WarmRoot.committed` (the writer's
snapshot after it, and its findings): nothing is read again but the touched paths' stat keys.
"""

from __future__ import annotations

import os
import time
from bisect import insort
from dataclasses import dataclass, replace
from operator import attrgetter
from pathlib import Path
from typing import Callable, Iterable

from ..model.changeset import Result
from ..model.journal import pending_records
from ..model.snapshot import INDEX_NAME, BudgetConfig, MemoryFile, Snapshot
from ..read.store import Listing, TooLarge, list_root, read_memory_file, read_with_stat
from ..rules.incremental import FindingsCache, findings_cache, revalidate
from .statcache import RACY_NS, Key, StatCache, stat_key

#: more changed files than this: a reload through the stat cache is as quick
MAX_CHANGED = 256
_YOUNG: Key = (-1, -1, -1, -1)  # a key too young to trust: the file is compared by its bytes


@dataclass
class _Kept:
    listing: Listing
    snapshot: Snapshot
    found: FindingsCache
    keys: dict[str, Key]  # each memory file's key (_YOUNG: compare ``young`` bytes)
    young: dict[str, bytes]
    folders: dict[str, Key] | None  # each listed folder's key (None: list every time)
    index: bytes | None
    archive: bytes | None
    #: each listed folder's visible entries as the listing has them (a folder's name ends in
    #: "/"), when the listing is one a scan can confirm (:func:`_names`); else None
    names: dict[str, frozenset[str]] | None = None


def _extra(listing: Listing) -> tuple[object, ...]:
    """What besides the memory files a listing found (a change here means a reload)."""
    return (listing.other, listing.nested, listing.skipped, listing.outside,
            listing.index_path is not None, listing.archive[1] if listing.archive else None)


def _names(listing: Listing) -> dict[str, frozenset[str]] | None:
    """Each folder's visible entries as ``listing`` has them, when a scan of the folders alone
    can tell whether listing the root again would give the same listing: every folder plain
    (regular files and real folders only), nothing nested, skipped or outside.  None otherwise.

    For such a root, :func:`~memtui.core.read.store.list_root` is a function of the names of
    each folder's visible entries and which of them are folders (see :func:`_scan`)."""
    if (listing.nested or listing.skipped or listing.outside or not listing.folders
            or any(not plain for _, plain in listing.folders)):
        return None
    names: dict[str, set[str]] = {prefix: set() for prefix, _ in listing.folders}
    try:
        for rel, _ in listing.memory:
            cut = rel.rfind("/") + 1
            names[rel[:cut]].add(rel[cut:])
        for rel in listing.other:
            cut = rel.rfind("/") + 1
            names[rel[:cut]].add(rel[cut:])
        if listing.index_path is not None:
            names[""].add(INDEX_NAME)
        if listing.archive is not None:
            names[""].add(listing.archive[1])
        for prefix in names:
            if prefix:
                cut = prefix.rfind("/", 0, len(prefix) - 1) + 1
                names[prefix[:cut]].add(prefix[cut:])
    except KeyError:  # a file in a folder the listing does not name: not one to confirm
        return None
    return {prefix: frozenset(found) for prefix, found in names.items()}


def _scan(root: str, names: dict[str, frozenset[str]]) -> bool:
    """Whether every folder of ``names`` holds exactly those visible entries, each a regular
    file or (named with a "/") a real folder — then the root lists as it did (a symlink, a
    special file or a folder that cannot be listed says no)."""
    for prefix, expected in names.items():
        found: list[str] = []
        try:
            with os.scandir(os.path.join(root, prefix) if prefix else root) as it:
                for entry in it:
                    name = entry.name
                    if name.startswith("."):
                        continue
                    if entry.is_file(follow_symlinks=False):
                        found.append(name)
                    elif entry.is_dir(follow_symlinks=False):
                        found.append(name + "/")
                    else:
                        return False
        except OSError:
            return False
        if len(found) != len(expected) or not expected.issuperset(found):
            return False
    return True


#: a stat result's key (as :func:`~memtui.core.stores.statcache.stat_key` takes it), in one call
_KEY_OF = attrgetter("st_size", "st_mtime_ns", "st_ino", "st_ctime_ns")


Groups = dict[str, tuple[list[str], list[str]]]


def _walk_order(item: tuple[str, object]) -> tuple[list[str], str]:
    """Where a listing has a file (its root-relative path first) or a folder (its prefix): a
    folder's files before its sub-folders', each folder's entries by name, the sub-folders
    walked in that order (:func:`~memtui.core.model.walk.walk`)."""
    folder, _, name = item[0].rpartition("/")
    return (folder.split("/") if folder else []), name


def _folder_groups(listing: Listing) -> Groups:
    """The memory files of ``listing`` by folder: the folder's path -> (the files' root-relative
    paths, their names in it)."""
    by_folder: Groups = {}
    for rel, path in listing.memory:
        folder, _, name = path.rpartition("/")
        rels, names = by_folder.setdefault(folder or "/", ([], []))
        rels.append(rel)
        names.append(name)
    return by_folder


def _bytes(path: str | None) -> bytes | None:
    if path is None:
        return None
    try:
        data, _ = read_with_stat(path)
    except (OSError, TooLarge):
        return None
    return data


class WarmRoot:
    """One root, kept loaded and brought up to date before each use (see the module docstring)."""

    def __init__(self, root: Path | str, config: BudgetConfig = BudgetConfig(),
                 clock: Callable[[], int] = time.time_ns) -> None:
        self.root = Path(root).absolute()
        self.config = config
        self.clock = clock
        self._kept: _Kept | None = None
        self.reloads = 0  # full loads (for the benchmark and the tests)
        self.refreshes = 0  # updates that read changed files
        self._groups: tuple[Listing, Groups] | None = None  # _folder_groups of a listing

    # ---- the ways in

    def now(self) -> tuple[Snapshot, FindingsCache]:
        """The root as it is on disk now, and its findings."""
        kept = self._kept
        if kept is None or not self._refresh(kept):
            self._reload()
        assert self._kept is not None
        return self._kept.snapshot, self._kept.found

    def findings_for(self, snapshot: Snapshot) -> FindingsCache | None:
        """The findings kept with ``snapshot`` when it is the one kept (else None)."""
        kept = self._kept
        return kept.found if kept is not None and kept.snapshot is snapshot else None

    def loader(self) -> Callable[[Path, BudgetConfig], Snapshot]:
        """A loader for :func:`memtui.core.write.attempt`: this root now."""

        def load(root: Path, config: BudgetConfig) -> Snapshot:
            return self.now()[0]

        return load

    def committed(self, snapshot: Snapshot, found: FindingsCache, paths: Iterable[str]) -> None:
        """Take over the snapshot a change of this process left (the writer's ``Applied``):
        only the touched ``paths`` are looked at again."""
        kept = self._kept
        if kept is None:
            return
        since = self.clock()
        keys = dict(kept.keys)
        young = dict(kept.young)
        for rel in paths:
            if rel not in snapshot.files:  # moved away (the attic, archive/ …): gone from here
                keys.pop(rel, None)
                young.pop(rel, None)
                continue
            try:
                st = os.stat(os.path.join(self.root, rel))
            except OSError:
                self._kept = None
                return
            self._key(rel, stat_key(st), snapshot.files[rel], since, keys, young)
        if keys.keys() != snapshot.files.keys():  # a file the change did not name appeared or went
            self._kept = None
            return
        # the listing as the change left it, confirmed (or listed again) at the next use: its
        # folders' keys are not taken now, as another program may have added a file beside the
        # change's since it was committed, and a scan then finds more than the change made
        followed = self._following(kept, snapshot, paths)
        listing, names = followed if followed is not None else (kept.listing, None)
        self._kept = _Kept(listing, snapshot, found, keys, young, None,
                           snapshot.index.render() if snapshot.index.exists else None,
                           snapshot.archive_index.render() if snapshot.archive_index.exists else None,
                           names)

    def _following(self, kept: _Kept, snapshot: Snapshot, paths: Iterable[str]
                   ) -> tuple[Listing, dict[str, frozenset[str]]] | None:
        """The kept listing with a change of this process's files in it (the files it made and
        the folders they are in; the ones it moved away gone), and its :func:`_names`, worked out
        from the kept ones (the file groups :meth:`_changed` stats by too); None when it cannot
        be told from the change (a listing no scan confirms, a file listed but not read)."""
        listing, names = kept.listing, kept.names
        if names is None:
            return None
        files, before = snapshot.files, kept.snapshot.files
        touched = set(paths)
        gone = {rel for rel in touched if rel in before and rel not in files}
        made = sorted(rel for rel in touched if rel in files and rel not in before)
        index_path, archive = listing.index_path, listing.archive
        if snapshot.index.exists != (index_path is not None):
            index_path = f"{self.root}/{INDEX_NAME}" if snapshot.index.exists else None
        if snapshot.archive_index.exists != (archive is not None):
            name = snapshot.archive_index.path
            archive = (f"{self.root}/{name}", name) if snapshot.archive_index.exists else None
        if not gone and not made and index_path == listing.index_path and archive == listing.archive:
            return listing, names  # files written in place: the listing as it was
        groups = self._groups[1] if self._groups is not None and self._groups[0] is listing else \
            _folder_groups(listing)
        new_names = {prefix: set(found) for prefix, found in names.items()}  # frozensets: C copies
        new_groups = dict(groups)
        folders = dict(listing.folders)
        base = str(self.root)

        def group(rel: str) -> tuple[str, str, list[str], list[str]]:
            cut = rel.rfind("/") + 1
            folder = f"{base}/{rel[:cut - 1]}" if cut else base
            rels, in_it = new_groups.get(folder, ([], []))
            if new_groups.get(folder) is groups.get(folder):  # copied before it is changed
                rels, in_it = list(rels), list(in_it)
                new_groups[folder] = (rels, in_it)
            return rel[:cut], rel[cut:], rels, in_it

        for rel in gone:
            prefix, name, rels, in_it = group(rel)
            if rel not in rels:
                return None
            at = rels.index(rel)
            del rels[at], in_it[at]
            new_names[prefix].discard(name)
        for rel in made:
            prefix, name, rels, in_it = group(rel)
            if rel in rels:  # listed, yet not read: not one to follow
                return None
            rels.append(rel)
            in_it.append(name)
            cut = rel.find("/")
            while cut >= 0:  # the folders it is in (one the change made is listed from now on)
                sub = rel[:cut + 1]
                if sub not in new_names:
                    parent_cut = sub.rfind("/", 0, len(sub) - 1) + 1
                    new_names[sub] = set()
                    new_names[sub[:parent_cut]].add(sub[parent_cut:])
                    folders[sub] = True
                cut = rel.find("/", cut + 1)
            new_names[prefix].add(name)
        if index_path != listing.index_path:
            (new_names[""].add if index_path is not None else new_names[""].discard)(INDEX_NAME)
        if archive != listing.archive:
            if listing.archive is not None:
                new_names[""].discard(listing.archive[1])
            if archive is not None:
                new_names[""].add(archive[1])
        memory = [item for item in listing.memory if item[0] not in gone] if gone else list(listing.memory)
        for rel in made:  # where a listing has it: after the files before it in its folder
            insort(memory, (rel, f"{base}/{rel}"), key=_walk_order)
        followed = replace(listing, memory=tuple(memory), index_path=index_path, archive=archive,
                           folders=tuple(sorted(folders.items(), key=_walk_order)))
        self._groups = (followed, new_groups)
        return followed, {prefix: frozenset(found) for prefix, found in new_names.items()}

    def forget(self) -> None:
        """Load the root in full at the next use."""
        self._kept = None

    # ---- loading

    def _reload(self) -> _Kept:
        self.reloads += 1
        cache = StatCache.open(self.root, self.clock)
        listing, folders = self._listed(self._kept.listing if self._kept is not None else None)
        snapshot = cache.load(listing, self.config)
        found = findings_cache(snapshot)
        cache.save()
        since = cache.since_ns
        keys: dict[str, Key] = {}
        young: dict[str, bytes] = {}
        for rel, f in snapshot.files.items():
            key = cache.used.get(rel)
            if key is None:
                try:
                    key = stat_key(os.stat(os.path.join(self.root, rel)))
                except OSError:
                    key = _YOUNG
            self._key(rel, key, f, since, keys, young)
        index = snapshot.index.render() if snapshot.index.exists else None
        archive = snapshot.archive_index.render() if snapshot.archive_index.exists else None
        self._kept = _Kept(listing, snapshot, found, keys, young, folders, index, archive, _names(listing))
        return self._kept

    @staticmethod
    def _key(rel: str, key: Key, f: MemoryFile, since: int, keys: dict[str, Key],
             young: dict[str, bytes]) -> None:
        limit = since - RACY_NS
        if key[0] >= 0 and key[1] < limit and key[3] < limit:
            keys[rel] = key
            young.pop(rel, None)
        else:
            keys[rel] = _YOUNG
            young[rel] = f.data

    def _listed(self, known: Listing | None, names: dict[str, frozenset[str]] | None = None
                ) -> tuple[Listing, dict[str, Key] | None]:
        """The root listed again, and its folders' keys taken *before* it was (a file added after
        the listing then shows as a folder whose key changed); None when the folders are not the
        ones ``known`` listed (their keys are taken at the next listing).  With ``names``
        (:func:`_names` of ``known``), a scan of the folders that finds just those entries
        gives ``known`` back (what listing again would give: a quarter of its time)."""
        before = self._folders(known) if known is not None else None
        if known is not None and names is not None and _scan(str(self.root), names) \
                and os.path.realpath(self.root) == known.root_real:
            listing = known
        else:
            listing = list_root(self.root)
        if before is None or set(before) != {prefix for prefix, _ in listing.folders}:
            return listing, None
        return listing, before

    def _folders(self, listing: Listing) -> dict[str, Key] | None:
        if not listing.folders or any(not plain for _, plain in listing.folders):
            return None
        limit = self.clock() - RACY_NS  # a folder changed within a timestamp tick vouches for nothing
        out: dict[str, Key] = {}
        for prefix, _ in listing.folders:
            try:
                key = stat_key(os.stat(os.path.join(self.root, prefix) if prefix else self.root))
            except OSError:
                return None
            if key[1] >= limit or key[3] >= limit:
                return None
            out[prefix] = key
        return out

    def _changed(self, listing: Listing, keys: dict[str, Key], young: dict[str, bytes]) -> set[str] | None:
        """The memory files of ``listing`` whose stat key (or, when young, bytes) is not the kept
        one, and the files it lists that were not kept; None when a file cannot be looked at.

        One ``stat`` a file, relative to a descriptor on its folder (a third cheaper than by the
        whole path, on a root of 10,000 files), the keys compared folder by folder in one pass
        (:func:`_folder_groups`: a fifth of the time of a look at each file in turn)."""
        groups = self._groups
        if groups is None or groups[0] is not listing:
            groups = self._groups = (listing, _folder_groups(listing))
        get = keys.get
        stat = os.stat
        suspects: list[str] = []
        try:
            for folder, (rels, names) in groups[1].items():
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                try:
                    stats = [stat(name, dir_fd=fd) for name in names]
                finally:
                    os.close(fd)
                suspects += [rel for rel, new, old in zip(rels, map(_KEY_OF, stats), map(get, rels))
                             if new != old]
        except OSError:
            return None
        changed: set[str] = set()
        for rel in suspects:  # a key too young to trust: compared by its bytes
            if keys.get(rel) is _YOUNG:
                data = _bytes(os.path.join(self.root, rel))
                if data is not None and data == young.get(rel):
                    continue
            changed.add(rel)
        return changed

    def _refresh(self, kept: _Kept) -> bool:
        """Bring ``kept`` to the disk; False when only a reload can (see the module docstring)."""
        since = self.clock()
        listing, folders = kept.listing, kept.folders
        if folders is None or self._folders(listing) != folders:
            try:
                listing, folders = self._listed(kept.listing, kept.names)
            except Exception:  # noqa: BLE001 - a reload says what is wrong
                return False
        if _extra(listing) != _extra(kept.listing) or pending_records(self.root):
            return False
        base = str(self.root)
        keys, young = kept.keys, kept.young
        changed = self._changed(listing, keys, young)
        if changed is None:
            return False
        if listing is kept.listing:  # the files are the ones kept
            removed: set[str] = set()
        else:
            listed = {rel for rel, _ in listing.memory}
            removed = {rel for rel in keys if rel not in listed}
        if len(changed) + len(removed) > MAX_CHANGED:
            return False
        index = _bytes(listing.index_path)
        archive = _bytes(listing.archive[0] if listing.archive else None)
        if not changed and not removed and index == kept.index and archive == kept.archive:
            if listing is not kept.listing:  # listed again: keep the folders' keys taken before
                kept.listing, kept.names = listing, _names(listing)
            kept.folders = folders
            return True
        self.refreshes += 1
        snapshot = kept.snapshot
        files = dict(snapshot.files)
        last = next(reversed(files), "")  # the files are in path order: a new one after it keeps it
        new_keys, new_young = dict(keys), dict(young)
        added = {rel for rel in changed if rel not in keys}
        for rel in removed:
            files.pop(rel, None)
            new_keys.pop(rel, None)
            new_young.pop(rel, None)
        for rel in sorted(changed):
            try:  # the key first: a write after it shows as a new key next time
                st = os.stat(os.path.join(base, rel))
                f = read_memory_file(os.path.join(base, rel), rel)
            except (OSError, TooLarge):
                return False
            files[rel] = f
            key = stat_key(st) if f.size == st.st_size else _YOUNG
            self._key(rel, key, f, since, new_keys, new_young)
        if added and min(added) < last:
            files = dict(sorted(files.items()))  # in path order, as a load has them
        from ..model.index import parse_index
        from ..model.snapshot import ARCHIVE_INDEX_NAME, Index

        exists = files.__contains__
        structure = bool(added or removed)
        index_obj = snapshot.index
        if index != kept.index or (structure and any(s.memory_base for s in index_obj.scopes)):
            index_obj = parse_index(index, INDEX_NAME, exists) if index is not None else Index(INDEX_NAME, False)
        archive_obj = snapshot.archive_index
        if archive != kept.archive or (structure and any(s.memory_base for s in archive_obj.scopes)):
            name = listing.archive[1] if listing.archive else ARCHIVE_INDEX_NAME
            archive_obj = parse_index(archive, name, exists) if archive is not None else Index(name, False)
        after = replace(snapshot, index=index_obj, archive_index=archive_obj, files=files)
        result = Result(after, {}, frozenset(changed), frozenset(added), frozenset(removed))
        now_snapshot, now_found = revalidate(snapshot, kept.found, result)
        names = kept.names if listing is kept.listing else _names(listing)
        self._kept = _Kept(listing, now_snapshot, now_found, new_keys, new_young, folders, index, archive,
                           names)
        return True
