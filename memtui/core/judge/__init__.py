"""The judgments of a root: staleness and ages, evidence of use, consolidation candidates
(near-duplicates, contradictions, supersession), the same fact in two layers, applicability.

Above :mod:`memtui.core.roots` and the stores they read their caches from.  :mod:`.simjoin` and
:mod:`.arrayjoin` are consolidation's own.  The face loads nothing; import the modules.
"""

__all__ = ["ages", "consolidate", "contradictions", "layers", "scopes", "staleness", "supersession", "usage"]
