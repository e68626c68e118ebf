"""Trim step (c) of DESIGN §4.1 rule 3: long detail moved out of ``MEMORY.md`` into topic files.

Only past the fill target, after the long lines are shortened, and only when the loader does
not read the index in full (every fact of an index that loads in full reaches the session
today; moving it out would hide it).  Two kinds of detail move:

- the **sub-bullets under an entry**: the run of non-blank lines right below an entry,
  indented deeper than it, none of them an entry, heading or comment;
- a **prose block**: a run of non-blank text lines (inline facts, paragraphs, a fenced
  block whole) of at least :data:`PROSE_LINES` lines.

A block is moved only when it is at least :data:`DETAIL_CHARS` characters, it names no memory
file (a mention may be how a file is reached), it does not split a fenced block and it holds no
directive (``never``, ``do not``, ``avoid``, or the same in the other languages real folders are
written in, :func:`~.index_lines.states_rule`: a standing rule stays where it loads).  The
largest blocks move first, until the index is within its target.  Each block lands byte for
byte, below a frontmatter (``name``, ``description``, ``type``, ``moved_from``) and a title, in
a topic file of its own under a name no file has (never a file the author wrote), and its
place in the index takes one entry line reaching it: at the sub-bullets' indentation for
sub-bullets, as a list item for prose.  Headings, order and every other line stay.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model.changeset import Changeset, Create, Operation
from ..model.index_edit import heading_title, one_line
from ..model.snapshot import Index, IndexLine, LineKind, Snapshot, encode_text
from ..rules.budget import measure, text_size
from .lines import LineEdit, NothingToRebuild, index_op, innermost_headings, states_rule, target_size, unit_sizes
from .prose import _free, _slug

PROSE_LINES = 6  # a prose block this many lines long may move (a few lines of inline facts stay)
SUB_LINES = 2  # sub-bullets under an entry: this many lines at least
DETAIL_CHARS = 300  # ... and this many characters
_FENCE = re.compile(r"^\s*(```|~~~)")
_STRUCTURE = (LineKind.ENTRY, LineKind.HEADING, LineKind.REGION, LineKind.COMMENT, LineKind.SCOPE_FIELD,
              LineKind.BLANK)


class NothingToMove(NothingToRebuild):
    """No block of detail may move (the index is within its target, loads in full, or has none)."""


@dataclass(frozen=True)
class Block:
    """A run of index lines that may move into a topic file."""

    start: int  # first position
    end: int  # one past the last
    under: int | None  # the entry it details (sub-bullets), else None

    def lines(self, index: Index) -> tuple[IndexLine, ...]:
        return index.lines[self.start:self.end]


def _indent(raw: str) -> int:
    return len(raw) - len(raw.lstrip())


def _movable(lines: tuple[IndexLine, ...]) -> bool:
    """Long enough, naming no memory file, no fence split, and no directive (a standing rule a
    session must see unbidden stays where it loads)."""
    text = sum(len(line.raw.strip()) for line in lines)
    fences = sum(1 for line in lines if _FENCE.match(line.raw))
    return (text >= DETAIL_CHARS and fences % 2 == 0 and not any(line.refs for line in lines)
            and not states_rule("\n".join(line.raw for line in lines)))


_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*")


def _hook(lines: tuple[IndexLine, ...]) -> str:
    """The block's first line as a hook: list marker and emphasis dropped, cut under 150."""
    for line in lines:
        text = one_line(_MARK.sub("", line.raw, count=1).replace("**", "").replace("__", ""))
        if len(text) >= 12 and not _FENCE.match(line.raw):
            return text if len(text) <= 150 else text[:149].rsplit(" ", 1)[0] + "…"
    return f"{len(lines)} lines moved out of the index"


