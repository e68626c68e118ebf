"""``rebuild``: bring ``MEMORY.md`` back within its contract by editing it (DESIGN §4.1).

An existing index is the author's document: :func:`rebuild` composes the phases of a careful
curator, each a changeset of its own that the dream also proposes as an item — the repairs
(:mod:`.index_repair`), a prose dump made pointers (:mod:`.prose_index`), then, only past the
fill target, path text compacted into Memory base sections (:mod:`.index_compact`), long lines
shortened (:mod:`.index_trim`), long detail moved into topic files (:mod:`.index_detail`) and
entries decayed (:mod:`.index_trim`).  Sections,
headings, order, prose and hooks stay; every line that leaves is found again in an index,
``MEMORY-history.md`` or a topic file.

An index that does not exist yet is written by :func:`generate` as the three blocks:

- **Pinned**: every ``pinned: true`` file outside ``archive/``;
- **Recent**: informal pins (``** ACTIVE **``, ``** START HERE **``) first, then every file newest
  first, until the whole index would pass 80% of the line or byte cap; archived and superseded
  files are left out;
- **Regions**: one pointer per file-name family (the name up to its first ``_`` or ``-``, e.g.
  ``session_*.md``) with at least two members when a member is not in the working set; a file
  with no family goes to the archive index.  Every file stays reachable.
"""

from __future__ import annotations

import re
import time
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from ..model.changeset import Changeset, Create, Operation, Write, apply_to_snapshot, unified_diff
from ..model.index import region_line
from ..model.index_edit import PINNED, RECENT, REGIONS, IndexDraft, new_entry
from ..model.snapshot import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    BudgetConfig,
    Index,
    IndexLine,
    Snapshot,
    encode_text,
)
from ..read.store import list_root
from ..rules.budget import FILL_TARGET, stripped_lines, text_size
from ..rules.validate import _structural, glob_regex
from ..stores.statcache import StatCache, cache_of
from .compact import compact
from .detail import move_detail
from .lines import NothingToRebuild, collapse_ops, configured_target_lines, file_age_key
from .prose import pointers
from .repair import repair
from .targets import broken_refs, is_dangling
from .trim import decay, fully_stale, shorten, within_target

if TYPE_CHECKING:
    from ..stores.statcache import StatCache

INFORMAL_PIN = re.compile(r"\*\*\s*(?:ACTIVE|START HERE)\b[^*]*\*\*")
_FAMILY = re.compile(r"^([^_\-]+)([_-])")

__all__ = ["NothingToRebuild", "file_age_key", "generate", "rebuild", "rebuild_cached", "kept_nothing_to_rebuild",
           "phases", "family_glob", "unlisted_live", "known_paths", "with_born"]


def family_glob(name: str) -> tuple[str, str] | None:
    """(glob, prefix) of a file name's family, e.g. ``('session_*.md', 'session')``."""
    if not name.endswith(".md"):
        return None
    match = _FAMILY.match(name)
    if match is None:
        return None
    glob = f"{match.group(1)}{match.group(2)}*.md"
    return (glob, match.group(1)) if glob_regex(glob) is not None else None


def _newest_first(snapshot: Snapshot, paths: Iterable[str], entries: dict[str, IndexLine]) -> list[str]:
    def key(path: str) -> tuple[tuple[str, float], str]:
        line = entries.get(path)
        return file_age_key(snapshot.files[path], line.raw if line is not None else ""), path

    return sorted(paths, key=key, reverse=True)


def _eligible(snapshot: Snapshot, structural: set[str]) -> list[str]:
    """Files a fresh working set may list: not archived, not superseded, not structural."""
    return [
        path for path, f in snapshot.files.items()
        if not (path.startswith(ARCHIVE_DIR + "/") or f.status in ("archived", "superseded")
                or f.frontmatter.names("superseded_by") or path in structural)
    ]


