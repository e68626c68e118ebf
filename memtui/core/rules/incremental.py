"""Validation after a change without re-reading the disk or re-checking untouched files.

A :class:`FindingsCache` holds what a full validation learned about one snapshot, file by file.
:func:`incremental_validate` plays a changeset on the snapshot and recomputes only what the
change can affect — the files it writes, creates or moves, the files whose index entries,
archive entries, region coverage or structural role change, and (when files appear or go) the
files whose provenance names other files — plus the index-level rules, unless the change
leaves the indexes as they were and no file that comes or goes is one an index line names or a
region glob covers (then the kept ones hold: on an index of 90,000 lines they are most of the
work).  The result is exactly what :func:`memtui.core.rules.validate.validate` gives for the new snapshot; a
property test holds the two to that.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Iterable, Iterator, Mapping

from ..model.changeset import Changeset, Result, apply_to_snapshot
from ..model.index import resolve_target
from ..model.lazyfiles import LazyFiles
from ..model.snapshot import (
    PROVENANCE_KEYS,
    SCOPE_FILE,
    Finding,
    Index,
    IndexLine,
    MemoryFile,
    Snapshot,
)
from .budget import Budget, measure, remember
from .validate import (
    ArchivePart,
    Reach,
    _cycle_findings,
    _structural,
    archive_part,
    entry_maps,
    file_cross_findings,
    file_findings,
    files_findings,
    first_glob,
    glob_matches,
    glob_regex,
    index_findings,
    index_tail_findings,
    mention_map,
    named_past_cut,
    names_of,
    reach_of,
    region_globs,
    region_map,
    sort_findings,
)


@dataclass(frozen=True)
class FindingsCache:
    """The findings of one snapshot, kept per file so the next validation can reuse them."""

    snapshot: Snapshot
    findings: tuple[Finding, ...]  # == validate(snapshot)
    file_only: Mapping[str, tuple[Finding, ...]]  # validate.file_findings, files that have some
    file_cross: Mapping[str, tuple[Finding, ...]]  # validate.file_cross_findings, likewise
    structural: frozenset[str]
    direct: Mapping[str, tuple[int, ...]]  # file -> line numbers of its MEMORY.md entries
    archived: frozenset[str]  # files with an archive-index entry
    globs: tuple[str, ...]  # valid region globs, in index order
    glob_counts: Mapping[str, int]  # glob -> how many memory files it matches
    provenance: frozenset[str]  # files whose frontmatter names other files
    superseding: frozenset[str]  # files with ``superseded_by`` (the supersede graph's edges)
    mentions: Mapping[str, int]  # validate.mention_map: the next change and the app reuse it
    names: Mapping[str, list[str]]  # validate.names_of the files (the next change updates it)
    reach: Reach  # how every file is reached: the orphan rule's and the Files view's one answer
    #: the index-level findings (index_findings and index_tail_findings, in that order), when
    #: known apart (None: :func:`index_level_of` sorts them out of ``findings``)
    index_level: tuple[Finding, ...] | None = None


class _Subset(Mapping[str, MemoryFile]):
    """The files of a snapshot, iterating only some of them (in snapshot order) while every
    path still answers ``in`` — enough for the cycle rule, which walks only ``superseded_by``."""

    def __init__(self, files: Mapping[str, MemoryFile], keys: Iterable[str]) -> None:
        self._files = files
        self._keys = sorted(keys)

    def __getitem__(self, key: str) -> MemoryFile:
        return self._files[key]

    def __contains__(self, key: object) -> bool:
        return key in self._files

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class LazyNames(Mapping[str, list[str]]):
    """:func:`~memtui.core.rules.validate.names_of` a snapshot's files, worked out only when a bare
    mention is first resolved by it (most indexes have none)."""

    def __init__(self, files: Iterable[str]) -> None:
        self._files = files
        self._names: dict[str, list[str]] | None = None
        self._one: dict[str, list[str]] = {}  # names looked up one by one (a LazyFiles)

    def _all(self) -> dict[str, list[str]]:
        if self._names is None:
            self._names = names_of(self._files)
        return self._names

    def __getitem__(self, name: str) -> list[str]:
        if self._names is None and isinstance(self._files, LazyFiles) and name == name.lower():
            found = self._one.get(name)
            if found is None:
                found = self._one[name] = self._files.named(name)
            if not found:
                raise KeyError(name)
            return found
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class GlobCover(Mapping[str, str]):
    """Each memory file a region glob covers -> the first glob that does (what
    :func:`~memtui.core.rules.validate.region_map` gives), answered per path on demand."""

    def __init__(self, globs: tuple[str, ...], files: Mapping[str, MemoryFile]) -> None:
        self._globs = globs
        self._files = files

    def __getitem__(self, path: str) -> str:
        glob = first_glob(self._globs, path) if path in self._files else None
        if glob is None:
            raise KeyError(path)
        return glob

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in self._files and \
            first_glob(self._globs, path) is not None

    def __iter__(self) -> Iterator[str]:
        return (path for path in self._files if first_glob(self._globs, path) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class ArchivedLines(Mapping[str, list[IndexLine]]):
    """Each file's archive-index entries (what :func:`~memtui.core.rules.validate.entry_maps` maps),
    answering ``in`` from the paths an :class:`~memtui.core.rules.validate.ArchivePart` kept, and
    mapping the archive index's lines only when an entry itself is asked for."""

    def __init__(self, listed: frozenset[str], build: Callable[[], Mapping[str, list[IndexLine]]]
                 ) -> None:
        self._listed = listed
        self._build = build
        self._map: Mapping[str, list[IndexLine]] | None = None

    def _all(self) -> Mapping[str, list[IndexLine]]:
        if self._map is None:
            self._map = self._build()
        return self._map

    def __contains__(self, path: object) -> bool:
        return path in self._listed

    def __getitem__(self, path: str) -> list[IndexLine]:
        if path not in self._listed:
            raise KeyError(path)
        return self._all()[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._listed)


