"""Repairs of the indexes, before any trimming (DESIGN §4.1 rule 2): only what is wrong.

- a **dangling pointer** (an entry whose file does not exist) is repointed when exactly one
  target is evident: the file moved into ``archive/`` (the active entry then moves to the
  archive index), the same name one folder down, a unique near name in its folder
  (``task8`` → ``task8_9``), the same name in a child root or in a sibling root of the same
  tree (an entry may not point into another root, so the line names that file in backticks
  instead of linking it); otherwise the line is kept as it is;
- a broken ``[[wikilink]]`` or link inside a hook is repointed the same way, or unlinked with
  its words kept;
- **duplicate entries** of one file in ``MEMORY.md`` become one: the first keeps every distinct
  hook of the others (with their titles); only entries whose link opens the list item count — a
  prose bullet that links the file is an inline fact and stays as it is;
- a file listed in both indexes leaves the index it does not belong in (a live file its
  archive-index line, an archived one its active entry);
- a **live unreachable file** gets an entry next to its siblings (the last entry of its name
  family, else of its type, else of its folder — the root's top counts only in an index without
  sections), or in a ``## Recent`` block; a family of many
  unreachable files gets one region pointer — but a live standing rule (:func:`is_standing_rule`)
  gets an entry of its own before episodic notes get region pointers, unless the rules would
  take more than a quarter of the cap.  An archived or superseded unreachable file gets
  an archive-index line (that is what those lines mean); a live one never does.  The folder's
  own documents (:func:`~memtui.core.model.folder_docs.folder_document`: a ``README``, ``LICENSE``,
  a second index, an unfilled template…) are left out: whoever published the folder put them
  there for people, not for the agent, and :func:`index_documents` lists them only when a
  person asks.

Every line replaced or removed is kept, byte for byte, in ``MEMORY-history.md``.  The archive
index gets the same link repairs.  :func:`lessons` is the last resort for a dangling pointer
whose hook is the only copy of a lesson (a rule, a feedback: :func:`holds_lesson`, never a log's
progress note): the hook becomes the missing topic file.  An index whose targets are mostly
missing (:func:`copied_from_elsewhere`) was copied without its files: the dream says so and
checks nothing for them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, insort
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Collection, Mapping

from ..model.changeset import Changeset, Create, Operation, apply_to_snapshot
from ..model.folder_docs import is_folder_document
from ..model.index import region_line
from ..model.index_edit import heading_level, new_entry, with_hook
from ..model.snapshot import INDEX_NAME, Index, IndexLine, LineKind, MemoryFile, Snapshot, encode_text, in_team
from ..rules.budget import Budget, measure
from ..rules.validate import _structural, glob_regex, reach_of
from .lines import (
    HISTORY_NAME,
    LineEdit,
    NothingToRebuild,
    archive_index_of,
    entry_is_lead,
    history_block,
    history_ops,
    index_op,
    innermost_headings,
    line_states_rule,
    rule_stating_lines,
    target_size,
    unit_sizes,
)
from .targets import Targets, broken_refs, is_dangling, relink, stem_of, unlink
from .trim import EPISODIC_RANK, decay_rank

REGION_MIN = 6  # a family with at least this many unreachable files gets a region pointer
REGION_COST = 120  # characters kept back for each region pointer a repair may write
LESSON_MIN = 30  # characters of hook that make a lesson worth its own file
_FAMILY = re.compile(r"^([^_\-]+)([_-])")


class NothingToRepair(NothingToRebuild):
    """The indexes hold nothing a repair would change."""


# ---------------------------------------------------------------- the repair


@dataclass
class RepairPlan:
    """What :func:`plan_repair` found, for the dream's evidence."""

    repointed: list[str]
    unlinked: list[str]
    merged: list[str]
    indexed: list[str]
    regions: list[str]
    archived_listed: list[str]
    cross_listed: list[str]
    kept: list[str]  # dangling pointers with no evident target
    documents: list[str]  # the folder's own documents reached by nothing, left unlisted

    @property
    def evidence(self) -> list[str]:
        return (self.repointed + self.unlinked + self.merged + self.indexed + self.regions
                + self.archived_listed + self.cross_listed)


