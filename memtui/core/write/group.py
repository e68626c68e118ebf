"""One change across several memory roots (a promotion from one layer to another): both gated,
both locked, one logical journal record, one undo — a thin layer on :mod:`memtui.core.write.commit`.

Each root keeps its own journal, so the record is written as one *half* per root (the usual
record, holding that root's operations and before-images) plus a ``group`` entry naming every
half: ``{"id", "coordinator", "members": [{"root", "record"}]}``.  Protocol:

1. every half is planned and gated on its own root (:func:`plan_group`); one refusal refuses all,
   and nothing is touched;
2. the locks are taken in a fixed order — the roots' real paths, sorted — so two memtuis
   promoting in opposite directions cannot deadlock; interrupted changes are finished; every
   touched path is checked against what was read;
3. the halves are written pending, every root's operations applied, and then the coordinator's
   half (the first root in lock order) is marked committed — **the one decision point** — and
   the other halves after it.

Any error before the decision rolls every root back.  A crash leaves pending halves; recovery of
any root (:func:`~memtui.core.write.recovery.resolve_pending`, called by
:func:`~memtui.core.write.recovery.recover`) looks at the coordinator's half: committed means the
change happened (every root was applied before the decision), so the pending half is only marked
committed; anything else means it did not, and the half is restored from its before-images like
any interrupted change.  Each root therefore comes back to *before* or *after* together with the
others, whichever root is opened first.

Undo and redo of a grouped change (from any of its roots) replay every half through the same
gate and commit them as one group again; they refuse while another root has a newer change of its
own on top of its half.

The ``group`` entry is stored state like any other (DESIGN §3: a folder may be hostile): before
an undo or redo opens another root, :func:`checked_members` requires every member to be a real
folder (not a symlink) holding ``MEMORY.md``, whose journal holds the named record committed with
the same group entry naming this root back — only that one record is read.  A record that fails
is set aside in ``.memtui/quarantine/`` with a message naming what it claimed; no other root is
recovered, walked or written.  Recovery follows a coordinator's decision only when the
coordinator's record names the pending half back (:func:`~memtui.core.write.recovery.resolve_pending`),
and otherwise restores the half inside its own root.
"""

from __future__ import annotations

import os
import stat
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NoReturn, Sequence

from ..model.changeset import Changeset, Create, Move
from ..model.journal import (
    COMMITTED,
    JOURNAL_DIR,
    JournalError,
    RecordName,
    list_records,
    parse_name,
    read_record,
    record_file,
    stacks,
)
from ..model.snapshot import Snapshot
from ..read.store import load_root
from ..rules.incremental import findings_cache
from . import fs, recovery
from .errors import NothingToUndo, Refused, TxnError, UnsafeFolder
from .preview import Preview, plan, redo_plan, undo_plan
from .recovery import GROUP, names_back
from .rootcommit import Prepared, prepare


def _key(root: Path | str) -> str:
    return os.path.realpath(root)


@dataclass(frozen=True)
class GroupPreview:
    """Every root's half of one change, planned and gated, in lock order (the first coordinates)."""

    previews: tuple[Preview, ...]

    @property
    def accepted(self) -> bool:
        return all(p.accepted for p in self.previews)

    @property
    def refused(self) -> Preview | None:
        """The first half the gate refused (None when every half is accepted)."""
        return next((p for p in self.previews if not p.accepted), None)

    @property
    def description(self) -> str:
        return self.previews[0].changeset.description if self.previews else ""

    def refusal_message(self) -> str:
        refused = self.refused
        if refused is None:
            return ""
        return f"{refused.before.root}: {refused.refusal_message()} — nothing was changed in any root"

    def to_json(self) -> dict[str, object]:
        """``{"verb", "accepted", "description", "roots": [{"root", <verb JSON>}…]}``."""
        first = self.previews[0].changeset.verb if self.previews else ""
        return {
            "verb": first,
            "accepted": self.accepted,
            "description": self.description,
            "roots": [{"root": str(p.before.root), **p.to_json()} for p in self.previews],
        }


