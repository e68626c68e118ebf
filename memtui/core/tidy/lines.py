"""Batch line edits of an index, and the side files a careful edit keeps (DESIGN §4.1).

A :class:`LineEdit` collects, by the position of each line in the parsed index, what replaces it
(``[]`` removes it) and what is inserted after it, then renders the new bytes in one pass: every
untouched line keeps its bytes and its own line ending, new lines take the file's dominant one.
:func:`history_ops` appends text, byte for byte, to ``MEMORY-history.md`` (created with a small
frontmatter and listed in the archive index the first time).  :func:`sections` gives each
heading's span, so an edit can tell which heading it would leave empty.
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime
from operator import add, attrgetter
from pathlib import Path
from typing import Iterable

from ..model.changeset import Changeset, Create, Operation, VerbError, Write, apply_to_snapshot
from ..model.frontmatter import parse_frontmatter
from ..model.index_edit import IndexDraft, dominant_ending, heading_level, new_entry
from ..model.snapshot import (
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    BudgetConfig,
    Index,
    IndexLine,
    LineKind,
    MemoryFile,
    Snapshot,
    encode_text,
)
from ..model.standing import _CJK, _EN_CUES, _LATIN_CUES, _rule_word, directive_word
from ..model.standing import line_states_rule as line_states_rule
from ..rules.erasure import erased_lines

HISTORY_NAME = "MEMORY-history.md"
HISTORY_HEADER = (
    "---\n"
    "name: MEMORY.md history\n"
    "description: text moved out of MEMORY.md by memtui (HTML comments, replaced hooks, repaired "
    "and rewritten lines), byte for byte; reachable through the archive index, never loaded\n"
    "type: reference\n"
    "---\n\n"
)
FILL_TARGET = 0.80
LONG_HOOK = 200  # Claude Code's advice: one line under ~200 characters


def rule_stating_lines(index: Index) -> frozenset[int]:
    """The positions of the index lines that state a rule (:func:`line_states_rule`), found by one
    scan of the index's text for the cues, so that a long index is not matched line by line."""
    lines = index.lines
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line.raw) + 1
    text = "\n".join(line.raw for line in lines)
    lowered = text.lower()
    candidates: set[int] = set()
    if len(lowered) == len(text):  # lower-casing kept every offset (it does but for a few letters)
        for cue in (*_EN_CUES, *_LATIN_CUES):
            at = lowered.find(cue)
            while at >= 0:
                candidates.add(bisect_right(starts, at) - 1)
                at = lowered.find(cue, at + len(cue))
        candidates.update(bisect_right(starts, match.start()) - 1 for match in _CJK.finditer(text))
    else:
        candidates = set(range(len(lines)))
    return frozenset(pos for pos in candidates if line_states_rule(lines[pos].raw))


def states_rule(text: str) -> bool:
    """Whether a text states a standing rule: a directive word (``never``, ``do not``, ``avoid``)
    or one of :data:`RULE_WORDS`.  The index edits keep such text where it loads."""
    lowered = text.lower()
    return directive_word(text, lowered) is not None or _rule_word(text, lowered)

class NothingToRebuild(VerbError):
    """The index is already what a rebuild would write."""