class EntryLines(Mapping[str, list[IndexLine]]):
    """Each file's active entries (what :func:`~memtui.core.rules.validate.entry_maps` maps),
    answered from their line numbers as a kept answer holds them: the index's lines are built
    only when an entry itself is asked for."""

    def __init__(self, numbers: Mapping[str, tuple[int, ...]], index: Index) -> None:
        self._numbers = numbers
        self._index = index

    def __contains__(self, path: object) -> bool:
        return path in self._numbers

    def __getitem__(self, path: str) -> list[IndexLine]:
        numbers = self._numbers[path]  # (a file with no entry builds no line)
        lines = self._index.lines
        return [lines[n - 1] for n in numbers]

    def __iter__(self) -> Iterator[str]:
        return iter(self._numbers)

    def __len__(self) -> int:
        return len(self._numbers)


def index_facts(cache: FindingsCache) -> tuple[Any, ...]:
    """What :func:`kept_findings_cache` needs of a snapshot's ``MEMORY.md`` besides its lines,
    as plain values (for marshal): its budget, :func:`index_names`, its region lines (number,
    glob), each file's entry line numbers, the loaded mentions and the names past the cut."""
    index = cache.snapshot.index
    part = index.__dict__.get("_facts")
    if part is None:
        names = index_names(index)
        budget = measure(index, cache.snapshot.config)
        part = (tuple(getattr(budget, f.name) for f in fields(budget)), tuple(sorted(names.paths)),
                tuple(sorted(names.bare)), tuple((ln.number, ln.glob) for ln in index.regions))
    return (part, dict(cache.direct), dict(cache.mentions), dict(cache.reach.past_cut))


def _has_provenance(f: MemoryFile) -> bool:
    return any(f.frontmatter.names(key) for key in PROVENANCE_KEYS)


def _valid_globs(snapshot: Snapshot) -> tuple[str, ...]:
    return tuple(line.glob for line in snapshot.index.regions if glob_regex(line.glob) is not None)


