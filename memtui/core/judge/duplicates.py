"""Is a new note already there?  The consolidation scan's candidates for one text not yet written.

Before the agent's ``memory_remember`` writes a topic file, the new note is judged as the scan
(:mod:`memtui.core.judge.consolidate`) would judge it once written: the same tokens, less the
tokens most of the root's titles or files share, the same recall join (title overlap at the
threshold, or title + body overlap at ``min(threshold, 0.6)``) and the same precision stage
(:class:`~memtui.core.judge.consolidate._Judge`: body, contained, title, content, verbatim and
the dated-family rules, with the TF-IDF cosine over the root's document frequencies).  What it
proposes is what ``memtui scan`` would propose a moment after the write — so the duplicate is
refused before it exists, with the note it repeats named ("update X instead").

:class:`DuplicateIndex` keeps the root's token sets and document frequencies between calls (the
agent's door keeps one per served root) and follows a new snapshot by the identity of its file
objects: a file the snapshot shares with the last one is not tokenized again, and the counts
move by what changed.  Pure: it reads snapshots, never the disk (a cached load's token sets
come from the stat cache, as the scan's do).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from datetime import date

from ..model.frontmatter import parse_frontmatter
from ..model.index_edit import one_line
from ..model.snapshot import MemoryFile, Snapshot
from .consolidate import (
    COMMON_MIN_FILES,
    COMMON_SHARE,
    DEFAULT_THRESHOLD,
    RECALL_BODY,
    _Judge,
    cached_token_sets,
    is_candidate,
    token_sets,
)
from .simjoin import MIN_TOKENS, TokenSets, check_threshold, overlap
from .textsim import similarity

#: at most this many notes are named in one answer
SHOWN = 3


@dataclass(frozen=True)
class Near:
    """An existing note the new text repeats: its path, its title, how it was judged."""

    path: str
    title: str
    kind: str  # duplicate | contained (one of the two holds the other)
    evidence: str  # the precision rule that fired (body, title, content, contained, …)
    score: float  # the larger of the title and title + body overlaps
    similarity: float  # character-level, 0–1
    larger: str  # "new" or "existing": which side holds the other (contained), else ""


class _Counts:
    """The root's document frequencies with the new note counted in (no copy of the counter)."""

    def __init__(self, df: Counter[str], new: frozenset[str]) -> None:
        self.df, self.new = df, new

    def __getitem__(self, tok: str) -> int:
        return self.df.get(tok, 0) + (tok in self.new)


class DuplicateIndex:
    """The token sets of a root's consolidation candidates, kept for the next question."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[MemoryFile, TokenSets]] = {}
        self._titles: Counter[str] = Counter()
        self._full: Counter[str] = Counter()
        self._skipped: dict[str, MemoryFile] = {}  # files that are no candidates (archived …)
        self._snapshot: Snapshot | None = None

    def follow(self, snapshot: Snapshot) -> None:
        """Bring the index to ``snapshot``: only files it does not share with the last one are
        tokenized again."""
        if snapshot is self._snapshot:
            return
        seen: set[str] = set()
        files, titles, full, skipped = self._files, self._titles, self._full, self._skipped
        now_skipped: dict[str, MemoryFile] = {}
        for path, f in snapshot.files.items():
            old = files.get(path)
            if old is not None and old[0] is f:  # the same file object: nothing to look at again
                seen.add(path)
                continue
            if skipped.get(path) is f or not is_candidate(f):
                now_skipped[path] = f
                continue
            seen.add(path)
            if old is not None:
                titles.subtract(old[1].title)
                full.subtract(old[1].full)
            sets = cached_token_sets(f)
            files[path] = (f, sets)
            titles.update(sets.title)
            full.update(sets.full)
        for path in [p for p in files if p not in seen]:
            _, sets = files.pop(path)
            titles.subtract(sets.title)
            full.subtract(sets.full)
        self._skipped = now_skipped
        if len(titles) > 4 * len(files) + 1024:  # drop the zero counts now and then
            self._titles = +titles
            self._full = +full
        self._snapshot = snapshot

    def near(self, title: str, body: str, type_: str = "project", description: str = "",
             threshold: float = DEFAULT_THRESHOLD) -> list[Near]:
        """The existing notes the scan would pair with a new note of this title, body and type,
        most similar first (at most :data:`SHOWN`)."""
        check_threshold(threshold)
        new_file = draft_file(title, body, type_, description)
        n = len(self._files) + 1
        common_title, common_full = self._common(n)
        raw = token_sets(new_file)
        new = TokenSets(raw.title - common_title, raw.full - common_full, raw.group)
        recall = min(threshold, RECALL_BODY)
        found: list[tuple[MemoryFile, TokenSets]] = []
        if len(new.full) >= MIN_TOKENS or len(new.title) >= MIN_TOKENS:
            new_full, new_title = new.full, new.title
            for f, sets in self._files.values():
                if new_full.isdisjoint(sets.full):  # (the new note's words hold no common one)
                    continue
                full_set = sets.full - common_full if common_full else sets.full
                title_set = sets.title - common_title if common_title else sets.title
                t = overlap(new_title, title_set)
                b = overlap(new_full, full_set)
                if (t is not None and t >= threshold) or (b is not None and b >= recall):
                    found.append((f, TokenSets(title_set, full_set, sets.group)))
        if not found:
            return []
        judge = _Judge([new_file] + [f for f, _ in found], [new] + [s for _, s in found], threshold,
                       _Counts(self._full, new.full))  # type: ignore[arg-type]
        judge._log_n = math.log(n + 1)  # the root's size, not the few files judged here
        out: list[Near] = []
        for k, (f, sets) in enumerate(found, start=1):
            verdict = judge.verdict(0, k)
            if verdict is None:
                continue
            t, b = overlap(new.title, sets.title), overlap(new.full, sets.full)
            larger = ""
            if verdict.kind != "duplicate":
                larger = "new" if len(new.full) > len(sets.full) else "existing"
            out.append(Near(f.path, f.title, verdict.kind, verdict.evidence, max(t or 0.0, b or 0.0),
                            similarity(new_file, f), larger))
        out.sort(key=lambda near: (-near.similarity, -near.score, near.path))
        return out[:SHOWN]

    def _common(self, n: int) -> tuple[frozenset[str], frozenset[str]]:
        """Tokens most titles, and most files, of the root share (as the scan drops them)."""
        if n < COMMON_MIN_FILES:
            return frozenset(), frozenset()
        limit = COMMON_SHARE * n
        return (frozenset(tok for tok, count in self._titles.items() if count > limit),
                frozenset(tok for tok, count in self._full.items() if count > limit))


def draft_file(title: str, body: str, type_: str = "project", description: str = "",
               today: date | None = None) -> MemoryFile:
    """The note ``remember`` would write, as a memory file (its path is a placeholder)."""
    day = (today or date.today()).isoformat()
    text = (f"---\nname: {one_line(title)}\ndescription: {one_line(description)}\n"
            f"type: {type_.strip().lower()}\ncreated: {day}\n---\n\n{body.strip()}\n")
    return MemoryFile(path="(new note).md", size=len(text.encode()), mtime=0.0, text=text,
                      frontmatter=parse_frontmatter(text))


def near_duplicates(snapshot: Snapshot, title: str, body: str, type_: str = "project",
                    description: str = "", threshold: float = DEFAULT_THRESHOLD) -> list[Near]:
    """:meth:`DuplicateIndex.near` on a fresh index of ``snapshot``."""
    index = DuplicateIndex()
    index.follow(snapshot)
    return index.near(title, body, type_, description, threshold)
