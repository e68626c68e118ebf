"""The ways in: commit a planned change (one root, or every root of a grouped undo or redo),
plan-and-commit, undo and redo.  Callers reach these through :mod:`memtui.core.write`."""

from __future__ import annotations

import os

from ..changeset import Changeset
from ..incremental import FindingsCache
from ..model import Snapshot
from .errors import Refused
from .fs import LOCK_TIMEOUT
from .group import commit_group, replay_group_plan
from .preview import Preview, plan, redo_plan, undo_plan
from .rootcommit import Applied, commit_root


def commit(preview: Preview, timeout: float = LOCK_TIMEOUT) -> Applied:
    """Write an accepted preview to disk (DESIGN §3); raise :class:`TxnError` if not.

    An undo or redo of a change that spans several roots replays it in all of them as one."""
    if not preview.accepted:
        raise Refused(preview)
    if preview.kind != "do":
        grouped = _commit_grouped_replay(preview, timeout)
        if grouped is not None:
            return grouped
    return commit_root(preview, timeout)


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
