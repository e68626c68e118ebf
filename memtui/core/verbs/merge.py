"""The ``merge`` verb (DESIGN §4): fold a cluster of memory files into one gist file.

Pure: a snapshot in, a :class:`~memtui.core.model.changeset.Changeset` out; :mod:`memtui.core.write`
gates and writes it, and undoes it byte for byte.

What a merge of ``a.md`` and ``b.md`` (``b.md`` the newer) does:
- **the gist** is a new file beside the newer source: its frontmatter block is the newer
  file's, with ``consolidated_from: a.md, b.md`` (the sources as they were named, in the order
  given; the validator finds them under ``archive/`` afterwards) and, when a source was pinned,
  ``pinned: true``.  Its body is the one the caller gives, else the newer body followed by the
  lines of the older bodies it does not already hold (a fenced code block counts as one line;
  each older file's part under a ``## From a.md`` heading).  Its name is the slug of its title,
  else ``slug_YYYY-MM-DD.md`` (the newest date the sources state, else the merge day), then
  ``-2``, ``-3``… — never a source's name, so a name in ``consolidated_from`` always means the
  archived source.  The newer file is the one with the newer known date; a modification time a
  copy made (every file of the root written within minutes) is no date, and between sources no
  date tells apart the largest is the base (a long guide merged with its one-page summary keeps
  the guide's title).
- **the sources** get ``folded_into: <gist>`` (and lose ``pinned``) and move, otherwise intact,
  to ``archive/<path>``, each with an entry in ``MEMORY-archive.md``.
- **the index**: the sources' entries leave ``MEMORY.md`` and the gist's entry takes the place
  of the first of them (in the Pinned block when the gist is pinned).  When no source had one,
  the sources were not in the working set and neither is the gist: like a decayed file it is
  reached through a region pointer or, failing that, an entry in ``MEMORY-archive.md``.
- A cluster with a pinned file is refused unless ``confirm_pinned``; archived files, index
  files, a file given twice or a single file are refused with a :class:`VerbError`.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from datetime import date
from typing import Sequence

from ..judge.contradictions import freshness
from ..model.changeset import Changeset, Create, Move, Operation, Refusal, VerbError, Write
from ..model.frontmatter import clear_key, parse_frontmatter, set_key
from ..model.index_edit import IndexDraft, new_entry, one_line
from ..model.snapshot import ARCHIVE_DIR, LineKind, MemoryFile, Snapshot, encode_text
from ..tidy.lines import keep_erased
from ..tidy.unreachable import family_of
from .lifecycle import _draft, _file, hook_for, region_covers, slugify

_FENCE = re.compile(r"^\s*(```|~~~)")


def merge(
    snapshot: Snapshot,
    paths: Sequence[str],
    *,
    body: str | None = None,
    confirm_pinned: bool = False,
    today: date | None = None,
    title: str | None = None,
) -> Changeset:
    """Fold the files at ``paths`` into one gist file (see the module docstring); ``title``
    names the gist (its ``name``; default the newest source's)."""
    sources = _sources(snapshot, paths)
    pinned = [f.path for f in sources if f.pinned]
    if pinned and not confirm_pinned:
        raise Refusal(
            f"{', '.join(pinned)} {'is' if len(pinned) == 1 else 'are'} pinned; merging needs "
            "confirmation (--yes), and the gist stays pinned"
        )
    plan = _gist_plan(snapshot, sources, today)
    newest, others, gist_path = plan.newest, plan.others, plan.path
    gist_text = gist_of(newest, sources, others, body)
    if title is not None and one_line(title):
        gist_text = set_key(gist_text, "name", one_line(title))
    gist_data = encode_text(gist_text)
    gist = MemoryFile(gist_path, len(gist_data), 0.0, gist_text, parse_frontmatter(gist_text))

    ops: list[Operation] = [Create(gist_path, gist_data)]
    archive = _draft(snapshot, archive=True)
    archive.remove_entries_of({f.path for f in sources})
    for f in sources:
        text = set_key(f.text, "folded_into", gist_path)
        if f.pinned:
            text = clear_key(text, "pinned")
        ops.append(Write(f.path, encode_text(text), f.data))
        dst = f"{ARCHIVE_DIR}/{f.path}"
        ops.append(Move(f.path, dst))
        archive.append_entry(new_entry(replace(f, path=dst), hook_for(snapshot, f)))
    draft = _draft(snapshot)
    _place_gist(snapshot, draft, archive, sources, newest, gist)
    renamed = _rename_mentions(snapshot, draft, sources, gist_path)
    for d in (draft, archive):
        if d.changed:
            ops.append(Write(d.path, d.render(), d.original) if d.original is not None
                       else Create(d.path, d.render()))
    names = ", ".join(f.path for f in sources)
    note = " (pinned)" if gist.pinned else ""
    changeset = Changeset("merge", f"merge {names} → {gist_path}{note}", tuple(ops))
    if renamed:  # the lines as they were, kept in MEMORY-history.md
        changeset = keep_erased(snapshot, changeset, "index lines that named a merged source (their text before)")
    return changeset


def _place_gist(
    snapshot: Snapshot,
    draft: IndexDraft,
    archive: IndexDraft,
    sources: Sequence[MemoryFile],
    newest: MemoryFile,
    gist: MemoryFile,
) -> None:
    """The gist's entry where the first source entry was; the other source entries go."""
    with_entry = [f for f in sources if draft.entries_for(f.path)]
    hook_from = newest if newest in with_entry else (with_entry[0] if with_entry else None)
    hook = hook_for(snapshot, hook_from) if hook_from is not None else (gist.description or gist.title)
    entry = new_entry(gist, hook)
    lines = sorted((line for f in sources for line in draft.entries_for(f.path)), key=lambda ln: ln.number)
    if not lines:
        if gist.pinned:
            draft.add_pinned(entry)
        elif not region_covers(snapshot.index, gist.path):
            archive.append_entry(entry)  # no working-set place to take: reachable, like a decayed file
        return
    first = lines[0]
    if gist.pinned and not draft.in_block(first, "Pinned"):
        for f in sources:
            draft.remove_entries(f.path)
        draft.add_pinned(entry)
        return
    indent = first.raw[: len(first.raw) - len(first.raw.lstrip())]
    draft.items[first.number - 1] = (indent + entry, draft.items[first.number - 1][1])
    draft.remove([line.number - 1 for line in lines[1:]])
    draft.drop_empty_block("Pinned")


def _rename_mentions(snapshot: Snapshot, draft: IndexDraft, sources: Sequence[MemoryFile], gist_path: str) -> bool:
    """The index's other lines that name a source in backticks (an instruction such as "check
    `a.md` first") name the gist instead: what loads never sends the session to a file the
    merge archives.  Entries are left to :func:`_place_gist`; a path written whole is renamed
    whole, a bare name only when no other file of the root shares it.  Whether any was."""
    names: dict[str, str] = {}
    for f in sources:
        names[f"`{f.path}`"] = f"`{gist_path}`"
        bare = posixpath.basename(f.path)
        if bare != f.path and sum(posixpath.basename(p) == bare for p in snapshot.files) == 1:
            names.setdefault(f"`{bare}`", f"`{posixpath.basename(gist_path)}`"
                             if posixpath.dirname(gist_path) == posixpath.dirname(f.path) else f"`{gist_path}`")
    kinds = [line.kind for line in draft.index.lines]
    renamed = False
    for k, (raw, ending) in enumerate(draft.items):
        if k < len(kinds) and kinds[k] is LineKind.ENTRY or "`" not in raw:
            continue
        new = raw
        for old, to in names.items():
            new = new.replace(old, to)
        if new != raw:
            draft.items[k] = (new, ending)
            draft._reparse()
            renamed = True
    return renamed


@dataclass(frozen=True)
class _GistPlan:
    """Which source is the newest, the others newest first, and where the gist goes."""

    newest: MemoryFile
    others: tuple[MemoryFile, ...]
    path: str


def _gist_plan(snapshot: Snapshot, sources: Sequence[MemoryFile], today: date | None) -> _GistPlan:
    dated = _known_dates(snapshot, sources)
    # the newest known date first; between sources no date tells apart, the largest (a gist of a
    # long guide and its one-page summary is the guide, not the summary)
    newest = max(sources, key=lambda f: (dated[f.path] is not None, dated[f.path] or date.min, len(f.body), f.path))
    others = sorted((f for f in sources if f is not newest), key=lambda f: (-freshness(f), f.path))
    stamp = dated[newest.path] or max((d for d in dated.values() if d is not None), default=None)
    return _GistPlan(newest, tuple(others), gist_name(snapshot, newest, sources, stamp or today or date.today()))


def _known_dates(snapshot: Snapshot, sources: Sequence[MemoryFile]) -> dict[str, date | None]:
    """When each source was last true, as far as anything says (:func:`~memtui.core.judge.ages.stated_date`):
    None for a file dated only by a modification time the root's copy made (all its files
    written within minutes: a clone, a backup, a restore — that time is no age)."""
    from ..judge.ages import MTIME_SOURCE, mtime_burst, stated_date

    copied: frozenset[str] | None = None  # the files the root's copy wrote, asked once
    out: dict[str, date | None] = {}
    for f in sources:
        when, source = stated_date(f)
        if source == MTIME_SOURCE:
            if copied is None:
                burst = mtime_burst(snapshot.files)
                copied = burst.paths if burst is not None else frozenset()
            if f.path in copied:
                out[f.path] = None
                continue
        out[f.path] = when.date()
    return out


@dataclass(frozen=True)
class GistDraft:
    """What :func:`merge` writes when given no body: the gist's path, its body, the provenance."""

    path: str
    body: str
    provenance: tuple[str, ...]


def gist_draft(snapshot: Snapshot, paths: Sequence[str], today: date | None = None) -> GistDraft:
    """The gist a merge of ``paths`` would write by default (the merge review shows and edits it)."""
    sources = _sources(snapshot, paths)
    plan = _gist_plan(snapshot, sources, today)
    nl = _newline(plan.newest)
    names = ", ".join(f.path for f in sources)
    provenance = (
        f"{plan.path}: new gist, consolidated_from: {names}",
        *(f"{f.path} → {ARCHIVE_DIR}/{f.path}, folded_into: {plan.path}" for f in sources),
    )
    if any(f.pinned for f in sources):
        provenance += (f"{plan.path}: pinned: true (a source was pinned)",)
    return GistDraft(plan.path, merged_body(plan.newest, plan.others, nl), provenance)


def _newline(f: MemoryFile) -> str:
    return "\r\n" if "\r\n" in f.text[:4096] else "\n"


def _sources(snapshot: Snapshot, paths: Sequence[str]) -> list[MemoryFile]:
    sources: list[MemoryFile] = []
    for raw in paths:
        f = _file(snapshot, raw)
        if f.archived:
            raise VerbError(f"'{f.path}' is archived; restore it before merging")
        if any(s.path == f.path for s in sources):
            raise VerbError(f"'{f.path}' is named twice")
        dst = f"{ARCHIVE_DIR}/{f.path}"
        if dst in snapshot.files:
            raise VerbError(f"'{dst}' already exists; rename one of them first")
        sources.append(f)
    if len(sources) < 2:
        raise VerbError("a merge needs at least two files")
    return sources


def gist_name(snapshot: Snapshot, newest: MemoryFile, sources: Sequence[MemoryFile], today: date) -> str:
    """A free path for the gist beside the newest source: its title's slug, else dated by
    ``today`` (the date of the sources the gist gathers, when they state one).  The name family
    every source shares (``reference_``, ``feedback-`` …) begins the gist's name too: two
    reference notes merge into a reference note, found where its family is."""
    folder = posixpath.dirname(newest.path)
    folder = folder + "/" if folder else ""
    slug = slugify(newest.title) or slugify(newest.stem) or "merged"
    families = {family_of(posixpath.basename(f.path)) for f in sources}
    family = families.pop() if len(families) == 1 else None
    if family is not None:
        prefix = family[: -len("*.md")]
        if not slug.lower().startswith((prefix[:-1].lower() + "_", prefix[:-1].lower() + "-")):
            slug = prefix + slug
    taken = {f.path for f in sources}

    def free(name: str) -> bool:
        path = folder + name
        return not (
            path in taken
            or path in snapshot.files
            or f"{ARCHIVE_DIR}/{path}" in snapshot.files
            or path in snapshot.other_files
        )

    name = f"{slug}.md"
    if free(name):
        return folder + name
    stamp = today.isoformat()
    name = f"{slug}_{stamp}.md"
    n = 2
    while not free(name):
        name = f"{slug}_{stamp}-{n}.md"
        n += 1
    return folder + name


def gist_of(
    newest: MemoryFile,
    sources: Sequence[MemoryFile],
    others: Sequence[MemoryFile],
    body: str | None,
) -> str:
    """The gist's text: the newest file's frontmatter with provenance, and the merged body."""
    nl = _newline(newest)
    fm = newest.frontmatter
    if fm.present and fm.closed:
        head = newest.text[: fm.body_offset]
        for key in ("folded_into", "superseded_by"):
            head = clear_key(head, key)
        if newest.status in ("superseded", "archived"):
            head = clear_key(head, "status")
    else:
        head = f"---{nl}name: {newest.title}{nl}---{nl}"
    if body is None:
        body = merged_body(newest, others, nl)
    elif body and not body.endswith(("\n", "\r")):
        body += nl
    text = set_key(head + body, "consolidated_from", ", ".join(f.path for f in sources))
    if any(f.pinned for f in sources) and parse_frontmatter(text).get("pinned").strip().lower() != "true":
        text = set_key(text, "pinned", "true")
    return text


def _units(body: str) -> list[str]:
    """Body lines, with each fenced code block as one unit (so a merge never splits a fence)."""
    units: list[str] = []
    fence: list[str] | None = None
    marker = ""
    for line in body.splitlines():
        if fence is not None:
            fence.append(line)
            if line.strip().startswith(marker):
                units.append("\n".join(fence))
                fence = None
            continue
        match = _FENCE.match(line)
        if match:
            fence, marker = [line], match.group(1)
            continue
        units.append(line.rstrip())
    if fence is not None:
        units.append("\n".join(fence))
    return units


def merged_body(newest: MemoryFile, others: Sequence[MemoryFile], nl: str = "\n") -> str:
    """The newest body, then each older body's lines that the gist does not hold yet."""
    base = newest.body
    seen = {unit.strip() for unit in _units(base) if unit.strip()}
    parts = [base.rstrip("\r\n")]
    for f in others:
        kept: list[str] = []
        for unit in _units(f.body):
            key = unit.strip()
            if not key:
                if kept and kept[-1]:
                    kept.append("")
                continue
            if key in seen:
                continue
            seen.add(key)
            kept.append(unit)
        while kept and not kept[-1]:
            kept.pop()
        if kept:
            parts.append(f"## From {f.path}" + nl + nl + nl.join(k.replace("\n", nl) for k in kept))
    return (nl + nl).join(p for p in parts if p) + nl
