"""The judgments of a root: staleness and ages, evidence of use, consolidation candidates
(near-duplicates, contradictions and the negated claims behind them, supersession), the same fact
in two layers, applicability.

Above :mod:`memtui.core.roots` and the stores they read their caches from.  :mod:`.simjoin` and
:mod:`.arrayjoin` are consolidation's own.  The face loads nothing; import the modules.
"""

__all__ = [
    "ages", "consolidate", "contradictions", "layers", "negations", "scopes", "staleness", "supersession", "usage",
]
