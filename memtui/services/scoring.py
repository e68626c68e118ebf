"""Staleness scores and consolidation candidates for the app, computed off the UI thread."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import Iterable

from memtui.core.judge.consolidate import Candidate as Pair
from memtui.core.judge.consolidate import Cluster, ScanResult
from memtui.core.judge.consolidate import scan as scan_root
from memtui.core.judge.contradictions import Contradiction
from memtui.core.judge.staleness import StalenessReport, root_times, score_root
from memtui.core.model.snapshot import Snapshot
from memtui.core.read.project import ProjectCache
from memtui.core.stores.rejections import forget_rejected, read_rejected, remember_rejected

#: one row of the Consolidate view: a near-duplicate pair, a cluster of them, or a contradiction
Proposal = Pair | Cluster | Contradiction

__all__ = ["Cluster", "Contradiction", "Pair", "Proposal", "ScanResult", "Scorer", "StalenessReport",
           "files_of", "kind_of", "reject_pair", "scan"]


class Scorer:
    """Staleness for one app session: keeps the project's facts between scorings, so that after
    a change only the files it touched are scored again."""

    def __init__(self) -> None:
        self._project_cache = ProjectCache()

    def score(self, snapshot: Snapshot, now: datetime | date, whole: Snapshot | None = None,
              ) -> StalenessReport:
        """The staleness report of a root, archived files included (``whole``: the root's whole
        snapshot when ``snapshot`` holds some of its files: their times are read together)."""
        times = root_times(whole) if whole is not None else None
        return score_root(snapshot, now, include_archived=True, cache=self._project_cache,
                          times=times)

    def rescore(self, report: StalenessReport | None, snapshot: Snapshot, touched: Iterable[str],
                now: datetime | date) -> StalenessReport:
        """``report`` with the touched (and new) files scored again and removed ones dropped."""
        if report is None:
            return self.score(snapshot, now)
        before = {r.path for r in report.results}
        wanted = {p for p in touched if p in snapshot.files}
        wanted |= {p for p in snapshot.files if p not in before}
        partial = replace(snapshot, files={p: snapshot.files[p] for p in sorted(wanted)})
        fresh = self.score(partial, now, snapshot)
        results = {r.path: r for r in report.results if r.path in snapshot.files}
        documents = {p: what for p, what in report.documents if p in snapshot.files}
        for path in wanted:
            results.pop(path, None)
            documents.pop(path, None)
        results.update((r.path, r) for r in fresh.results)
        documents.update(fresh.documents)
        ordered = sorted(results.values(), key=lambda r: (-r.score, r.path))
        return StalenessReport(report.root, now, report.project, tuple(ordered), report.online,
                               tuple(sorted(documents.items())))


def scan(snapshot: Snapshot, include_sessions: bool = False) -> ScanResult:
    """Consolidation candidates of a root, less the pairs someone rejected (session files only
    when asked)."""
    return scan_root(snapshot, include_sessions=include_sessions,
                     rejected=read_rejected(snapshot.root))


def reject_pair(root: Path, a: str, b: str, undo: bool = False) -> None:
    """Remember that a person rejected a proposed pair, so it is not proposed again (``undo``:
    take that back)."""
    (forget_rejected if undo else remember_rejected)(root, a, b)


def kind_of(proposal: Proposal) -> str:
    """'pair', 'cluster' or 'contradiction'."""
    match proposal:
        case Contradiction():
            return "contradiction"
        case Cluster():
            return "cluster"
        case Pair():
            return "pair"


def files_of(proposal: Proposal) -> tuple[str, ...]:
    """The memory files a proposal is about, in the order the review shows them."""
    match proposal:
        case Contradiction(old=old, new=new):
            return (old, new)
        case Cluster(files=files):
            return tuple(files)
        case Pair(a=a, b=b):
            return (a, b)