def family_of(name: str) -> str | None:
    """The glob of a file name's family (``session_*.md``), or None."""
    match = _FAMILY.match(name)
    if match is None or not name.lower().endswith(".md"):
        return None
    glob = f"{match.group(1)}{match.group(2)}*.md"
    return glob if glob_regex(glob) is not None else None


NEW_HOOK = 200  # characters a hook memtui writes may take (Claude Code's advice for a line)


def entry_hook(f: MemoryFile) -> str:
    """The hook of a new entry: the file's ``description`` (cut, past :data:`NEW_HOOK`
    characters, to its own operative clauses, else its first clause: the file holds the rest),
    else its body's first sentence, else its title."""
    if f.description:
        if len(f.description) <= NEW_HOOK:
            return f.description
        from .trim import first_clause, short_text

        return short_text(f.description, NEW_HOOK) or first_clause(f.description, NEW_HOOK)
    for line in f.body.splitlines():
        text = line.strip().lstrip("\ufeff#>-*+ ").strip()
        if len(text) >= 12 and not text.startswith(("```", "|", "<!--", "---")) and text != f.title:
            text = " ".join(text.split())
            cut = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
            return cut if len(cut) <= 150 else cut[:149].rsplit(" ", 1)[0] + "…"
    return f.title


#: the types of a standing rule (a person's or the agent's rule, a decision)
RULE_TYPES = ("user", "feedback", "decision")


def is_standing_rule(f: MemoryFile) -> bool:
    """Whether a file is a standing rule: its ``type`` is ``user``, ``feedback`` or ``decision``,
    or, with no type, its name says so (``feedback_*.md``) — never a file named as a log of work
    (``session_…``, :func:`~memtui.core.model.standing.is_log_name`), whatever its type."""
    from ..model.standing import is_log_name

    if is_log_name(f.path):
        return False
    kind = f.frontmatter.get("type").strip().lower()
    if kind:
        return kind in RULE_TYPES
    return f.name.lower().startswith(tuple(f"{t}{sep}" for t in RULE_TYPES for sep in "_-"))


def _is_live(f: MemoryFile) -> bool:
    return not (f.archived or f.status == "superseded" or f.frontmatter.names("superseded_by"))


def repair(snapshot: Snapshot) -> Changeset:
    """The repairs of both indexes as one changeset (raises :class:`NothingToRepair`)."""
    changeset, _ = plan_repair(snapshot)
    return changeset


def plan_repair(snapshot: Snapshot) -> tuple[Changeset, RepairPlan]:
    report = RepairPlan([], [], [], [], [], [], [], [], [])
    targets = Targets(snapshot)
    active = LineEdit(snapshot.index) if snapshot.index.exists else None
    archive_index = archive_index_of(snapshot)
    archive = LineEdit(archive_index)
    old_lines: list[str] = []
    to_archive: list[str] = []  # active lines moving to the archive index (file in archive/)

    for edit, is_active in ((active, True), (archive, False)):
        if edit is None:
            continue
        for pos, line in enumerate(edit.index.lines):
            if not line.refs and line.kind is not LineKind.ENTRY:
                continue  # no pointer, no link: nothing on it can dangle
            raw = line.raw
            if line.scope or line.kind is LineKind.COMMENT:
                continue
            new = raw
            if is_dangling(snapshot, line):
                assert line.resolved is not None
                found = targets.find(line.resolved)
                if found is None:
                    report.kept.append(f"{edit.index.path}:{line.number} {line.target}: no evident target, kept")
                else:
                    kind = "wikilink" if line.form is not None and line.form.value == "wikilink" else "link"
                    new = relink(raw, line.target, kind, found.target, found.mention)
                    if new != raw:
                        report.repointed.append(f"{edit.index.path}:{line.number} {line.target} → "
                                                f"{found.target}: {found.why}")
                        if found.archived and is_active:
                            to_archive.append(new.lstrip())
                            old_lines.append(raw)
                            edit.remove(pos)
                            continue
            refreshed = new
            for kind, target, resolved in broken_refs(snapshot, line):
                found = targets.find(resolved)
                if found is not None and not found.archived:
                    refreshed = relink(refreshed, target, kind, found.target, found.mention)
                    report.repointed.append(f"{edit.index.path}:{line.number} {target} → {found.target}: {found.why}")
                else:
                    refreshed = unlink(refreshed, target)
                    report.unlinked.append(f"{edit.index.path}:{line.number} {target}: no such file, "
                                           "link taken off, its words kept")
            if refreshed != raw:
                old_lines.append(raw)
                edit.replace(pos, refreshed)

    if active is not None:
        _merge_duplicates(snapshot, active, report, old_lines)
        _cross_listed(snapshot, active, archive, report, old_lines)
        _index_unreachable(snapshot, active, archive, report, documents=False)
    if to_archive:
        _append(archive, to_archive)

    ops: list[Operation] = []
    if active is not None and active.changed:
        ops += index_op(snapshot.index, active.render())
    archive_ops = index_op(archive_index, archive.render()) if archive.changed else []
    if not ops and not archive_ops:
        raise NothingToRepair("the indexes need no repair")
    ops += archive_ops
    if old_lines:
        state = apply_to_snapshot(snapshot, ops).snapshot if ops else snapshot
        ops += history_ops(state, history_block("lines repaired by memtui (their text before)", old_lines))
    parts = []
    for label, items in (("repointed", report.repointed), ("unlinked", report.unlinked),
                         ("merged", report.merged), ("indexed", report.indexed),
                         ("region pointers", report.regions), ("listed as archived", report.archived_listed),
                         ("cross-listed fixed", report.cross_listed)):
        if items:
            parts.append(f"{len(items)} {label}")
    return Changeset("repair", "repair the indexes: " + ", ".join(parts or ["line fixes"]), tuple(ops)), report


