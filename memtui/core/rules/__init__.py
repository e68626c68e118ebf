"""Checking a root: the validator and the gate's rules, validation after a change, the loader's
budget, and the erasure check.

Above :mod:`memtui.core.read`; below the writer, whose gate they are.  A file of a cached load brings
its findings from its own cache (the cache itself sits above the writer, in
:mod:`memtui.core.stores`).  The face loads nothing; import the modules.
"""

__all__ = ["budget", "erasure", "incremental", "validate"]