def _assemble(
    snapshot: Snapshot,
    head: list[Finding],
    file_cross: Mapping[str, tuple[Finding, ...]],
    file_only: Mapping[str, tuple[Finding, ...]],
    superseding: frozenset[str],
    tail: list[Finding] | None = None,
) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """The findings in the order ``validate`` builds them, then sorted the same way, and the
    index-level ones among them (``head`` and the index's tail, ``tail`` when already known).

    ``snapshot.files`` is sorted by path (the store sorts it and so does ``apply_to_snapshot``),
    so walking the files that have findings in sorted order is walking them in snapshot order.
    """
    out = list(head)
    level = list(head)
    if snapshot.index.exists:
        for path in sorted(file_cross):
            out.extend(file_cross[path])
        out.extend(_cycle_findings(replace(snapshot, files=_Subset(snapshot.files, superseding))))
        if tail is None:
            tail = index_tail_findings(snapshot)
        out.extend(tail)
        level.extend(tail)
    for path in sorted(file_only):
        out.extend(file_only[path])
    return tuple(sort_findings(out)), tuple(level)


def index_level_of(cache: FindingsCache) -> tuple[Finding, ...]:
    """The index-level findings of a cache (what :func:`index_findings` and
    :func:`index_tail_findings` gave for its snapshot), sorted out of its whole findings when it
    does not hold them apart: every finding not about a memory file is the index's, but the
    cross-file findings an index line carries (an archived or superseded file's active entry).

    The rules of the index level, of the files and of the cross-file findings at the index are
    never the same, so the order ``validate`` sorts them in is kept (its sort is stable)."""
    if cache.index_level is not None:
        return cache.index_level
    files = cache.snapshot.files
    at_index = Counter(f for found in cache.file_cross.values() for f in found if f.path not in files)
    out = []
    for f in cache.findings:
        if f.path in files:
            continue
        if at_index[f]:
            at_index[f] -= 1
            continue
        out.append(f)
    return tuple(out)


@dataclass(frozen=True)
class IndexNames:
    """What of the set of memory files an index's findings read (:func:`index_names`)."""

    paths: frozenset[str]  # every path an entry, link, wikilink or mention resolves to
    bare: frozenset[str]  # the lower-cased names bare mentions resolve by (one file of the name)


def index_names(index: Index) -> IndexNames:
    """The paths whose presence among the memory files the index-level findings, the mentions,
    the names past the cut and the structural files of ``index`` depend on (worked out once per
    index): a file that comes or goes outside them, and that no region glob covers, changes
    none of those."""
    found: IndexNames | None = index.__dict__.get("_names")
    if found is not None:
        return found
    paths: set[str] = {f"{scope.memory_base}{SCOPE_FILE}" for scope in index.scopes}
    bare: set[str] = set()
    based = any(scope.memory_base for scope in index.scopes)  # resolved may not be the plain path
    for line in index.lines:
        if line.resolved is not None:
            paths.add(line.resolved)
        for ref in line.refs:
            if ref.resolved is not None:
                paths.add(ref.resolved)
            if based and ref.resolved is not None:
                plain, _ = resolve_target(ref.target)
                if plain is not None:
                    paths.add(plain)
            if ref.kind == "mention" and "/" not in ref.target:
                bare.add(ref.target.lower())
    found = IndexNames(frozenset(paths), frozenset(bare))
    object.__setattr__(index, "_names", found)
    return found


def _unnamed(before: Snapshot, after: Snapshot, cache: FindingsCache, result: Result) -> bool:
    """Whether the change leaves every index-level finding, mention, name past the cut and
    structural file of ``before`` as it was: the indexes are the same objects (their bytes
    not played on, nor parsed again), and every file that came or went is one that no index
    line names (:func:`index_names`, the archive's part) and no region glob covers.  A file
    only rewritten never changes them: they read which files exist, never what they hold."""
    if after.index is not before.index or after.archive_index is not before.archive_index \
            or cache.snapshot is not before:
        return False
    if (after.nested_roots, after.skipped, after.outside, after.interrupted, after.config) \
            != (before.nested_roots, before.skipped, before.outside, before.interrupted,
                before.config) or after.handoff is not before.handoff:
        return False
    came_or_went = result.added | result.removed
    if not came_or_went:
        return True
    archive = after.archive_index
    part = cache.reach.archive
    if archive.exists:
        if part is not None and part.index is archive:
            archive_named: frozenset[str] = part.named
        else:
            archive_named = index_names(archive).paths
        if not archive_named.isdisjoint(came_or_went):
            return False
    names = index_names(after.index)
    globs = cache.globs  # the valid region globs of this index, in its order
    return not any(path in names.paths or path.rsplit("/", 1)[-1].lower() in names.bare
                   or first_glob(globs, path) is not None for path in came_or_went)


