"""Fixes for a group of findings at once, each one changeset (one review, one journal record, one undo).

*Orphans* are grouped into name families: the broadest file-name prefix (cut at ``_``, ``-`` or
``.``) whose glob ``prefix*.md`` matches two or more of the orphans and no other file of the root.
A family is covered by one region pointer in the Regions block; an orphan that belongs to no such
family gets an archive-index entry (reachable, and costs nothing at session start).  *Broken links*
are dropped: every entry line whose target does not exist, in both indexes, in one change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from ..model.changeset import Changeset, Operation, VerbError
from ..model.index import region_line
from ..model.index_edit import REGIONS, IndexDraft, heading_level, heading_title, new_entry
from ..model.snapshot import ARCHIVE_INDEX_NAME, Index, Snapshot
from ..rules.budget import PRESSURE_THRESHOLD, measure
from ..rules.validate import glob_regex, validate
from ..tidy.lines import keep_erased
from .lifecycle import _draft_op

#: a name splits into segments after each separator: ``session_2026-05-23_x`` → ``session_``, ``2026-``…
_SEGMENT = re.compile(r"[^_\-.]*[_\-.]|[^_\-.]+$")


@dataclass(frozen=True)
class OrphanFamily:
    """Orphans reached together: by one region ``glob`` (``region`` true), or each by an entry."""

    glob: str
    paths: tuple[str, ...]
    region: bool

    @property
    def label(self) -> str:
        """How a person reads the family: the glob, or "N other orphans"."""
        if self.region:
            return self.glob
        return f"{len(self.paths)} orphan{'s' * (len(self.paths) != 1)} without a family"


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _prefixes(name: str) -> list[str]:
    """The name's prefixes at separator boundaries, shortest first (never the whole stem)."""
    stem = name[:-3] if name.endswith(".md") else name
    out: list[str] = []
    built = ""
    for segment in _SEGMENT.findall(stem):
        if not segment or segment[-1] not in "_-.":
            break
        built += segment
        out.append(built)
    return out


def orphan_families(snapshot: Snapshot, orphans: Iterable[str]) -> tuple[OrphanFamily, ...]:
    """The orphans as region families (broadest clean glob first) and one group of the rest."""
    orphan_set = {p for p in orphans if p in snapshot.files}
    names_by_prefix: dict[str, int] = {}
    orphans_by_prefix: dict[str, list[str]] = {}
    for path in snapshot.files:
        name = _name(path)
        if not name.endswith(".md"):
            continue
        for prefix in _prefixes(name):
            names_by_prefix[prefix] = names_by_prefix.get(prefix, 0) + 1
            if path in orphan_set:
                orphans_by_prefix.setdefault(prefix, []).append(path)
    families: list[OrphanFamily] = []
    placed: set[str] = set()
    for path in sorted(orphan_set):
        if path in placed:
            continue
        for prefix in _prefixes(_name(path)):
            members = orphans_by_prefix.get(prefix, [])
            glob = prefix + "*.md"
            if (len(members) >= 2 and names_by_prefix[prefix] == len(members)
                    and glob_regex(glob) is not None):
                families.append(OrphanFamily(glob, tuple(sorted(members)), True))
                placed.update(members)
                break
    rest = tuple(sorted(orphan_set - placed))
    families.sort(key=lambda fam: (-len(fam.paths), fam.glob))
    if rest:
        families.append(OrphanFamily("", rest, False))
    return tuple(families)


def _region_hook(family: OrphanFamily) -> str:
    prefix = family.glob[: -len("*.md")].rstrip("_-.")
    return f"{len(family.paths)} {prefix} notes; grep the memory dir"


def _add_regions(draft: IndexDraft, raws: list[str]) -> None:
    """Append region lines to the Regions block, adding the block before any PATH_SCOPE section."""
    span = draft.block(REGIONS)
    if span is not None:
        draft.insert(draft._last_content(*span), raws)
        return
    lines = draft.index.lines
    pos = next((i for i, line in enumerate(lines)
                if heading_level(line) == 2 and heading_title(line).upper().startswith("PATH_SCOPE")),
               len(lines))
    block = ["## " + REGIONS, *raws]
    if pos < len(lines):
        block.append("")
    draft.insert(pos, draft._blank_before(pos) + block)


