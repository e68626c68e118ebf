"""The inbox (DESIGN §10): what changed in a root outside memtui since the last look.

memtui keeps a baseline of every tracked file — the memory files and the two indexes — as last
seen (:mod:`memtui.core.stores.seen_store`).  :func:`inbox` compares the root with it and lists each
change once, newest first: ``added``, ``changed``, ``removed``, or ``renamed`` (the same bytes
under a new path), with a unified diff (when a copy was kept) and the validator's findings the
change introduced (findings of the baseline, rebuilt from the kept copies, against the findings
now, per path).  The first look at a root seeds the baseline and says so.  :func:`unseen_count` only counts the changes
(the session start's message to the person), writing nothing.

memtui's own changes are not news: before comparing, the baseline is advanced through the
journal records committed since it was stored — each path such a record touched moves to the
bytes memtui left there, when the baseline still held the bytes memtui found (otherwise another
program changed the file first, and the path stays news, showing both changes together).

The agent's changes through memtui (``memtui mcp``: a record whose ``by`` names the agent) are
news like any outside write: the baseline is not advanced through them, so they are listed,
with their diff, kept or reverted as any other; :func:`agent_writes` names the record (and the
Claude Code session) a change came from, when the file still holds what that record wrote.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Mapping

from ..model.changeset import Create, Move, Write, in_attic, is_archive_index, op_from_json
from ..model.frontmatter import parse_frontmatter
from ..model.index import parse_index
from ..model.journal import (
    AGENT,
    COMMITTED,
    PENDING,
    Author,
    JournalError,
    author_of,
    decode_value,
    list_records,
    read_record,
    stacks,
)
from ..model.snapshot import INDEX_NAME, Finding, Index, MemoryFile, Snapshot, decode_bytes
from ..rules.validate import validate
from .seen_store import (
    Location,
    Seen,
    SeenError,
    SeenState,
    describe,
    load_state,
    location,
    plain_relative,
    read_copies,
    save_state,
    sha256,
)

KINDS = ("added", "changed", "removed", "renamed")


@dataclass(frozen=True)
class Change:
    """One change made outside memtui since the last look."""

    kind: str  # added | changed | removed | renamed
    path: str  # the path now (for removed: the path that went)
    old_path: str = ""  # renamed: where the bytes were
    when: float = 0.0  # when it happened, as far as the disk tells (POSIX time)
    diff: str = ""
    findings: tuple[Finding, ...] = ()  # what the change introduced at its path
    note: str = ""  # e.g. compared by hash only
    session: str = ""  # the Claude Code session that wrote it, when known (memtui.core.verbs.review)
    by: Author | None = None  # the agent, through memtui's MCP server (:func:`agent_writes`)
    record: str = ""  # the journal record of that agent write (undo it with ``memtui undo``)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "path": self.path,
            "old_path": self.old_path or None,
            "when": datetime.fromtimestamp(self.when, timezone.utc).isoformat(timespec="seconds")
            if self.when else None,
            "diff": self.diff,
            "findings": [f.to_json() for f in self.findings],
            "note": self.note,
            "session": self.session or None,
            "by": self.by.to_json() if self.by is not None else None,
            "record": self.record or None,
        }


@dataclass(frozen=True)
class Inbox:
    """The changes of one root since the last look, newest first."""

    root: Path
    changes: tuple[Change, ...]
    findings: tuple[Finding, ...]  # every finding new since the last look (any path)
    seeded: bool  # this look stored the first baseline
    store: str  # where the baseline is kept
    in_cache: bool  # the root cannot be written: the baseline is in the user's cache
    tracked: int  # files in the baseline
    quarantined: tuple[str, ...] = ()  # stored paths refused as not plain paths inside the root
    note: str = ""  # e.g. no baseline yet and none may be written

    def to_json(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "seeded": self.seeded,
            "store": self.store,
            "in_cache": self.in_cache,
            "tracked": self.tracked,
            "changes": [c.to_json() for c in self.changes],
            "findings": [f.to_json() for f in self.findings],
            "quarantined": list(self.quarantined),
        }


# ---------------------------------------------------------------- the root now


def tracked_bytes(snapshot: Snapshot) -> dict[str, bytes]:
    """Every file the inbox tracks, by root-relative path: memory files and existing indexes."""
    out = {path: f.data for path, f in snapshot.files.items()}
    for index in (snapshot.index, snapshot.archive_index):
        if index.exists:
            out[index.path] = index.render()
    return out


def tracked_words(tracked: int, snapshot: Snapshot) -> str:
    """A baseline's count as the Files tab counts: the memory files, then the indexes by name
    ("58 files, MEMORY.md and MEMORY-archive.md")."""
    names = [index.path for index in (snapshot.index, snapshot.archive_index) if index.exists]
    files = max(0, tracked - len(names))
    words = [f"{files:,} file{'s' if files != 1 else ''}", *names]
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]


def _fingerprints(current: Mapping[str, bytes]) -> dict[str, tuple[str, int]]:
    return {path: (sha256(data), len(data)) for path, data in current.items()}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------- memtui's own changes


def _journal_after(root: Path, seq: int) -> tuple[list[dict[str, object]], int]:
    """Committed journal records after ``seq`` (stopping at a pending one) and the new position."""
    out: list[dict[str, object]] = []
    for record in list_records(root):
        if record.seq <= seq:
            continue
        if record.state == PENDING:
            break
        seq = record.seq
        if record.state != COMMITTED:
            continue
        try:
            out.append(read_record(root, record))
        except JournalError:
            continue
    return out, seq


def _after_images(record: Mapping[str, object]) -> tuple[dict[str, bytes | None], dict[str, bytes | None]]:
    """The before- and after-image of every path a record touched (paths checked; attic left out)."""
    raw_before = record.get("before", {})
    ops = record.get("ops", [])
    if not isinstance(raw_before, dict) or not isinstance(ops, list):
        raise JournalError("malformed record")
    before = {str(p): decode_value(v) for p, v in raw_before.items()}
    archive = next((p for p in before if is_archive_index(p)), None)

    def key(path: str) -> str:
        return archive if archive is not None and is_archive_index(path) else path

    state = dict(before)
    for value in ops:
        op = op_from_json(value)
        if isinstance(op, Move):
            state[key(op.dst)] = state.get(key(op.src))
            state[key(op.src)] = None
        elif isinstance(op, (Write, Create)):
            state[key(op.path)] = op.data
    keep = {p for p in state if plain_relative(p) and not in_attic(p)}
    return {p: before.get(p) for p in keep}, {p: state[p] for p in keep}


def advance(root: Path, state: SeenState, blobs: dict[str, bytes]) -> SeenState:
    """The baseline moved past memtui's own committed changes (``blobs`` gets their new bytes)."""
    records, seq = _journal_after(root, state.journal_seq)
    if seq == state.journal_seq:
        return state
    files = dict(state.files)
    for record in records:
        by = author_of(record)
        if by is not None and by.kind == AGENT:
            continue  # the agent's write through memtui: news for the person, as any other
        try:
            before, after = _after_images(record)
        except (JournalError, AttributeError, TypeError, ValueError):
            continue  # a damaged record: its paths stay news rather than being trusted
        for path, old in before.items():
            seen = files.get(path)
            if (seen.sha256 if seen else None) != (sha256(old) if old is not None else None):
                continue  # changed outside memtui before memtui touched it: still news
            new = after[path]
            if new is None:
                files.pop(path, None)
            else:
                digest = sha256(new)
                blobs[digest] = new
                files[path] = Seen(digest, len(new))
    return replace(state, files=files, journal_seq=seq)