@dataclass
class LineEdit:
    """Edits of one index by original position (0-based); :meth:`render` applies them all."""

    index: Index
    replaced: dict[int, list[str]] = field(default_factory=dict)
    inserted: dict[int, list[str]] = field(default_factory=dict)  # after position (-1: on top)

    def replace(self, pos: int, *raws: str) -> None:
        self.replaced[pos] = list(raws)

    def remove(self, pos: int) -> None:
        self.replaced[pos] = []

    def insert_after(self, pos: int, *raws: str) -> None:
        self.inserted.setdefault(pos, []).extend(raws)

    @property
    def changed(self) -> bool:
        return bool(self.inserted) or any(
            raws != [self.index.lines[pos].raw] for pos, raws in self.replaced.items())

    def render(self) -> bytes:
        nl = dominant_ending(self.index)
        lines = self.index.lines
        raws: list[str] = list(self.inserted.get(-1, []))
        endings: list[str] = [nl] * len(raws)
        at = 0  # the untouched lines between two edited positions go in whole, without a loop
        for pos in sorted(p for p in self.replaced.keys() | self.inserted.keys() if 0 <= p < len(lines)):
            run = lines[at:pos]
            raws += map(_RAW, run)
            endings += map(_ENDING, run)
            line, replacing = lines[pos], self.replaced.get(pos)
            if replacing is None:
                raws.append(line.raw)
                endings.append(line.ending)
            elif replacing:
                raws += replacing
                endings += [nl] * (len(replacing) - 1) + [line.ending or nl]
            added = self.inserted.get(pos, [])
            raws += added
            endings += [nl] * len(added)
            at = pos + 1
        run = lines[at:]
        raws += map(_RAW, run)
        endings += map(_ENDING, run)
        if "" in endings[:-1]:  # the file's last line, no longer last: it ends as the others
            endings[:-1] = [ending or nl for ending in endings[:-1]]
        text = "".join(map(add, raws, endings))
        last = lines[-1].ending if lines else nl
        if not last and endings and endings[-1]:
            text = text[: -len(endings[-1])]  # no newline at the end, as before
        return (b"\xef\xbb\xbf" if self.index.bom else b"") + encode_text(text)


_RAW, _ENDING = attrgetter("raw"), attrgetter("ending")


def index_op(index: Index, data: bytes) -> list[Operation]:
    """The operation that gives an index these bytes (none when they are its bytes)."""
    if index.exists:
        old = index.render()
        return [] if old == data else [Write(index.path, data, old)]
    return [Create(index.path, data)] if data else []


def archive_index_of(snapshot: Snapshot) -> Index:
    """The archive index, or an empty one to start from."""
    return snapshot.archive_index if snapshot.archive_index.exists else Index(ARCHIVE_INDEX_NAME, False)


def append_to_archive(edit: LineEdit, raws: list[str]) -> None:
    """Append lines to the archive index, under a ``# Memory archive`` heading when it is empty."""
    lines = edit.index.lines
    if not lines and not edit.inserted:
        edit.insert_after(-1, "# Memory archive", "", *raws)
    else:
        edit.insert_after(len(lines) - 1, *raws)


def history_ops(snapshot: Snapshot, text: str, archive_ops_done: bool = False) -> list[Operation]:
    """Append ``text`` to ``MEMORY-history.md`` (created when missing, then listed in the
    archive index so it stays reachable)."""
    if not text:
        return []
    if not text.endswith(("\n", "\r")):
        text += "\n"
    history = snapshot.files.get(HISTORY_NAME)
    ops: list[Operation] = []
    if history is not None:
        old = history.text
        sep = "" if not old or old.endswith(("\n\n", "\r\n\r\n")) else "\n" if old.endswith(("\n", "\r")) else "\n\n"
        joined = old + sep + text
        ops.append(Write(HISTORY_NAME, encode_text(joined), history.data))
    else:
        full = HISTORY_HEADER + text
        ops.append(Create(HISTORY_NAME, encode_text(full)))
        history = MemoryFile(HISTORY_NAME, len(encode_text(full)), 0.0, full, parse_frontmatter(full))
    if not archive_ops_done and not any(
            line.resolved == HISTORY_NAME for line in snapshot.archive_index.entries):
        draft = IndexDraft(archive_index_of(snapshot), snapshot.files.__contains__)
        draft.append_entry(new_entry(history, history.description))
        ops.append(Write(draft.path, draft.render(), draft.original) if draft.original is not None
                   else Create(draft.path, draft.render()))
    return ops


