"""Staleness scores and consolidation candidates for the app, from the core when it has them."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

from memtui.core.model import Snapshot


def staleness_available() -> bool:
    try:
        import memtui.core.staleness  # noqa: F401
    except ImportError:
        return False
    return True


def consolidation_available() -> bool:
    try:
        import memtui.core.consolidate  # noqa: F401
    except ImportError:
        return False
    return True


def score(snapshot: Snapshot, now: datetime | date) -> Any:
    """The staleness report of a root (``core.staleness.StalenessReport``), or None."""
    if not staleness_available():
        return None
    from memtui.core.staleness import score_root

    return score_root(snapshot, now, include_archived=True)


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
