"""The obvious fix for a finding: one table of which verb repairs which rule, and in what words."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Callable

from ..model.changeset import Changeset
from ..model.snapshot import Finding, Snapshot
from .lifecycle import decay, drop_line, pin, promote


@dataclass(frozen=True)
class QuickFix:
    """How a rule is fixed: what it does in words, and whether the change is shown first."""

    text: str
    confirm: bool


@dataclass(frozen=True)
class BoundFix:
    """A quick fix for one finding: the core builder, whether to ask first, the file it is about."""

    build: Callable[[Snapshot], Changeset]
    confirm: bool
    path: str | None


#: rules with an obvious fix
QUICK_FIXES: dict[str, QuickFix] = {
    "orphan": QuickFix("add an entry for it to the Recent block (promote)", False),
    "pinned-not-indexed": QuickFix("add its entry to the Pinned block (pin)", False),
    "archived-in-index": QuickFix("take the entry out of the working set (decay)", False),
    "superseded-active": QuickFix("take the entry out of the working set (decay)", False),
    "broken-link": QuickFix("remove the line from the index (shown first)", True),
    "region-empty": QuickFix("remove the region pointer from the index (shown first)", True),
}

_FILE_VERBS: dict[str, Callable[..., Changeset]] = {
    "orphan": promote,
    "pinned-not-indexed": pin,
    "archived-in-index": decay,
    "superseded-active": decay,
}


def quick_fix_for(finding: Finding, snapshot: Snapshot) -> BoundFix | None:
    """The fix for ``finding`` in ``snapshot``, or None when its rule has none."""
    fix = QUICK_FIXES.get(finding.rule)
    if fix is None:
        return None
    verb = _FILE_VERBS.get(finding.rule)
    if verb is None:  # a line of an index: drop it
        if finding.line is None:
            return None
        return BoundFix(partial(drop_line, index_path=finding.path, number=finding.line),
                        fix.confirm, None)
    path = finding.path if finding.path in snapshot.files else finding.subject
    return BoundFix(partial(verb, path=path), fix.confirm, path)