@dataclass(frozen=True)
class GroupApplied:
    """A committed group: each root's journal id and its snapshot after the change."""

    record_ids: tuple[str, ...]
    snapshots: tuple[Snapshot, ...]
    preview: GroupPreview


def in_lock_order(previews: Sequence[Preview]) -> tuple[Preview, ...]:
    """Halves sorted by their roots' real paths (the order their locks are taken in)."""
    ordered = tuple(sorted(previews, key=lambda p: _key(p.before.root)))
    keys = [_key(p.before.root) for p in ordered]
    if len(set(keys)) != len(keys):
        raise ValueError("a grouped change touches each root once")
    return ordered


def plan_group(parts: Sequence[tuple[Snapshot, Changeset]]) -> GroupPreview:
    """Plan and gate each root's changeset (pure: nothing is touched).

    A file that leaves one root (moved within it, to its archive) and arrives in another (created
    there under the same name) brings its findings along: what it already had is not new in the
    root it arrives in."""
    caches = [findings_cache(snapshot) for snapshot, _ in parts]
    leaving = [{op.src for op in changeset.ops if isinstance(op, Move)} for _, changeset in parts]
    previews = []
    for i, (snapshot, changeset) in enumerate(parts):
        arriving = {op.path.rsplit("/", 1)[-1]: op.path for op in changeset.ops
                    if isinstance(op, Create)}
        carried = [replace(f, path=arriving[f.path.rsplit("/", 1)[-1]])
                   for j, cache in enumerate(caches) if j != i
                   for f in cache.findings
                   if f.path in leaving[j] and f.path.rsplit("/", 1)[-1] in arriving]
        previews.append(plan(snapshot, changeset, caches[i], carried=carried))
    return GroupPreview(in_lock_order(previews))


def commit_group(group: GroupPreview, timeout: float = fs.LOCK_TIMEOUT) -> GroupApplied:
    """Write every half of an accepted group as one change (see the module docstring)."""
    refused = group.refused
    if refused is not None:
        raise Refused(refused)
    previews = in_lock_order(group.previews)
    roots = [Path(p.before.root).absolute() for p in previews]
    with ExitStack() as locks:
        for root in roots:
            locks.enter_context(fs.root_lock(root, timeout))
        for root in roots:
            recovery.told(root, recovery.recover_locked(root))
        halves = [prepare(root, preview) for root, preview in zip(roots, previews)]
        members = [{"root": str(half.root), "record": half.rid} for half in halves]
        info = {"id": f"{halves[0].rid}@{roots[0]}", "coordinator": str(roots[0]), "members": members}
        for half in halves:
            half.record[GROUP] = info
        written: list[Prepared] = []
        try:
            for half in halves:
                written.append(half)
                half.write_record()
            for half in halves:
                half.apply()
            fs.mark_record(roots[0], halves[0].rid, COMMITTED)  # the decision: from here on it happened
        except (Exception, KeyboardInterrupt) as exc:
            errors = [half.rollback(exc) for half in reversed(written)]
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise errors[-1] from exc
        for half in halves[1:]:
            try:
                fs.mark_record(half.root, half.rid, COMMITTED)
            except OSError:  # recovery finds the coordinator committed and finishes this
                pass
        for half in halves:
            half.tidy()
        for root in roots:
            try:
                fs.prune_journal(root)
            except OSError:
                pass
    return GroupApplied(tuple(h.rid for h in halves), tuple(p.after for p in previews), group)


# ---------------------------------------------------------------- undo and redo


def group_of(root: Path | str, kind: str) -> dict[str, Any] | None:
    """The ``group`` entry of the change an undo (or redo) of ``root`` would replay, if grouped
    (as stored: see :func:`checked_members` before using it)."""
    found = _grouped_record(root, kind)
    return found[1] if found is not None else None