# ---------------------------------------------------------------- the comparison


def _pair_renames(removed: list[str], added: list[str], base: Mapping[str, Seen],
                  now: Mapping[str, tuple[str, int]]) -> list[tuple[str, str]]:
    """(old, new) for removed and added paths holding the same bytes, each used once."""
    by_hash: dict[str, list[str]] = {}
    for path in sorted(removed):
        by_hash.setdefault(base[path].sha256, []).append(path)
    pairs = []
    for path in sorted(added):
        olds = by_hash.get(now[path][0])
        if olds:
            same_name = [o for o in olds if o.rsplit("/", 1)[-1] == path.rsplit("/", 1)[-1]]
            old = same_name[0] if same_name else olds[0]
            olds.remove(old)
            pairs.append((old, path))
    return pairs


def _when(root: Path, path: str, gone: bool) -> float:
    """When a change happened: the file's change time, or for a removal, its folder's."""
    rel = (path.rsplit("/", 1)[0] if "/" in path else "") if gone else path
    try:
        st = os.lstat(os.path.join(root, rel) if rel else root)
    except OSError:
        return 0.0
    return max(st.st_mtime, st.st_ctime)


def _diff(old: bytes | None, new: bytes | None, old_path: str, new_path: str) -> str:
    old_lines = decode_bytes(old).splitlines(keepends=True) if old is not None else []
    new_lines = decode_bytes(new).splitlines(keepends=True) if new is not None else []
    fromfile = f"a/{old_path}" if old is not None else "/dev/null"
    tofile = f"b/{new_path}" if new is not None else "/dev/null"
    out = []
    for line in difflib.unified_diff(old_lines, new_lines, fromfile, tofile, n=3):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _memory_file(current: Snapshot, path: str, data: bytes) -> MemoryFile:
    existing = current.files.get(path)
    if existing is not None and existing.data == data:
        return existing
    text = decode_bytes(data)
    return MemoryFile(path, len(data), existing.mtime if existing else 0.0, text, parse_frontmatter(text))


