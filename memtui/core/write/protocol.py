"""The ways in: :func:`attempt`, the one protocol every caller uses, and the steps it is made of.

:func:`attempt` runs a change from start to end — recover, load, build and gate (once), then,
unless it is a dry run or the gate refuses, take the lock, make sure no other memtui committed
meanwhile (else load, build and gate again under the lock), and commit — and returns one
:class:`Attempt`.  A change reviewed by a person first (the app's confirm dialog, the dream's
checklist) is attempted with ``reviewed=``: it is committed as reviewed, or refused as changed on
disk.  A change over several roots (a promotion between layers) is :func:`attempt_group`.
Callers reach these through :mod:`memtui.core.write`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..model.changeset import Changeset
from ..model.journal import journal_names, records_of
from ..model.snapshot import BudgetConfig, Snapshot
from ..read.store import load_root
from ..rules.incremental import FindingsCache
from .errors import Refused
from .fs import LOCK_TIMEOUT, root_lock
from .group import GroupApplied, GroupPreview, commit_group, replay_group_plan
from .preview import Preview, plan, redo_plan, undo_plan
from .recovery import Recovered, recover, recover_seen
from .rootcommit import Applied, commit_root

#: builds and gates a change on a freshly loaded snapshot (``write.plan(s, verbs.pin(s, …))``,
#: ``write.undo_plan``, …); called once, or once more under the lock if another memtui committed
Planner = Callable[[Snapshot], Preview]
#: the same for a change over several roots: every root's snapshot in, the gated group out
GroupPlanner = Callable[[Sequence[Snapshot]], GroupPreview]
#: loads a root for a planner (:func:`memtui.core.read.store.load_root`, or through the stat cache)
Loader = Callable[[Path, BudgetConfig], Snapshot]


@dataclass(frozen=True)
class Attempt:
    """What one attempt at a change did: its gated preview, what was committed (None for a dry
    run or a refusal) and what recovery did before it."""

    preview: Preview
    applied: Applied | None
    recovered: Recovered

    @property
    def accepted(self) -> bool:
        return self.preview.accepted

    @property
    def record_id(self) -> str | None:
        return self.applied.record_id if self.applied is not None else None


@dataclass(frozen=True)
class GroupAttempt:
    """What one attempt at a change over several roots did."""

    preview: GroupPreview
    applied: GroupApplied | None
    recovered: tuple[Recovered, ...]

    @property
    def accepted(self) -> bool:
        return self.preview.accepted

    @property
    def record_ids(self) -> tuple[str, ...]:
        return self.applied.record_ids if self.applied is not None else ()


def _head(names: list[str] | None) -> str | None:
    """The newest record's file name among a journal folder's ``names``: it changes whenever any
    memtui commits here."""
    records = records_of(names)
    return records[-1].file if records else None


def attempt(root: Path | str, planner: Planner | None = None, *, reviewed: Preview | None = None,
            config: BudgetConfig | None = None, dry_run: bool = False,
            timeout: float = LOCK_TIMEOUT, load: Loader | None = None) -> Attempt:
    """Run one change on ``root`` by the protocol of DESIGN §3 (see the module docstring).

    A dry run reads only: no recovery, no lock, nothing created in the root.  ``load`` gives
    the snapshot the planner plans on (default :func:`~memtui.core.read.store.load_root`; for a
    commit, one whose texts are the bytes read, as its are).  Raises the
    writer's errors (:class:`Busy`, :class:`ChangedOnDisk`, :class:`WriteFailed`, …); a gate's
    refusal is not an error but an :class:`Attempt` whose ``preview`` is refused.
    """
    root = Path(root).absolute()
    if reviewed is not None:
        recovered = Recovered() if dry_run else recover(root, timeout)
        if dry_run or not reviewed.accepted:
            return Attempt(reviewed, None, recovered)
        return Attempt(reviewed, commit(reviewed, timeout), recovered)
    assert planner is not None, "attempt needs a planner or a reviewed preview"
    config = config if config is not None else BudgetConfig()
    # the journal folder is listed three times: here, under the lock, and after the commit
    recovered, seen = (Recovered(), None) if dry_run else recover_seen(root, timeout)
    head = _head(seen)
    load = load if load is not None else load_root
    preview = planner(load(root, config))
    if dry_run or not preview.accepted:
        return Attempt(preview, None, recovered)
    with root_lock(root, timeout):
        names = journal_names(root)
        if _head(names) != head:  # another memtui committed meanwhile: plan again, under the lock
            preview = planner(load(root, config))
            if not preview.accepted:
                return Attempt(preview, None, recovered)
        return Attempt(preview, commit(preview, timeout, journal=names), recovered)


def attempt_group(roots: Sequence[Path | str], planner: GroupPlanner | None = None, *,
                  reviewed: GroupPreview | None = None, config: BudgetConfig | None = None,
                  dry_run: bool = False, timeout: float = LOCK_TIMEOUT) -> GroupAttempt:
    """Run one change over several roots: each recovered and loaded, the group planned and gated
    once (or ``reviewed`` as a person saw it), then (unless a dry run or refused) committed under
    every root's lock as one change."""
    paths = [Path(root).absolute() for root in roots]
    config = config if config is not None else BudgetConfig()
    recovered = tuple(Recovered() if dry_run else recover(path, timeout) for path in paths)
    if reviewed is not None:
        group = reviewed
    else:
        assert planner is not None, "attempt_group needs a planner or a reviewed group"
        group = planner([load_root(path, config) for path in paths])
    if dry_run or not group.accepted:
        return GroupAttempt(group, None, recovered)
    return GroupAttempt(group, commit_group(group, timeout), recovered)