def documents_of(file_cross: Mapping[str, tuple[Finding, ...]]) -> frozenset[str]:
    """The files of kept cross-file findings that are the folder's own documents nothing reaches
    (their ``folder-document`` finding says so): what :attr:`Reach.documents` holds."""
    return frozenset(path for path, found in file_cross.items()
                     if any(f.rule == "folder-document" for f in found))


def _supersedes(f: MemoryFile) -> bool:
    return bool(f.frontmatter.names("superseded_by"))


def findings_cache(snapshot: Snapshot) -> FindingsCache:
    """Validate a snapshot in full, keeping the per-file parts."""
    structural = frozenset(_structural(snapshot))
    grouped: dict[str, list[Finding]] = {}
    # one secret screen over all texts; a cached load's files bring theirs from the stat cache
    for finding in files_findings(list(snapshot.files.values()), set(structural)):
        grouped.setdefault(finding.path, []).append(finding)
    file_only = {path: tuple(grouped[path]) for path in snapshot.files if path in grouped}
    reach = reach_of(snapshot)
    if snapshot.archive_index.exists:  # kept with the findings, for the next change to reuse
        reach = replace(reach, archive=archive_part(snapshot, reach.archived))
    file_cross: dict[str, tuple[Finding, ...]] = {}
    if snapshot.index.exists:
        head = index_findings(snapshot, reach)
        for path, f in snapshot.files.items():
            if path not in structural:
                found = file_cross_findings(snapshot, reach, path, f)
                if found:
                    file_cross[path] = tuple(found)
    else:
        head = index_findings(snapshot)
    counts: dict[str, int] = {}
    for line in snapshot.index.regions:
        if glob_regex(line.glob) is not None:
            counts[line.glob] = reach.region_hits.get(line.number, 0)
    superseding = frozenset(p for p, f in snapshot.files.items() if _supersedes(f))
    findings, level = _assemble(snapshot, head, file_cross, file_only, superseding)
    return FindingsCache(
        snapshot=snapshot,
        findings=findings,
        file_only=file_only,
        file_cross=file_cross,
        structural=structural,
        direct={p: tuple(ln.number for ln in lines) for p, lines in reach.direct.items()},
        archived=frozenset(reach.archived),
        globs=_valid_globs(snapshot),
        glob_counts=counts,
        provenance=frozenset(p for p, f in snapshot.files.items() if _has_provenance(f)),
        superseding=superseding,
        mentions=reach.mention,
        names=names_of(snapshot.files),
        reach=reach,
        index_level=level,
    )


def incremental_validate(
    before: Snapshot, cache: FindingsCache | None, changeset: Changeset
) -> tuple[Snapshot, FindingsCache]:
    """The snapshot after ``changeset`` and its findings, recomputing only what it can affect."""
    return revalidate(before, cache, apply_to_snapshot(before, changeset.ops))