def cover_orphans(snapshot: Snapshot, families: Iterable[OrphanFamily]) -> Changeset:
    """Make the families' orphans reachable: a region line per region family, the largest first,
    while the index stays below the pressure line; archive entries for the rest."""
    families = tuple(families)
    if not any(fam.paths for fam in families):
        raise VerbError("no orphans to cover")
    for fam in families:
        for path in fam.paths:
            if path not in snapshot.files:
                raise VerbError(f"no memory file '{path}'")
    index = IndexDraft(snapshot.index, snapshot.files.__contains__)
    archive_index = snapshot.archive_index if snapshot.archive_index.exists else Index(
        ARCHIVE_INDEX_NAME, False)
    archive = IndexDraft(archive_index, snapshot.files.__contains__)
    wanted = sorted((fam for fam in families if fam.region), key=lambda fam: -len(fam.paths))
    lines = [region_line(fam.glob, _region_hook(fam)) for fam in wanted]
    fit = _regions_that_fit(snapshot, lines)
    pointed, regions = wanted[:fit], lines[:fit]
    if regions:
        _add_regions(index, regions)
    no_room = len(wanted) - fit
    listed = 0
    for fam in families:
        if fam in pointed:
            continue  # a family with no room for its pointer is listed as one without a family
        for path in fam.paths:
            if not archive.entries_for(path):
                f = snapshot.files[path]
                archive.append_entry(new_entry(f, f.description or f.title))
                listed += 1
    ops: list[Operation] = _draft_op(index) + _draft_op(archive)
    covered = sum(len(fam.paths) for fam in pointed)
    parts = []
    if regions:
        parts.append(f"{len(regions)} region pointer{'s' * (len(regions) != 1)} reach {covered} orphans")
    if listed:
        parts.append(f"{listed} listed in {archive.path}"
                     + (f" (MEMORY.md has no room within its budget for {no_room} more region "
                        f"pointer{'s' * (no_room != 1)})" if no_room else ""))
    return Changeset("cover-orphans", "cover orphans: " + ", ".join(parts), tuple(ops))


def _regions_that_fit(snapshot: Snapshot, lines: list[str]) -> int:
    """How many of ``lines`` (first ones first) the Regions block can take with the index still
    below the pressure line (:data:`~memtui.core.rules.budget.PRESSURE_THRESHOLD` of either cap)
    — none when it is there already: a pointer past a cap is a fix the gate refuses, one past the
    pressure line fills the room the author's own entries need, and an orphan listed in the
    archive index costs nothing at session start."""
    if not lines:
        return 0

    def fits(k: int) -> bool:
        draft = IndexDraft(snapshot.index, snapshot.files.__contains__)
        if k:
            _add_regions(draft, lines[:k])
        return measure(draft.index, snapshot.config).utilization < PRESSURE_THRESHOLD

    if not fits(0):
        return 0
    low, high = 0, len(lines)  # fits(low) holds; find the largest k that fits
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def broken_link_lines(snapshot: Snapshot) -> set[tuple[str, int]]:
    """(index path, line number) of every ``broken-link`` finding."""
    return {(f.path, f.line) for f in validate(snapshot) if f.rule == "broken-link" and f.line}


def drop_broken_links(snapshot: Snapshot, lines: Iterable[tuple[str, int]] | None = None) -> Changeset:
    """Remove broken entry lines (``(index path, line number)``; default: every one) as one change.

    A given line that is not a broken entry (the index changed meanwhile) is refused, not guessed at.
    """
    broken = broken_link_lines(snapshot)
    wanted = broken if lines is None else set(lines)
    stray = sorted(wanted - broken)
    if stray:
        path, number = stray[0]
        raise VerbError(f"line {number} of {path} is not a broken link (any more); reload and retry")
    ops: list[Operation] = []
    for index in (snapshot.index, snapshot.archive_index):
        positions = [number - 1 for path, number in wanted if path == index.path]
        if not positions or not index.exists:
            continue
        draft = IndexDraft(index, snapshot.files.__contains__)
        draft.remove(positions)
        ops += _draft_op(draft)
    if not ops:
        raise VerbError("no broken links to drop")
    return keep_erased(snapshot, Changeset("drop-broken-links",
                       f"drop {len(wanted)} broken link line{'s' * (len(wanted) != 1)}", tuple(ops)),
                       "broken links dropped (the lines, kept here)")
