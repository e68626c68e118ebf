"""The domain of memtui: pure Python, no Textual.  Read a root, validate it, change it safely."""

from __future__ import annotations

from .budget import Budget, budget_of, loaded_text, measure, record_pressure
from .discover import discover
from .model import BudgetConfig, Finding, Index, IndexLine, LineKind, MemoryFile, Snapshot
from .store import RootError, load_root
from .validate import GateResult, gate, validate

__all__ = [
    "Budget",
    "BudgetConfig",
    "Finding",
    "GateResult",
    "Index",
    "IndexLine",
    "LineKind",
    "MemoryFile",
    "RootError",
    "Snapshot",
    "budget_of",
    "discover",
    "gate",
    "load_root",
    "loaded_text",
    "measure",
    "record_pressure",
    "validate",
]