def revalidate(
    before: Snapshot, cache: FindingsCache | None, result: Result
) -> tuple[Snapshot, FindingsCache]:
    """:func:`incremental_validate` for a changeset already played by ``apply_to_snapshot``: what
    the cross-file findings read is taken again (cheaply, from the cache where the change left it
    alone), the files whose findings can have changed are found again, and the index's findings
    unless the change cannot have changed them (:func:`_unnamed`: the kept ones hold)."""
    if cache is None or cache.snapshot is not before:
        cache = findings_cache(before)
    after = result.snapshot
    if not (before.index.exists and after.index.exists):
        return after, findings_cache(after)
    files = after.files

    same_archive = after.archive_index is before.archive_index  # the archive index not played on
    unnamed = _unnamed(before, after, cache, result)
    if unnamed:  # what the index reads of the files is as it was: its maps and findings too
        structural = cache.structural
        direct: Mapping[str, list[IndexLine]] = cache.reach.direct
        archived: Mapping[str, list[IndexLine]] = cache.reach.archived
        direct_numbers: Mapping[str, tuple[int, ...]] = cache.direct
    else:
        structural = frozenset(_structural(after))
        direct, archived = entry_maps(after, cache.reach.archived if same_archive else None)
        direct_numbers = {p: tuple(ln.number for ln in lines) for p, lines in direct.items()}
    archived_set = cache.archived if same_archive else frozenset(archived)
    globs = cache.globs if unnamed else _valid_globs(after)
    counts = _glob_counts(cache, files, result, globs)
    if unnamed and counts == cache.glob_counts:  # (the index's lines need not be looked at)
        region_hits = cache.reach.region_hits
    else:
        region_hits = {
            line.number: counts[line.glob] for line in after.index.regions if line.glob in counts
        }
    # files named in the loaded part of the index (mentions and passing links)
    if not (result.added or result.removed):
        names = cache.names
    elif isinstance(files, LazyFiles):
        names = LazyNames(files)
    elif isinstance(cache.names, dict):
        names = names_after(cache.names, result.added, result.removed)
    else:
        names = names_of(files)
    provenance, superseding = _marks(cache, files, result)
    if unnamed:
        mentioned, past_cut = cache.mentions, cache.reach.past_cut
        affected = set(result.written) | (provenance if result.added or result.removed else set())
        affected &= files.keys()
    else:
        mentioned = mention_map(after, names)
        past_cut = named_past_cut(after, names)
        affected = _affected(cache, result, files, structural=structural, direct=direct_numbers,
                             archived=archived_set, mentions=mentioned, past_cut=past_cut,
                             globs=globs, provenance=provenance)

    part = cache.reach.archive  # the archive's findings, again only when they can have changed
    if after.archive_index.exists and (part is None or not part.holds(before, after,
                                                                      result.added | result.removed)):
        part = archive_part(after, archived)
    region = _region_after(cache, after, result, tuple(dict.fromkeys(globs)) if unnamed else None)
    reach = Reach(direct, archived, region, region_hits, mentioned,
                  structural=structural, past_cut=past_cut, archive=part)
    file_cross, file_only = _found_again(cache, after, reach, result, affected)
    reach = replace(reach, documents=documents_of(file_cross))
    if unnamed:
        level = index_level_of(cache)
        findings, level = _assemble(after, list(level), file_cross, file_only, superseding, [])
    else:
        findings, level = _assemble(after, index_findings(after, reach), file_cross, file_only,
                                    superseding)
    new_cache = FindingsCache(
        snapshot=after,
        findings=findings,
        file_only=file_only,
        file_cross=file_cross,
        structural=structural,
        direct=direct_numbers,
        archived=archived_set,
        globs=globs,
        glob_counts=counts,
        provenance=provenance,
        superseding=superseding,
        mentions=mentioned,
        names=names,
        reach=reach,
        index_level=level,
    )
    return after, new_cache


def names_after(names: Mapping[str, list[str]], added: Iterable[str], removed: Iterable[str]
                ) -> dict[str, list[str]]:
    """:func:`~memtui.core.rules.validate.names_of` the files after a change, from ``names`` (the
    map of the files before it) and the paths the change added and removed: only their names'
    lists are made again.  The files are in path order (as a snapshot's are), so each name's
    paths are too."""
    gone = set(removed)
    came: dict[str, list[str]] = {}
    for path in added:
        came.setdefault(path[path.rfind("/") + 1:].lower(), []).append(path)
    out = dict(names)
    for name in {path[path.rfind("/") + 1:].lower() for path in gone}:
        kept = [path for path in out.get(name, ()) if path not in gone]
        if kept:
            out[name] = kept
        else:
            del out[name]
    for name, paths in came.items():
        out[name] = sorted(out.get(name, []) + paths) if name in out or len(paths) > 1 else paths
    return out