def _families(snapshot: Snapshot, structural: set[str]) -> dict[str, int]:
    """Members of each file-name family glob."""
    members: dict[str, int] = {}
    for path in snapshot.files:
        if path in structural:
            continue
        fam = family_glob(path.rsplit("/", 1)[-1])
        if fam is not None:
            members[fam[0]] = members.get(fam[0], 0) + 1
    return members


def _cover(snapshot: Snapshot, structural: set[str], members: dict[str, int],
           working: set[str]) -> tuple[list[str], list[str]]:
    """Region lines for the families with a member outside the working set, and the files no
    family covers."""
    needed: dict[str, str] = {}
    singles: list[str] = []
    for path in snapshot.files:
        if path in structural or path in working:
            continue
        fam = family_glob(path.rsplit("/", 1)[-1])
        if fam is not None and members.get(fam[0], 0) >= 2:
            needed[fam[0]] = fam[1]
        else:
            singles.append(path)
    regions = [region_line(glob, f"more {prefix} notes; grep the memory dir")
               for glob, prefix in sorted(needed.items())]
    return regions, singles


def _assemble(blocks: list[tuple[str, list[str]]]) -> list[str]:
    out = ["# Memory"]
    for title, raws in blocks:
        if raws:
            out += ["", f"## {title}"] + raws
    return out


def _fill(snapshot: Snapshot, base: list[str], pool: list[str]) -> list[str]:
    """The pool's files, newest first, while the index stays within 80% of its caps."""
    config = snapshot.config
    strip = stripped_lines(base, config.loader)
    counted = [raw for k, raw in enumerate(base) if k not in strip]
    lines = len(counted) + 2
    used = sum(text_size(r, config.loader) + 1 for r in counted) + len(f"\n## {RECENT}\n")  # the loader's unit
    target_lines, target_bytes = int(config.max_lines * FILL_TARGET), int(config.max_bytes * FILL_TARGET)
    chosen: list[str] = []
    for path in _newest_first(snapshot, pool, {}):
        f = snapshot.files[path]
        cost = text_size(new_entry(f, f.description or f.title), config.loader) + 1
        if lines + 1 > target_lines or used + cost > target_bytes:
            break
        chosen.append(path)
        lines, used = lines + 1, used + cost
    return chosen


def generate(snapshot: Snapshot) -> Changeset:
    """Write a missing ``MEMORY.md`` as Pinned, Recent and Regions (and list the files no
    family covers in the archive index)."""
    files = snapshot.files
    structural = _structural(snapshot)
    eligible = _eligible(snapshot, structural)
    pinned = _newest_first(snapshot, [p for p in eligible if files[p].pinned], {})
    pinned_raws = [new_entry(files[p], files[p].description or files[p].title) for p in pinned]
    members = _families(snapshot, structural)
    upper, _ = _cover(snapshot, structural, members, set(pinned))
    pool = [p for p in eligible if p not in set(pinned)]
    recent = _fill(snapshot, _assemble([(PINNED, pinned_raws), (REGIONS, upper)]), pool)
    regions, singles = _cover(snapshot, structural, members, set(pinned) | set(recent))
    new_lines = _assemble([
        (PINNED, pinned_raws),
        (RECENT, [new_entry(files[p], files[p].description or files[p].title) for p in recent]),
        (REGIONS, regions),
    ])
    ops: list[Operation] = [Create(INDEX_NAME, encode_text("".join(r + "\n" for r in new_lines)))]
    archive_draft = IndexDraft(
        snapshot.archive_index if snapshot.archive_index.exists else Index(ARCHIVE_INDEX_NAME, False),
        files.__contains__,
    )
    for path in singles:
        if not archive_draft.entries_for(path):
            archive_draft.append_entry(new_entry(files[path], files[path].description or files[path].title))
    if archive_draft.changed:
        if archive_draft.existed:
            assert archive_draft.original is not None
            ops.append(Write(archive_draft.path, archive_draft.render(), archive_draft.original))
        else:
            ops.append(Create(archive_draft.path, archive_draft.render()))
    parts = [f"{len(pinned)} pinned", f"{len(recent)} recent", f"{len(regions)} region pointers"]
    if singles:
        parts.append(f"{len(singles)} listed in {archive_draft.path}")
    changeset = Changeset("rebuild", f"write {INDEX_NAME}: " + ", ".join(parts), tuple(ops))
    return Changeset(changeset.verb, changeset.description, changeset.ops, unified_diff(snapshot, changeset))


