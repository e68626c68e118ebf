"""Rebuild ``MEMORY.md`` from disk: Pinned, Recent newest first up to 80% of the cap, Regions.

- **Pinned**: every ``pinned: true`` file outside ``archive/`` (existing entries first, in index
  order).
- **Recent**: entries marked like informal pins (``** ACTIVE **``, ``** START HERE **``) first —
  always kept while the hard cap allows — then the files the index already lists, newest first
  (every file, when the index lists none), until the whole index would pass 80% of the line or
  byte cap.
  Files listed in the archive index (decayed), archived or superseded are left out.
- **Regions**: one pointer per file-name family (the name up to its first ``_`` or ``-``, e.g.
  ``session_*.md``) with at least two members, when a member is not in the working set; a file
  with no family goes to the archive index instead.  Every file stays reachable.

Entries keep their own text (hook, title, markers), and so do region pointers whose glob is
derived again; entries inside a ``PATH_SCOPE`` section stay in their section.  Broken entries
are dropped.  Every other line — prose, inline facts, comments, other headings,
entries pointing outside the root — is kept in its order: what came before the first entry or
section stays on top, the rest follows the three blocks.  Age is ``updated``/``date``/``created``,
else a date in the file name, else the modification time.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Iterable

from .budget import FILL_TARGET, stripped_lines, text_size
from .changeset import Changeset, Create, Operation, VerbError, Write, unified_diff
from .index import region_line
from .index_edit import (
    PINNED,
    RECENT,
    REGIONS,
    IndexDraft,
    dominant_ending,
    heading_level,
    is_block_heading,
    new_entry,
    portable_raw,
)
from .model import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX_NAME,
    CLAUDE_CODE_LOADER,
    INDEX_NAME,
    Index,
    IndexLine,
    LineKind,
    MemoryFile,
    Snapshot,
    encode_text,
)
from .validate import _structural, glob_regex

INFORMAL_PIN = re.compile(r"\*\*\s*(?:ACTIVE|START HERE)\b[^*]*\*\*")
_FAMILY = re.compile(r"^([^_\-]+)([_-])")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
_LOOSE_DATE = re.compile(r"(?<!\d)(20\d\d|19\d\d)[-_](\d\d)[-_](\d\d)(?!\d)")


class NothingToRebuild(VerbError):
    """The index is already what a rebuild would write."""


def file_age_key(f: MemoryFile, entry: str = "") -> tuple[str, float]:
    """Sort key for newest first: the file's date (ISO) and its modification time.  The date is
    ``updated``/``date``/``created``, else one in the file name, else one in its index entry,
    else the modification time."""
    for key in ("updated", "date", "created"):
        match = _DATE.match(f.frontmatter.get(key).strip())
        if match:
            return match.group(1), f.mtime
    for text in (f.name, entry):
        found = _LOOSE_DATE.search(text)
        if found:
            return "-".join(found.groups()), f.mtime
    return datetime.fromtimestamp(f.mtime).date().isoformat(), f.mtime


def family_glob(name: str) -> tuple[str, str] | None:
    """(glob, prefix) of a file name's family, e.g. ``('session_*.md', 'session')``."""
    if not name.endswith(".md"):
        return None
    match = _FAMILY.match(name)
    if match is None:
        return None
    glob = f"{match.group(1)}{match.group(2)}*.md"
    return (glob, match.group(1)) if glob_regex(glob) is not None else None


def _collapse(raws: Iterable[str]) -> list[str]:
    """Lines with runs of blank lines made one, and no blank line at either end."""
    out: list[str] = []
    for raw in raws:
        if not raw.strip() and (not out or not out[-1].strip()):
            continue
        out.append(raw)
    while out and not out[-1].strip():
        out.pop()
    return out


def _newest_first(snapshot: Snapshot, paths: Iterable[str], entries: dict[str, IndexLine]) -> list[str]:
    def key(path: str) -> tuple[tuple[str, float], str]:
        line = entries.get(path)
        return file_age_key(snapshot.files[path], line.raw if line is not None else ""), path

    return sorted(paths, key=key, reverse=True)


