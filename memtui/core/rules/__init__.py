"""Checking a root: the validator and the gate's rules, validation after a change, the loader's
budget, and the erasure check.

Above :mod:`memtui.core.read`; below the writer, whose gate they are.  A file of a cached load brings
its findings from its own cache (the cache itself sits above the writer, in
:mod:`memtui.core.stores`).  The face loads nothing: ``rules.validate`` loads the validator when it
is first used (PEP 562), so the stores above, which name the rules at their top, do not pay for
them on a run that never validates (a hook's Stop with nothing changed).
"""

from __future__ import annotations

from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - the modules, for the type checker
    from . import budget, budget_read, erasure, incremental, validate

__all__ = ["budget", "budget_read", "erasure", "incremental", "validate"]


def __getattr__(name: str) -> ModuleType:
    """A module of the package, loaded when first used (importing it sets the package's
    attribute, so this runs once per module; ``from . import`` would ask this again)."""
    if name == "budget":
        import memtui.core.rules.budget as budget
        return budget
    if name == "budget_read":
        import memtui.core.rules.budget_read as budget_read
        return budget_read
    if name == "erasure":
        import memtui.core.rules.erasure as erasure
        return erasure
    if name == "incremental":
        import memtui.core.rules.incremental as incremental
        return incremental
    if name == "validate":
        import memtui.core.rules.validate as validate
        return validate
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
