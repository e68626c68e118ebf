"""Checking a root: the validator and the gate's rules, validation after a change, the loader's
budget, and the erasure check.

Above :mod:`memtui.core.read`; below the writer, whose gate they are.  A file of a cached load brings
its findings from its own cache (the cache itself sits above the writer, in
:mod:`memtui.core.stores`).  The face loads nothing: ``rules.validate`` loads the validator when it
is first used (PEP 562), so the stores above, which name the rules at their top, do not pay for
them on a run that never validates (a hook's Stop with nothing changed).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - the modules, for the type checker
    from . import budget, erasure, incremental, validate

__all__ = ["budget", "erasure", "incremental", "validate"]


def __getattr__(name: str) -> object:
    """A module of the package, loaded when first used."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