def rebuild(snapshot: Snapshot) -> Changeset:
    """Regenerate ``MEMORY.md`` (and complete the archive index); the diff is in the result."""
    files = snapshot.files
    index = snapshot.index
    config = snapshot.config
    structural = _structural(snapshot)
    nested = tuple(root + "/" for root in snapshot.nested_roots)
    archive_listed = {ln.resolved for ln in snapshot.archive_index.entries if ln.resolved}

    existing: dict[str, IndexLine] = {}
    scoped: set[str] = set()
    region_raws = {ln.glob: ln.raw.lstrip() for ln in reversed(index.regions)}
    order = {glob: i for i, glob in enumerate(dict.fromkeys(ln.glob for ln in index.regions))}
    informal: list[str] = []
    preamble: list[str] = [] if index.exists else ["# Memory"]
    post: list[str] = []
    started = False
    dropped = 0
    for line in index.lines:
        if line.kind is LineKind.ENTRY:
            started = True
            target = line.resolved
            usable = (
                target is not None and target in files and not line.escapes
                and target not in structural and target not in snapshot.outside
                and not target.startswith(nested)
            )
            if usable and target is not None and line.scope:
                scoped.add(target)  # a PATH_SCOPE section keeps its entries where they are
            elif usable and target is not None:
                if target not in existing:
                    existing[target] = line
                    if INFORMAL_PIN.search(line.raw):
                        informal.append(target)
                continue
            if target is not None and not line.escapes and target not in files and not target.startswith(nested):
                dropped += 1
                continue
        elif line.kind is LineKind.REGION or is_block_heading(line):
            started = True
            continue
        elif heading_level(line) >= 2:
            started = True
        (post if started else preamble).append(line.raw)
    preamble, post = _collapse(preamble), _collapse(post)

    def eligible(path: str) -> bool:
        f = files[path]
        return not (
            path.startswith(ARCHIVE_DIR + "/") or f.status in ("archived", "superseded")
            or f.frontmatter.names("superseded_by") or path in structural
        )

    pinned = [p for p, f in files.items() if f.pinned and eligible(p) and p not in scoped]
    pinned = [p for p in existing if p in pinned] + _newest_first(
        snapshot, [p for p in pinned if p not in existing], existing
    )
    pinned_set = set(pinned)
    informal = [p for p in informal if eligible(p) and p not in pinned_set]
    pool = [p for p in files if eligible(p) and p not in pinned_set and p not in archive_listed
            and p not in scoped]
    listed = _newest_first(snapshot, [p for p in pool if p in existing and p not in informal], existing)
    # a fresh index is filled from disk; an existing one keeps its curation (the rest is covered)
    others = [] if existing else _newest_first(snapshot, [p for p in pool if p not in existing], existing)

    def raw_for(path: str) -> str:
        f = files[path]
        if path in existing:
            return portable_raw(existing[path], f, path)
        return new_entry(f, f.description or f.title)

    members: dict[str, int] = {}
    for path in files:
        if path in structural:
            continue
        fam = family_glob(path.rsplit("/", 1)[-1])
        if fam is not None:
            members[fam[0]] = members.get(fam[0], 0) + 1

    def cover(working: set[str]) -> tuple[list[str], list[str]]:
        """Region lines for the families that need one, and the files no family covers."""
        needed: dict[str, str] = {}
        singles: list[str] = []
        for path in files:
            if path in structural or path in working or path in archive_listed:
                continue
            fam = family_glob(path.rsplit("/", 1)[-1])
            if fam is not None and members.get(fam[0], 0) >= 2:
                needed[fam[0]] = fam[1]
            else:
                singles.append(path)
        regions = [
            region_raws.get(glob) or region_line(glob, f"more {prefix} notes; grep the memory dir")
            for glob, prefix in sorted(needed.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))
        ]
        return regions, singles

    pinned_raws = [raw_for(p) for p in pinned]

    def assemble(recent: list[str], regions: list[str]) -> list[str]:
        out = list(preamble)
        for title, raws in ((PINNED, pinned_raws), (RECENT, recent), (REGIONS, regions)):
            if raws:
                if out:
                    out.append("")
                out += [f"## {title}"] + raws
        if post:
            if out:
                out.append("")
            out += post
        return out

    nl = dominant_ending(index)
    bom = 3 if index.bom else 0

    # in the loader's unit: claude-code counts characters (no BOM, CRLF as one)
    claude = config.loader == CLAUDE_CODE_LOADER
    unit_bom, unit_nl = (0, 1) if claude else (bom, len(nl))

    def size(raws: list[str]) -> int:
        return unit_bom + sum(text_size(r, config.loader) + unit_nl for r in raws)

    upper_regions, _ = cover(pinned_set | scoped)
    base = assemble([], upper_regions)
    # only what the loader profile counts: kept frontmatter and comment blocks may be stripped
    strip = stripped_lines(base, config.loader)
    counted = [raw for k, raw in enumerate(base) if k not in strip]
    lines, used = len(counted) + 2, size(counted) + size(["", f"## {RECENT}"]) - unit_bom
    target_lines = int(config.max_lines * FILL_TARGET)
    target_bytes = int(config.max_bytes * FILL_TARGET)
    chosen_informal: list[str] = []
    for path in informal:
        cost = text_size(raw_for(path), config.loader) + unit_nl
        if lines + 1 <= config.max_lines and used + cost <= config.max_bytes:
            chosen_informal.append(path)
            lines, used = lines + 1, used + cost
    chosen: list[str] = []
    for path in listed + others:
        cost = text_size(raw_for(path), config.loader) + unit_nl
        if lines + 1 > target_lines or used + cost > target_bytes:
            break
        chosen.append(path)
        lines, used = lines + 1, used + cost

    recent_paths = chosen_informal + _newest_first(snapshot, chosen, existing)
    working = pinned_set | set(recent_paths) | scoped
    regions, singles = cover(working)
    new_lines = assemble([raw_for(p) for p in recent_paths], regions)
    data = (b"\xef\xbb\xbf" if index.bom else b"") + encode_text("".join(r + nl for r in new_lines))

    archive_draft = IndexDraft(
        snapshot.archive_index if snapshot.archive_index.exists else Index(ARCHIVE_INDEX_NAME, False),
        files.__contains__,
    )
    for path in working:
        if not path.startswith(ARCHIVE_DIR + "/"):
            archive_draft.remove_entries(path)
    for path in singles:
        f = files[path]
        hook = existing[path].hook if path in existing and existing[path].hook else f.description or f.title
        archive_draft.append_entry(new_entry(f, hook))

    ops: list[Operation] = []
    if not index.exists:
        ops.append(Create(INDEX_NAME, data))
    elif data != index.render():
        ops.append(Write(INDEX_NAME, data, index.render()))
    if archive_draft.changed:
        if archive_draft.existed:
            assert archive_draft.original is not None
            ops.append(Write(archive_draft.path, archive_draft.render(), archive_draft.original))
        else:
            ops.append(Create(archive_draft.path, archive_draft.render()))
    if not ops:
        raise NothingToRebuild(f"{INDEX_NAME} is already what rebuild would write")
    parts = [f"{len(pinned)} pinned", f"{len(recent_paths)} recent", f"{len(regions)} region pointers"]
    if singles:
        parts.append(f"{len(singles)} added to {archive_draft.path}")
    if dropped:
        parts.append(f"{dropped} broken entr{'y' if dropped == 1 else 'ies'} dropped")
    changeset = Changeset("rebuild", f"rebuild {INDEX_NAME}: " + ", ".join(parts), tuple(ops))
    return Changeset(changeset.verb, changeset.description, changeset.ops, unified_diff(snapshot, changeset))