def _append(edit: LineEdit, raws: list[str]) -> None:
    lines = edit.index.lines
    if not lines and not edit.inserted:
        edit.insert_after(-1, "# Memory archive", "", *raws)
    else:
        edit.insert_after(len(lines) - 1, *raws)


def _merge_duplicates(snapshot: Snapshot, active: LineEdit, report: RepairPlan, old_lines: list[str]) -> None:
    groups: dict[str, list[int]] = defaultdict(list)
    for pos, line in enumerate(active.index.lines):
        if line.kind is LineKind.ENTRY and line.resolved is not None and line.resolved in snapshot.files \
                and not line.scope:
            groups[line.resolved].append(pos)
    lines = active.index.lines
    for path, positions in groups.items():
        # a prose bullet that links the file (an inline fact) is the author's text, not an entry
        positions = [p for p in positions if entry_is_lead(lines[p])]
        if len(positions) < 2:
            continue
        keep = positions[0]
        current = active.replaced.get(keep, [lines[keep].raw])
        base = current[0] if current else lines[keep].raw
        own_title = lines[keep].title.strip()
        found: list[str] = []
        for p in [keep] + [p for p in positions if p != keep]:
            hook = lines[p].hook.strip()
            title = lines[p].title.strip()
            if p != keep and hook and title and title != own_title and title not in hook \
                    and title.lower() != path.rpartition("/")[2].lower():
                hook = f"{title}: {hook}"  # the other entry's title says what its hook is about
            found.append(hook)
        hooks = distinct_hooks(found)
        merged = "; ".join(h.rstrip(".") if k < len(hooks) - 1 else h for k, h in enumerate(hooks))
        new = with_hook(base, merged) if merged and merged != lines[keep].hook.strip() else base
        for p in positions:
            if p != keep:
                old_lines.append(lines[p].raw)
                active.remove(p)
        if new != lines[keep].raw:
            old_lines.append(lines[keep].raw)
            active.replace(keep, new)
        report.merged.append(f"{path}: {len(positions)} entries made one (line {keep + 1}), "
                             f"{len(hooks)} distinct hook{'s' if len(hooks) != 1 else ''} kept")


