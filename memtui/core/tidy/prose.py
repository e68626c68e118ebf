"""A prose-dump index becomes pointers (DESIGN §4.1 rule 5): "a pointer file, not a content dump".

An index past its fill target that the loader does not read in full, whose text is mostly
detail (entries are fewer than a tenth of its content lines, and some section runs long) is
rewritten one section at a time, in order: a
section whose text names exactly one memory file becomes that file's entry (the heading as the
title, the file's ``description`` or the section's first sentence as the hook); a section
naming several files becomes one entry per file under its heading; another long section — or
one many times longer than the files it names (:data:`LOG_FACTOR`, :data:`LOG_CHARS`), such as a task log naming
a note in passing — moves whole into a topic file of its own, reached by an entry; a short one (a few lines, or under
:data:`SHORT_CHARS` characters: an instruction to the agent) stays as it is.  A section that
is already pointers — the author's list of entries, or memtui's own ``## Regions`` and
``## Recent`` that an earlier step of the same pass wrote — stays as it is, and a region pointer
never moves into a topic file.  Headings of sections that hold sub-sections stay, so the index
keeps its outline.  The frontmatter and the text above the first section stay.  The old index
is kept whole in ``MEMORY-history.md``.

An index is a dump when its entries are fewer than a tenth of its content lines, or take less
than a tenth of the characters of its detail (a task log of a hundred giant bullets beside a
list of rules).
"""

from __future__ import annotations

import re
from collections import Counter
from operator import attrgetter

from ..model.changeset import Changeset, Create, Operation
from ..model.index_edit import dominant_ending, heading_level, heading_title, new_entry
from ..model.snapshot import Index, IndexLine, LineKind, Snapshot, encode_text
from ..rules.budget import measure
from ..rules.validate import names_of
from .lines import NothingToRebuild, collapse_blank_lines, history_block, history_ops, index_op, target_size

SHORT_SECTION = 5  # non-blank lines a section may keep in the index as it is
SHORT_CHARS = 1_000  # ... or characters: a short instruction stays where it loads
LOG_FACTOR = 4  # a section this many times the size of the files it names is a log, not their summary
LOG_CHARS = 8_000  # ... when it is at least this long (a third of the cap)
_POINTERS = (LineKind.ENTRY, LineKind.REGION, LineKind.COMMENT)
_SENTENCE = re.compile(r"(?<=[.!?])\s")
_LABEL = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\[[ xX]?\]\s*)?(\*\*[^*]+\*\*\s*:?|[A-Z][\w ]{0,20}:\s)?\s*")


class NotAProseDump(NothingToRebuild):
    """The index is not a content dump (it has entries, or it is within its target)."""


def is_prose_dump(snapshot: Snapshot, target_lines: int | None = None) -> bool:
    """Whether the index is a content dump past its fill target."""
    index = snapshot.index
    if not index.exists:
        return False
    budget = measure(index, snapshot.config)
    t_lines, t_bytes = target_size(snapshot.config, target_lines)
    if budget.lines <= t_lines and budget.bytes <= t_bytes:
        return False
    if budget.cut_line is None and not budget.over_lines and not budget.over_bytes:
        return False  # every fact loads: moving them out would hide what the loader reads today
    kinds = Counter(map(attrgetter("kind"), index.lines))  # counted in C
    content = len(index.lines) - kinds[LineKind.BLANK] - kinds[LineKind.COMMENT]
    if kinds[LineKind.ENTRY] * 10 >= content:
        # few lines of detail, or very long ones: a dump by its characters (a running task log
        # of a hundred giant bullets beside a list of rules is a dump with many entries)
        entry_chars = sum(len(line.raw) for line in index.lines if line.kind is LineKind.ENTRY)
        detail_chars = sum(len(line.raw) for line in index.lines if line.kind is LineKind.TEXT)
        if entry_chars * 10 >= detail_chars:
            return False
    return any(len(body) > SHORT_SECTION * 2 for _, body in _sections(index))


def _sections(index: Index) -> list[tuple[int | None, list[IndexLine]]]:
    """(heading position or None for the top, the lines up to the next heading)."""
    out: list[tuple[int | None, list[IndexLine]]] = [(None, [])]
    for pos, line in enumerate(index.lines):
        if heading_level(line) >= 1 and line.kind is LineKind.HEADING:
            out.append((pos, []))
        else:
            out[-1][1].append(line)
    return out


def _named_files(snapshot: Snapshot, lines: list[IndexLine], names: dict[str, list[str]]) -> list[str]:
    found: dict[str, None] = {}
    for line in lines:
        for ref in line.refs:
            path = ref.resolved
            if path is not None and path not in snapshot.files and ref.kind == "mention" and "/" not in ref.target:
                hits = names.get(ref.target.lower(), [])
                path = hits[0] if len(hits) == 1 else None
            f = snapshot.files.get(path) if path is not None else None
            if f is not None and f.archived:  # folded into a gist: the gist is what to list
                gists = [g for g in f.frontmatter.names("folded_into") if g in snapshot.files]
                path, f = (gists[0], snapshot.files[gists[0]]) if gists else (None, None)
            if path is not None and f is not None:
                found[path] = None
    return list(found)


def _first_sentence(lines: list[IndexLine]) -> str:
    for line in lines:
        text = line.raw.strip()
        if not text or text.startswith(("```", "|", "<!--")):
            continue
        text = _LABEL.sub("", text, count=1).strip().strip("*_ ")
        if len(text) < 12 or text.lower().endswith(".md") or text.endswith(":"):
            continue
        text = _SENTENCE.split(text, maxsplit=1)[0]
        return text if len(text) <= 150 else text[:149].rsplit(" ", 1)[0] + "…"
    return ""


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:60].strip("_")
    return slug or "section"


