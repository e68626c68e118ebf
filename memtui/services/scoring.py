"""Staleness scores and consolidation candidates for the app, from the core when it has them."""

from __future__ import annotations

from dataclasses import replace
from importlib.util import find_spec
from datetime import date, datetime
from pathlib import Path
from typing import Any, Iterable

from memtui.core.model import Snapshot


def staleness_available() -> bool:
    return find_spec("memtui.core.staleness") is not None


def consolidation_available() -> bool:
    return find_spec("memtui.core.consolidate") is not None


class Scorer:
    """Staleness for one app session: keeps the project's facts between scorings, so that after
    a change only the files it touched are scored again."""

    def __init__(self) -> None:
        self._project_cache: Any = None

    def _cache(self) -> Any:
        if self._project_cache is None:
            from memtui.core.project import ProjectCache

            self._project_cache = ProjectCache()
        return self._project_cache

    def score(self, snapshot: Snapshot, now: datetime | date) -> Any:
        """The staleness report of a root (``core.staleness.StalenessReport``), or None."""
        if not staleness_available():
            return None
        from memtui.core.staleness import score_root

        return score_root(snapshot, now, include_archived=True, cache=self._cache())

    def rescore(self, report: Any, snapshot: Snapshot, touched: Iterable[str],
                now: datetime | date) -> Any:
        """``report`` with the touched (and new) files scored again and removed ones dropped."""
        if report is None:
            return self.score(snapshot, now)
        from memtui.core.staleness import StalenessReport, score_root

        before = {r.path for r in report.results}
        wanted = {p for p in touched if p in snapshot.files}
        wanted |= {p for p in snapshot.files if p not in before}
        partial = replace(snapshot, files={p: snapshot.files[p] for p in sorted(wanted)})
        fresh = score_root(partial, now, include_archived=True, cache=self._cache())
        results = {r.path: r for r in report.results if r.path in snapshot.files}
        results.update((r.path, r) for r in fresh.results)
        ordered = sorted(results.values(), key=lambda r: (-r.score, r.path))
        return StalenessReport(report.root, now, report.project, tuple(ordered), report.online)


def score(snapshot: Snapshot, now: datetime | date) -> Any:
    """The staleness report of a root (``core.staleness.StalenessReport``), or None."""
    return Scorer().score(snapshot, now)


def scan(snapshot: Snapshot) -> Any:
    """Consolidation candidates of a root (``core.consolidate.ScanResult``), or None."""
    if not consolidation_available():
        return None
    from memtui.core.consolidate import read_rejected, scan as scan_root

    return scan_root(snapshot, rejected=read_rejected(snapshot.root))


def reject_pair(root: Path, a: str, b: str) -> None:
    """Remember that a person rejected a proposed pair, so it is not proposed again."""
    from memtui.core.consolidate import remember_rejected

    remember_rejected(root, a, b)


def bucket_of(score_value: float) -> str:
    """fresh (<25) / aging / review (≥50) / stale (≥75)."""
    if score_value >= 75:
        return "stale"
    if score_value >= 50:
        return "review"
    if score_value >= 25:
        return "aging"
    return "fresh"