def _glob_counts(cache: FindingsCache, files: Mapping[str, MemoryFile], result: Result,
                 globs: tuple[str, ...]) -> dict[str, int]:
    """How many files each region glob matches: the cached count, adjusted by the names that
    came and went; a new glob counted over every file."""
    counts: dict[str, int] = {}
    for glob in dict.fromkeys(globs):
        if glob in cache.glob_counts:
            count = cache.glob_counts[glob]
            count += sum(1 for p in result.added if glob_matches(glob, p))
            count -= sum(1 for p in result.removed if glob_matches(glob, p))
        else:
            count = sum(1 for p in files if glob_matches(glob, p))
        counts[glob] = count
    return counts


def _marks(cache: FindingsCache, files: Mapping[str, MemoryFile],
           result: Result) -> tuple[frozenset[str], frozenset[str]]:
    """The files with a provenance mark and the files that declare a supersession, after the
    change: the cached sets, with the written files read again and the removed ones gone."""
    provenance = set(cache.provenance) - result.removed
    superseding = set(cache.superseding) - result.removed
    for path in result.written:
        for marks, has in ((provenance, _has_provenance), (superseding, _supersedes)):
            if has(files[path]):
                marks.add(path)
            else:
                marks.discard(path)
    return frozenset(provenance), frozenset(superseding)


def _affected(cache: FindingsCache, result: Result, files: Mapping[str, MemoryFile], *,
              structural: frozenset[str], direct: Mapping[str, tuple[int, ...]],
              archived: frozenset[str], mentions: Mapping[str, int],
              past_cut: Mapping[str, int], globs: tuple[str, ...],
              provenance: frozenset[str]) -> set[str]:
    """The files whose cross-file findings can have changed: the written ones, and every file
    for which something those findings read (named as the cache's fields) is not what the
    cache holds."""
    affected: set[str] = set(result.written)
    affected |= cache.structural ^ structural
    for path in cache.direct.keys() | direct.keys():
        if cache.direct.get(path) != direct.get(path):
            affected.add(path)
    affected |= cache.archived ^ archived
    affected |= cache.mentions.keys() ^ mentions.keys()
    affected.update(path for path in cache.reach.past_cut.keys() | past_cut.keys()
                    if cache.reach.past_cut.get(path) != past_cut.get(path))
    if set(cache.globs) != set(globs):
        changed = set(cache.globs) ^ set(globs)
        affected.update(path for path in files if first_glob(changed, path) is not None)
    if result.added or result.removed:
        affected |= provenance
    affected &= files.keys()
    return affected


def _found_again(cache: FindingsCache, after: Snapshot, reach: Reach, result: Result,
                 affected: set[str]) -> tuple[dict[str, tuple[Finding, ...]], dict[str, tuple[Finding, ...]]]:
    """The per-file findings after the change: the cached ones, the removed files' dropped, the
    affected files' cross-file findings and the written (or newly structural) files' own found
    again."""
    files, structural = after.files, reach.structural
    file_cross = dict(cache.file_cross)
    file_only = dict(cache.file_only)
    for path in result.removed:
        file_cross.pop(path, None)
        file_only.pop(path, None)
    for path in affected:
        found = [] if path in structural else file_cross_findings(after, reach, path, files[path])
        if found:
            file_cross[path] = tuple(found)
        else:
            file_cross.pop(path, None)
    for path in result.written | (cache.structural ^ structural):
        if path in files:
            found = file_findings(files[path], structural=path in structural)
            if found:
                file_only[path] = tuple(found)
            else:
                file_only.pop(path, None)
    return file_cross, file_only


def _region_after(cache: FindingsCache, after: Snapshot, result: Result,
                  same: tuple[str, ...] | None = None) -> Mapping[str, str]:
    """The region coverage of every file after a change: the cached one with the files that
    came and went, while the region globs stay the same and in the same order (``same``: the
    globs, known to be the cache's)."""
    globs = region_globs(after.index) if same is None else same
    previous = cache.reach.region
    if isinstance(previous, GlobCover):  # answered per path: nothing to carry over
        return GlobCover(globs, after.files)
    if same is None and globs != region_globs(cache.snapshot.index):
        return region_map(after.index, after.files)[0]
    if not (result.added or result.removed):
        return previous
    region = {path: glob for path, glob in previous.items() if path not in result.removed}
    for path in result.added:
        glob = first_glob(globs, path)
        if glob is not None:
            region[path] = glob
    return region