def collapse_ops(snapshot: Snapshot, state: Snapshot, ops: list[Operation]) -> list[Operation]:
    """Writes and creates played one after another as one operation per file: from the bytes
    in ``snapshot`` to those in ``state`` (the ops hold no moves)."""
    order = list(dict.fromkeys(op.path for op in ops))  # type: ignore[union-attr]
    out: list[Operation] = []
    for path in order:
        new = _bytes_of(state, path)
        old = _bytes_of(snapshot, path)
        if new is None or new == old:
            continue
        out.append(Write(path, new, old) if old is not None else Create(path, new))
    return out


def _bytes_of(snapshot: Snapshot, path: str) -> bytes | None:
    if path == INDEX_NAME:
        return snapshot.index.render() if snapshot.index.exists else None
    if path.lower() == snapshot.archive_index.path.lower():
        return snapshot.archive_index.render() if snapshot.archive_index.exists else None
    f = snapshot.files.get(path)
    return f.data if f is not None else None


def collapse_blank_lines(raws: Iterable[str]) -> list[str]:
    """Lines with runs of blank lines made one, and no blank line at either end."""
    out: list[str] = []
    for raw in raws:
        if not raw.strip() and (not out or not out[-1].strip()):
            continue
        out.append(raw)
    while out and not out[-1].strip():
        out.pop()
    return out


def history_block(title: str, raws: list[str]) -> str:
    """A block of MEMORY-history.md: a heading saying what happened, then the old lines."""
    return f"## {title}\n\n" + "".join(raw + "\n" for raw in raws)


def sections(index: Index) -> list[tuple[int, int, int]]:
    """(heading position, level, end position) of every heading; the end is the next heading of
    the same or a higher level, or the end of the file."""
    lines = index.lines
    heads = [(pos, heading_level(line)) for pos, line in enumerate(lines) if line.kind is LineKind.HEADING]
    heads = [(pos, level) for pos, level in heads if level]
    out: list[tuple[int, int, int]] = []
    stack: list[tuple[int, int]] = []
    ends: dict[int, int] = {}
    for pos, level in heads:
        while stack and stack[-1][1] >= level:
            ends[stack.pop()[0]] = pos
        stack.append((pos, level))
    for pos, _ in stack:
        ends[pos] = len(lines)
    for pos, level in heads:
        out.append((pos, level, ends[pos]))
    return out


class Outline:
    """An index's headings, read once: the heading each line sits under, the sub-headings of
    each heading, and which headings hold anything."""

    def __init__(self, index: Index) -> None:
        lines = index.lines
        self.levels = [heading_level(line) for line in lines]
        self.owner = innermost_headings(index, self.levels)
        self.heads = [pos for pos, level in enumerate(self.levels) if level]
        self.children: dict[int, list[int]] = {}
        self.content: dict[int, list[int]] = {}  # non-blank, non-heading lines of a heading's own part
        self.filled: set[int] = set()
        for pos, line in enumerate(lines):
            head = self.owner[pos]
            if head is None or line.kind is LineKind.BLANK:
                continue
            self.filled.add(head)
            if self.levels[pos]:
                self.children.setdefault(head, []).append(pos)
            else:
                self.content.setdefault(head, []).append(pos)

    def emptied(self, removed: set[int]) -> set[int]:
        """Headings whose every content line (and sub-heading) leaves with ``removed``, and
        that held something: removing those lines would leave them empty, so they go too."""
        gone: set[int] = set()
        for pos in reversed(self.heads):  # innermost first: a parent sees its children's verdicts
            if pos not in self.filled:
                continue
            if all(p in removed for p in self.content.get(pos, ())) and \
                    all(child in gone for child in self.children.get(pos, ())):
                gone.add(pos)
        return gone