def distinct_hooks(hooks: list[str]) -> list[str]:
    """The non-empty hooks, in order, without those another one contains.

    A hook inside one already kept is dropped; a hook that contains kept ones replaces them
    and goes last.  Whether a hook lies inside a kept one is one search of every hook kept so
    far (one dropped lies inside one kept, so searching it too gives the same answer); the kept
    hooks inside a new one are looked up among its substrings of their lengths when those are
    fewer than the kept hooks (the cuts of each length, and whether any of them is kept, are
    found in C: a merged entry of a rotted index has hundreds of hooks).
    """
    kept: dict[str, None] = {}  # ordered: the hooks kept so far
    widths: dict[int, int] = {}  # how many kept hooks have each length
    ordered: list[int] = []  # the lengths of kept hooks, ascending
    seen = ""  # every hook kept so far, each after a newline (no hook holds one: it is one line)
    for hook in hooks:
        if not hook:
            continue
        if "\n" in hook:  # not from one line: the plain walk
            if any(hook in h for h in kept):
                continue
        elif hook in kept or hook in seen:
            continue
        width = len(hook)
        cuts = _cuts(width, tuple(ordered[:bisect_left(ordered, width)]))
        if len(kept) <= len(cuts):
            inside = [h for h in kept if h in hook]
        elif kept.keys().isdisjoint(map(hook.__getitem__, cuts)):
            inside = []
        else:
            inside = [piece for piece in dict.fromkeys(map(hook.__getitem__, cuts)) if piece in kept]
        for h in inside:
            del kept[h]
            widths[len(h)] -= 1
            if not widths[len(h)]:
                del widths[len(h)]
                ordered.remove(len(h))
        kept[hook] = None
        if width in widths:
            widths[width] += 1
        else:
            widths[width] = 1
            insort(ordered, width)
        seen += "\n" + hook
    return list(kept)


@lru_cache(maxsize=1024)
def _cuts(width: int, shorter: tuple[int, ...]) -> tuple[slice, ...]:
    """Every cut of a text of ``width`` characters to each of the ``shorter`` lengths."""
    return tuple(slice(i, i + w) for w in shorter for i in range(width - w + 1))


def _cross_listed(snapshot: Snapshot, active: LineEdit, archive: LineEdit, report: RepairPlan,
                  old_lines: list[str]) -> None:
    in_active = {line.resolved: pos for pos, line in enumerate(active.index.lines)
                 if line.kind is LineKind.ENTRY and pos not in active.replaced}
    for pos, line in enumerate(archive.index.lines):
        if line.kind is not LineKind.ENTRY or line.resolved not in in_active or pos in archive.replaced:
            continue
        f = snapshot.files.get(line.resolved or "")
        if f is None:
            continue
        if _is_live(f):
            old_lines.append(line.raw)
            archive.remove(pos)
            report.cross_listed.append(f"{line.resolved}: live and in MEMORY.md, its archive-index line "
                                       "leaves (kept in MEMORY-history.md)")
        elif f.archived:
            apos = in_active[line.resolved]
            old_lines.append(active.index.lines[apos].raw)
            active.remove(apos)
            report.cross_listed.append(f"{line.resolved}: archived and listed in the archive index, its "
                                       "active entry leaves (kept in MEMORY-history.md)")


def unreachable(snapshot: Snapshot) -> list[str]:
    """The files nothing reaches (no entry, archive line, region or mention), memtui's history
    and team files aside."""
    reach = reach_of(snapshot)
    structural = _structural(snapshot)
    return [path for path in snapshot.files
            if path not in structural and path != HISTORY_NAME and not in_team(path)
            and not reach.direct.get(path) and path not in reach.archived
            and path not in reach.region and path not in reach.mention]


def unlisted_documents(snapshot: Snapshot) -> list[str]:
    """The folder's own documents (:func:`is_folder_document`) that nothing reaches."""
    return [path for path in unreachable(snapshot) if is_folder_document(path, snapshot.files[path])]


def index_documents(snapshot: Snapshot, only: Collection[str] | None = None) -> Changeset:
    """Entries for the folder's own documents that nothing reaches (``only``: those of them),
    beside their siblings or under ``## Recent`` (raises :class:`NothingToRepair` when there
    are none)."""
    if not snapshot.index.exists:
        raise NothingToRepair("the root has no MEMORY.md")
    active = LineEdit(snapshot.index)
    report = RepairPlan([], [], [], [], [], [], [], [], [])
    _index_unreachable(snapshot, active, LineEdit(archive_index_of(snapshot)), report, documents=True,
                       only=only)
    if not active.changed:
        raise NothingToRepair("no document of the folder is unlisted")
    names = ", ".join(path for path in unlisted_documents(snapshot) if only is None or path in only)
    return Changeset("documents", f"list the folder's own documents in MEMORY.md: {names}",
                     tuple(index_op(snapshot.index, active.render())))