def _grouped_record(root: Path | str, kind: str) -> tuple[RecordName, Any] | None:
    """The record an undo (or redo) of ``root`` would replay and its ``group`` entry, if it has one."""
    records = list_records(root)
    st = stacks(records)
    seq = (st.done[-1] if st.done else None) if kind == "undo" else (st.redo[0] if st.redo else None)
    record = next((r for r in records if r.seq == seq and r.kind == "do"), None)
    if record is None:
        return None
    try:
        value = read_record(root, record)
    except ValueError:
        return None
    return (record, value[GROUP]) if GROUP in value else None


class ForeignGroup(ValueError):
    """A ``group`` entry that does not describe a change the other roots took part in (why);
    ``read`` is the one file of another root the check read (or tried to), if it got that far."""

    def __init__(self, message: str, read: str | None = None) -> None:
        super().__init__(message)
        self.read = read


#: members a group entry may name (a promotion names two)
MAX_MEMBERS = 8


def checked_members(root: Path | str, own: RecordName, info: Any, kind: str) -> list[tuple[str, str]]:
    """The ``(root, record id)`` of every member of the group entry of ``own`` (a committed
    record of ``root``), checked as stored state before any other root is opened.

    Each member must be an absolute path and a record id; this root must be among them under
    ``own``'s id; every other member must be a real folder (not a symlink) holding a regular
    ``MEMORY.md``, whose journal holds that record committed with the same group entry naming
    this root back under ``own``'s id.  Only that one record of another root is read (no walk,
    no other file).  :class:`ForeignGroup` says what failed; :class:`NothingToUndo` when a
    member root is simply gone.
    """
    if not isinstance(info, dict) or not isinstance(info.get("id"), str):
        raise ForeignGroup("its group entry is not an object with an id")
    members = info.get("members")
    if not isinstance(members, list) or not 2 <= len(members) <= MAX_MEMBERS:
        raise ForeignGroup("its group entry does not list two or more member roots")
    mine = _key(root)
    out: list[tuple[str, str]] = []
    for member in members:
        other = member.get("root") if isinstance(member, dict) else None
        rid = member.get("record") if isinstance(member, dict) else None
        name = parse_name(record_file(rid, COMMITTED)) if isinstance(rid, str) else None
        if not isinstance(other, str) or name is None or name.id != rid or name.kind != "do":
            raise ForeignGroup(f"a member {str(member)[:80]!r} is not a root and a record")
        if not os.path.isabs(other) or "\0" in other:
            raise ForeignGroup(f"'{other}' is not an absolute path")
        out.append((other, rid))
    keys = [_key(other) for other, _ in out]
    if len(set(keys)) != len(keys):
        raise ForeignGroup("it names one root twice")
    if (mine, own.id) not in [(key, rid) for key, (_, rid) in zip(keys, out)]:
        raise ForeignGroup(f"it does not name this folder's own record {own.id}")
    for (other, rid), key in zip(out, keys):
        if key != mine:
            _check_member(other, rid, info["id"], root, own.id, kind)
    return out


def _check_member(other: str, rid: str, group_id: str, root: Path | str, own_id: str, kind: str) -> None:
    """One other member root as :func:`checked_members` requires (lstat, then one record read)."""
    try:
        st = os.lstat(other)
    except FileNotFoundError:
        raise NothingToUndo(f"cannot {kind}: {other}, which this change also touched, is gone") from None
    except (OSError, ValueError) as exc:
        raise ForeignGroup(f"'{other}' cannot be looked at ({exc})") from None
    if stat.S_ISLNK(st.st_mode):
        raise ForeignGroup(f"'{other}' is a symlink")
    if not stat.S_ISDIR(st.st_mode):
        raise ForeignGroup(f"'{other}' is not a folder")
    try:
        index = os.lstat(os.path.join(other, "MEMORY.md"))
    except OSError:
        index = None
    if index is None or not stat.S_ISREG(index.st_mode):
        raise ForeignGroup(f"'{other}' is not a memory root (no MEMORY.md)")
    name = parse_name(record_file(rid, COMMITTED))
    assert name is not None
    record = os.path.join(other, *JOURNAL_DIR.split("/"), name.file)
    try:
        value = read_record(other, name)
    except JournalError:
        raise ForeignGroup(f"the journal of '{other}' holds no committed record {rid}", record) from None
    if not names_back(value.get(GROUP), group_id, root, own_id):
        raise ForeignGroup(f"the record {rid} of '{other}' is not part of this change (it does "
                           "not name this folder back)", record)


