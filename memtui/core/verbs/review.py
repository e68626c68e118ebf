"""Review of the agent's writes (DESIGN §12): revert one outside change, name the session that
made it (the changes not yet looked at are counted by :func:`memtui.core.stores.seen.unseen_count`).

A revert is an ordinary change built here and written by :mod:`memtui.core.write` through the
gate (one journal record, undoable): a changed file gets back the bytes the seen store kept
(:mod:`memtui.core.stores.seen_store`), a removed one is created again from them, a renamed one moves
back, and an added one moves to ``archive/`` as the archive verb does (its index entry goes to
the archive index) — nothing is erased.  A change whose earlier bytes were kept by hash only
(over 1 MiB, or the store was full) cannot be reverted, and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..model.changeset import (
    Changeset,
    ChangesetError,
    Create,
    Move,
    Operation,
    Refusal,
    Write,
    is_index,
)
from ..model.snapshot import Snapshot
from ..stores.seen import Change, Inbox, advance, compare, tracked_bytes
from ..stores.seen_store import load_state, location, read_copies, sha256
from .lifecycle import archive


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


def revert_all(snapshot: Snapshot, paths: Sequence[str], *, in_root: bool | None = None) -> Changeset:
    """One change taking back the outside changes of every path (an index and the file it
    indexes go back together, where one alone would leave an error)."""
    if len(paths) == 1:
        return revert(snapshot, paths[0], in_root=in_root)
    from ..model.changeset import apply_to_snapshot

    ops: list[Operation] = []
    words = []
    now = snapshot
    for k, path in enumerate(paths):
        try:
            part = revert(now, path, in_root=in_root)  # on what the reverts before it leave
        except Refusal:
            if k and path in tracked_bytes(now) and not _differs(now, path, in_root):
                continue  # an earlier revert put it back already (an archived file's line)
            raise
        ops += part.ops
        words.append(part.description)
        now = apply_to_snapshot(now, part.ops).snapshot
    return Changeset("revert", "; ".join(words), tuple(ops))


def _differs(snapshot: Snapshot, path: str, in_root: bool | None) -> bool:
    """Whether ``path`` differs from the bytes last seen there."""
    state = load_state(location(snapshot.root, in_root))
    seen_file = state.files.get(path) if state is not None else None
    now = tracked_bytes(snapshot).get(path)
    return seen_file is None or now is None or sha256(now) != seen_file.sha256


#: at most this many other outside changes are tried beside a refused revert
TOGETHER_TRIES = 20


def revert_order(snapshot: Snapshot, path: str, *, in_root: bool | None = None
                 ) -> tuple[str, str] | None:
    """For a revert of ``path`` the gate refuses (``MEMORY.md`` before the topic file it
    indexes): another outside change whose revert helps, and how — ``"covers"`` (reverting it
    also puts ``path`` back as last seen: archiving an added file takes its index line too),
    ``"first"`` (it goes first, then ``path``) or ``"both"`` (only as one change); None when
    none does."""
    from ..write import plan

    loc = location(snapshot.root, in_root)
    state = load_state(loc)
    if state is None:
        return None
    state = advance(snapshot.root, state, {})
    changes, _ = compare(snapshot, loc, state)
    others = [c.path for c in changes if c.path != path and c.old_path != path][:TOGETHER_TRIES]
    seen_hash = state.files[path].sha256 if path in state.files else None
    for other in others:
        try:
            alone = plan(snapshot, revert(snapshot, other, in_root=in_root))
            if alone.accepted:
                now = tracked_bytes(alone.after).get(path)
                if now is not None and sha256(now) == seen_hash:
                    return other, "covers"
                if plan(alone.after, revert(alone.after, path, in_root=in_root)).accepted:
                    return other, "first"
            if plan(snapshot, revert_all(snapshot, [path, other], in_root=in_root)).accepted:
                return other, "both"
        except (Refusal, ChangesetError):
            continue
    return None


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
    changes = tuple(c if c.by is not None and c.session else
                    replace(c, session=origin_session(snapshot, c, writers_of.get(c.path, ())))
                    for c in inbox.changes)
    return replace(inbox, changes=changes)
