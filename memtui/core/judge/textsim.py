"""How alike two memory files read, character by character: rapidfuzz's ``fuzz.ratio`` (0–1 here)
of title + body, each cut to :data:`SIMILARITY_CHARS`.

What the consolidation scan shows beside a pair's token score, and what a contradiction is said
with; below both, so neither imports the other for it.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from ..model.snapshot import MemoryFile

SIMILARITY_CHARS = 8_000


def similarity(a: MemoryFile, b: MemoryFile) -> float:
    """Character-level similarity of two files' title + body (rapidfuzz ``ratio``, 0–1)."""
    return float(fuzz.ratio(_similarity_text(a), _similarity_text(b))) / 100.0


def _similarity_text(f: MemoryFile) -> str:
    return (f.title + "\n" + f.body.strip())[:SIMILARITY_CHARS]