#: the phases of an edit, in order: each builds on the result of the one before
Phase = Callable[[Snapshot], Changeset]


def unlisted_live(snapshot: Snapshot) -> frozenset[str]:
    """Live files no entry of either index lists: what a repair indexes, and what the decay of
    the same pass must not file straight away in the archive index."""
    listed = {line.resolved for index in (snapshot.index, snapshot.archive_index) for line in index.entries}
    return frozenset(path for path, f in snapshot.files.items()
                     if path not in listed and not f.archived and not path.startswith(ARCHIVE_DIR + "/"))


def known_paths(snapshot: Snapshot) -> frozenset[str]:
    """The files a pass starts from, and those its indexes already name (a lesson recovered
    into a missing file keeps the author's old entry, which may decay as any other)."""
    named = (line.resolved for index in (snapshot.index, snapshot.archive_index) for line in index.entries)
    return frozenset(snapshot.files) | frozenset(path for path in named if path)


def with_born(keep: frozenset[str], state: Snapshot, known: frozenset[str] | None) -> frozenset[str]:
    """``keep`` and the files of ``state`` the pass's first snapshot neither had nor named
    (``known``, :func:`known_paths`): a topic file the same pass wrote under a new name (the
    detail moved out of the index) is not decayed straight into the archive index."""
    if known is None:
        return keep
    return keep | frozenset(path for path in state.files if path not in known)


def phases(target_lines: int | None = None, keep: frozenset[str] = frozenset(),
           stale: Callable[[Snapshot], frozenset[str]] | None = None,
           known: frozenset[str] | None = None) -> list[tuple[str, Phase]]:
    """The editing phases of a rebuild, named, in the order they compose.  ``keep``: files the
    decay leaves alone (:func:`unlisted_live` of the snapshot the pass started from), and with
    them every file not ``known`` to it (:func:`with_born`); ``stale``: the fully stale files
    no guard holds, read from the state the decay sees."""
    def decay_phase(s: Snapshot) -> Changeset:
        found = stale(s) if stale is not None and s.index.exists and not within_target(s, target_lines) \
            else frozenset()
        return decay(s, target_lines, keep=with_born(keep, s, known), stale=found)

    return [
        ("repair", repair),
        ("pointers", lambda s: pointers(s, target_lines)),
        ("compact", lambda s: compact(s, target_lines)),
        ("shorten", lambda s: shorten(s, target_lines)),
        ("detail", lambda s: move_detail(s, target_lines)),
        ("decay", decay_phase),
    ]


def rebuild(snapshot: Snapshot, target_lines: int | None = None, now: datetime | date | None = None,
            repo: Path | str | None = None) -> Changeset:
    """Edit ``MEMORY.md`` back within its contract (write it when missing); the diff is in the
    result.  ``target_lines`` is the fill target (default: config ``index.target_lines``, else
    80% of the line cap); ``now`` the clock the decay's staleness reads (default: the current
    time), ``repo`` the project its references are checked in.

    A snapshot the stat cache loaded (:func:`memtui.core.stores.statcache.cache_of`) that rebuild
    last found already in shape, with the same listing, stat keys and fill target, raises
    :class:`NothingToRebuild` from that kept answer (see :func:`rebuild_cached`).
    """
    if not snapshot.index.exists:
        return generate(snapshot)
    if target_lines is None:
        target_lines = configured_target_lines()

    stat_cache = cache_of(snapshot)
    if stat_cache is not None:
        return rebuild_cached(snapshot, stat_cache, target_lines, now, repo)
    return _rebuild(snapshot, target_lines, now, repo, [])


