"""Trimming ``MEMORY.md`` past its fill target, in the governance rule's order (DESIGN §4.1 rule 3).

Nothing here runs on an index within its target.  Past it:

1. :func:`shorten` — only when the index's *characters* are past their target (a shorter
   line is still a line: an index over its lines only gains nothing), entry lines longer than
   ~200 characters, longest first, until the characters are within it: a long title or hook is
   cut to its own operative clauses (:func:`short_text`: what it is about, then every clause
   holding a status mark, a date or a rule's imperative, then numbers and names as they fit),
   never replaced by a generic summary, and left whole when those do not fit; an entry of a pin
   or a rule (:func:`is_rule_entry`) is never shortened.  The full line is kept in
   ``MEMORY-history.md``.
2. :func:`decay` — pointers leave the working set by **status before age**: files the author
   declared superseded, archived files still listed, ``FULLY_STALE`` files no guard holds
   (:func:`fully_stale`), then episodic entries (``session_*`` logs, ``project`` notes) oldest
   first, then the others, then entries whose line states a rule; ``user``/``feedback``/
   ``decision`` rules last.  An entry the same pass has just added (a live file that had no
   entry, or a topic file the pass wrote) decays only when nothing else brings the
   index within its cap — else the pass would file a live note as archived.  Pinned files and
   informal pins (``** ACTIVE **``, ``START HERE``, ``CRITICAL``) never decay here.  An index
   that the loader reads in full keeps every pointer to a live file: only the
   declared-superseded and archived ones leave it.  Each decayed line goes, byte for byte, into
   ``MEMORY-archive.md`` under its section's heading; a heading left empty goes with it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date, datetime
from pathlib import Path
from typing import Collection, Mapping

from ..judge.staleness import StalenessClass, score_root
from ..model.changeset import Changeset, Create, Move, Operation, Write, apply_to_snapshot
from ..model.index_edit import heading_title, new_entry, with_hook
from ..model.snapshot import Index, IndexLine, LineKind, MemoryFile, Snapshot, in_team
from ..rules.budget import measure, text_size
from .lines import (
    LONG_HOOK,
    LineEdit,
    NothingToRebuild,
    Outline,
    archive_index_of,
    file_age_key,
    history_block,
    history_ops,
    index_op,
    innermost_headings,
    line_states_rule,
    rule_stating_lines,
    target_size,
    unit_sizes,
)
from .targets import relink as relink_line

INFORMAL_PIN = re.compile(r"\*\*\s*(?:ACTIVE|START HERE)\b[^*]*\*\*|\bCRITICAL\b|START HERE")
RULE_TYPES = ("user", "feedback", "decision")
_CLAUSE = re.compile(r"(?<=\S)(?:\s+[-—–]\s+|:\s+|;\s+|\.\s+|\s+\()")
SHORT_HOOK = 150
SHORT_TITLE = 90
#: the marks an author gives an entry's state: kept by any shortened hook (upper case only:
#: "done" in a sentence is a word, ``DONE`` a status)
STATUS_MARK = re.compile(
    r"(?<![A-Za-z])(?:ACTIVE|CRITICAL|DONE|COMPLETE[D]?|CLOSED|BLOCKED|WIP|TODO|PENDING|SHIPPED|MERGED"
    r"|PASS(?:ED)?|FAIL(?:ED)?|SUPERSEDED|PARTIAL|DEPRECATED|START HERE|NEXT|IN PROGRESS|FIXED|VERIFIED"
    r"|LIVE|STANDING|HARD RULE|MANDATORY)(?![A-Za-z])"
    "|[\u2705\u2713\u2714\u274c\u23f3\u26a0\U0001f6a9\U0001f6a8\U0001f195\U0001f7e2\U0001f534\U0001f7e1"
    "\U0001f512\U0001f511\U0001f527\U0001f680\U0001f948\U0001f4cc]")
_DATE = re.compile(r"(?<!\d)(?:\d{4}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2})(?!\d)")
#: a number or a name (a backticked span, a file or path, an identifier written as code)
_FACT = re.compile(r"\d|`[^`]+`|\b[\w.-]+\.\w{1,5}\b|\b[a-z]+[A-Z]\w*|\b\w+_\w+\b|/\w")
#: where a hook's clauses part: a sentence's end, a dash between spaces, a semicolon, a middle dot
_PART = re.compile(r"(?<=[.;!?])\s+(?=\S)|\s+[—–-]\s+|\s*[;·|]\s+")


class NothingToTrim(NothingToRebuild):
    """The index is within its fill target (or nothing more may leave it)."""


def _size(index: Index, snapshot: Snapshot) -> tuple[int, int]:
    budget = measure(index, snapshot.config)
    return budget.lines, budget.bytes


def within_target(snapshot: Snapshot, target_lines: int | None = None, to_cap: bool = False) -> bool:
    lines, size = _size(snapshot.index, snapshot)
    t_lines, t_bytes = target_size(snapshot.config, target_lines, to_cap)
    return lines <= t_lines and size <= t_bytes


def first_clause(text: str, limit: int) -> str:
    """The text up to its first clause break, cut at a word under ``limit`` characters."""
    text = " ".join(text.split())
    head = text
    for match in _CLAUSE.finditer(text):  # the first clause long enough to say something
        if match.start() >= min(40, limit // 2):
            head = text[: match.start()]
            break
    if len(head) > limit:
        head = head[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:-—") + "…"
    return head


def _visible(line: IndexLine) -> int:
    return len(line.raw.strip())


def operative_words(text: str) -> list[str]:
    """What a shortened hook may not lose: its status marks (``ACTIVE``, ``DONE``, ✅, 🚩), its
    dates, and the clauses that state a rule (the imperative, in the folder's language)."""
    found = [m.group(0) for m in STATUS_MARK.finditer(text)] + [m.group(0) for m in _DATE.finditer(text)]
    found += [clause for clause in _PART.split(" ".join(text.split())) if line_states_rule(clause)]
    return list(dict.fromkeys(found))


def short_text(text: str, limit: int) -> str | None:
    """The text cut to its own operative clauses, in order, within ``limit`` characters: the
    first clause (what it is about), every clause holding a status mark, a date or a rule's
    imperative, then as many clauses holding numbers and names as fit; the author's words, never
    a generic summary.  None when the operative clauses alone do not fit (the text then stays
    whole) or nothing is saved."""
    text = " ".join(text.split())
    parts = [part.strip() for part in _PART.split(text) if part.strip()]
    if len(parts) < 2:
        return None
    must = {0} | {k for k, part in enumerate(parts)
                  if STATUS_MARK.search(part) or _DATE.search(part) or line_states_rule(part)}
    chosen = sorted(must)

    def joined(picked: list[int]) -> str:  # a sentence's full stop gives way to the "; " that joins it
        return "; ".join(parts[k].rstrip(";,") if n == len(picked) - 1 else parts[k].rstrip(";,.")
                         for n, k in enumerate(picked))

    if len(joined(chosen)) > limit:
        return None
    for k, part in enumerate(parts):  # then the numbers and names, in order, while they fit
        if k not in must and _FACT.search(part) and len(joined(sorted(chosen + [k]))) <= limit:
            chosen = sorted(chosen + [k])
    short = joined(chosen)
    if any(word not in short for word in operative_words(text)):
        return None
    return short if len(short) < len(text) else None


def is_rule_entry(line: IndexLine, f: MemoryFile | None) -> bool:
    """Whether an entry is a pin's or a rule's: its file pinned or a ``user``/``feedback``/
    ``decision`` rule (by type or name), or its line an informal pin (``** ACTIVE **``,
    ``START HERE``, ``CRITICAL``).  Such an entry is never shortened: what it says is what the
    session must see."""
    if INFORMAL_PIN.search(line.raw):
        return True
    if f is None:
        return False
    if f.pinned:
        return True
    kind = f.frontmatter.get("type").strip().lower()
    return kind in RULE_TYPES or f.name.lower().startswith(tuple(t + "_" for t in RULE_TYPES))


def short_line(line: IndexLine, f: MemoryFile | None, files: Mapping[str, MemoryFile]) -> str | None:
    """The entry with its long title and hook cut to their operative clauses
    (:func:`short_text`), or None when it cannot be made shorter without losing one, or it is
    a pin's or a rule's entry (:func:`is_rule_entry`)."""
    if is_rule_entry(line, f):
        return None
    raw = line.raw
    new = raw
    # the line within ~200 characters (Claude Code's advice), each part keeping what it can
    if line.form is not None and line.form.value == "link" and len(line.link_text) > SHORT_TITLE:
        room = LONG_HOOK - (len(raw.strip()) - len(line.link_text)) - min(len(line.hook.strip()), SHORT_HOOK)
        title = short_text(line.link_text, max(SHORT_TITLE, room))
        start = raw.find("[" + line.link_text + "]")
        if title is not None and start >= 0:
            new = raw[: start + 1] + title + raw[start + 1 + len(line.link_text):]
    hook = line.hook.strip()
    if len(hook) > SHORT_HOOK:
        short = short_text(hook, max(SHORT_HOOK, LONG_HOOK - (len(new.strip()) - len(hook))))
        if short is not None:
            others = [ref.target for ref in line.refs if ref.target != line.target and ref.resolved in files]
            others = [t for t in dict.fromkeys(others) if t not in short]
            if others:  # the files the line names stay named: a mention may be how they are reached
                short += " (" + ", ".join(f"`{t}`" for t in others) + ")"
            try:
                new = with_hook(new, short)
            except ValueError:
                pass
    return new if len(new.strip()) < len(raw.strip()) else None


def shorten(snapshot: Snapshot, target_lines: int | None = None, to_cap: bool = False) -> Changeset:
    """Shorten long entry lines, longest first, until the index's characters are within their
    target (``to_cap``: within the cap).  Shortening saves no line: an index that is over its
    lines only is left alone."""
    index = snapshot.index
    if not index.exists or within_target(snapshot, target_lines, to_cap):
        raise NothingToTrim("the index is within its fill target")
    t_lines, t_bytes = target_size(snapshot.config, target_lines, to_cap)
    lines, size = _size(index, snapshot)
    if size <= t_bytes:
        raise NothingToTrim("only the index's lines are past the target: shortening saves no line")
    loader = snapshot.config.loader
    long = sorted((pos for pos, line in enumerate(index.lines)
                   if line.kind is LineKind.ENTRY and _visible(line) > LONG_HOOK and not line.scope),
                  key=lambda pos: -_visible(index.lines[pos]))
    edit = LineEdit(index)
    old: list[str] = []
    for pos in long:
        if size <= t_bytes:
            break
        line = index.lines[pos]
        new = short_line(line, snapshot.files.get(line.resolved or ""), snapshot.files)
        if new is None:
            continue
        edit.replace(pos, new)
        old.append(line.raw)
        size -= text_size(line.raw, loader) - text_size(new, loader)
    if not old:
        raise NothingToTrim("no entry line is long enough to shorten without losing what it says")
    ops: list[Operation] = index_op(index, edit.render())
    ops += history_ops(snapshot, history_block("long entry lines shortened by memtui (the full lines)", old))
    return Changeset("shorten", f"shorten {len(old)} long entry line{'s' if len(old) != 1 else ''} "
                     "(the full lines kept in MEMORY-history.md)", tuple(ops))


# ---------------------------------------------------------------- decay


def _declared_superseded(f: MemoryFile) -> bool:
    return f.status == "superseded" or bool(f.frontmatter.names("superseded_by"))


#: the decay class of an episodic entry (a session log's, a project note's): the first after
#: the declared superseded, the archived and the fully stale
EPISODIC_RANK = 3


def decay_rank(line: IndexLine, f: MemoryFile, stale: Collection[str] = (),
               states_rule: bool | None = None) -> tuple[int, str] | None:
    """The decay order of an entry's file: (class, why); None when it never decays here.
    ``stale``: the files ``FULLY_STALE`` with no guard holding them (:func:`fully_stale`)."""
    if f.pinned or INFORMAL_PIN.search(line.raw):
        return None
    if _declared_superseded(f):
        return 0, "declared superseded by its author"
    if f.archived:
        return 1, "archived, still listed"
    if f.path in stale:
        return 2, "fully stale: every reference it makes is gone, no guard holds it"
    kind = f.frontmatter.get("type").strip().lower()
    name = f.name.lower()
    if kind in RULE_TYPES or name.startswith(tuple(t + "_" for t in RULE_TYPES)):
        return 6, f"a {kind or name.split('_', 1)[0]} rule"
    episodic = name.startswith(("session_", "session-"))
    if states_rule is None:
        states_rule = line_states_rule(line.raw)
    if not episodic and states_rule:  # a note's entry states a standing rule:
        return 5, "its entry states a rule"  # just before the rules (a session log stays a log)
    if episodic or kind == "project":
        return EPISODIC_RANK, "episodic (a session log or project note)"
    return 4, f"type {kind or 'unknown'}"


def fully_stale(snapshot: Snapshot, now: datetime | date, repo: Path | str | None = None) -> frozenset[str]:
    """The files of a root that are ``FULLY_STALE`` with no guard holding them back (DESIGN §5),
    pinned files aside."""
    return frozenset(r.path for r in score_root(snapshot, now, repo).results
                     if r.cls is StalenessClass.FULLY_STALE and not r.guards
                     and r.path in snapshot.files and not snapshot.files[r.path].pinned)


def decay_plan(snapshot: Snapshot, target_lines: int | None = None, *, keep: Collection[str] = (),
               stale: Collection[str] = (), to_cap: bool = False) -> list[tuple[int, str]]:
    """Positions of the entries to decay, in order, each with why.

    ``keep``: files whose entries never decay here — those the same pass has just indexed (a
    live file that had no entry would otherwise go straight into the archive index, filed as
    archived).  ``stale``: the fully stale files no guard holds (:func:`fully_stale`), which
    decay after the archived ones and before the episodic ones.  ``to_cap``: only as many as bring
    the index within its cap (a pass that began on an index loading in full)."""
    index = snapshot.index
    if not index.exists or within_target(snapshot, target_lines, to_cap):
        return []
    budget = measure(index, snapshot.config)
    loads_in_full = budget.cut_line is None and not budget.over_lines and not budget.over_bytes
    t_lines, t_bytes = target_size(snapshot.config, target_lines, to_cap)
    lines, size = budget.lines, budget.bytes
    ranked: list[tuple[tuple[int, tuple[str, float]], int, str]] = []
    held: list[tuple[tuple[int, tuple[str, float]], int, str]] = []  # just indexed: the last resort
    stuck: set[str] = set()  # files with an entry that stays: none of their entries decays
    ruled = rule_stating_lines(index)
    for pos, line in enumerate(index.lines):
        if line.kind is not LineKind.ENTRY or line.scope:
            continue
        f = snapshot.files.get(line.resolved or "")
        if f is None or in_team(f.path):
            continue
        rank = decay_rank(line, f, stale, pos in ruled)
        if rank is None or (loads_in_full and rank[0] >= 2):
            stuck.add(f.path)
            continue
        if f.path in keep:
            held.append(((rank[0], file_age_key(f, line.raw)), pos,
                         "just indexed, but nothing else brings the index within its cap"))
            continue
        ranked.append(((rank[0], file_age_key(f, line.raw)), pos, rank[1]))
    ranked = [item for item in ranked if index.lines[item[1]].resolved not in stuck]
    held = [item for item in held if index.lines[item[1]].resolved not in stuck]
    ranked.sort(key=lambda item: (item[0][0], item[0][1], item[1]))
    must = sum(1 for item in ranked if item[0][0] < 2)  # declared superseded, archived: always

    sizes = unit_sizes(index, snapshot.config)
    outline = Outline(index)
    counted = set(range(len(index.lines))) - {n - 1 for n in budget.stripped}

    def fits(k: int, max_lines: int = t_lines, max_bytes: int = t_bytes) -> bool:
        """Whether the index is within these sizes once the first ``k`` ranked entries go (the
        lines they take with them are plain lines: what leaves is subtracted, nothing parsed)."""
        if k == 0:
            return lines <= max_lines and size <= max_bytes
        gone = _removal(index, {pos for _, pos, _ in ranked[:k]}, outline) & counted
        return lines - len(gone) <= max_lines and size - sum(sizes[p] for p in gone) <= max_bytes

    def fewest(low: int, high: int, *limits: int) -> int:
        """The fewest decays (in order) in ``low..high`` that bring the index within ``limits``."""
        if fits(low, *limits):
            return low
        while low < high:
            mid = (low + high) // 2
            if fits(mid, *limits):
                high = mid
            else:
                low = mid + 1
        return high

    high = fewest(must, len(ranked))
    cap = (snapshot.config.max_lines, snapshot.config.max_bytes)
    if held and high == len(ranked) and not fits(high, *cap):
        # the entries this pass added stay unless the index cannot be brought within its cap
        # without them: then the oldest of them decay, only as many as the cap needs
        held.sort(key=lambda item: (item[0][0], item[0][1], item[1]))
        start = len(ranked)
        ranked += held
        high = fewest(start, len(ranked), *cap)
    # a file's entries go together (one left behind would list it in both indexes)
    lines_of = index.lines
    chosen = {lines_of[pos].resolved for _, pos, _ in ranked[:high]}
    out = ranked[:high] + [item for item in ranked[high:] if lines_of[item[1]].resolved in chosen]
    return [(pos, why) for _, pos, why in out if lines_of[pos].resolved not in stuck]


def _removal(index: Index, removed: set[int], outline: Outline | None = None) -> set[int]:
    """The positions that leave with ``removed``: the entries, the headings they leave empty,
    and the blank lines that would be left doubled where a heading went."""
    emptied = (outline or Outline(index)).emptied(removed)
    gone = removed | emptied
    lines = index.lines
    reach = 0  # where the last walk stopped: a heading inside that run stops there too
    for pos in sorted(emptied):
        if pos < reach:
            continue  # (one walk per run of leaving lines: linear, however many headings)
        nxt = pos + 1
        while nxt < len(lines) and (nxt in gone or lines[nxt].kind is LineKind.BLANK):
            if lines[nxt].kind is LineKind.BLANK:
                gone.add(nxt)
            nxt += 1
        reach = nxt
    return gone


def decay(snapshot: Snapshot, target_lines: int | None = None,
          chosen: list[tuple[int, str]] | None = None, *, keep: Collection[str] = (),
          stale: Collection[str] = (), to_cap: bool = False) -> Changeset:
    """Decay entries past the fill target into the archive index, under their headings
    (``chosen``: the :func:`decay_plan` already made for this snapshot; ``keep`` and ``stale``
    as there)."""
    if chosen is None:
        chosen = decay_plan(snapshot, target_lines, keep=keep, stale=stale, to_cap=to_cap)
    if not chosen:
        raise NothingToTrim("nothing may decay: the index is within its target, or what is left "
                            "is pinned, a rule, or live in an index that loads in full")
    return decay_lines(snapshot, [pos for pos, _ in chosen])


def decay_lines(snapshot: Snapshot, positions: list[int], relink: dict[str, str] | None = None) -> Changeset:
    """Move these entry lines of ``MEMORY.md`` (and any heading they leave empty) into the
    archive index under the same headings, byte for byte (with the link pointed at the file's
    new place when ``relink`` moves it)."""
    index = snapshot.index
    removed = set(positions)
    outline = Outline(index)
    emptied = outline.emptied(removed)
    edit = LineEdit(index)
    for pos in _removal(index, removed, outline):
        edit.remove(pos)
    lines = index.lines
    by_heading: dict[str, list[str]] = defaultdict(list)
    owner = innermost_headings(index)
    for pos in sorted(removed):
        heads = [lines[owner[pos]].raw] if owner[pos] is not None else []  # type: ignore[index]
        line = lines[pos]
        raw = line.raw.lstrip()
        if relink and line.resolved in relink:
            kind = "wikilink" if line.form is not None and line.form.value == "wikilink" else "link"
            raw = relink_line(raw, line.target, kind, relink[line.resolved], False)
        by_heading[heads[-1] if heads else ""].append(raw)
    archive = archive_index_of(snapshot)
    aedit = LineEdit(archive)
    positions_of = {line.raw.strip(): pos for pos, line in enumerate(archive.lines) if line.kind is LineKind.HEADING}
    tail: list[str] = []
    if not archive.lines:
        tail += ["# Memory archive"]
    for heading, raws in by_heading.items():
        at = positions_of.get(heading.strip()) if heading else None
        if at is not None:
            end = next((j for j in range(at + 1, len(archive.lines))
                        if archive.lines[j].kind is LineKind.HEADING), len(archive.lines))
            last = max((j for j in range(at, end) if archive.lines[j].kind is not LineKind.BLANK), default=at)
            aedit.insert_after(last, *raws)
        else:
            tail += ["", heading, *raws] if heading else ["", *raws]
    if tail:
        if archive.lines and not archive.lines[-1].raw.strip() and tail[0] == "":
            tail = tail[1:]
        aedit.insert_after(len(archive.lines) - 1, *tail)
    if relink:  # archive-index lines of the moved files follow them
        for pos, line in enumerate(archive.lines):
            if line.kind is LineKind.ENTRY and line.resolved in relink:
                kind = "wikilink" if line.form is not None and line.form.value == "wikilink" else "link"
                new = relink_line(line.raw, line.target, kind, relink[line.resolved], False)
                if new != line.raw:
                    aedit.replace(pos, new)
    ops: list[Operation] = index_op(index, edit.render()) + index_op(archive, aedit.render())
    gone = [heading_title(lines[p]) for p in sorted(emptied)]
    note = f"; {len(gone)} heading{'s' if len(gone) != 1 else ''} left empty moved with them" if gone else ""
    return Changeset("decay", f"decay {len(removed)} entr{'y' if len(removed) == 1 else 'ies'} into "
                     f"{archive.path} under their headings{note}", tuple(ops))


# ---------------------------------------------------------------- declared superseded


def declared_superseded(snapshot: Snapshot) -> list[tuple[str, str]]:
    """Live-placed files their author declared superseded, with the evidence: ``superseded_by``
    naming an existing file, or ``status: superseded``.  Pinned files are left to a person."""
    out: list[tuple[str, str]] = []
    files = snapshot.files
    names = {p.rpartition("/")[2] for p in files}
    for path, f in files.items():
        if f.archived or f.pinned or path.startswith("archive/") or in_team(path):
            continue
        successors = f.frontmatter.names("superseded_by")
        alive = [s for s in successors if s in files or s.rpartition("/")[2] in names]
        if alive:
            out.append((path, f"superseded_by: {', '.join(alive)}"))
        elif f.status == "superseded":
            out.append((path, "status: superseded"))
    return out


def names_of_files(snapshot: Snapshot) -> dict[str, list[str]]:
    """The paths of a root's files by their bare names."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for p in snapshot.files:
        by_name[p.rpartition("/")[2]].append(p)
    return by_name


def successor_of(snapshot: Snapshot, path: str, leaving: Collection[str] = (),
                 by_name: Mapping[str, list[str]] | None = None) -> str | None:
    """The live file a declared-superseded file's ``superseded_by`` ends at, following a chain
    through successors that are themselves superseded (or ``leaving`` with it); None when the
    chain ends at no live file.  ``by_name``: :func:`names_of_files`, when the caller has it."""
    files = snapshot.files
    if by_name is None:
        by_name = names_of_files(snapshot)
    seen = {path}
    current = path
    while True:
        f = files.get(current)
        if f is None:
            return None
        nxt = None
        for name in f.frontmatter.names("superseded_by"):
            found = name if name in files else (by_name[name.rpartition("/")[2]][0]
                                                 if len(by_name.get(name.rpartition("/")[2], [])) == 1 else None)
            if found is not None and found not in seen:
                nxt = found
                break
        if nxt is None:
            return None
        g = files[nxt]
        if not (g.archived or nxt in leaving or _declared_superseded(g)):
            return nxt
        seen.add(nxt)
        current = nxt


def place_successors(snapshot: Snapshot, olds: Collection[str]) -> list[Operation]:
    """Entries for the successors of ``olds`` that have none, each right after the first entry
    of the note it supersedes (same indentation): the note that supersedes one that loaded takes
    its place in what loads.  A successor the archive index lists (decayed earlier) leaves it, its
    line kept byte for byte in ``MEMORY-history.md``.  Nothing when every successor is already
    listed."""
    index = snapshot.index
    if not index.exists:
        return []
    listed = {line.resolved for line in index.entries}
    edit = LineEdit(index)
    by_name: dict[str, list[str]] | None = None
    placed: set[str] = set()
    for pos, line in enumerate(index.lines):
        if line.kind is not LineKind.ENTRY or line.scope or line.resolved is None or line.resolved not in olds:
            continue
        if by_name is None:
            by_name = names_of_files(snapshot)
        successor = successor_of(snapshot, line.resolved, olds, by_name)
        if successor is None or successor in listed or in_team(successor):
            continue
        f = snapshot.files[successor]
        indent = line.raw[: len(line.raw) - len(line.raw.lstrip())]
        edit.insert_after(pos, indent + new_entry(f, f.description or f.title))
        listed.add(successor)
        placed.add(successor)
    if not edit.changed:
        return []
    ops: list[Operation] = index_op(index, edit.render())
    archive = snapshot.archive_index
    gone = [pos for pos, line in enumerate(archive.lines)
            if line.kind is LineKind.ENTRY and line.resolved in placed] if archive.exists else []
    if gone:
        aedit = LineEdit(archive)
        for pos in gone:
            aedit.remove(pos)
        ops += index_op(archive, aedit.render())
        state = apply_to_snapshot(snapshot, ops).snapshot
        ops += history_ops(state, history_block("archive-index lines of successors given an entry by memtui "
                                                "(their text before)", [archive.lines[p].raw for p in gone]))
    return ops


def archive_declared(snapshot: Snapshot, paths: list[str] | None = None) -> Changeset:
    """Move the files the author declared superseded into ``archive/``: their entries go, byte
    for byte, into the archive index under their headings, pointed at the new place; a live
    successor with no entry takes the place of the first entry it supersedes."""
    if paths is None:
        paths = [p for p, _ in declared_superseded(snapshot)]
    relink = {p: f"archive/{p}" for p in paths if f"archive/{p}" not in snapshot.files and p in snapshot.files}
    if not relink:
        raise NothingToTrim("no file is declared superseded outside archive/")
    placed = place_successors(snapshot, relink)
    if placed:
        snapshot = apply_to_snapshot(snapshot, placed).snapshot
    index = snapshot.index
    positions = [pos for pos, line in enumerate(index.lines)
                 if line.kind is LineKind.ENTRY and line.resolved in relink and not line.scope]
    ops: list[Operation] = [Move(src, dst) for src, dst in relink.items()]
    listed = {line.resolved for line in index.entries} | {line.resolved for line in snapshot.archive_index.entries}
    changes = decay_lines(snapshot, positions, relink) if index.exists else None
    index_ops = placed + (list(changes.ops) if changes is not None else [])
    missing = [p for p in relink if p not in listed]
    if missing:
        state = apply_to_snapshot(snapshot, index_ops[len(placed):]).snapshot if index_ops else snapshot
        archive = archive_index_of(state)
        aedit = LineEdit(archive)
        raws = [new_entry(snapshot.files[p], snapshot.files[p].description or snapshot.files[p].title,
                          relink[p]) for p in missing]
        if not archive.lines:
            raws = ["# Memory archive", ""] + raws
        aedit.insert_after(len(archive.lines) - 1, *raws)
        index_ops += index_op(archive, aedit.render())
    index_ops = _last_write_wins(index_ops)
    return Changeset("archive", f"archive {len(relink)} file{'s' if len(relink) != 1 else ''} their "
                     "author declared superseded", tuple(ops + index_ops))


def _last_write_wins(ops: list[Operation]) -> list[Operation]:
    """Writes of one index in a row as one write (from the first's expected bytes to the last's)."""
    out: list[Operation] = []
    for op in ops:
        path = getattr(op, "path", None)
        prev = next((k for k, o in enumerate(out) if getattr(o, "path", None) == path), None)
        if prev is None:
            out.append(op)
            continue
        first = out[prev]

        if isinstance(first, Write):
            out[prev] = Write(first.path, op.data, first.expected)  # type: ignore[union-attr]
        elif isinstance(first, Create):
            out[prev] = Create(first.path, op.data)  # type: ignore[union-attr]
    return out
