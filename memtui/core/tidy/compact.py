"""Trim step (a) of DESIGN §4.1 rule 3: repeated path text compacted into ``Memory base`` sections.

Only past the fill target, and only where the index already speaks the governance dialect: a
``## PATH_SCOPE: <name>`` section, whose entries the parser reads relative to its
``Memory base:`` line (§1.3).  In any other section a link is what the agent follows as it is
written, so its path stays whole there.  In a PATH_SCOPE section:

- with a ``Memory base: `dir/``` line, an entry written from the root (``dir/x.md``) is
  written relative to the base (``x.md``);
- without one, when at least :data:`SHARED` of its entries share one folder, a
  ``Memory base: `that/folder/``` line goes under the heading (after its ``Scope:`` line) and
  those entries are written relative to it — only when that saves more than the line costs.

Shorter paths are no fewer lines: an index past its line target but within its character target
is not compacted at all (DESIGN §4.1: a trim step runs against the cap that binds).

The section keeps its heading, its order and every other line.  A section is compacted only if
every reference on its lines still resolves to the same file afterwards (read again with the
parser), so nothing becomes unreachable or changes meaning.  The old lines are kept, byte for
byte, in ``MEMORY-history.md``; each rewritten entry keeps its title and hook, so the gate's
erasure check finds it.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from typing import Collection

from ..model.changeset import Changeset, Operation
from ..model.index import parse_index
from ..model.snapshot import EntryForm, Index, IndexLine, LineKind, Snapshot, encode_text
from ..rules.budget import measure
from ..rules.validate import _extra_refs
from .lines import LineEdit, NothingToRebuild, history_block, history_ops, index_op, sections, target_size

SHARED = 3  # entries of one section sharing a folder before a Memory base line is worth adding


class NothingToCompact(NothingToRebuild):
    """No PATH_SCOPE section has path text to compact (or the index is within its target)."""


def _plain(target: str) -> str:
    return posixpath.normpath(target.replace("\\", "/")).lstrip("/") if target else ""


def _relative(line: IndexLine, base: str) -> str | None:
    """The entry's line with its path written relative to ``base``, or None when it is not
    written from the root under that base."""
    target = line.target
    plain = _plain(target)
    if not base or not plain.startswith(base) or line.resolved != plain or plain == base:
        return None
    short = plain[len(base):]
    raw = line.raw
    if line.form is EntryForm.LINK:
        old = f"]({target})"
        if raw.count(old) != 1:
            return None
        return raw.replace(old, f"]({short})", 1)
    if line.form is EntryForm.CODE:
        old = f"`{target}`"
    elif line.form is EntryForm.BOLD:
        old = f"**{target}**"
    else:
        return None
    return raw.replace(old, old.replace(target, short), 1) if raw.count(old) == 1 else None


def _resolutions(index: Index, start: int, end: int, files: Collection[str]) -> list[tuple[str | None, set[str]]]:
    """Per line, the entry's file and the files its other references reach (read as the
    validator reads them: as resolved, else from the root)."""
    out: list[tuple[str | None, set[str]]] = []
    for line in index.lines[start:end]:
        reached: set[str] = set()
        for ref in _extra_refs(line):
            if ref.resolved is not None and ref.resolved in files:
                reached.add(ref.resolved)
            elif _plain(ref.target) in files:
                reached.add(_plain(ref.target))
        out.append((line.resolved if line.kind is LineKind.ENTRY else None, reached))
    return out


def _same_reach(before: list[tuple[str | None, set[str]]], after: list[tuple[str | None, set[str]]]) -> bool:
    """Every entry names the same file, and every file a line reached it still reaches."""
    return len(before) == len(after) and all(
        b_entry == a_entry and b_refs <= a_refs for (b_entry, b_refs), (a_entry, a_refs) in zip(before, after))


def compact(snapshot: Snapshot, target_lines: int | None = None, to_cap: bool = False) -> Changeset:
    """Compact the repeated path text of the PATH_SCOPE sections into their Memory base (past the
    fill target; ``to_cap``: past the cap)."""
    index = snapshot.index
    if not index.exists or not index.scopes:
        raise NothingToCompact("no PATH_SCOPE section: no Memory base to compact paths into")
    budget = measure(index, snapshot.config)
    t_lines, t_bytes = target_size(snapshot.config, target_lines, to_cap)
    if budget.lines <= t_lines and budget.bytes <= t_bytes:
        raise NothingToCompact("the index is within its fill target")
    if budget.bytes <= t_bytes:  # shorter paths are no fewer lines
        raise NothingToCompact("only the index's lines are past the target: compacting paths saves no line")
    exists = snapshot.files.__contains__
    lines = index.lines
    edit = LineEdit(index)
    old: list[str] = []
    scopes = {scope.heading_line - 1: scope for scope in index.scopes}
    for head, _level, end in sections(index):
        scope = scopes.get(head)
        if scope is None:
            continue
        end = next((j for j in range(head + 1, end) if lines[j].kind is LineKind.HEADING
                    and lines[j].raw.lstrip().startswith("## ")), end)
        entries = [pos for pos in range(head + 1, end)
                   if lines[pos].kind is LineKind.ENTRY and lines[pos].resolved in snapshot.files]
        base = scope.memory_base
        added: str | None = None
        if not base:
            folders = Counter(_plain(lines[p].target).rpartition("/")[0] for p in entries
                              if lines[p].resolved == _plain(lines[p].target))
            folders.pop("", None)
            if not folders:
                continue
            folder, count = folders.most_common(1)[0]
            if count < SHARED:
                continue
            base = folder + "/"
            added = f"Memory base: `{base}`"
        rewritten = {pos: new for pos in entries if (new := _relative(lines[pos], base)) is not None}
        if not rewritten:
            continue
        saved = sum(len(encode_text(lines[p].raw)) - len(encode_text(new)) for p, new in rewritten.items())
        if added is not None and saved <= len(encode_text(added)) + 1:
            continue
        # the section read again as it would be: every reference must resolve as before
        after = parse_index(_section_bytes(index, head, end, rewritten, added), index.path, exists)
        now = _resolutions(after, 0, len(after.lines), snapshot.files)
        if added is not None:
            del now[_field_at(index, head, end) + 1]
        if not _same_reach(_resolutions(index, head, end, snapshot.files), now):
            continue
        for pos, new in rewritten.items():
            old.append(lines[pos].raw)
            edit.replace(pos, new)
        if added is not None:
            edit.insert_after(_field_at(index, head, end) + head, added)
    if not old:
        raise NothingToCompact("no PATH_SCOPE section repeats a folder its Memory base could hold")
    ops: list[Operation] = index_op(index, edit.render())
    ops += history_ops(snapshot, history_block("entry lines compacted into their section's Memory base "
                                               "by memtui (the lines before)", old))
    return Changeset("compact", f"compact the paths of {len(old)} entr{'y' if len(old) == 1 else 'ies'} into "
                     "their section's Memory base (the old lines kept in MEMORY-history.md)", tuple(ops))


def _field_at(index: Index, head: int, end: int) -> int:
    """Where a new Memory base line goes, as an offset from the heading: after the section's
    ``Scope:`` line when it comes before any entry, else right under the heading."""
    lines = index.lines
    for pos in range(head + 1, end):
        if lines[pos].kind is LineKind.ENTRY:
            break
        if lines[pos].kind is LineKind.SCOPE_FIELD:
            return pos - head
    return 0


def _section_bytes(index: Index, head: int, end: int, rewritten: dict[int, str], added: str | None) -> bytes:
    """The section (heading to its end) as it would read after the rewrite."""
    out: list[str] = []
    at = _field_at(index, head, end) + head
    for pos in range(head, end):
        out.append(rewritten.get(pos, index.lines[pos].raw))
        if added is not None and pos == at:
            out.append(added)
    return encode_text("".join(raw + "\n" for raw in out))
