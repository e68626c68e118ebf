"""Review of the agent's writes (DESIGN §12): revert one outside change, name the session that
made it, and count the changes not yet looked at.

A revert is an ordinary change built here and written by :mod:`memtui.core.write` through the
gate (one journal record, undoable): a changed file gets back the bytes the seen store kept
(:mod:`memtui.core.stores.seen_store`), a removed one is created again from them, a renamed one moves
back, and an added one moves to ``archive/`` as the archive verb does (its index entry goes to
the archive index) — nothing is erased.  A change whose earlier bytes were kept by hash only
(over 1 MiB, or the store was full) cannot be reverted, and says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ..model.changeset import Changeset, Create, Move, Refusal, Write, is_index
from ..model.snapshot import Snapshot
from ..stores.seen import Change, Inbox, advance, compare, tracked_bytes
from ..stores.seen_store import load_state, location, read_copies, sha256


def _seen_bytes(snapshot: Snapshot, path: str, in_root: bool | None) -> tuple[Change, bytes | None]:
    """The outside change at ``path`` (its current or old path) and the bytes last seen there."""
    loc = location(snapshot.root, in_root)
    state = load_state(loc)
    if state is None:
        raise Refusal("memtui has not looked at this folder before, so there is no earlier "
                      "version to go back to (run `memtui changes` to start remembering)")
    state = advance(snapshot.root, state, {})  # memtui's own changes, in memory only
    changes, _ = compare(snapshot, loc, state)
    change = next((c for c in changes if path in (c.path, c.old_path)), None)
    if change is None:
        raise Refusal(f"'{path}' has not changed outside memtui since the last look")
    seen = state.files.get(change.old_path or change.path)
    if seen is None:
        return change, None
    kept = read_copies(loc, state, [seen.sha256]) if seen.copy else {}
    return change, kept.get(seen.sha256)


def revert(snapshot: Snapshot, path: str, *, in_root: bool | None = None) -> Changeset:
    """The change that takes back the outside change at ``path``, for the gate to judge."""
    from .lifecycle import archive

    change, old = _seen_bytes(snapshot, path, in_root)
    if change.kind == "added":
        if is_index(change.path):
            raise Refusal(f"'{change.path}' was created outside memtui; an index is not archived "
                          "— edit it instead")
        moved = archive(snapshot, change.path, confirm=True)
        return Changeset("revert", f"revert: {change.path} was added outside memtui; archive it "
                         f"({moved.description})", moved.ops)
    if change.kind == "renamed":
        if change.old_path in snapshot.files:
            raise Refusal(f"'{change.old_path}' exists again; cannot move '{change.path}' back")
        return Changeset("revert", f"revert: move {change.path} back to {change.old_path}",
                         (Move(change.path, change.old_path),))
    if old is None:
        raise Refusal(f"no copy of '{change.path}' as last seen was kept (over 1 MiB, or the "
                      "store was full): there is nothing to revert to")
    if change.kind == "removed":
        return Changeset("revert", f"revert: create {change.path} again as last seen",
                         (Create(change.path, old),))
    current = tracked_bytes(snapshot)[change.path]
    return Changeset("revert", f"revert {change.path} to the version last seen",
                     (Write(change.path, old, current),))


# ---------------------------------------------------------------- who wrote it


def origin_session(snapshot: Snapshot, change: Change, writers: Iterable[str] = ()) -> str:
    """The session that wrote a change: the file's ``originSessionId`` (Claude Code writes it
    under ``metadata:`` since v2.1.214), else the newest transcript session whose Write or Edit
    named the file (``writers``, newest first), else ""."""
    f = snapshot.files.get(change.path)
    if f is not None and change.kind != "removed":
        origin = f.frontmatter.get("originSessionId").strip()
        if origin:
            return origin
    return next(iter(writers), "")


def with_sessions(inbox: Inbox, snapshot: Snapshot, writers_of: dict[str, tuple[str, ...]] | None = None) -> Inbox:
    """The inbox with each change's ``session`` named where the file or the transcripts say it."""
    writers_of = writers_of or {}
    changes = tuple(replace(c, session=origin_session(snapshot, c, writers_of.get(c.path, ())))
                    for c in inbox.changes)
    return replace(inbox, changes=changes)


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


