"""The files nothing reaches (:func:`unreachable`), and how the repair indexes them (DESIGN §4.1 rule 2).

A **live unreachable file** gets an entry next to its siblings (the last entry of its name
family, else of its type, else of its folder — the root's top counts only in an index without
sections), or in a ``## Recent`` block; a family of many unreachable files gets one region
pointer — but a live standing rule (:func:`is_standing_rule`) gets an entry of its own before
episodic notes get region pointers, unless the rules would take more than a quarter of the cap.
An archived or superseded unreachable file gets an archive-index line (that is what those lines
mean); a live one never does.  The folder's own documents
(:func:`~memtui.core.model.folder_docs.folder_document`: a ``README``, ``LICENSE``, a second
index, an unfilled template…) are left out: whoever published the folder put them there for
people, not for the agent, and :func:`.repair.index_documents` lists them only when a person asks.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Collection, Mapping, Protocol

from ..model.folder_docs import is_folder_document
from ..model.index import region_line
from ..model.index_edit import heading_level, new_entry
from ..model.snapshot import Index, LineKind, MemoryFile, Snapshot, in_team
from ..rules.budget import Budget, measure
from ..rules.validate import _structural, glob_regex, reach_of
from .lines import (
    HISTORY_NAME,
    LineEdit,
    append_to_archive,
    innermost_headings,
    rule_stating_lines,
    target_size,
    unit_sizes,
)
from .trim import EPISODIC_RANK, decay_rank

REGION_MIN = 6  # a family with at least this many unreachable files gets a region pointer
REGION_COST = 120  # characters kept back for each region pointer a repair may write
_FAMILY = re.compile(r"^([^_\-]+)([_-])")


class UnreachableReport(Protocol):
    """What indexing the unreachable files tells (:class:`.repair.RepairPlan` is one)."""

    indexed: list[str]
    regions: list[str]
    archived_listed: list[str]
    documents: list[str]  # the folder's own documents reached by nothing, left unlisted


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


def is_live(f: MemoryFile) -> bool:
    """Whether a file is neither archived nor superseded."""
    return not (f.archived or f.status == "superseded" or f.frontmatter.names("superseded_by"))


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


def index_unreachable(snapshot: Snapshot, active: LineEdit, archive: LineEdit, report: UnreachableReport,
                       documents: bool, only: Collection[str] | None = None) -> None:
    """Index the unreachable files: the memories (``documents`` false; the folder's own documents
    are then named in ``report.documents``), or only the folder's own documents (``only``: those
    of them)."""
    orphans = _orphans(snapshot, report, documents, only)
    if not orphans:
        return
    files = snapshot.files
    live = [p for p in orphans if is_live(files[p])]
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


def _orphans(snapshot: Snapshot, report: UnreachableReport, documents: bool, only: Collection[str] | None) -> list[str]:
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
                   report: UnreachableReport) -> None:
    """An archive-index line for each archived or superseded unreachable file."""
    for path in archived:
        append_to_archive(archive, [new_entry(files[path], files[path].description or files[path].title)])
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
                         report: UnreachableReport) -> tuple[list[str], list[str]]:
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
                             last_by: dict[tuple[str, str], int], flat: bool, report: UnreachableReport) -> list[str]:
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
