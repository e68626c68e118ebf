"""The domain of memtui: pure Python, no Textual.  Read a root, validate it, change it safely.

The names below load on first use (PEP 562), so importing one small submodule — the Claude Code
hooks import :mod:`memtui.core.claude_settings` before deciding anything — does not pay for the
validator.  ``validate`` and ``discover`` are also submodule names: import those functions from
their submodules.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

_WHERE = {
    "Budget": "budget",
    "budget_of": "budget",
    "loaded_text": "budget",
    "measure": "budget",
    "record_pressure": "budget",
    "discover": "discover",
    "BudgetConfig": "model",
    "Finding": "model",
    "Index": "model",
    "IndexLine": "model",
    "LineKind": "model",
    "MemoryFile": "model",
    "Snapshot": "model",
    "RootError": "store",
    "load_root": "store",
    "GateResult": "validate",
    "gate": "validate",
    "validate": "validate",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memtui.core' has no attribute '{name}'")
    value = getattr(importlib.import_module(f"memtui.core.{module}"), name)
    globals()[name] = value  # after the import, which bound the submodule under this name
    return value