def baseline_snapshot(current: Snapshot, files: Mapping[str, bytes]) -> Snapshot:
    """The root as it was seen: ``files`` (path → bytes, indexes included) on ``current``'s frame."""
    memory = {p: _memory_file(current, p, d) for p, d in sorted(files.items())
              if p != INDEX_NAME and not (is_archive_index(p) and "/" not in p)}
    exists = memory.__contains__
    index: Index = Index(INDEX_NAME, False)
    archive: Index = Index(current.archive_index.path, False)
    for path, data in files.items():
        if path == INDEX_NAME:
            index = parse_index(data, INDEX_NAME, exists)
        elif is_archive_index(path) and "/" not in path:
            archive = parse_index(data, path, exists)
    return replace(current, index=index, archive_index=archive, files=memory)


def _new_findings(before: Iterable[Finding], after: Iterable[Finding]) -> list[Finding]:
    had: dict[tuple[str, str, str], int] = {}
    for f in before:
        had[f.key] = had.get(f.key, 0) + 1
    out = []
    for f in after:
        if had.get(f.key, 0) > 0:
            had[f.key] -= 1
        else:
            out.append(f)
    return out


def compare(snapshot: Snapshot, loc: Location, state: SeenState) -> tuple[list[Change], list[Finding]]:
    """The changes between a baseline and the root now, newest first, and the new findings."""
    current = tracked_bytes(snapshot)
    now = _fingerprints(current)
    base = state.files
    added = [p for p in now if p not in base]
    removed = [p for p in base if p not in now]
    changed = [p for p in now if p in base and base[p].sha256 != now[p][0]]
    if not (added or removed or changed):
        return [], []
    renames = _pair_renames(removed, added, base, now)
    renamed_old = {old for old, _ in renames}
    renamed_new = {new for _, new in renames}

    kept = read_copies(loc, state, (base[p].sha256 for p in changed + removed if base[p].copy))
    old_bytes: dict[str, bytes | None] = {p: kept.get(base[p].sha256) for p in changed + removed}
    # the root as seen: copies where they are kept, today's bytes where only a hash is
    then = {p: current[p] for p in now if p not in added}
    for path, data in old_bytes.items():
        if data is not None:
            then[path] = data
    for was, new in renames:
        then.pop(new, None)
        then[was] = current[new]
    before = validate(baseline_snapshot(snapshot, then))
    after = validate(snapshot)
    fresh = _new_findings(before, after)
    by_path: dict[str, list[Finding]] = {}
    by_subject: dict[str, list[Finding]] = {}  # e.g. a broken link to a file that went
    for f in fresh:
        by_path.setdefault(f.path, []).append(f)
        if f.subject:
            by_subject.setdefault(f.subject, []).append(f)

    out: list[Change] = []
    root = snapshot.root
    for path in changed:
        old = old_bytes.get(path)
        note = "" if old is not None else "no copy kept (over 1 MiB, or the store is full): compared by hash"
        diff = _diff(old, current[path], path, path) if old is not None else ""
        out.append(Change("changed", path, "", _when(root, path, False), diff,
                          tuple(by_path.get(path, ())), note))
    for path in added:
        if path in renamed_new:
            continue
        out.append(Change("added", path, "", _when(root, path, False), _diff(None, current[path], path, path),
                          tuple(by_path.get(path, ()))))
    folders: dict[str, float] = {}  # a removal's time is its folder's: one stat a folder

    def removed_when(path: str) -> float:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if folder not in folders:
            folders[folder] = _when(root, path, True)
        return folders[folder]

    for path in removed:
        if path in renamed_old:
            continue
        old = old_bytes.get(path)
        note = "" if old is not None else "no copy kept (over 1 MiB, or the store is full)"
        out.append(Change("removed", path, "", removed_when(path),
                          _diff(old, None, path, path) if old is not None else "",
                          tuple(by_subject.get(path, ())), note))
    for old_path, path in renames:
        diff = f"rename from {old_path}\nrename to {path}\n"
        out.append(Change("renamed", path, old_path, _when(root, path, False), diff,
                          tuple(by_path.get(path, ())) + tuple(by_subject.get(old_path, ()))))
    out.sort(key=lambda c: (-c.when, c.path))
    return out, fresh