def _free(snapshot: Snapshot, taken: set[str], slug: str, tried: dict[str, int] | None = None) -> str:
    """The first free name of ``slug.md``, ``slug_2.md``, … (taken from then on).  ``tried``
    keeps, per slug, where the last search stopped: the names before it stay taken, so the next
    search of a repeated slug starts there instead of walking them all again."""
    n = tried.get(slug, 1) if tried is not None else 1
    name = f"{slug}.md" if n == 1 else f"{slug}_{n}.md"
    while name.lower() in taken or name in snapshot.files:
        n += 1
        name = f"{slug}_{n}.md"
    taken.add(name.lower())
    if tried is not None:
        tried[slug] = n + 1
    return name


def pointers(snapshot: Snapshot, target_lines: int | None = None) -> Changeset:
    """Rewrite a prose-dump index as one entry per topic (raises :class:`NotAProseDump`)."""
    index = snapshot.index
    if not is_prose_dump(snapshot, target_lines):
        raise NotAProseDump(f"{index.path} is not a content dump past its fill target")
    names = names_of(snapshot.files)
    sections = _sections(index)
    levels = [heading_level(index.lines[pos]) if pos is not None else 0 for pos, _ in sections]
    out: list[str] = []
    created: list[Operation] = []
    taken = {p.rpartition("/")[2].lower() for p in snapshot.files}
    tried: dict[str, int] = {}
    listed: set[str] = set()
    elsewhere = {ln.resolved for ln in index.entries if ln.resolved}  # the files the index has entries for
    _, top = sections[0]
    out += [ln.raw for ln in top]
    for k, (pos, body) in enumerate(sections[1:], start=1):
        assert pos is not None
        heading = index.lines[pos]
        level = levels[k]
        has_children = k + 1 < len(sections) and levels[k + 1] > level
        content = [ln for ln in body if ln.kind is not LineKind.BLANK]
        if all(ln.kind in _POINTERS for ln in content):
            # already pointers (the author's entries, or memtui's own Regions and Recent): as they are
            out += _blank_then(out, [heading.raw] + [ln.raw for ln in body])
            listed.update(ln.resolved for ln in content if ln.kind is LineKind.ENTRY and ln.resolved)
            continue
        files = [p for p in _named_files(snapshot, body, names) if p not in listed]
        title = heading_title(heading)
        if level == 1 or has_children and len(content) <= SHORT_SECTION and not files:
            out += _blank_then(out, [heading.raw] + [ln.raw for ln in body])
            continue
        short = len(content) <= SHORT_SECTION or sum(len(ln.raw) for ln in content) <= SHORT_CHARS
        if short and not files:
            out += _blank_then(out, [heading.raw] + [ln.raw for ln in body if ln.kind is not LineKind.BLANK])
            continue
        regions = [ln.raw for ln in content if ln.kind is LineKind.REGION]  # memtui's own: they stay
        body = [ln for ln in body if ln.kind is not LineKind.REGION]
        # a section many times longer than the files it names is no summary of them (a task log that names
        # one note in passing): it moves whole into a topic file of its own, and the files it
        # names keep or get their entries
        chars = sum(len(ln.raw) for ln in content)
        log = bool(files) and chars > max(LOG_CHARS, LOG_FACTOR * sum(snapshot.files[p].size for p in files))
        if log:
            files = [p for p in files if p not in elsewhere]
        if len(files) == 1 and not log:
            f = snapshot.files[files[0]]
            out += [new_entry(f, f.description or _first_sentence(body) or f.title, files[0]).replace(
                f"[{' '.join(f.title.split()) or f.stem}]", f"[{_title(title)}]", 1)]
            listed.add(files[0])
            continue
        entries = []
        for path in files:
            f = snapshot.files[path]
            entries.append(new_entry(f, f.description or f.title, path))
            listed.add(path)
        if not files or log:
            name = _free(snapshot, taken, _slug(title), tried)
            text = "".join(ln.raw + "\n" for ln in body).strip("\n") + "\n"
            hook = _first_sentence(body) or title
            fm = (f"---\nname: {_title(title)}\ndescription: {hook}\ntype: reference\n"
                  f"moved_from: {index.path}\n---\n\n# {_title(title)}\n\n")
            data = encode_text(fm + text)
            created.append(Create(name, data))
            entries.append(f"- [{_title(title)}]({name}) — {hook}")
        entries += regions
        out += _blank_then(out, [heading.raw] + entries) if level <= 2 or has_children else entries
    new = "\n".join(collapse_blank_lines(out)) + "\n"
    data = (b"\xef\xbb\xbf" if index.bom else b"") + encode_text(new.replace("\n", _nl(index)))
    ops: list[Operation] = index_op(index, data) + created
    old = index.render().decode("utf-8", "surrogateescape").lstrip("\ufeff")
    ops += history_ops(snapshot, history_block(f"{index.path} as it was before it became pointers (whole)",
                                               old.splitlines()))
    return Changeset("pointers", f"turn the prose of {index.path} into {len(listed) + len(created)} "
                     f"entries ({len(created)} sections moved into topic files; the old text kept "
                     "whole in MEMORY-history.md)", tuple(ops))


def _title(text: str) -> str:
    return " ".join(text.replace("[", "(").replace("]", ")").split())


def _nl(index: Index) -> str:
    return dominant_ending(index)


def _blank_then(out: list[str], raws: list[str]) -> list[str]:
    return ([""] if out and out[-1].strip() else []) + raws

