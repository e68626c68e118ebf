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
- a **live unreachable file** gets an entry next to its siblings, a family of many unreachable
  files one region pointer, an archived or superseded one an archive-index line; the folder's own
  documents are left out (:mod:`.unreachable`, which :func:`index_documents` also uses).

Every line replaced or removed is kept, byte for byte, in ``MEMORY-history.md``.  The archive
index gets the same link repairs.  :func:`lessons` is the last resort for a dangling pointer
whose hook is the only copy of a lesson (a rule, a feedback: :func:`holds_lesson`, never a log's
progress note): the hook becomes the missing topic file.  An index whose targets are mostly
missing (:func:`copied_from_elsewhere`) was copied without its files: the dream says so and
checks nothing for them.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Collection

from ..model.changeset import Changeset, Create, Operation, apply_to_snapshot
from ..model.index_edit import with_hook
from ..model.snapshot import INDEX_NAME, IndexLine, LineKind, Snapshot, encode_text, in_team
from .lines import (
    LineEdit,
    NothingToRebuild,
    append_to_archive,
    archive_index_of,
    entry_is_lead,
    history_block,
    history_ops,
    index_op,
    line_states_rule,
)
from .targets import Targets, broken_refs, is_dangling, relink, stem_of, unlink
from .unreachable import index_unreachable, is_live, unlisted_documents

LESSON_MIN = 30  # characters of hook that make a lesson worth its own file



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
        index_unreachable(snapshot, active, archive, report, documents=False)
    if to_archive:
        append_to_archive(archive, to_archive)

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
        if is_live(f):
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


def index_documents(snapshot: Snapshot, only: Collection[str] | None = None) -> Changeset:
    """Entries for the folder's own documents that nothing reaches (``only``: those of them),
    beside their siblings or under ``## Recent`` (raises :class:`NothingToRepair` when there
    are none)."""
    if not snapshot.index.exists:
        raise NothingToRepair("the root has no MEMORY.md")
    active = LineEdit(snapshot.index)
    report = RepairPlan([], [], [], [], [], [], [], [], [])
    index_unreachable(snapshot, active, LineEdit(archive_index_of(snapshot)), report, documents=True,
                      only=only)
    if not active.changed:
        raise NothingToRepair("no document of the folder is unlisted")
    names = ", ".join(path for path in unlisted_documents(snapshot) if only is None or path in only)
    return Changeset("documents", f"list the folder's own documents in MEMORY.md: {names}",
                     tuple(index_op(snapshot.index, active.render())))


# ---------------------------------------------------------------- lessons


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