# ---------------------------------------------------------------- the agent's writes through memtui


#: how many journal records back :func:`agent_writes` looks (the journal keeps 200)
AGENT_LOOKBACK = 200


def agent_writes(root: Path, current: Mapping[str, bytes | None]) -> dict[str, tuple[Author, str]]:
    """For each path of ``current`` (path → the bytes it holds now, None: gone) that the agent's
    newest change through memtui left as it is now, that change's author and record id.

    Reads the committed, not undone records newest first (at most :data:`AGENT_LOOKBACK`), and
    stops once every path is named: a person's later change of a path ends its search."""
    wanted = dict(current)
    out: dict[str, tuple[Author, str]] = {}
    records = list_records(root)
    done = set(stacks(records).done)
    for record in reversed(records[-AGENT_LOOKBACK:]):
        if not wanted:
            break
        if record.state != COMMITTED:
            continue
        try:
            value = read_record(root, record)
            before, after = _after_images(value)
        except (JournalError, AttributeError, TypeError, ValueError):
            continue
        by = author_of(value)
        agent = by is not None and by.kind == AGENT and record.kind == "do" and record.seq in done
        for path in list(wanted):
            if path not in after:
                continue
            if agent and by is not None and after[path] == wanted[path]:
                out[path] = (by, record.id)
            del wanted[path]  # an older record's bytes are not what is there now
    return out


def _attributed(root: Path, changes: list[Change], snapshot: Snapshot) -> list[Change]:
    """``changes`` with the agent's writes through memtui named (:func:`agent_writes`)."""
    if not changes or not list_records(root):
        return changes
    current = tracked_bytes(snapshot)
    paths: dict[str, bytes | None] = {}
    for change in changes:
        paths[change.path] = current.get(change.path)
        if change.old_path:
            paths[change.old_path] = None
    found = agent_writes(root, paths)
    out = []
    for change in changes:
        hit = found.get(change.path) or (found.get(change.old_path) if change.old_path else None)
        if hit is not None:
            by, record = hit
            change = replace(change, by=by, record=record, session=by.session or change.session)
        out.append(change)
    return out


# ---------------------------------------------------------------- the public calls


def _store_now(loc: Location, snapshot: Snapshot, journal_seq: int, seeded: str) -> SeenState:
    current = tracked_bytes(snapshot)
    return save_state(loc, _fingerprints(current), {sha256(d): d for d in current.values()},
                      journal_seq, seeded)


def _open(snapshot: Snapshot, in_root: bool | None,
          create_in_root: bool = True) -> tuple[Location, SeenState | None]:
    loc = location(snapshot.root, in_root, create_in_root=create_in_root)
    return loc, load_state(loc)