def kept_findings_cache(
    snapshot: Snapshot,
    file_only: Mapping[str, tuple[Finding, ...]],
    file_cross: Mapping[str, tuple[Finding, ...]],
    glob_counts: Mapping[str, int],
    provenance: frozenset[str],
    superseding: frozenset[str],
    findings: tuple[Finding, ...] | None = None,
    archive: ArchivePart | None = None,
    facts: tuple[Any, ...] | None = None,
) -> FindingsCache:
    """The :class:`FindingsCache` of a snapshot from the per-file parts a full validation of it
    kept (:func:`findings_cache` gave them): only the index-level rules run again, and no file
    is read but the ``superseded_by`` ones (the cycle rule walks them) — unless ``findings``,
    the snapshot's whole findings as that validation gave them, are passed too.  ``archive``:
    the archive index's part of them, as that validation worked it out (then the archive
    index's lines are not looked at unless a later change needs them).  ``facts``: what
    :func:`index_facts` kept of this ``MEMORY.md`` and these files (then its lines are not
    looked at either, unless a change or a rule needs them)."""
    index = snapshot.index
    structural = frozenset(_structural(snapshot))
    if archive is not None and archive.index is snapshot.archive_index:
        archived: Mapping[str, list[IndexLine]] = ArchivedLines(
            archive.listed, lambda: entry_maps(snapshot)[1])
        listed = archive.listed
    else:
        archive = None
        archived = {}  # the archive index's entries alone (MEMORY.md's lines not looked at)
        for line in snapshot.archive_index.entries if snapshot.archive_index.exists else ():
            if line.resolved is not None:
                archived.setdefault(line.resolved, []).append(line)
        listed = frozenset(archived)
    names = LazyNames(snapshot.files)
    direct: Mapping[str, list[IndexLine]]
    if facts is not None:
        part, numbers, mention, past_cut = facts
        budget, paths, bare, regions = part
        remember(index, snapshot.config, Budget(*budget))
        object.__setattr__(index, "_names", IndexNames(frozenset(paths), frozenset(bare)))
        object.__setattr__(index, "_facts", part)
        valid = [(n, g) for n, g in regions if glob_regex(g) is not None]
        globs = tuple(g for _, g in valid)
        direct_numbers: dict[str, tuple[int, ...]] = numbers
        direct = EntryLines(direct_numbers, index)
        reach = Reach(direct, archived, GlobCover(tuple(dict.fromkeys(globs)), snapshot.files),
                      {n: glob_counts[g] for n, g in valid if g in glob_counts},
                      mention, structural=structural, past_cut=past_cut, archive=archive,
                      documents=documents_of(file_cross))
    else:
        direct = entry_maps(snapshot, archived)[0]
        direct_numbers = {p: tuple(ln.number for ln in lines) for p, lines in direct.items()}
        globs = _valid_globs(snapshot)
        region_hits = {line.number: glob_counts[line.glob] for line in index.regions
                       if glob_regex(line.glob) is not None and line.glob in glob_counts}
        reach = Reach(direct, archived, GlobCover(region_globs(index), snapshot.files),
                      region_hits, mention_map(snapshot, names), structural=structural,
                      past_cut=named_past_cut(snapshot, names), archive=archive,
                      documents=documents_of(file_cross))
    level = None
    if findings is None:
        findings, level = _assemble(snapshot, index_findings(snapshot, reach), file_cross,
                                    file_only, superseding)
    return FindingsCache(
        snapshot=snapshot,
        findings=findings,
        file_only=dict(file_only),
        file_cross=dict(file_cross),
        structural=structural,
        direct=direct_numbers,
        archived=listed,
        globs=globs,
        glob_counts=dict(glob_counts),
        provenance=provenance,
        superseding=superseding,
        mentions=reach.mention,
        names=names,
        reach=reach,
        index_level=level,
    )