def commit(preview: Preview, timeout: float = LOCK_TIMEOUT, *,
           journal: list[str] | None = None) -> Applied:
    """Write an accepted preview to disk (DESIGN §3); raise :class:`TxnError` if not.

    An undo or redo of a change that spans several roots replays it in all of them as one.
    ``journal``: the root's journal folder's names, when the caller listed them holding its
    lock (it is not listed again before the change)."""
    if not preview.accepted:
        raise Refused(preview)
    if preview.kind != "do":
        grouped = _commit_grouped_replay(preview, timeout)
        if grouped is not None:
            return grouped
    return commit_root(preview, timeout, journal)


def _commit_grouped_replay(preview: Preview, timeout: float) -> Applied | None:
    """Undo or redo of a change that spans several roots: replayed in all of them as one
    (:mod:`memtui.core.write.group`); None when the change is this root's alone."""
    group = replay_group_plan(preview.before, preview.kind)
    if group is None:
        return None
    applied = commit_group(group, timeout)
    mine = os.path.realpath(preview.before.root)
    i = next(i for i, p in enumerate(group.previews) if os.path.realpath(p.before.root) == mine)
    return Applied(applied.record_ids[i], group.previews[i], applied.snapshots[i],
                   group.previews[i].cache)


def run(snapshot: Snapshot, changeset: Changeset, cache: FindingsCache | None = None,
        timeout: float = LOCK_TIMEOUT) -> Applied:
    """:func:`plan` then :func:`commit`; raises :class:`Refused` when the gate says no."""
    return commit(plan(snapshot, changeset, cache), timeout)


# ---------------------------------------------------------------- undo and redo


def undo(snapshot: Snapshot, cache: FindingsCache | None = None,
         timeout: float = LOCK_TIMEOUT) -> Applied:
    """Undo the newest committed change through the gate."""
    return commit(undo_plan(snapshot, cache), timeout)


def redo(snapshot: Snapshot, cache: FindingsCache | None = None,
         timeout: float = LOCK_TIMEOUT) -> Applied:
    """Redo the most recently undone change through the gate."""
    return commit(redo_plan(snapshot, cache), timeout)