def blocks(index: Index) -> list[Block]:
    """The blocks of detail of an index that may move, in order."""
    lines = index.lines
    out: list[Block] = []
    claimed: set[int] = set()
    for pos, line in enumerate(lines):
        if line.kind is not LineKind.ENTRY or line.scope:
            continue
        depth = _indent(line.raw)
        end = pos + 1
        while end < len(lines) and lines[end].kind not in _STRUCTURE and _indent(lines[end].raw) > depth:
            end += 1
        if end - pos - 1 >= SUB_LINES and _movable(lines[pos + 1:end]):
            out.append(Block(pos + 1, end, pos))
            claimed.update(range(pos + 1, end))
    pos = 0
    while pos < len(lines):
        if pos in claimed or lines[pos].kind is not LineKind.TEXT or lines[pos].scope:
            pos += 1
            continue
        end = pos
        while end < len(lines) and end not in claimed and lines[end].kind is LineKind.TEXT:
            end += 1
        if end - pos >= PROSE_LINES and _movable(lines[pos:end]):
            out.append(Block(pos, end, None))
        pos = end
    return sorted(out, key=lambda b: b.start)


def _text(lines: tuple[IndexLine, ...]) -> str:
    """The lines as they were, each with its own ending."""
    return "".join(line.raw + (line.ending or "\n") for line in lines)


def move_detail(snapshot: Snapshot, target_lines: int | None = None, to_cap: bool = False) -> Changeset:
    """Move the largest blocks of detail into topic files until the index is within its target
    (``to_cap``: within its cap)."""
    index = snapshot.index
    if not index.exists:
        raise NothingToMove(f"no {index.path}")
    budget = measure(index, snapshot.config)
    t_lines, t_bytes = target_size(snapshot.config, target_lines, to_cap)
    if budget.lines <= t_lines and budget.bytes <= t_bytes:
        raise NothingToMove("the index is within its fill target")
    if budget.cut_line is None and not budget.over_lines and not budget.over_bytes:
        raise NothingToMove("the index loads in full: its detail reaches every session as it is")
    found = blocks(index)
    if not found:
        raise NothingToMove("no block of detail long enough to move")
    sizes = unit_sizes(index, snapshot.config)
    counted = set(range(len(index.lines))) - {n - 1 for n in budget.stripped}
    owner = innermost_headings(index)
    taken = {p.rpartition("/")[2].lower() for p in snapshot.files}
    tried: dict[str, int] = {}  # where each slug's search for a free name stopped
    lines, size = budget.lines, budget.bytes
    edit = LineEdit(index)
    created: list[Operation] = []
    for block in sorted(found, key=lambda b: -sum(sizes[p] for p in range(b.start, b.end))):
        if lines <= t_lines and size <= t_bytes:
            break
        moved = block.lines(index)
        if block.under is not None:
            entry = index.lines[block.under]
            title = f"{one_line(entry.title) or entry.target}: detail"
            stem = (entry.resolved or entry.target).rpartition("/")[2].removesuffix(".md")
            name = _free(snapshot, taken, _slug(stem) + "_detail", tried)
            f = snapshot.files.get(entry.resolved or "")
            kind = (f.frontmatter.get("type").strip() if f is not None else "") or "reference"
            indent = moved[0].raw[: _indent(moved[0].raw)]
        else:
            head = owner[block.start]
            section = heading_title(index.lines[head]) if head is not None else ""
            title = f"{section}: notes" if section else "Notes"
            slug = _slug(section or one_line(moved[0].raw)[:40])
            name = _free(snapshot, taken, ("index" if slug == "section" else slug) + "_notes", tried)
            kind, indent = "reference", ""
        title = title.replace("[", "(").replace("]", ")")
        hook = _hook(moved)
        front = (f"---\nname: {title}\ndescription: {one_line(hook)}\ntype: {kind}\n"
                 f"moved_from: {index.path}\n---\n\n# {title}\n\n")
        created.append(Create(name, encode_text(front + _text(moved))))
        new = f"{indent}- [{title}]({name}) — {one_line(hook)}"
        edit.replace(block.start, new)
        for pos in range(block.start + 1, block.end):
            edit.remove(pos)
        gone = [p for p in range(block.start, block.end) if p in counted]
        lines -= len(gone) - 1
        size -= sum(sizes[p] for p in gone) - text_size(new, snapshot.config.loader) - 1
    if not created:
        raise NothingToMove("the index is within its fill target")
    ops: list[Operation] = index_op(index, edit.render()) + created
    count = len(created)
    what = "a topic file of its own" if count == 1 else "topic files of their own"
    return Changeset("detail", f"move {count} block{'s' if count != 1 else ''} of detail into {what}, "
                     "each reached by one entry line", tuple(ops))