def _index_unreachable(snapshot: Snapshot, active: LineEdit, archive: LineEdit, report: RepairPlan,
                       documents: bool, only: Collection[str] | None = None) -> None:
    """Index the unreachable files: the memories (``documents`` false; the folder's own documents
    are then named in ``report.documents``), or only the folder's own documents (``only``: those
    of them)."""
    orphans = _orphans(snapshot, report, documents, only)
    if not orphans:
        return
    files = snapshot.files
    live = [p for p in orphans if _is_live(files[p])]
    _list_archived(files, [p for p in orphans if p not in live], archive, report)
    if not live:
        return
    flat = not any(line.kind is LineKind.HEADING and heading_level(line) >= 2 for line in active.index.lines)
    by_family = _by_family(live)
    # near the fill target, a family of two or more takes one region line instead of entries
    cost = {p: len(new_entry(files[p], entry_hook(files[p]))) + 1 for p in live}
    budget = measure(active.index, snapshot.config)
    tight = budget.bytes + sum(cost.values()) > target_size(snapshot.config, None)[1]
    rules = _rules_with_entries(snapshot, active.index, live, by_family, cost, budget)
    regions, singles = _regions_and_singles(by_family, rules, tight, report)
    recent = _entries_beside_siblings(active, files, singles, _sibling_places(active.index, files, flat), flat,
                                      report)
    _append_blocks(active, recent, regions)


def _orphans(snapshot: Snapshot, report: RepairPlan, documents: bool, only: Collection[str] | None) -> list[str]:
    """The unreachable files to index: the folder's own documents or the memories (``only``:
    those of them); the documents left out of a memories' repair are named in ``report``."""
    orphans = []
    for path in unreachable(snapshot):
        if only is not None and path not in only:
            continue
        if is_folder_document(path, snapshot.files[path]) == documents:
            orphans.append(path)
        elif not documents:
            report.documents.append(path)
    return orphans


def _list_archived(files: Mapping[str, MemoryFile], archived: list[str], archive: LineEdit,
                   report: RepairPlan) -> None:
    """An archive-index line for each archived or superseded unreachable file."""
    for path in archived:
        _append(archive, [new_entry(files[path], files[path].description or files[path].title)])
        report.archived_listed.append(f"{path}: archived or superseded and reached by nothing; "
                                      "listed in the archive index")


def _family_of_path(path: str) -> str | None:
    return family_of(path.rpartition("/")[2])


def _by_family(paths: list[str]) -> dict[str, list[str]]:
    """The paths by name family (``""``: none), in their order."""
    by_family: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        by_family[_family_of_path(path) or ""].append(path)
    return by_family


def _sibling_keys(path: str, f: MemoryFile, flat: bool) -> list[tuple[str, str]]:
    """What makes a file a sibling of another: its name family, its type, its folder (the root's
    top counts only in an index without sections, ``flat``)."""
    fam = _family_of_path(path)
    keys = [("family", fam)] if fam else []
    kind = f.frontmatter.get("type").strip().lower()
    if kind:  # files that share having no type are not siblings
        keys.append(("type", kind))
    if "/" in path or flat:  # in a sectioned index the root's top is no folder
        keys.append(("folder", path.rpartition("/")[0]))  # a few siblings share
    return keys


def _sibling_places(index: Index, files: Mapping[str, MemoryFile], flat: bool) -> dict[tuple[str, str], int]:
    """Where the siblings are, by sibling key: the section holding most entries of the key (the
    later one on a tie), at its last such entry."""
    section_of = innermost_headings(index)
    seen: dict[tuple[str, str], dict[int | None, list[int]]] = defaultdict(dict)  # key → section → [count, last]
    for pos, line in enumerate(index.lines):
        if line.kind is LineKind.ENTRY and line.resolved is not None and line.resolved in files \
                and not line.scope:
            for key in _sibling_keys(line.resolved, files[line.resolved], flat):
                tally = seen[key].setdefault(section_of[pos], [0, pos])
                tally[0] += 1
                tally[1] = pos
    return {key: max(sections.values(), key=lambda tally: tally)[1] for key, sections in seen.items()}