def inbox(snapshot: Snapshot, *, in_root: bool | None = None, persist: bool = True,
          create_in_root: bool = False) -> Inbox:
    """The changes made outside memtui since the last look (the first look seeds the baseline).

    A look creates nothing in the root (DESIGN §1.6): a first baseline goes to the user's
    cache, and stays there (see :func:`~memtui.core.stores.seen_store.location`), unless
    ``create_in_root`` (``memtui changes --mark-seen``, a change asked for).  With ``persist``
    False nothing is written at all (the app's ``--read-only``): no baseline is seeded, and
    memtui's own changes are skipped in memory only.
    """
    loc, state = _open(snapshot, in_root, create_in_root)
    if state is None and not persist:
        return Inbox(snapshot.root, (), (), False, describe(loc.folder), not loc.in_root, 0,
                     note="no baseline yet: memtui remembers what it has seen once it may write")
    if state is None:
        seq = max((r.seq for r in list_records(snapshot.root)), default=0)
        stored = _store_now(loc, snapshot, seq, _now())
        return Inbox(snapshot.root, (), (), True, describe(loc.folder), not loc.in_root, len(stored.files))
    blobs: dict[str, bytes] = {}
    advanced = advance(snapshot.root, state, blobs)
    if advanced is not state and persist:  # keep memtui's own changes out of the news for good
        try:
            save_state(loc, {p: (s.sha256, s.size) for p, s in advanced.files.items()}, blobs,
                       advanced.journal_seq, advanced.seeded)
        except (OSError, SeenError):
            pass  # the comparison below still uses the advanced baseline
        advanced = load_state(loc) or advanced
    changes, fresh = compare(snapshot, loc, advanced)
    changes = _attributed(snapshot.root, changes, snapshot)
    return Inbox(snapshot.root, tuple(changes), tuple(fresh), False, describe(loc.folder),
                 not loc.in_root, len(advanced.files), state.quarantined)


def ensure_baseline(snapshot: Snapshot, *, in_root: bool | None = None) -> bool:
    """Remember the root as it is now when memtui has never looked at it (what a first
    :func:`inbox` does, without comparing anything); True when this call stored it.  The agent's
    door calls it before the agent's first change, so that change is news to the person even
    when no one looked at the folder before."""
    loc, state = _open(snapshot, in_root)
    if state is not None:
        return False
    _store_now(loc, snapshot, max((r.seq for r in list_records(snapshot.root)), default=0), _now())
    return True


def mark_seen(snapshot: Snapshot, paths: Iterable[str] | None = None, *,
              in_root: bool | None = None) -> int:
    """Take the root's current state of ``paths`` (every change when ``None``) as seen.

    A path names a change by its current or (for a rename) its old path.  Returns how many
    changes were marked.
    """
    loc, state = _open(snapshot, in_root)
    if state is None:
        _store_now(loc, snapshot, max((r.seq for r in list_records(snapshot.root)), default=0), _now())
        return 0
    blobs: dict[str, bytes] = {}
    state = advance(snapshot.root, state, blobs)
    changes, _ = compare(snapshot, loc, state)
    wanted = None if paths is None else set(paths)
    current = tracked_bytes(snapshot)
    files = {p: (s.sha256, s.size) for p, s in state.files.items()}
    marked = 0
    for change in changes:
        if wanted is not None and change.path not in wanted and change.old_path not in wanted:
            continue
        marked += 1
        if change.old_path:
            files.pop(change.old_path, None)
        if change.kind == "removed":
            files.pop(change.path, None)
            continue
        data = current[change.path]
        files[change.path] = (sha256(data), len(data))
        blobs[sha256(data)] = data
    for path, seen in state.files.items():  # keep the bytes of unchanged files with a copy
        if path in current and seen.sha256 == sha256(current[path]):
            blobs.setdefault(seen.sha256, current[path])
    save_state(loc, files, blobs, state.journal_seq, state.seeded)
    return marked


# ---------------------------------------------------------------- unseen at session start


def unseen_count(snapshot: Snapshot, *, in_root: bool | None = None) -> int:
    """How many tracked files differ from what memtui last saw (by hash; memtui's own changes
    are not counted; nothing is written).  0 when there is no baseline yet."""
    try:
        loc = location(snapshot.root, in_root)
        state = load_state(loc)
    except Exception:  # noqa: BLE001 - a damaged store must not break a session start
        return 0
    if state is None:
        return 0
    state = advance(snapshot.root, state, {})
    now = {p: sha256(d) for p, d in tracked_bytes(snapshot).items()}
    base = {p: s.sha256 for p, s in state.files.items()}
    gone = [p for p in base if p not in now]
    added = [p for p in now if p not in base]
    renamed = len({base[p] for p in gone} & {now[p] for p in added})
    changed = sum(1 for p in now if p in base and base[p] != now[p])
    return changed + len(gone) + len(added) - renamed


def unseen_message(roots: Iterable[tuple[Path, int]]) -> str | None:
    """The person-facing ``systemMessage`` at session start when the agent changed memory files
    since the person last looked; None when nothing did."""
    total = sum(n for _, n in roots)
    if not total:
        return None
    return (f"the agent changed {total} memory file{'s' * (total != 1)} since you last looked "
            "— memtui changes")