def innermost_headings(index: Index, levels: list[int] | None = None) -> list[int | None]:
    """For every position, the position of the nearest heading that encloses it (None above
    the first heading); one pass."""
    out: list[int | None] = []
    stack: list[tuple[int, int]] = []  # (position, level)
    for pos, line in enumerate(index.lines):
        level = levels[pos] if levels is not None else heading_level(line)
        if level:  # a heading sits under its parent, not under the sibling it ends
            while stack and stack[-1][1] >= level:
                stack.pop()
        out.append(stack[-1][0] if stack else None)
        if level:
            stack.append((pos, level))
    return out


def unit_sizes(index: Index, config: BudgetConfig) -> list[int]:
    """The size of each line with its ending in the unit the loader profile counts (a
    :class:`~memtui.core.rules.budget.Budget`'s ``bytes``): characters under ``claude-code``,
    bytes under ``raw`` — so that what leaves is subtracted in the unit the cap is in."""
    from ..model.snapshot import CLAUDE_CODE_LOADER
    from ..rules.budget import line_sizes, utf16_len

    if config.loader != CLAUDE_CODE_LOADER:
        return line_sizes(index)
    return [utf16_len(line.raw) + len(line.ending) for line in index.lines]


def target_size(config: BudgetConfig, target_lines: int | None, to_cap: bool = False) -> tuple[int, int]:
    """The fill target: (lines, bytes) — ``target_lines`` or 80% of the line cap, and 80% of
    the byte cap; ``to_cap``: the cap itself (a pass that began on an index loading in full trims
    only what brings it back within its cap: the rest is headroom, the person's call)."""
    if to_cap:
        return config.max_lines, config.max_bytes
    lines = target_lines if target_lines else int(config.max_lines * FILL_TARGET)
    return min(lines, config.max_lines), int(config.max_bytes * FILL_TARGET)


def configured_target_lines(env: dict[str, str] | None = None) -> int | None:
    """``index.target_lines`` of the user's ``$XDG_CONFIG_HOME/memtui/config.json`` (``~/.config``),
    or None (80% of the cap)."""
    env = dict(os.environ) if env is None else env
    base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME", "~")).expanduser() / ".config")
    try:
        data = json.loads((base / "memtui" / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    section = data.get("index") if isinstance(data, dict) else None
    value = section.get("target_lines") if isinstance(section, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def entry_is_lead(line: IndexLine) -> bool:
    """An entry whose link opens the list item (``- [T](x.md) …``), not a prose bullet that
    mentions a file further on."""
    if line.raw.startswith("- ["):  # the common entry, at once
        return True
    content = line.raw.lstrip().lstrip("-*+").lstrip()
    if content[:1].isdigit():
        content = content.lstrip("0123456789.)").lstrip()
    return content.startswith(("[", "**", "`", "*[", "_["))


_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
_LOOSE_DATE = re.compile(r"(?<!\d)(20\d\d|19\d\d)[-_](\d\d)[-_](\d\d)(?!\d)")


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


def keep_erased(snapshot: Snapshot, changeset: Changeset, what: str | None = None) -> Changeset:
    """The changeset, with the index lines it would take out without a trace appended to
    ``MEMORY-history.md`` (a decayed entry a region covers, a replaced hook, a dropped line)."""
    touched = changeset.paths
    if not any(path == INDEX_NAME or path.lower() == snapshot.archive_index.path.lower() for path in touched):
        return changeset
    after = apply_to_snapshot(snapshot, changeset.ops).snapshot
    erased = erased_lines(snapshot, after, touched)
    if not erased:
        return changeset
    title = what or f"lines {changeset.verb} took out of the index (their text before)"
    by_raw = {(line.number, line.raw.strip()): line.raw for index in (snapshot.index, snapshot.archive_index)
              for line in index.lines}
    raws = [by_raw.get((e.line, e.text), e.text) for e in erased]
    extra = history_ops(after, history_block(title, raws))
    kept = f"the index line{'s' if len(raws) != 1 else ''} it takes out kept in {HISTORY_NAME}"
    return Changeset(changeset.verb, f"{changeset.description} ({kept})", changeset.ops + tuple(extra),
                     changeset.diff)