def _rules_with_entries(snapshot: Snapshot, index: Index, live: list[str], by_family: dict[str, list[str]],
                        cost: dict[str, int], budget: Budget) -> list[str]:
    """The live standing rules that get entries of their own before episodic notes get region
    pointers (a rule reached only by grep is a rule the session never sees).

    None when they would take more than a quarter of the cap.  In an index past its cap all of
    them (the trims after the repair make room, episodic entries first); in one that loads in
    full, as many as its room holds and the room its episodic entries take (the decay after the
    repair moves those, oldest first, into the archive index, where the region pointer of their
    family still reaches them).
    """
    config = snapshot.config
    rules = [p for p in live if is_standing_rule(snapshot.files[p])]
    if not (len(rules) <= config.max_lines // 4 and sum(cost[p] for p in rules) <= config.max_bytes // 4):
        return []
    if not rules or budget.cut_line is not None or budget.over_lines or budget.over_bytes:
        return rules
    return _rules_that_fit(snapshot, index, live, rules, by_family, cost, budget)


def _rules_that_fit(snapshot: Snapshot, index: Index, live: list[str], rules: list[str],
                    by_family: dict[str, list[str]], cost: dict[str, int], budget: Budget) -> list[str]:
    """The ``rules``, in order, that the room of an index loading in full holds (its spare room
    and the room its episodic entries take), less what the other entries and the region pointers
    of this repair take."""
    # room for the rules first; kept back only for the lone notes that get an entry whatever
    # happens (a family of one, or none): families of several take a region pointer when tight
    config = snapshot.config
    lone = {fam for fam, paths in by_family.items() if not fam or len(paths) == 1}
    others = [p for p in live if p not in rules and (_family_of_path(p) or "") in lone]
    regions_at_most = 1 + sum(1 for fam, paths in by_family.items() if fam and len(paths) >= 2)
    spare_lines, spare_bytes = episodic_room(index, snapshot)
    room_bytes = (config.max_bytes - budget.bytes + spare_bytes - sum(cost[p] for p in others)
                  - REGION_COST * regions_at_most)
    room_lines = config.max_lines - budget.lines + spare_lines - len(others) - regions_at_most - 2  # (## Recent)
    return _first_that_fit(rules, cost, room_bytes, room_lines)


def _first_that_fit(paths: list[str], cost: dict[str, int], room_bytes: int, room_lines: int) -> list[str]:
    """The ``paths``, in order, whose entries (a line and ``cost`` bytes each) the room holds."""
    fitting: list[str] = []
    for p in paths:
        if cost[p] <= room_bytes and room_lines >= 1:
            fitting.append(p)
            room_bytes -= cost[p]
            room_lines -= 1
    return fitting


def _regions_and_singles(by_family: dict[str, list[str]], rules: list[str], tight: bool,
                         report: RepairPlan) -> tuple[list[str], list[str]]:
    """The region pointers (a family of many unreachable files, or of two or more when
    ``tight``) and the files that get entries of their own (``rules`` among them)."""
    regions: list[str] = []
    singles: list[str] = []
    for fam, paths in by_family.items():
        if rules:
            singles += [p for p in paths if p in rules]
            paths = [p for p in paths if p not in rules]
            if not paths:
                continue
        if fam and (len(paths) >= REGION_MIN or tight and len(paths) >= 2):
            prefix = fam.split("*")[0].rstrip("_-") or fam
            regions.append(region_line(fam, f"{len(paths)} more {prefix} notes; grep the memory dir"))
            report.regions.append(f"region `{fam}` for {len(paths)} unreachable files "
                                  f"({', '.join(paths[:3])}{', …' if len(paths) > 3 else ''})")
        else:
            singles += paths
    return regions, singles


def _entries_beside_siblings(active: LineEdit, files: Mapping[str, MemoryFile], singles: list[str],
                             last_by: dict[tuple[str, str], int], flat: bool, report: RepairPlan) -> list[str]:
    """An entry for each of ``singles`` after the last of its siblings; the entries of those
    without siblings are returned, for ``## Recent``."""
    recent: list[str] = []
    for path in singles:
        f = files[path]
        raw = new_entry(f, entry_hook(f))
        keys = _sibling_keys(path, f, flat)
        beside = next((last_by[k] for k in keys if k in last_by), None)
        where = next((k for k in keys if k in last_by), None)
        if beside is None:
            recent.append(raw)
            report.indexed.append(f"{path}: reached by nothing; entry added under ## Recent")
        else:
            active.insert_after(beside, raw)
            report.indexed.append(f"{path}: reached by nothing; entry added beside its {where[0]} "
                                  f"({where[1] or 'top level'}) at line {beside + 1}" if where else path)
    return recent


def _append_blocks(active: LineEdit, recent: list[str], regions: list[str]) -> None:
    """The ``recent`` entries under the ``## Recent`` heading and the ``regions`` after the last
    region pointer; those without a place in new blocks at the end of the index."""
    lines = active.index.lines
    last_region = max((pos for pos, line in enumerate(lines) if line.kind is LineKind.REGION), default=None)
    tail: list[str] = []
    if recent:
        heading = next((pos for pos, line in enumerate(lines) if line.kind is LineKind.HEADING
                        and line.raw.strip().lstrip("#").strip().lower() == "recent"), None)
        if heading is not None:
            active.insert_after(heading, *recent)
        else:
            tail += ["", "## Recent", *recent]
    if regions:
        if last_region is not None:
            active.insert_after(last_region, *regions)
        else:
            tail += ["", "## Regions", *regions]
    if tail:
        if not lines or not lines[-1].raw.strip():
            tail = tail[1:]
        active.insert_after(len(lines) - 1, *tail)


# ---------------------------------------------------------------- lessons


def episodic_room(index: Index, snapshot: Snapshot) -> tuple[int, int]:
    """The lines and characters (in the cap's unit) of the index's episodic entries — a session
    log's, a project note's, or any the decay moves before the rules (:func:`.trim.decay_rank`,
    DESIGN §4.1 (d)) — each the one entry of its file: the room a standing rule may take from
    what loads, the decay paying for it.  Pinned and informal pins (``** ACTIVE **``) take none."""
    sizes = unit_sizes(index, snapshot.config)
    ruled = rule_stating_lines(index)
    entries: dict[str, list[int]] = defaultdict(list)
    for pos, line in enumerate(index.lines):
        if line.kind is LineKind.ENTRY and not line.scope and line.resolved is not None:
            entries[line.resolved].append(pos)
    lines = size = 0
    for path, positions in entries.items():
        f = snapshot.files.get(path)
        if f is None or in_team(path) or len(positions) != 1:
            continue
        rank = decay_rank(index.lines[positions[0]], f, (), positions[0] in ruled)
        if rank is not None and rank[0] <= EPISODIC_RANK:
            lines += 1
            size += sizes[positions[0]]
    return lines, size


#: the name families of a note that holds a lesson (a rule, a feedback), not a log of progress
LESSON_FAMILIES = ("feedback", "lesson", "lessons", "rule", "rules", "user", "decision", "learning",
                   "learnings", "gotcha", "gotchas", "pitfall", "pitfalls", "guideline", "guidelines")


def holds_lesson(resolved: str, text: str) -> bool:
    """Whether a dangling entry's hook holds a lesson worth a topic file of its own: its file's
    name says it is a rule or a feedback (:data:`LESSON_FAMILIES`), or the hook states a rule.
    A session log's progress note ("wired X into Y; 5 methods exposed") is no lesson."""
    name = resolved.rpartition("/")[2].lower()
    if name.startswith(tuple(f"{fam}{sep}" for fam in LESSON_FAMILIES for sep in "_-")):
        return True
    return line_states_rule(text)


def lesson_paths(snapshot: Snapshot, every: bool = False) -> list[tuple[str, IndexLine]]:
    """Dangling active entries with no evident target whose hook is a lesson worth a file
    (:func:`holds_lesson`; ``every``: any hook long enough, whatever it holds)."""
    targets = Targets(snapshot)
    out: list[tuple[str, IndexLine]] = []
    seen: set[str] = set()
    for index in (snapshot.index, snapshot.archive_index):
        for line in index.entries:
            if not is_dangling(snapshot, line) or line.scope:
                continue
            assert line.resolved is not None
            if in_team(line.resolved):  # team memory is its teammates' to write
                continue
            text = (line.hook or (line.title if entry_is_lead(line) else "")).strip()
            if len(text) < LESSON_MIN or line.resolved in seen or targets.find(line.resolved) is not None:
                continue
            if not every and not holds_lesson(line.resolved, text):
                continue
            folder = line.resolved.rpartition("/")[0]
            if folder and not any(p.startswith(folder + "/") for p in snapshot.files):
                continue
            seen.add(line.resolved)
            out.append((line.resolved, line))
    return out


MISSING_MIN = 10  # dangling entries before an index can be said to come from elsewhere


def missing_targets(snapshot: Snapshot) -> tuple[list[str], int]:
    """(the files ``MEMORY.md``'s entries name that the folder does not hold and no evident
    target replaces, the number of files its entries name)."""
    index = snapshot.index
    targets = Targets(snapshot)
    named: set[str] = set()
    missing: list[str] = []
    for line in index.entries:
        if line.scope or line.resolved is None or line.resolved in named:
            continue
        named.add(line.resolved)
        if is_dangling(snapshot, line) and targets.find(line.resolved) is None:
            missing.append(line.resolved)
    return missing, len(named)


def copied_from_elsewhere(snapshot: Snapshot) -> list[str]:
    """The files an index names that the folder does not hold, when they are most of what it
    names (at least :data:`MISSING_MIN`): an index copied from another machine without its
    files.  Empty otherwise."""
    missing, named = missing_targets(snapshot)
    return missing if len(missing) >= MISSING_MIN and len(missing) * 2 > named else []


def lessons(snapshot: Snapshot, every: bool = False) -> Changeset:
    """Recreate each missing topic file whose lesson survives only as an index hook: the file
    holds the title and the hook, said to be recovered from the index (``every``: each hook
    long enough, lesson or not — what a person may ask of an index copied from elsewhere)."""
    found = lesson_paths(snapshot, every)
    plain = [] if every else [(path, line) for path, line in lesson_paths(snapshot, every=True)
                              if path not in {p for p, _ in found}]
    if not found and not plain:
        raise NothingToRepair("no dangling pointer carries a lesson to keep")
    ops: list[Operation] = []
    for path, line in found:
        source = INDEX_NAME if any(line is own for own in snapshot.index.lines) else snapshot.archive_index.path
        name = path.rpartition("/")[2]
        kind = name.split("_", 1)[0].lower()
        type_ = kind if kind in ("feedback", "project", "reference", "user") else (
            "project" if kind == "session" else "reference")
        title = " ".join(line.title.split()) or stem_of(name)
        hook = " ".join(line.hook.split()) or title
        description = hook if len(hook) <= 200 else hook[:199].rsplit(" ", 1)[0] + "…"
        text = (f"---\nname: {title}\ndescription: {description}\ntype: {type_}\n"
                f"recovered_from: {source}\n---\n\n"
                f"# {title}\n\n{hook}\n\n"
                f"_The original file was missing; this note was recovered from its index entry "
                f"(line {line.number})._\n")
        ops.append(Create(path, encode_text(text)))
    said = [f"recover {len(ops)} lesson{'s' if len(ops) != 1 else ''} kept only as index hooks into topic files"]
    if plain:
        ops += _plain_words(snapshot, [line for _, line in plain])
        said.append(f"{len(plain)} pointer{'s' if len(plain) != 1 else ''} to a missing note that held no "
                    "lesson made plain words (a log's progress note: its words stay, no file is made up)")
    return Changeset("lesson", "; ".join(said), tuple(ops))


def _plain_words(snapshot: Snapshot, lines: list[IndexLine]) -> list[Operation]:
    """The dangling entries' links taken off, their words kept where they were (the lines as
    they were, byte for byte, in ``MEMORY-history.md``)."""
    ops: list[Operation] = []
    old: list[str] = []
    for index in (snapshot.index, snapshot.archive_index):
        mine = [line for line in lines if any(line is own for own in index.lines)]
        if not mine:
            continue
        edit = LineEdit(index)
        for line in mine:
            assert line.target is not None
            new = unlink(line.raw, line.target)
            if new != line.raw:
                edit.replace(line.number - 1, new)
                old.append(line.raw)
        if edit.changed:
            ops += index_op(index, edit.render())
    if ops:
        state = apply_to_snapshot(snapshot, ops).snapshot
        ops += history_ops(state, history_block("pointers to missing notes made plain words by memtui "
                                                "(their text before)", old))
    return ops