def rebuild_cached(snapshot: Snapshot, cache: StatCache, target_lines: int | None = None,
                   now: datetime | date | None = None, repo: Path | str | None = None) -> Changeset:
    """:func:`rebuild` of a snapshot ``cache`` loaded.  Its "nothing to rebuild" is kept whole
    when it depends on the root's files alone (the root as loaded, its listing and the fill
    target): not when a repair looked for a dangling reference's target on disk (in another
    root) nor when the decay judged staleness (the clock and the project); then it is computed
    each time, as is every rebuild that changes something."""
    if not snapshot.index.exists:
        return generate(snapshot)
    if target_lines is None:
        target_lines = configured_target_lines()
    digest = cache.loaded_digest(*_question(target_lines))
    hit = cache.memo("rebuild", digest)
    if isinstance(hit, str):
        raise NothingToRebuild(hit)
    consulted: list[str] = []
    try:
        return _rebuild(snapshot, target_lines, now, repo, consulted)
    except NothingToRebuild as exc:
        if not consulted and not looks_outside(snapshot):
            cache.set_memo("rebuild", digest, str(exc))
            cache.save()  # for the next rebuild (the user's cache folder)
        raise


def kept_nothing_to_rebuild(root: Path | str, config: BudgetConfig, target_lines: int | None = None,
                            clock: Callable[[], int] = time.time_ns) -> str | None:
    """Why rebuild has nothing to do, as it last said for this root, when that still holds for
    the root as it stats now (its listing, every stat key and the fill target, nothing read);
    else None."""
    cache = StatCache.open(root, clock)
    if not cache.section("memo-rebuild"):  # nothing kept: the root is not even listed
        return None
    if target_lines is None:
        target_lines = configured_target_lines()
    hit = cache.memo_unread(list_root(root), config, "rebuild", _question(target_lines))
    return hit if isinstance(hit, str) else None


def _question(target_lines: int | None) -> tuple[object, ...]:
    """Everything but the files a rebuild's kept answer depends on (part of its memo's key)."""
    return ("rebuild", target_lines)


def looks_outside(snapshot: Snapshot) -> bool:
    """Whether a repair of ``snapshot`` would look on disk for a target: an index line with a
    dangling entry or a link that points at no file (:mod:`.index_targets`)."""
    return any(is_dangling(snapshot, line) or broken_refs(snapshot, line)
               for index in (snapshot.index, snapshot.archive_index) for line in index.lines)


def _rebuild(snapshot: Snapshot, target_lines: int | None, now: datetime | date | None,
             repo: Path | str | None, consulted: list[str]) -> Changeset:
    """:func:`rebuild` of an existing index; ``consulted`` gets "staleness" when the decay
    judged it."""
    clock = now if now is not None else datetime.now(timezone.utc)

    def stale(s: Snapshot) -> frozenset[str]:
        consulted.append("staleness")
        return fully_stale(s, clock, repo)

    state = snapshot
    ops: list[Operation] = []
    done: list[str] = []
    for _name, build in phases(target_lines, unlisted_live(snapshot), stale, known_paths(snapshot)):
        try:
            changeset = build(state)
        except NothingToRebuild:
            continue
        state = apply_to_snapshot(state, changeset.ops).snapshot
        ops += changeset.ops
        done.append(changeset.description)
    if not ops:
        raise NothingToRebuild(f"{INDEX_NAME} is already what rebuild would write: nothing to repair, "
                               "and within its fill target")
    ops = collapse_ops(snapshot, state, ops)
    changeset = Changeset("rebuild", f"rebuild {INDEX_NAME}: " + "; ".join(done), tuple(ops))
    return Changeset(changeset.verb, changeset.description, changeset.ops, unified_diff(snapshot, changeset))