def _refuse_foreign(root: Path | str, own: RecordName, info: Any, why: ForeignGroup, kind: str) -> NoReturn:
    """Set ``own`` aside in ``.memtui/quarantine/`` (under the lock) and raise :class:`UnsafeFolder`
    naming what the record claimed."""
    members = info.get("members") if isinstance(info, dict) else None
    claimed = [m.get("root") for m in members if isinstance(m, dict)] if isinstance(members, list) else []
    shown = ", ".join(str(c)[:120] for c in claimed if isinstance(c, str) and _key(c) != _key(root))
    try:
        with fs.root_lock(Path(root).absolute()):
            recovery.quarantine_record(Path(root).absolute(), own.file)
        aside = f"memtui set it aside as {fs.QUARANTINE_DIR}/{own.file}, not applied"
    except (OSError, TxnError):
        aside = "memtui leaves it unapplied"
    if why.read is not None:  # the check reads at most this one record of another root
        read = (f"memtui read one file of another folder to check it, the journal record "
                f"{why.read}, and nothing else; nothing in any other folder was changed")
    else:
        read = "nothing in any other folder was read or changed"
    raise UnsafeFolder(
        f"cannot {kind}: the journal record {own.file} claims this change also touched "
        f"{shown or 'other folders'}, but {why}; {aside} — {read} (memtui never writes such a "
        "record; the folder may come from someone else)")


def replay_group_plan(snapshot: Snapshot, kind: str) -> GroupPreview | None:
    """Undo or redo of a grouped change, planned on every root it spans (None if not grouped).

    The group entry is stored state: :func:`checked_members` checks it before any other root is
    opened, and a record that fails is set aside (quarantined) with a message naming what it
    claimed.  Every other root is then recovered and loaded fresh; each must have its half of
    the change on top of its journal, else :class:`NothingToUndo` says which root to step back
    first.
    """
    found = _grouped_record(snapshot.root, kind)
    if found is None:
        return None
    own, info = found
    try:
        members = checked_members(snapshot.root, own, info, kind)
    except ForeignGroup as exc:
        _refuse_foreign(snapshot.root, own, info, exc, kind)
    mine = _key(snapshot.root)
    previews: list[Preview] = []
    for root, rid in members:
        here = snapshot if _key(root) == mine else _open(root, snapshot, kind)
        replay = undo_plan if kind == "undo" else redo_plan
        preview = replay(here)
        name = parse_name(record_file(rid, COMMITTED))
        if name is None or preview.target != name.seq:
            raise NothingToUndo(
                f"cannot {kind} '{_description(preview)}' here alone: {root} has a newer "
                f"change on top of its part; {kind} that one there first")
        previews.append(preview)
    return GroupPreview(in_lock_order(previews))


def _description(preview: Preview) -> str:
    return preview.changeset.description.split(": ", 1)[-1]


def _open(root: str, like: Snapshot, kind: str) -> Snapshot:
    if not os.path.isdir(root):
        raise NothingToUndo(f"cannot {kind}: {root}, which this change also touched, is gone")
    recovery.told(Path(root), recovery.recover(root))
    return load_root(root, like.config)


__all__ = [
    "GroupApplied",
    "GroupPreview",
    "commit_group",
    "group_of",
    "plan_group",
    "replay_group_plan",
]
